// TensorFlow Text's Unicode normalizers (tensorflow_text/core/kernels/normalize_kernels.cc):
// NormalizeUTF8 (ICU's NFC, NFD, NFKC, NFKD) and CaseFoldUTF8 (ICU's NFKC_Casefold, which BERT's
// uncased preprocessing starts with). Values from TF Text's tests, and from the Unicode
// Character Database files ICU builds its data from where the tests state none.
import { attr } from '../../../../test_util/savedmodel/writer/graph_builder.js';
import { failsAtRun, str, type OpCase } from '../op_case.js';

const TEST = 'tensorflow/text tensorflow_text/python/ops/normalize_ops_test.py@17c38bf0';
const UCD = 'Unicode 17.0 UCD';
const b = (...bytes: number[]) => Uint8Array.of(...bytes);

const normalize = (
  form: string,
  x: Array<string | Uint8Array>,
  want: Array<string | Uint8Array>,
  name: string,
  source: string,
): OpCase => ({
  name,
  source,
  op: 'NormalizeUTF8',
  attrs: { normalization_form: attr.s(form) },
  inputs: [str([x.length], x)],
  want: { output: str([want.length], want) },
});

const caseFold = (x: Array<string | Uint8Array>, want: Array<string | Uint8Array>, name: string, source: string): OpCase => ({
  name,
  source,
  op: 'CaseFoldUTF8',
  inputs: [str([x.length], x)],
  want: { output: str([want.length], want) },
});

// Refused at run time on the embedded runtime: a code point whose answer may differ between the
// Unicode of TF Text's ICU (12.1 to 16.0) and Node's. What TF Text answers is the input unchanged
// (ICU passes a code point its Unicode does not assign), or the new Unicode's answer: the case
// states the first, which the embedded runtime must never give silently.
const refusedFor = (op: string, cp: string) => {
  const why = new RegExp(`${op}: the input holds ${cp}\\b.*may differ`);
  return { cpu: { refuseRun: why }, wasm: { refuseRun: why } };
};

const NORMALIZE_CASES: OpCase[] = [
  normalize('NFKC', ['\u1e9b\u0323'], ['\u1e69'], 'NFKC: ẛ̣ (U+1E9B U+0323) → ṩ', `${TEST}:82 test_normalize_nfkc`),
  normalize(
    'nfkc',
    ['\u1e9b\u0323', '\ufb01'],
    [b(0xe1, 0xb9, 0xa9), 'fi'],
    'the form in lower case; ﬁ → fi',
    `${TEST}:92 test_normalize_nfkc_batch`,
  ),
  normalize('NFC', ['\u1e9b\u0323'], ['\u1e9b\u0323'], 'NFC keeps U+1E9B U+0323', `${TEST}:112 test_normalize_nfc`),
  normalize(
    'NFD',
    ['\u1e9b\u0323'],
    ['\u017f\u0323\u0307'],
    'NFD: ſ, dot below, dot above (canonical order)',
    `${TEST}:122 test_normalize_nfd`,
  ),
  normalize('nfkd', ['\u1e9b\u0323'], ['s\u0323\u0307'], 'NFKD: s, dot below, dot above', `${TEST}:130 test_normalize_nfkd`),
  {
    name: 'an unknown form fails the request with TF Text\'s message (its spelling: "requrested")',
    source: `${TEST}:140 test_unknown_normalization_form; normalize_kernels.cc NormalizeUTF8Op::Compute`,
    op: 'NormalizeUTF8',
    attrs: { normalization_form: attr.s('cantfindme') },
    inputs: [str([2], ['cant readme', 'wont read me'])],
    want: failsAtRun('Unknown normalization form requrested: CANTFINDME'),
  },
  normalize(
    'NFC',
    ['e\u0301', b(0x61, 0xff, 0xcc, 0x81), b(0xef, 0xbb, 0xbf, 0x41), b(0xed, 0xa0, 0x80, 0x65, 0xcc, 0x81)],
    ['\u00e9', b(0x61, 0xff, 0xcc, 0x81), b(0xef, 0xbb, 0xbf, 0x41), b(0xed, 0xa0, 0x80, 0xc3, 0xa9)],
    'bytes that are not UTF-8 are kept and nothing composes across them (a + 0xFF + U+0301 stays); a leading U+FEFF is kept',
    'ICU normalizer2impl.cpp composeUTF8 (ill-formed sequences are inert and copied); UnicodeData.txt 00E9 = 0065 0301',
  ),
  normalize(
    'NFD',
    ['\uac00\u1100', '\u212b', 'a\u0316\u0301\u0300'],
    ['\u1100\u1161\u1100', 'A\u030a', 'a\u0316\u0301\u0300'],
    'NFD: a Hangul syllable into jamo, Å (ANGSTROM SIGN) into A + ring, marks of different classes kept in canonical order',
    `${UCD}: UnicodeData.txt 212B (canonical 00C5), 0316 ccc 220 before 0301 / 0300 ccc 230; Unicode 3.12 Hangul decomposition`,
  ),
  {
    ...normalize(
      'NFC',
      ['\u{1611e}\u{1611e}'],
      ['\u{1611e}\u{1611e}'],
      'NFC of Gurung Khema (Unicode 16.0, composes to U+16121 since): refused, named',
      `${UCD}: UnicodeData.txt 16121 = 1611E 1611E`,
    ),
    engines: refusedFor('NormalizeUTF8', 'U\\+1611E'),
  },
];

