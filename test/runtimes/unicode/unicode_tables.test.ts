// The embedded runtime's Unicode tables (unicode_tables.ts) are what the generator makes from the
// @unicode/unicode-<version> packages, and were made for the Unicode of this Node's ICU.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import {
  generateUnicodeTables,
  NODE_VERSION,
  OLDER_VERSIONS,
  TABLES_FILE,
  unicodePackageDir,
} from '../../../test_util/unicode/unicode_tables.js';
import { TABLES_UNICODE_VERSION } from '../../../src/runtimes/embedded/ops/string/unicode_tables.js';

// UNICODE_PACKAGES_ROOT: a folder whose node_modules holds the packages, where the project's does not.
const root = process.env.UNICODE_PACKAGES_ROOT ?? process.cwd();
const missing = [...OLDER_VERSIONS, NODE_VERSION].filter((v) => !unicodePackageDir(root, v));

test("the tables are made for this Node's Unicode", () => {
  assert.equal(process.versions.unicode, TABLES_UNICODE_VERSION);
});

test(
  'unicode_tables.ts is what the generator makes from the UCD packages',
  { skip: missing.length ? `not installed: ${missing.map((v) => `@unicode/unicode-${v}`).join(', ')}` : false },
  async () => {
    assert.equal(fs.readFileSync(TABLES_FILE, 'utf8'), await generateUnicodeTables(root));
  },
);
