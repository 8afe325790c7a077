// Locations tests need, valid whether run from test/ (tsx) or dist/test/ (compiled).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

function findRepoRoot(start: string): string {
  let dir = start;
  while (!fs.existsSync(path.join(dir, 'package.json'))) {
    const up = path.dirname(dir);
    if (up === dir) throw new Error(`package.json not found above ${start}`);
    dir = up;
  }
  return dir;
}

export const REPO_ROOT = findRepoRoot(path.dirname(fileURLToPath(import.meta.url)));
/** ../shared/fixtures beside the checkout (CI has it there too). */
export const FIXTURES = path.resolve(REPO_ROOT, '..', 'shared', 'fixtures');
export const MODELS = path.join(FIXTURES, 'models');

export function fixtureModel(name: string, version: string): string {
  return path.join(MODELS, name, version);
}
