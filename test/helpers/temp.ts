// Temporary folders for a test file, removed when its process exits.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const made: string[] = [];
process.once('exit', () => {
  for (const d of made) fs.rmSync(d, { recursive: true, force: true });
});

export function tempDir(prefix = 'tfgate-test-'): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  made.push(d);
  return d;
}
