// TensorFlow Text's Unicode normalizers (tensorflow_text/core/kernels/normalize_kernels.cc):
// NormalizeUTF8 (ICU's NFC, NFD, NFKC, NFKD) and CaseFoldUTF8 (ICU's NFKC_Casefold, which BERT's
// uncased preprocessing starts with). Values from TF Text's tests, and from the Unicode
// Character Database files ICU builds its data from where the tests state none.
import { attr, type GraphBuilder, Tensor } from '../../../../test_util/savedmodel/writer/graph_builder.js';
import { failsAtRun, i32, i64, str, type OpCase } from '../op_case.js';

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

const withOffsetsMap = (
  form: string,
  x: Array<string | Uint8Array>,
  want: Array<string | Uint8Array>,
  name: string,
  source: string,
): OpCase => ({ ...normalize(form, x, want, name, source), op: 'NormalizeUTF8WithOffsetsMap' });

/**
 * normalize_utf8_with_offsets_map then find_source_offsets as TF Text's wrappers build them for
 * ragged offsets (the offsets' flat values and innermost row splits, int64), the offsets map
 * reshaped to [-1] — optionally sliced first (offsets_map[k]), a StridedSlice of the variant.
 */
const sourceOffsets = (
  form: string,
  text: Array<string | Uint8Array>,
  values: number[],
  splits: number[],
  want: number[] | ReturnType<typeof failsAtRun>,
  name: string,
  source: string,
  slice?: number,
): OpCase => ({
  name,
  source,
  op: 'FindSourceOffsets',
  graph: (g: GraphBuilder) => {
    const x = g.placeholder('text', 'string', [-1]);
    const v = g.placeholder('offsets_values', 'int64', [-1]);
    const sp = g.placeholder('offsets_splits', 'int64', [-1]);
    const norm = g.addNode('NormalizeUTF8WithOffsetsMap', 'NormalizeUTF8WithOffsets', [x], { normalization_form: attr.s(form) });
    let map = `${norm}:1`;
    if (slice !== undefined) {
      const c = (n: string, k: number) => g.constant(n, i32([1], [k]));
      map = g.addNode(
        'StridedSlice',
        'strided_slice',
        [map, c('strided_slice/begin', slice), c('strided_slice/end', slice + 1), c('strided_slice/strides', 1)],
        { T: attr.type('DT_VARIANT'), Index: attr.type('int32') },
      );
    }
    const flat = g.addNode('Reshape', 'FindSourceOffsets/Reshape', [map, g.constant('FindSourceOffsets/Reshape/shape', i32([1], [-1]))], {
      T: attr.type('DT_VARIANT'),
      Tshape: attr.type('int32'),
    });
    const found = g.addNode('FindSourceOffsets', 'FindSourceOffsets', [flat, v, sp], { Tsplits: attr.type('int64') });
    return {
      inputs: { text: x, offsets_values: v, offsets_splits: sp },
      outputs: { output_offsets_values: g.identity('out', new Tensor(found, 0, 'int64', [-1])) },
    };
  },
  feeds: { text: str([text.length], text), offsets_values: i64([values.length], values), offsets_splits: i64([splits.length], splits) },
  want: Array.isArray(want) ? { output_offsets_values: i64([want.length], want) } : want,
});

const KADOKAWA = '\u682a\u5f0f\u4f1a\u793e\uff2b\uff21\uff24\uff2f\uff2b\uff21\uff37\uff21'; // 株式会社ＫＡＤＯＫＡＷＡ
const MISMATCH = 'Input offset tensor dimension did not match the offset map dimension.';
const ICU = 'ICU normalizer2impl.cpp composeUTF8/decomposeUTF8, edits.cpp sourceIndexFromDestinationIndex';
/** Refused on the embedded runtime: an offset inside a stretch whose edit records tfgate cannot tell. */
const unknownStretch = (offset: number) => {
  const why = new RegExp(`FindSourceOffsets: offset ${offset} of row 0 falls inside .* cannot tell how ICU recorded`);
  return { cpu: { refuseRun: why }, wasm: { refuseRun: why } };
};

