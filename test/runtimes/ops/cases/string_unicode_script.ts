// TF Text's UnicodeScriptTokenizeWithOffsets (text.UnicodeScriptTokenizer): code points in, tokens
// out where ICU's Script changes. TF Text's Python tests state tokens and byte offsets of strings
// (UnicodeScriptTokenizer decodes them, runs the op, encodes the tokens and maps offsets to bytes);
// each case here hands the op those strings' code points, as the wrapper does (any shape of
// strings reaches the op as one vector: ragged and dense dimensions are the wrapper's), and wants
// the stated tokens' code points and the stated offsets in code points. Where the tests state
// nothing: the Unicode Character Database and ICU's uscript_getScript.
import { attr } from '../../../../test_util/savedmodel/writer/graph_builder.js';
import { failsAtRun, i32, i64, type OpCase, type OpFamilyCases } from '../op_case.js';

const TEXT = 'tensorflow/text tensorflow_text';
const TEST = `${TEXT}/python/ops/unicode_script_tokenizer_test.py@17c38bf0`;
const DOC = `${TEXT}/python/ops/unicode_script_tokenizer.py@17c38bf0`;
const KERNEL = `${TEXT}/core/kernels/unicode_script_tokenize_kernel.cc@17c38bf0`;
const UCD = 'Unicode UCD Scripts.txt';
const OP = 'UnicodeScriptTokenizeWithOffsets';

const enc = new TextEncoder();
const codePoints = (s: string) => Array.from(s, (ch) => ch.codePointAt(0)!);
/** The code point index of a byte offset of `s` (how many code points start before it). */
const codePointIndex = (s: string, byteOffset: number) =>
  Array.from(new TextDecoder().decode(enc.encode(s).subarray(0, byteOffset))).length;

export interface Row {
  text: string;
  tokens: string[];
  /** Byte offsets, as TF Text's tests state them. */
  starts: number[];
  ends: number[];
}

export const rows = (texts: string[], tokens: string[][], starts: number[][], ends: number[][]): Row[] =>
  texts.map((text, i) => ({ text, tokens: tokens[i], starts: starts[i], ends: ends[i] }));

/** A tokenizer-over-code-points op's case for strings whose tokens and byte offsets TF Text states. */
export function codePointTokensCase(op: string, name: string, source: string, input: Row[], attrs: OpCase['attrs'] = {}): OpCase {
  const splits = [0];
  for (const r of input) splits.push(splits[splits.length - 1] + codePoints(r.text).length);
  const tokens = input.flatMap((r) => r.tokens);
  const inner = [0];
  for (const t of tokens) inner.push(inner[inner.length - 1] + codePoints(t).length);
  const outer = [0];
  for (const r of input) outer.push(outer[outer.length - 1] + r.tokens.length);
  const values = tokens.flatMap(codePoints);
  const starts = input.flatMap((r) => r.starts.map((b) => codePointIndex(r.text, b)));
  const limits = input.flatMap((r) => r.ends.map((b) => codePointIndex(r.text, b)));
  return {
    name,
    source,
    op,
    attrs,
    inputs: [
      i32(
        [splits[splits.length - 1]],
        input.flatMap((r) => codePoints(r.text)),
      ),
      i64([splits.length], splits),
    ],
    want: {
      output_values: i32([values.length], values),
      output_values_inner_splits: i64([inner.length], inner),
      output_offset_starts: i64([starts.length], starts),
      output_offset_limits: i64([limits.length], limits),
      output_outer_splits: i64([outer.length], outer),
    },
  };
}

const tokenize = (name: string, source: string, input: Row[], keepWhitespace = false) =>
  codePointTokensCase(OP, name, source, input, keepWhitespace ? { keep_whitespace: attr.b(true) } : {});

