// Generates src/runtimes/embedded/ops/string/unicode_tables.ts from the Unicode Character
// Database as the npm packages @unicode/unicode-<version> publish it (UCD's Case_Folding,
// Default_Ignorable_Code_Point, Assigned and General_Category, one package per version).
//
// TF Text answers its normalization ops from the ICU it was built with: ICU 77.1 (Unicode 16.0)
// at its head, normalization data of ICU 64 (Unicode 12.1) embedded beside it, older ICUs in
// older releases. Node answers String.prototype.normalize from its own ICU (Unicode 17.0 when
// generated). The tables name every code point whose answer may differ between any Unicode from
// 12.1 to 16.0 and 17.0, so that the kernels refuse those instead of answering otherwise:
// - normalization (NFC, NFD, NFKC, NFKD): a code point assigned since the older version that
//   decomposes, is a mark (every non-zero combining class is a mark), or is part of such a
//   code point's decomposition. The normalization of assigned code points never changes
//   (Unicode's normalization stability), and ICU passes an unassigned code point unchanged.
// - NFKC_Casefold (CaseFoldUTF8): a code point whose NFKC_CF mapping differs, computed for each
//   version as UAX #44 derives it (NFKC, full case folding C+F, removal of
//   Default_Ignorable_Code_Point, repeated until stable; NFC at the end), with Node's NFKC,
//   valid for code points the older version assigns by the same stability.
// - composition pairs (for NormalizeUTF8WithOffsetsMap's edit records): the code points that
//   combine forward (first of a primary composite's canonical pair: Decomposition_Mapping
//   Canonical of length 2, not Full_Composition_Exclusion; Hangul included) and those that
//   combine backward (second of such a pair), in Node's Unicode; a code point whose
//   normalization may differ across versions is refused before these are read.
// Run: node dist/test_util/unicode/unicode_tables.js [dir whose node_modules holds the packages]
import { createRequire } from 'node:module';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import * as prettier from 'prettier';

export const OLDER_VERSIONS = ['12.1.0', '13.0.0', '14.0.0', '15.0.0', '15.1.0', '16.0.0'] as const;
export const NODE_VERSION = '17.0.0';
const CODE_POINTS = 0x110000;

interface UnicodeVersion {
  fold: Map<number, readonly number[]>;
  assigned: Uint8Array;
  ignorable: Uint8Array;
  mark: Uint8Array;
}

type Range = readonly [number, number];

/** The package directory of @unicode/unicode-<version>, resolved from `root`; null if not installed. */
export function unicodePackageDir(root: string, version: string): string | null {
  try {
    return path.dirname(createRequire(path.join(root, 'noop.js')).resolve(`@unicode/unicode-${version}/package.json`));
  } catch {
    return null;
  }
}

async function moduleDefault<T>(dir: string, file: string): Promise<T> {
  return ((await import(pathToFileURL(path.join(dir, file)).href)) as { default: T }).default;
}

async function codePointSet(dir: string, property: string): Promise<Uint8Array> {
  const set = new Uint8Array(CODE_POINTS);
  for (const r of await moduleDefault<Array<{ begin: number; end: number }>>(dir, `${property}/ranges.mjs`)) set.fill(1, r.begin, r.end);
  return set;
}

async function loadVersion(dir: string): Promise<UnicodeVersion> {
  const fold = new Map<number, readonly number[]>();
  for (const status of ['C', 'F']) {
    for (const [cp, to] of await moduleDefault<Map<number, number | number[]>>(dir, `Case_Folding/${status}/code-points.mjs`)) {
      fold.set(cp, Array.isArray(to) ? to : [to]);
    }
  }
  return {
    fold,
    assigned: await codePointSet(dir, 'Binary_Property/Assigned'),
    ignorable: await codePointSet(dir, 'Binary_Property/Default_Ignorable_Code_Point'),
    mark: await codePointSet(dir, 'General_Category/Mark'),
  };
}

const isSurrogate = (cp: number) => cp >= 0xd800 && cp <= 0xdfff;

/** NFKC_Casefold of one code point in version `u` (UAX #44's derivation of NFKC_CF). */
function nfkcCasefoldOf(u: UnicodeVersion, cp: number): string {
  if (!u.assigned[cp]) return u.ignorable[cp] ? '' : String.fromCodePoint(cp);
  let s = String.fromCodePoint(cp);
  for (;;) {
    let t = '';
    for (const ch of s.normalize('NFKC')) {
      const c = ch.codePointAt(0)!;
      if (u.ignorable[c]) continue;
      const to = u.fold.get(c);
      t += to ? String.fromCodePoint(...to) : ch;
    }
    if (t === s) return s.normalize('NFC');
    s = t;
  }
}

function ranges(set: Uint8Array): Range[] {
  const out: Range[] = [];
  for (let cp = 0; cp < CODE_POINTS; cp++) {
    if (!set[cp]) continue;
    let end = cp;
    while (end + 1 < CODE_POINTS && set[end + 1]) end++;
    out.push([cp, end]);
    cp = end;
  }
  return out;
}

const hex = (n: number) => n.toString(16);
const rangesSource = (rs: readonly Range[]) => `'${rs.map(([a, b]) => (a === b ? hex(a) : `${hex(a)}-${hex(b)}`)).join(' ')}'`;