const OFFSETS_CASES: OpCase[] = [
  withOffsetsMap(
    'NFKC',
    ['\u1e9b\u0323'],
    ['\u1e69'],
    'NormalizeUTF8WithOffsetsMap NFKC: ẛ̣ → ṩ',
    `${TEST}:150 test_normalize_nfkc (NormalizeWithOffsetsMapOpsTest)`,
  ),
  withOffsetsMap(
    'nfc',
    ['\u1e9b\u0323'],
    ['\u1e9b\u0323'],
    'NormalizeUTF8WithOffsetsMap NFC keeps U+1E9B U+0323',
    `${TEST}:162 test_normalize_nfc (NormalizeWithOffsetsMapOpsTest)`,
  ),
  withOffsetsMap(
    'NFKC',
    ['\u1e9b\u0323', '\ufb01'],
    [b(0xe1, 0xb9, 0xa9), 'fi'],
    'NormalizeUTF8WithOffsetsMap NFKC batch',
    `${TEST}:174 test_normalize_nfkc_batch (NormalizeWithOffsetsMapOpsTest)`,
  ),
  withOffsetsMap(
    'NFKC',
    ['\u1e9b\u0323 \ufb01', '\u1e9b\u0323', '\ufb01'],
    ['\u1e69 fi', '\u1e69', 'fi'],
    "NormalizeUTF8WithOffsetsMap NFKC of a ragged tensor's flat values",
    `${TEST}:188 test_normalize_nfkc_ragged`,
  ),
  {
    name: "NormalizeUTF8WithOffsetsMap: another form fails the request with TF Text's message",
    source: `${TEST}:196 test_unaccepted_normalization_form; normalize_kernels.cc NormalizeUTF8WithOffsetsMapOp::Compute`,
    op: 'NormalizeUTF8WithOffsetsMap',
    attrs: { normalization_form: attr.s('CANTNORMALIZEME') },
    inputs: [str([2], ['cant readme', 'wont read me'])],
    want: failsAtRun('Offset not supported for this normalization form: CANTNORMALIZEME'),
  },
  sourceOffsets(
    'NFKC',
    [KADOKAWA],
    [0, 3, 6, 9, 12, 13, 14, 15, 16, 17, 18, 19, 20, 3, 6, 9, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21],
    [0, 26],
    [0, 3, 6, 9, 12, 15, 18, 21, 24, 27, 30, 33, 36, 3, 6, 9, 12, 15, 18, 21, 24, 27, 30, 33, 36, 36],
    "株式会社ＫＡＤＯＫＡＷＡ: each character's start and end map back to the source character (one replacement per full-width letter); the end of the string and past it to the source length",
    `${TEST}:217 test_one_string (starts and ends in one row)`,
  ),
  sourceOffsets(
    'NFKC',
    [KADOKAWA],
    [22],
    [0, 1],
    [36],
    'a rank-0 offset past the end maps to the source length',
    `${TEST}:243 test_tensor_input rank 0`,
  ),
  sourceOffsets(
    'NFKC',
    ['\u682a\u5f0f\u4f1a\u793e', '\uff2b\uff21\uff24\uff2f\uff2b\uff21\uff37\uff21'],
    [0, 1, 2, 0, 1, 2],
    [0, 3, 6],
    [0, 1, 2, 0, 3, 6],
    'two strings: unchanged text maps one to one, full-width letters three bytes each',
    `${TEST}:255 test_tensor_input rank 2`,
  ),
  sourceOffsets(
    'NFKC',
    ['\u682a\u5f0f\u4f1a\u793e', '', '\uff2b\uff21\uff24\uff2f\uff2b\uff21\uff37\uff21'],
    [0, 1, 2, 0, 1, 2, 0, 1, 2],
    [0, 3, 6, 9],
    [0, 1, 2, 0, 0, 0, 0, 3, 6],
    'an empty string maps every offset to 0',
    `${TEST}:283 test_ragged_tensor_input (empty str)`,
  ),
  sourceOffsets(
    'NFKC',
    ['\u682a\u5f0f\u4f1a\u793e', '\uff2b\uff21\uff24\uff2f\uff2b\uff21\uff37\uff21'],
    [0, 1, 2, 0, 1, 2],
    [0, 3, 3, 6],
    [0, 1, 2, 0, 3, 6],
    'a row without offsets takes no offsets map (an empty ragged element)',
    `${TEST}:293 test_ragged_tensor_input (empty element)`,
  ),
  sourceOffsets(
    'NFKC',
    ['\u682a\u5f0f\u4f1a\u793e', '\uff2b\uff21\uff24\uff2f\uff2b\uff21\uff37\uff21'],
    [0, 1, 2, 0, 1, 2, 0, 1, 2],
    [0, 3, 6, 9],
    failsAtRun(MISMATCH),
    'more rows of offsets than offsets maps fail',
    `${TEST}:315 test_string_ragged_dimension_lower_than_offsets_input`,
  ),
  sourceOffsets(
    'NFKC',
    ['\u682a\u5f0f\u4f1a\u793e', '', '\uff2b\uff21\uff24\uff2f\uff2b\uff21\uff37\uff21'],
    [0, 1, 2, 0, 1, 2],
    [0, 3, 3, 6],
    failsAtRun(MISMATCH),
    'an offsets map left over (its row of offsets empty) fails',
    `${TEST}:328 test_string_ragged_dimension_higher_than_offsets_input`,
  ),
  sourceOffsets(
    'NFKC',
    ['\u682a\u5f0f\u4f1a\u793e', '', '\uff2b\uff21\uff24\uff2f\uff2b\uff21\uff37\uff21'],
    [0, 1, 2],
    [0, 3],
    [0, 3, 6],
    'a sliced offsets map (offsets_map[2], a StridedSlice of the variant)',
    `${TEST}:341 test_sliced_offsets_map_and_input_offset`,
    2,
  ),
  sourceOffsets(
    'NFC',
    ['cafe\u0301 au lait'],
    [0, 3, 4, 5, 6, 7, 15, -1],
    [0, 8],
    [0, 3, 6, 6, 7, 8, 14, 0],
    'NFC composes e + U+0301 into é: one replacement from the e (it combines forward) over the accent; a negative offset maps to 0',
    `${ICU}: the slow path backs up to a code point without a composition boundary after it; UnicodeData.txt 00E9 = 0065 0301`,
  ),
  sourceOffsets(
    'NFD',
    ['caf\u00e9 x\u0301\u0323'],
    [0, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12],
    [0, 11],
    [0, 3, 5, 5, 5, 6, 7, 11, 11, 11, 11],
    'NFD: é → e + U+0301 is one replacement; marks out of canonical order after x are one replacement of the marks alone',
    `${ICU}: decomposeUTF8 decomposes each code point that maps, and reorders marks from the last boundary; 0323 ccc 220 before 0301 ccc 230`,
  ),
  sourceOffsets(
    'NFKC',
    ['\ufb01x\ufb02'],
    [0, 1, 2, 3, 4, 5],
    [0, 6],
    [0, 3, 3, 4, 7, 7],
    'NFKC ligatures: each ﬁ/ﬂ is one replacement (3 bytes to 2)',
    `${ICU}: composeUTF8's fast path for a mapping between composition boundaries; UnicodeData.txt FB01 <compat> 0066 0069`,
  ),
  sourceOffsets(
    'NFC',
    ['\u1100\u1161\u11a8x\u1100\u1161 \uac00\u11a8'],
    [0, 1, 3, 4, 5, 7, 8, 9, 11],
    [0, 9],
    [0, 9, 9, 10, 16, 16, 17, 23, 23],
    'NFC composes conjoining jamo: L V T, L V and LV T are each one replacement (9 or 6 bytes to one syllable)',
    `${ICU}: composeUTF8's Hangul path (a Jamo V after an L takes a following T; a T after an LV syllable); Unicode 3.12 Hangul composition`,
  ),
  sourceOffsets(
    'NFKC',
    ['x\uff76\uff9e\uff8a\uff9fy'],
    [0, 1, 2, 4, 5, 7, 8],
    [0, 7],
    [0, 1, 7, 7, 13, 13, 14],
    'NFKC of half-width katakana with voiced marks (ｶﾞﾊﾟ → ガパ): each letter with its mark is one replacement',
    `${ICU}: the letter's mapping (U+30AB, U+30CF) combines forward, so no composition boundary follows it and the slow path takes its mark; UnicodeData.txt FF76 <narrow> 30AB, FF9E <narrow> 3099, 30AC = 30AB 3099`,
  ),
  sourceOffsets(
    'NFKD',
    ['x\uff76\uff9e'],
    [0, 1, 2, 4, 5, 7],
    [0, 6],
    [0, 1, 4, 4, 7, 7],
    'NFKD of ｶﾞ: the letter (ending with a starter) is one replacement, its mark another',
    `${ICU}: decomposeUTF8 stops after a decomposition whose last class is 0`,
  ),
  sourceOffsets(
    'NFC',
    ['Vi\u00ea\u0323t'],
    [0, 1, 2, 3, 4, 5, 6],
    [0, 7],
    [0, 1, 2, 6, 6, 6, 7],
    'NFC of ê + U+0323 (Vietnamese ệ typed as ê and a dot below): one replacement from the ê, which has no composition boundary after it',
    `${ICU}: gennorm2 (n2builder.cpp mappingHasCompBoundaryAfter) leaves no boundary after ê: e combines with marks below U+0302's class (U+0323 → ẹ); UnicodeData.txt 1EC7 = 1EB9 0302`,
  ),
  sourceOffsets(
    'NFKC',
    ['\u1e9b\u0323x'],
    [0, 1, 3, 4],
    [0, 4],
    [0, 5, 5, 6],
    "NFKC of TF Text's own example ẛ + U+0323 (→ ṩ): one replacement, ẛ having no composition boundary after it",
    `${ICU}: ẛ is held with a one-way mapping (NFKC changes it) to s + U+0307, and s composes with marks below U+0307's class (U+0323); UnicodeData.txt 1E9B = 017F 0307, 1E69 = 1E63 0307`,
  ),
  {
    ...sourceOffsets(
      'NFC',
      ['\u09c7\u09be\u0301'],
      [1],
      [0, 1],
      [8],
      "an offset inside a stretch whose edit records tfgate cannot tell (Bengali ে + া composing into ো, then a mark) is refused, named (8, the stretch's end, is what ICU answers)",
      `${ICU}: a starter that composes backward (U+09BE) before a mark; UnicodeData.txt 09CB = 09C7 09BE`,
    ),
    engines: unknownStretch(1),
  },
  sourceOffsets(
    'NFC',
    ['\u09c7\u09be\u0301x'],
    [0, 5, 6],
    [0, 3],
    [0, 8, 9],
    'the ends of such a stretch are answered',
    `${ICU}: no edit record reaches across a code point that is its own normalization, class 0, combining with nothing before it`,
  ),
];

export const NORMALIZE_CASES_ALL: readonly OpCase[] = [...NORMALIZE_CASES, ...CASE_FOLD_CASES, ...OFFSETS_CASES];

export const NORMALIZE_REGISTRATIONS: readonly string[] = [
  // tensorflow/text tensorflow_text/core/ops/normalize_ops.cc
  `REGISTER_OP("CaseFoldUTF8")
    .Input("input: string")
    .Output("output: string")`,
  `REGISTER_OP("NormalizeUTF8")
    .Input("input: string")
    .Attr("normalization_form: string")
    .Output("output: string")`,
  `REGISTER_OP("NormalizeUTF8WithOffsetsMap")
    .Input("input: string")
    .Attr("normalization_form: string")
    .Output("output: string")
    .Output("offsets_map: variant")`,
  `REGISTER_OP("FindSourceOffsets")
    .Input("offsets_map: variant")
    .Input("input_offsets_values: int64")
    .Input("input_offsets_splits: Tsplits")
    .Attr("Tsplits: {int32, int64} = DT_INT64")
    .Output("output_offsets_values: int64")`,
];