const CASE_FOLD_CASES: OpCase[] = [
  caseFold([' TExt to loWERcase! '], [' text to lowercase! '], 'ASCII letters fold to lower case', `${TEST}:39 test_lowercase_one_string`),
  caseFold(
    [
      'Punctuation and digits: -*/+$#%@%$123456789#^$*%&',
      'Non-latin UTF8 chars: ΘͽʦȺЩ',
      'Accented chars: ĎÔPQRŔSŠoóôpqrŕsštťuúvwxyý',
      'Non-UTF8-letters: e.g. ◆, ♥, and the emoji symbol ( ͡° ͜ʖ ͡°)',
      'Folded: ßς',
      '',
    ],
    [
      'punctuation and digits: -*/+$#%@%$123456789#^$*%&',
      'non-latin utf8 chars: θͽʦⱥщ',
      'accented chars: ďôpqrŕsšoóôpqrŕsštťuúvwxyý',
      'non-utf8-letters: e.g. ◆, ♥, and the emoji symbol ( ͡° ͜ʖ ͡°)',
      'folded: ssσ',
      '',
    ],
    'full case folding: ß → ss, final ς → σ, Ⱥ → ⱥ',
    `${TEST}:48 test_lowercase_text`,
  ),
  caseFold(
    ['\u1e9e\u017f', '\u0130', '\u13a0\u13f8\uab70', 'so\u00adft\u200bhy\u034fphen', '\ufb01 \u2460 \uff21'],
    ['sss', 'i\u0307', '\u13a0\u13f0\u13a0', 'softhyphen', 'fi 1 a'],
    'not a lower-casing: ẞ → ss, ſ → s, İ → i + U+0307 (not Turkic), Cherokee to its capitals, default-ignorables dropped, NFKC applied',
    `${UCD}: CaseFolding.txt 1E9E F, 017F C, 0130 F, 13F8 C, AB70 C; DerivedNormalizationProps.txt NFKC_CF 00AD, 200B, 034F → ""; FB01, 2460, FF21 compatibility`,
  ),
  caseFold(
    [b(0x41, 0xff, 0xcc, 0x81, 0x42), b(0xc3)],
    [b(0x61, 0xff, 0xcc, 0x81, 0x62), b(0xc3)],
    'bytes that are not UTF-8 are kept as they are',
    'ICU normalizer2impl.cpp composeUTF8 (ill-formed sequences are inert and copied)',
  ),
  {
    ...caseFold(
      ['\ua7c0'],
      ['\ua7c0'],
      'Ꟁ (U+A7C0, Unicode 14.0): refused, named',
      `${UCD}: CaseFolding.txt A7C0 C A7C1; unassigned in Unicode 12.1`,
    ),
    engines: refusedFor('CaseFoldUTF8', 'U\\+A7C0'),
  },
];

export const NORMALIZE_CASES_ALL: readonly OpCase[] = [...NORMALIZE_CASES, ...CASE_FOLD_CASES];

export const NORMALIZE_REGISTRATIONS: readonly string[] = [
  // tensorflow/text tensorflow_text/core/ops/normalize_ops.cc
  `REGISTER_OP("CaseFoldUTF8")
    .Input("input: string")
    .Output("output: string")`,
  `REGISTER_OP("NormalizeUTF8")
    .Input("input: string")
    .Attr("normalization_form: string")
    .Output("output: string")`,
];
