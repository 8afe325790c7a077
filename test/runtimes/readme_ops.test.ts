// README's lists of the ops each engine runs stay true: they are the block generated from the
// op tables (ops_markdown.ts), so an op added to a table and not to README fails here.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '../helpers/paths.js';
import { BEGIN, END, opsMarkdown } from './ops_markdown.js';

describe("README's op lists", () => {
  it('are the ones generated from the op tables', () => {
    const readme = readFileSync(path.join(REPO_ROOT, 'README.md'), 'utf8');
    const start = readme.indexOf(BEGIN);
    const end = readme.indexOf(END);
    assert.ok(start >= 0 && end > start, 'README has the op lists');
    assert.equal(readme.slice(start, end + END.length), opsMarkdown(), 'README is stale: node dist/test/runtimes/ops_markdown.js prints the block');
  });
});