const FLUME = { text: 'I love Flume!', tokens: ['I', 'love', 'Flume', '!'], starts: [0, 2, 7, 12], ends: [1, 6, 12, 13] };
const GOOD_DAY = { text: 'Good day', tokens: ['Good', 'day'], starts: [0, 5], ends: [4, 8] };
const DONT = { text: "I don't want", tokens: ['I', 'don', "'", 't', 'want'], starts: [0, 2, 5, 6, 8], ends: [1, 5, 6, 7, 12] };
const SCRUBS = { text: 'no scrubs', tokens: ['no', 'scrubs'], starts: [0, 3], ends: [2, 9] };
const ZHU = { text: 'I love Zhu!', tokens: ['I', 'love', 'Zhu', '!'], starts: [0, 2, 7, 10], ends: [1, 6, 10, 11] };
const NIGHT = { text: 'Good night', tokens: ['Good', 'night'], starts: [0, 5], ends: [4, 10] };
const A_SCRUB = { text: 'A scrub is', tokens: ['A', 'scrub', 'is'], starts: [0, 2, 8], ends: [1, 7, 10] };
const A_GUY = { text: 'a guy', tokens: ['a', 'guy'], starts: [0, 2], ends: [1, 5] };
const empty = (text: string) => ({ text, tokens: [], starts: [], ends: [] });

// A code point whose Script differs between the Unicode of TF Text's ICUs (12.1, 16.0) and 17.0:
// refused, named. What the case states is ICU 77.1's (Unicode 16.0) answer, which the embedded
// runtime must never give silently.
const refusedFor = (cp: string) => {
  const why = new RegExp(`${OP}: the input holds ${cp}, whose Unicode script differs`);
  return { cpu: { refuseRun: why }, wasm: { refuseRun: why } };
};

const PYTHON_CASES: OpCase[] = [
  tokenize(
    '"I love Flume!" → I, love, Flume, !: Common punctuation is a script of its own',
    `${TEST}:42 testScalar, :55 testVectorSingleValue`,
    [FLUME],
  ),
  tokenize("two strings: offsets from each string's start", `${TEST}:68 testVector`, [FLUME, GOOD_DAY]),
  tokenize("a [2,2] matrix's strings: \"don't\" → don, ', t", `${TEST}:81 testMatrix`, [FLUME, GOOD_DAY, DONT, SCRUBS]),
  tokenize("a ragged [2,(1,2)] tensor's strings", `${TEST}:99 testMatrixRagged`, [FLUME, DONT, SCRUBS]),
  tokenize("a [2,2,2] tensor's strings", `${TEST}:117 test3DimMatrix`, [FLUME, GOOD_DAY, DONT, SCRUBS, ZHU, NIGHT, A_SCRUB, A_GUY]),
  tokenize("a ragged rank-3 tensor's strings", `${TEST}:143 test3DimMatrixRagged`, [FLUME, DONT, SCRUBS, ZHU, NIGHT]),
  tokenize(
    "J'adore la灯, ¡Escríbeme!: Latin to Han splits with no space, í stays in its Latin word, ¡ is Common",
    `${TEST}:167 testInternationalization`,
    rows(
      ["J'adore la灯", '¡Escríbeme!'],
      [
        ['J', "'", 'adore', 'la', '灯'],
        ['¡', 'Escríbeme', '!'],
      ],
      [
        [0, 1, 2, 8, 10],
        [0, 2, 12],
      ],
      [
        [1, 2, 7, 10, 13],
        [2, 12, 13],
      ],
    ),
  ),
  tokenize(
    "' Hook em! ', ' .Ok.   Go  ': white space is left out of tokens and of their limits",
    `${TEST}:182 testSpaceBoundaries`,
    rows(
      [' Hook em! ', ' .Ok.   Go  '],
      [
        ['Hook', 'em', '!'],
        ['.', 'Ok', '.', 'Go'],
      ],
      [
        [1, 6, 8],
        [1, 2, 4, 8],
      ],
      [
        [5, 8, 9],
        [2, 4, 5, 10],
      ],
    ),
  ),
  tokenize(
    'keep_whitespace: white space runs are tokens; ",\'" is one Common token, U+2018 another after " \\t "',
    `${TEST}:195 testKeepWhitespace`,
    rows(
      ["'Black Panther,' \t \u2018A Star Is Born\u2018 among AFI Awards honorees", ' .Ok.   Go  '],
      [
        [
          "'",
          'Black',
          ' ',
          'Panther',
          ",'",
          ' \t ',
          '\u2018',
          'A',
          ' ',
          'Star',
          ' ',
          'Is',
          ' ',
          'Born',
          '\u2018',
          ' ',
          'among',
          ' ',
          'AFI',
          ' ',
          'Awards',
          ' ',
          'honorees',
        ],
        [' ', '.', 'Ok', '.', '   ', 'Go', '  '],
      ],
      [
        [0, 1, 6, 7, 14, 16, 19, 22, 23, 24, 28, 29, 31, 32, 36, 39, 40, 45, 46, 49, 50, 56, 57],
        [0, 1, 2, 4, 5, 8, 10],
      ],
      [
        [1, 6, 7, 14, 16, 19, 22, 23, 24, 28, 29, 31, 32, 36, 39, 40, 45, 46, 49, 50, 56, 57, 65],
        [1, 2, 4, 5, 8, 10, 12],
      ],
    ),
    true,
  ),
  tokenize('only spaces: no tokens', `${TEST}:222 testOnlySpaces`, [empty(' '), empty('     ')]),
  tokenize(
    '\\t, \\r, \\n are white space',
    `${TEST}:235 testWhitespaceCharacters`,
    rows(['things:\tcarpet\rdesk\nlamp'], [['things', ':', 'carpet', 'desk', 'lamp']], [[0, 6, 8, 15, 20]], [[6, 7, 14, 19, 24]]),
  ),
  tokenize('an empty string: no tokens', `${TEST}:248 testEmptyStringSingle`, [empty('')]),
  tokenize('empty strings among others', `${TEST}:261 testEmptyString`, [
    empty(''),
    FLUME,
    empty(''),
    { text: 'O hai', tokens: ['O', 'hai'], starts: [0, 2], ends: [1, 5] },
    empty(''),
  ]),
  tokenize(
    '"Good day. . ." → Good, day, ... (limits [8, 13)): a space inside a run of one script is dropped, the run goes on',
    `${TEST}:276 testEmptyDimensions`,
    [FLUME, { text: 'Good day. . .', tokens: ['Good', 'day', '...'], starts: [0, 5, 8], ends: [4, 8, 13] }, ZHU, NIGHT, A_SCRUB, A_GUY],
  ),
  tokenize(
    'the docstring: "xy.,z de", "fg?h", "abαβ"',
    `${DOC}:56 UnicodeScriptTokenizer, :117 tokenize_with_offsets`,
    rows(
      ['xy.,z de', 'fg?h', 'abαβ'],
      [
        ['xy', '.,', 'z', 'de'],
        ['fg', '?', 'h'],
        ['ab', 'αβ'],
      ],
      [
        [0, 2, 4, 6],
        [0, 2, 3],
        [0, 2],
      ],
      [
        [2, 4, 5, 8],
        [2, 3, 4],
        [2, 6],
      ],
    ),
  ),
  tokenize(
    'the docstring: 累計7239人 → 累計, 7239, 人 (Han, Common digits, Han)',
    `${DOC}:125 tokenize_with_offsets`,
    rows(['累計7239人'], [['累計', '7239', '人']], [[0, 6, 10]], [[6, 10, 13]]),
  ),
];

