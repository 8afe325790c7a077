// TF Text's older WhitespaceTokenizeWithOffsets (text.WhitespaceTokenizer before the V2 op): code
// points in, tokens out between runs of ICU White_Space. The strings, tokens and byte offsets are
// the ones TF Text's whitespace tokenizer test states (the same test, unchanged in what it states,
// served the older op and serves V2 with its default config, which is also ICU's White_Space);
// each case hands the op the strings' code points as the Python wrapper did and wants the offsets
// in code points. Where the test states nothing: the Unicode Character Database (PropList.txt).
import { failsAtRun, i32, i64, type OpCase, type OpFamilyCases } from '../op_case.js';
import { codePointTokensCase, rows, type Row } from './string_unicode_script.js';
import { WHITESPACE_TEST_ROWS } from './string_unicode.js';

const TEXT = 'tensorflow/text tensorflow_text';
const TEST = `${TEXT}/python/ops/whitespace_tokenizer_test.py@0759acaf`;
const KERNEL = `${TEXT}/core/kernels/whitespace_tokenize_kernel.cc@35a45046`;
const UCD = 'Unicode UCD PropList.txt White_Space';
const OP = 'WhitespaceTokenizeWithOffsets';

const tokenize = (name: string, source: string, input: Row[]) => codePointTokensCase(OP, name, source, input);

const FLUME = { text: 'I love Flume!', tokens: ['I', 'love', 'Flume!'], starts: [0, 2, 7], ends: [1, 6, 13] };
const GOOD_DAY = { text: 'Good day', tokens: ['Good', 'day'], starts: [0, 5], ends: [4, 8] };
const DONT = { text: "I don't want", tokens: ['I', "don't", 'want'], starts: [0, 2, 8], ends: [1, 7, 12] };
const SCRUBS = { text: 'no scrubs', tokens: ['no', 'scrubs'], starts: [0, 3], ends: [2, 9] };
const ZHU = { text: 'I love Zhu!', tokens: ['I', 'love', 'Zhu!'], starts: [0, 2, 7], ends: [1, 6, 11] };
const NIGHT = { text: 'Good night', tokens: ['Good', 'night'], starts: [0, 5], ends: [4, 10] };
const A_SCRUB = { text: 'A scrub is', tokens: ['A', 'scrub', 'is'], starts: [0, 2, 8], ends: [1, 7, 10] };
const A_GUY = { text: 'a guy', tokens: ['a', 'guy'], starts: [0, 2], ends: [1, 5] };

const CASES: OpCase[] = [
  ...WHITESPACE_TEST_ROWS.map((r) => tokenize(r.name, `${TEST} ${r.test}`, rows(r.texts, r.tokens, r.starts, r.ends))),
  tokenize("a [2,2,2] tensor's strings", `${TEST} test3DimMatrix`, [FLUME, GOOD_DAY, DONT, SCRUBS, ZHU, NIGHT, A_SCRUB, A_GUY]),
  tokenize('"Good day. . ." → Good, day., ., .', `${TEST} testEmptyDimensions`, [
    FLUME,
    { text: 'Good day. . .', tokens: ['Good', 'day.', '.', '.'], starts: [0, 5, 10, 12], ends: [4, 9, 11, 13] },
  ]),
  tokenize(
    'U+3000 and U+0085 are White_Space and split; U+200B (zero width space) is not and stays in its token',
    UCD,
    rows(['a\u3000b\u0085c', 'x\u200by'], [['a', 'b', 'c'], ['x\u200by']], [[0, 4, 7], [0]], [[1, 5, 8], [5]]),
  ),
  {
    name: 'int32 splits give int32 splits; a value outside 0…U+10FFFF is no white space and stays in its token',
    source: `${KERNEL} (SPLITS_TYPE int32; u_isUWhiteSpace of a non-code point is false)`,
    op: OP,
    attrs: {},
    inputs: [i32([5], [97, 32, -1, 0x110000, 32]), i32([2], [0, 5])],
    want: {
      output_values: i32([3], [97, -1, 0x110000]),
      output_values_inner_splits: i32([3], [0, 1, 3]),
      output_offset_starts: i64([2], [0, 2]),
      output_offset_limits: i64([2], [1, 4]),
      output_outer_splits: i32([2], [0, 2]),
    },
  },
  {
    name: 'splits past input_values fail the request (TF Text reads them unchecked)',
    source: `${KERNEL} (input_splits read without a bound); tfgate's message`,
    op: OP,
    inputs: [i32([2], [97, 98]), i64([2], [0, 3])],
    want: failsAtRun(`${OP}: input_splits must be non-decreasing and within [0, 2] (input_values' size); input_splits[1] = 3`),
  },
];

export const WHITESPACE_TOKENIZE_CASES: OpFamilyCases = {
  family: 'text',
  registrations: [
    // tensorflow/text tensorflow_text/core/ops/whitespace_tokenize_op.cc
    `REGISTER_OP("WhitespaceTokenizeWithOffsets")
    .Input("input_values: int32")
    .Input("input_splits: Tsplits")
    .Output("output_values: int32")
    .Output("output_values_inner_splits: Tsplits")
    .Output("output_offset_starts: int64")
    .Output("output_offset_limits: int64")
    .Output("output_outer_splits: Tsplits")
    .Attr("Tsplits: {int32, int64} = DT_INT64")`,
  ],
  engines: {
    onnx: {
      refuse: /WhitespaceTokenizeWithOffsets \(node WhitespaceTokenizeWithOffsets: no ONNX converter\)/,
    },
  },
  cases: CASES,
};