/** The source text of unicode_tables.ts, from the packages under `root`. */
export async function generateUnicodeTables(root: string): Promise<string> {
  const dirOf = (v: string) => {
    const dir = unicodePackageDir(root, v);
    if (!dir) throw new Error(`@unicode/unicode-${v} is not installed under ${root}`);
    return dir;
  };
  const node = await loadVersion(dirOf(NODE_VERSION));
  const normalization = new Uint8Array(CODE_POINTS);
  const caseFold = new Uint8Array(CODE_POINTS);
  for (const v of OLDER_VERSIONS) {
    const older = await loadVersion(dirOf(v));
    for (let cp = 0; cp < CODE_POINTS; cp++) {
      if (isSurrogate(cp)) continue;
      if (node.assigned[cp] && !older.assigned[cp]) {
        const s = String.fromCodePoint(cp);
        const nfd = s.normalize('NFD');
        const nfkd = s.normalize('NFKD');
        if (node.mark[cp] || nfd !== s || nfkd !== s) {
          normalization[cp] = 1;
          for (const ch of nfd + nfkd) if (!older.assigned[ch.codePointAt(0)!]) normalization[ch.codePointAt(0)!] = 1;
        }
      }
      if (nfkcCasefoldOf(older, cp) !== nfkcCasefoldOf(node, cp)) caseFold[cp] = 1;
    }
  }
  const forward = new Uint8Array(CODE_POINTS);
  const back = new Uint8Array(CODE_POINTS);
  const nodeDir = dirOf(NODE_VERSION);
  const excluded = await codePointSet(nodeDir, 'Binary_Property/Full_Composition_Exclusion');
  const pairs: string[] = [];
  for (const [cp, to] of await moduleDefault<Map<number, number[]>>(nodeDir, 'Decomposition_Mapping/Canonical/code-points.mjs')) {
    if (to.length !== 2 || excluded[cp]) continue;
    forward[to[0]] = 1;
    back[to[1]] = 1;
    // Hangul syllables compose algorithmically (jamo L + V, LV + T): not listed.
    if (cp < 0xac00 || cp > 0xd7a3) pairs.push(`${hex(to[0])}.${hex(to[1])}:${hex(cp)}`);
  }
  pairs.sort((a, b) => parseInt(a, 16) - parseInt(b, 16) || a.localeCompare(b));
  const fold = [...node.fold].sort(([a], [b]) => a - b).map(([cp, to]) => `${hex(cp)}:${to.map(hex).join('.')}`);
  const lines = [
    '// Generated by test_util/unicode/unicode_tables.ts from the npm packages',
    `// @unicode/unicode-${[...OLDER_VERSIONS, NODE_VERSION].join(', ')} (the Unicode Character`,
    '// Database): do not edit; unicode_tables.test.ts checks it. Code points as hex, ranges inclusive.',
    '',
    `/** The Unicode version of Node's ICU these tables were made for (process.versions.unicode). */`,
    `export const TABLES_UNICODE_VERSION = '${NODE_VERSION.replace(/\.0$/, '')}';`,
    '',
    `/** Full case folding (CaseFolding.txt, statuses C and F), Unicode ${NODE_VERSION}: "code:to.to …". */`,
    `export const CASE_FOLDING = '${fold.join(' ')}';`,
    '',
    `/** Default_Ignorable_Code_Point, Unicode ${NODE_VERSION} (NFKC_Casefold removes them). */`,
    `export const DEFAULT_IGNORABLE = ${rangesSource(ranges(node.ignorable))};`,
    '',
    `/** Code points whose NFC/NFD/NFKC/NFKD may differ between Unicode ${OLDER_VERSIONS[0]}…${OLDER_VERSIONS[OLDER_VERSIONS.length - 1]} and ${NODE_VERSION}. */`,
    `export const UNSTABLE_NORMALIZATION = ${rangesSource(ranges(normalization))};`,
    '',
    `/** Code points whose NFKC_Casefold mapping differs between a Unicode of ${OLDER_VERSIONS[0]}…${OLDER_VERSIONS[OLDER_VERSIONS.length - 1]} and ${NODE_VERSION}. */`,
    `export const UNSTABLE_CASE_FOLD = ${rangesSource(ranges(caseFold))};`,
    '',
    `/** Code points that combine forward in a canonical composition (first of a primary composite's pair), Unicode ${NODE_VERSION}. */`,
    `export const COMBINES_FORWARD = ${rangesSource(ranges(forward))};`,
    '',
    `/** Code points that combine backward in a canonical composition (second of a primary composite's pair), Unicode ${NODE_VERSION}. */`,
    `export const COMBINES_BACK = ${rangesSource(ranges(back))};`,
    '',
    `/** Canonical compositions but Hangul's ("first.second:composite"), Unicode ${NODE_VERSION}. */`,
    `export const COMPOSITIONS = '${pairs.join(' ')}';`,
    '',
  ];
  // As `npm run format` leaves it.
  const options = await prettier.resolveConfig(TABLES_FILE);
  return prettier.format(lines.join('\n'), { ...options, filepath: TABLES_FILE });
}

export const TABLES_FILE = 'src/runtimes/embedded/ops/string/unicode_tables.ts';

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const root = process.argv[2] ?? process.cwd();
  fs.writeFileSync(TABLES_FILE, await generateUnicodeTables(root));
  console.log(`wrote ${TABLES_FILE}`);
}
