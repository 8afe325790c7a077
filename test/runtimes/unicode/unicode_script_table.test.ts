// The embedded runtime's Script table (unicode_script_table.ts) is what its generator makes from
// the @unicode/unicode-<version> packages, and agrees with this Node's own Script and White_Space
// properties wherever it gives an answer (Node's Unicode is one of the versions it was made from).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { generateUnicodeScriptTable, SCRIPT_TABLE_FILE, SCRIPT_VERSIONS } from '../../../test_util/unicode/unicode_script_table.js';
import { unicodePackageDir } from '../../../test_util/unicode/unicode_tables.js';
import { SCRIPT_NAMES, SCRIPT_RUNS, WHITE_SPACE } from '../../../src/runtimes/embedded/ops/string/unicode_script_table.js';

// UNICODE_PACKAGES_ROOT: a folder whose node_modules holds the packages, where the project's does not.
const root = process.env.UNICODE_PACKAGES_ROOT ?? process.cwd();
const missing = SCRIPT_VERSIONS.filter((v) => !unicodePackageDir(root, v));
const nodeUnicode = `${process.versions.unicode}.0`;

test(
  "each code point's Script in the table is this Node's, or marked as differing between the versions",
  { skip: SCRIPT_VERSIONS.includes(nodeUnicode) ? false : `this Node's Unicode (${nodeUnicode}) is none of the table's` },
  () => {
    const names = SCRIPT_NAMES.split(' ');
    const runs = SCRIPT_RUNS.split(' ').map((e) => e.split(':'));
    const regexes = names.map((n, i) => (i === 0 ? null : new RegExp(`^\\p{Script=${n}}$`, 'u')));
    let marked = 0;
    runs.forEach(([start, index], r) => {
      const end = r + 1 < runs.length ? parseInt(runs[r + 1][0], 16) : 0x110000;
      const regex = regexes[Number(index)];
      for (let cp = parseInt(start, 16); cp < end; cp++) {
        if (!regex) marked++;
        else if (!regex.test(String.fromCodePoint(cp))) assert.fail(`U+${cp.toString(16)}: not ${names[Number(index)]} here`);
      }
    });
    // Code points assigned since Unicode 12.1, and three that moved (U+0589, U+16FE2, U+16FE3).
    assert.ok(marked > 20_000 && marked < 25_000, `${marked} marked`);
    const whiteSpace = WHITE_SPACE.split(' ').flatMap((r) => {
      const [a, b = a] = r.split('-').map((h) => parseInt(h, 16));
      return Array.from({ length: b - a + 1 }, (_, i) => a + i);
    });
    const nodeWhiteSpace = [];
    for (let cp = 0; cp < 0x110000; cp++) if (/\p{White_Space}/u.test(String.fromCodePoint(cp))) nodeWhiteSpace.push(cp);
    assert.deepEqual(whiteSpace, nodeWhiteSpace);
  },
);

test(
  'unicode_script_table.ts is what the generator makes from the UCD packages',
  { skip: missing.length ? `not installed: ${missing.map((v) => `@unicode/unicode-${v}`).join(', ')}` : false },
  async () => {
    assert.equal(fs.readFileSync(SCRIPT_TABLE_FILE, 'utf8'), await generateUnicodeScriptTable(root));
  },
);