const KERNEL_CASES: OpCase[] = [
  {
    name: '[111, 112, 32, 116] [117, 118] → [111, 112] [116] | [117, 118]',
    source: `${TEXT}/core/kernels/unicode_script_tokenize_kernel_test.cc@17c38bf0:49`,
    op: OP,
    inputs: [i32([6], [111, 112, 32, 116, 117, 118]), i64([3], [0, 4, 6])],
    want: {
      output_values: i32([5], [111, 112, 116, 117, 118]),
      output_values_inner_splits: i64([4], [0, 2, 3, 5]),
      output_offset_starts: i64([3], [0, 3, 0]),
      output_offset_limits: i64([3], [2, 4, 2]),
      output_outer_splits: i64([3], [0, 2, 3]),
    },
  },
  {
    name: "Tsplits int32, and splits that do not start at 0 (offsets from each string's first code point)",
    source: `${KERNEL}:125 (offsets are values_idx - curr_word_start_idx); the kernel test's values`,
    op: OP,
    attrs: { Tsplits: attr.type('int32') },
    inputs: [i32([8], [0, 0, 111, 112, 32, 116, 117, 118]), i32([3], [2, 6, 8])],
    want: {
      output_values: i32([5], [111, 112, 116, 117, 118]),
      output_values_inner_splits: i32([4], [0, 2, 3, 5]),
      output_offset_starts: i64([3], [0, 3, 0]),
      output_offset_limits: i64([3], [2, 4, 2]),
      output_outer_splits: i32([3], [0, 2, 3]),
    },
  },
  tokenize(
    'e + U+0301 splits (Latin, then Inherited), é does not; digits are Common; U+3000 and U+0085 are white space',
    `${UCD} 0301 Inherited, 00E9 Latin, 0030..0039 Common; PropList.txt White_Space 0085, 3000; ${KERNEL}:111 (no case for Inherited)`,
    rows(
      ['e\u0301 \u00e9a1b\u3000c\u0085d'],
      [['e', '\u0301', '\u00e9a', '1', 'b', 'c', 'd']],
      [[0, 1, 4, 7, 8, 12, 15]],
      [[1, 3, 7, 8, 9, 13, 16]],
    ),
  ),
  {
    name: 'values that are no code point (-1, 0x110000) have no script (one token of their own), and are not white space',
    source: `ICU uscript.cpp uscript_getScript (c > 0x10ffff: U_ILLEGAL_ARGUMENT_ERROR); ${KERNEL}:107 (a failure is USCRIPT_INVALID_CODE)`,
    op: OP,
    inputs: [i32([5], [-1, 0x110000, 97, 0xe000, 0x378]), i64([2], [0, 5])],
    want: {
      output_values: i32([5], [-1, 0x110000, 97, 0xe000, 0x378]),
      output_values_inner_splits: i64([4], [0, 2, 3, 5]),
      output_offset_starts: i64([3], [0, 2, 3]),
      output_offset_limits: i64([3], [2, 3, 5]),
      output_outer_splits: i64([2], [0, 3]),
    },
  },
  {
    ...tokenize(
      'U+0589 (Armenian full stop: Common in Unicode 12.1, Armenian since 13.0): refused, named',
      `${UCD} 0589 (12.1.0: Common; 13.0.0: Armenian)`,
      rows(['\u0531\u0589'], [['\u0531\u0589']], [[0]], [[4]]),
    ),
    engines: refusedFor('U\\+0589'),
  },
  {
    ...tokenize(
      'U+1FAE8 (shaking face, Unicode 15.0; Unknown to ICU 64): refused, named',
      `${UCD} 1FAE8 Common (15.0.0); unassigned in 12.1.0`,
      rows(['a\u{1fae8}'], [['a', '\u{1fae8}']], [[0, 1]], [[1, 5]]),
    ),
    engines: refusedFor('U\\+1FAE8'),
  },
  {
    name: 'splits past input_values fail the request (TF Text reads them unchecked)',
    source: `${KERNEL}:98 (input_splits read without a bound); tfgate's message`,
    op: OP,
    inputs: [i32([2], [97, 98]), i64([2], [0, 3])],
    want: failsAtRun(`${OP}: input_splits must be non-decreasing and within [0, 2] (input_values' size); input_splits[1] = 3`),
  },
  {
    name: 'empty splits fail the request (TF Text writes before its output there)',
    source: `${KERNEL}:150 (output_outer_splits_flat(input_splits_flat.size() - 1)); tfgate's message`,
    op: OP,
    inputs: [i32([0], []), i64([0], [])],
    want: failsAtRun(`${OP}: input_splits must have at least one element`),
  },
];

export const UNICODE_SCRIPT_REGISTRATIONS: readonly string[] = [
  // tensorflow/text tensorflow_text/core/ops/unicode_script_tokenize_op.cc
  `REGISTER_OP("UnicodeScriptTokenizeWithOffsets")
    .Input("input_values: int32")
    .Input("input_splits: Tsplits")
    .Output("output_values: int32")
    .Output("output_values_inner_splits: Tsplits")
    .Output("output_offset_starts: int64")
    .Output("output_offset_limits: int64")
    .Output("output_outer_splits: Tsplits")
    .Attr("Tsplits: {int32, int64} = DT_INT64")
    .Attr("keep_whitespace: bool = false")`,
];

export const UNICODE_SCRIPT_CASES: OpFamilyCases = {
  family: 'text',
  registrations: UNICODE_SCRIPT_REGISTRATIONS,
  engines: {
    onnx: {
      refuse: /UnicodeScriptTokenizeWithOffsets \(node UnicodeScriptTokenizeWithOffsets: no ONNX converter\)/,
    },
  },
  cases: [...PYTHON_CASES, ...KERNEL_CASES],
};
