// The map stays true: every src/ path docs/architecture.md and CONTRIBUTING.md name exists,
// and every room of src/ (a folder one or two levels down; deeper ones are parts of a room:
// op families, graph passes) has its row in the architecture page's glossary.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '../helpers/paths.js';

const PAGES = ['docs/architecture.md', 'CONTRIBUTING.md'];
const read = (page: string) => fs.readFileSync(path.join(REPO_ROOT, page), 'utf8');

/** `src/…` paths a page names in backticks or in a link; templates such as `ops/<family>.ts` are left out. */
function namedPaths(text: string): string[] {
  return [...new Set([...text.matchAll(/(?<![\w/.])src\/[\w./-]*[\w/]/g)].map((m) => m[0]))].filter((p) => !p.includes('<'));
}

/** Folders of src/ one or two levels down, as `src/a/` and `src/a/b/` (the proto files' own tree left out). */
function rooms(): string[] {
  const dirs = (rel: string) =>
    fs
      .readdirSync(path.join(REPO_ROOT, rel), { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => `${rel}${e.name}/`);
  const top = dirs('src/');
  return [...top, ...top.filter((d) => d !== 'src/proto/').flatMap(dirs)].sort();
}

describe('the map (docs/architecture.md, CONTRIBUTING.md)', () => {
  for (const page of PAGES) {
    it(`every src/ path ${page} names exists`, () => {
      const named = namedPaths(read(page));
      assert.ok(named.length > 0, `${page} names no src/ path`);
      const missing = named.filter((p) => !fs.existsSync(path.join(REPO_ROOT, p)));
      assert.deepEqual(missing, [], `${page} names paths that do not exist`);
    });
  }

  it("every room of src/ has its row in the architecture page's glossary", () => {
    const rows = new Set([...read('docs/architecture.md').matchAll(/^\| `(src\/[\w/]+\/)` \|/gm)].map((m) => m[1]));
    const undescribed = rooms().filter((room) => !rows.has(room));
    assert.deepEqual(undescribed, [], 'rooms of src/ the glossary does not describe');
  });
});
