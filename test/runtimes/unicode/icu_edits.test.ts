// FindSourceOffsets answers as ICU's own edit records do: random strings of code points whose
// normalization is stable across Unicode versions (letters, precomposed and decomposed accents,
// marks of many classes, Hangul jamo and syllables, full- and half-width forms, ligatures,
// compatibility characters, scripts whose vowel signs compose, bytes that are not UTF-8) are
// normalized by ICU (test_util/unicode/icu_edits_probe.cc, built against the system's libicu)
// and by tfgate; every offset tfgate answers must be the one ICU's edits give, and tfgate's output
// must be ICU's. Offsets tfgate refuses (inside a stretch it cannot tell) are counted, not
// compared. Skipped where no C++ compiler or ICU headers are installed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '../../helpers/paths.js';
import { tempDir } from '../../helpers/temp.js';
import { normalizeWithEdits, OffsetsMap, type EditSpan } from '../../../src/runtimes/embedded/ops/string/icu_edits.js';
import type { Form } from '../../../src/runtimes/embedded/ops/string/unicode_normalize.js';

const PROBE_SOURCE = path.join(REPO_ROOT, 'test_util', 'unicode', 'icu_edits_probe.cc');
const compiler = spawnSync('g++', ['--version']).status === 0;
const icuHeaders = fs.existsSync('/usr/include/unicode/normalizer2.h');

// prettier-ignore
const POOL = [
  'a', 'e', 'x', 'A', 'K', 's', ' ', '<', '=', 'i', 'f', 'u', 'o', 'n', 'D',
  '\u00e9', '\u00fc', '\u00c5', '\u01d6', '\u1e9b', '\u1e69', '\u0385', '\u00a8', '\u00b4', '\u0390', '\u1fee', '\u1e0a',
  '\u0300', '\u0301', '\u0302', '\u0304', '\u0307', '\u0308', '\u030a', '\u0323', '\u0327', '\u0334', '\u0345', '\u0316',
  '\u031b', '\u0344', '\u0340', '\u0343', '\u0338', '\u226e', '\u2260', '\u0f71', '\u0f72', '\u0f73', '\u0f75', '\u0f81',
  '\u093c', '\u0928', '\u0929', '\u0915', '\u0958', '\u09c7', '\u09be', '\u09d7', '\u0bc6', '\u0bbe', '\u0cbf', '\u0cd5',
  '\u0cc6', '\u0cc2', '\u1b05', '\u1b35', '\u1b06', '\u0e33', '\u0eb3', '\u05d0', '\u05b7', '\ufb2e', '\ufb1d', '\u05b4',
  '\u1100', '\u1161', '\u11a8', '\u1112', '\u1175', '\u11c2', '\uac00', '\uac01', '\ud7a3', '\u3131', '\u314f', '\u3200',
  '\ua960', '\ud7b0', '\uff21', '\uff2b', '\uff76', '\uff9e', '\uff9f', '\uff8a', '\uff73', '\u30ab', '\u3099', '\u309a',
  '\u30a6', '\u309b', '\ufb01', '\ufb02', '\ufb03', '\u2460', '\u2126', '\u212b', '\u2000', '\u00a0', '\u2044', '\u00bd',
  '\u3380', '\u682a', '\uf900', '\uf9ff', '\u2f00', '\u3001', '\uff0e', '\u2025', '\u1fbd', '\u1fc1', '\u1fcd', '\u1fbf',
  '\u0627', '\u0653', '\u0654', '\u0655', '\u0648', '\u064a', '\u0622', '\ufe81', '\ufef5', '\u00ad', '\u200b',
  '\u{1d15e}', '\u{1d165}', '\u{1d16e}', '\u{1109a}', '\u{11099}', '\u{110ba}', '\u{1d400}',
];
const NOT_UTF8 = [[0xff], [0xc3], [0xe1, 0x84], [0xed, 0xa0, 0x80], [0x80]];
const FORMS: Form[] = ['NFC', 'NFD', 'NFKC', 'NFKD'];

/** ICU's records as tfgate's spans. */
const icuSpans = (text: string): EditSpan[] =>
  text === '-'
    ? []
    : text.split(',').map((s) => {
        const [src, dst] = s.slice(1).split(':').map(Number);
        return { kind: s[0] === 'u' ? 'unchanged' : 'change', src, dst };
      });

test(
  "FindSourceOffsets answers the offsets ICU's own edit records give (random strings, all four forms)",
  { skip: compiler && icuHeaders ? false : 'needs g++ and the ICU headers (libicu-dev) to build the ICU probe' },
  () => {
    const probe = path.join(tempDir('tfgate-icu-probe-'), 'probe');
    execFileSync('g++', ['-O1', '-o', probe, PROBE_SOURCE, '-licuuc']);
    let seed = 20260529;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed % n;
    };
    const enc = new TextEncoder();
    const cases = Array.from({ length: 2000 }, () => {
      const parts = Array.from({ length: 1 + random(7) }, () =>
        random(25) === 0 ? Uint8Array.from(NOT_UTF8[random(NOT_UTF8.length)]) : enc.encode(POOL[random(POOL.length)]),
      );
      return { form: FORMS[random(FORMS.length)], bytes: Buffer.concat(parts) };
    });
    const input = cases.map((c) => `${c.form} ${c.bytes.length ? c.bytes.toString('hex') : '-'}\n`).join('');
    const lines = execFileSync(probe, { input }).toString().trim().split('\n');
    let answered = 0;
    let refused = 0;
    for (const [i, c] of cases.entries()) {
      const [outHex, spansText] = lines[i].split(' ');
      const mine = normalizeWithEdits('NormalizeUTF8WithOffsetsMap', new Uint8Array(c.bytes), c.form);
      const what = `${c.form} of ${c.bytes.toString('hex')}`;
      assert.equal(Buffer.from(mine.output).toString('hex') || '-', outHex, `${what}: the output`);
      const icu = OffsetsMap.fromSpans(icuSpans(spansText));
      for (let offset = -1; offset <= mine.output.length + 1; offset++) {
        let got: number;
        try {
          got = mine.edits.sourceIndex('FindSourceOffsets', offset, 0);
        } catch {
          refused++;
          continue;
        }
        answered++;
        assert.equal(got, icu.sourceIndex('FindSourceOffsets', offset, 0), `${what}: offset ${offset} (ICU ${spansText})`);
      }
    }
    // Most offsets are answered; the rest are refused, never answered otherwise.
    assert.ok(answered > 10 * refused, `answered ${answered}, refused ${refused}`);
  },
);
