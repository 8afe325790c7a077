// tfgate's version for the server metadata: package.json's, read once from the nearest one
// above this module (the same file from src/ and from dist/src/).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

let cached: string | undefined;

export function serverVersion(): string {
  if (cached !== undefined) return cached;
  cached = 'unknown';
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const file = path.join(dir, 'package.json');
    if (fs.existsSync(file)) {
      const pkg = JSON.parse(fs.readFileSync(file, 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'tfgate' && typeof pkg.version === 'string') cached = pkg.version;
      break;
    }
    const up = path.dirname(dir);
    if (up === dir) break;
    dir = up;
  }
  return cached;
}
