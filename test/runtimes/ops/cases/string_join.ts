// The joining ops of string_ops.cc beyond StringJoin: ReduceJoin and StringNGrams (ragged in,
// ragged out: values + splits). Part of the `string` family (cases/string.ts).
import type { HostTensor } from '../../../../src/tensor/host_tensor.js';
import { Code } from '../../../../src/errors/status.js';
import { attr, type AttrValueInit } from '../../../../test_util/savedmodel/writer/graph_builder.js';
import { failsAtRun, i32, i64, konst, str, type OpCase } from '../op_case.js';

const REDUCE_JOIN_DOC = 'tensorflow/core/api_def/base_api/api_def_ReduceJoin.pbtxt';
const A = str([2, 2], ['a', 'b', 'c', 'd']);
const reduceJoin = (axes: number[], want: HostTensor, name: string, attrs: Record<string, AttrValueInit> = {}): OpCase => ({
  name,
  source: REDUCE_JOIN_DOC,
  op: 'ReduceJoin',
  attrs,
  inputs: [A, konst(i32([axes.length], axes))],
  want: { output: want },
});

const REDUCE_JOIN_CASES: OpCase[] = [
  reduceJoin([0], str([2], ['ac', 'bd']), 'a = [["a", "b"], ["c", "d"]]: reduce_join(a, 0) == ["ac", "bd"]'),
  reduceJoin([1], str([2], ['ab', 'cd']), 'reduce_join(a, 1) == ["ab", "cd"]'),
  reduceJoin([-2], str([2], ['ac', 'bd']), 'reduce_join(a, -2) == reduce_join(a, 0)'),
  reduceJoin([0], str([1, 2], ['ac', 'bd']), 'keep_dims=True: [["ac", "bd"]]', { keep_dims: attr.b(true) }),
  reduceJoin([1], str([2, 1], ['ab', 'cd']), 'reduce_join(a, 1, keep_dims=True) == [["ab"], ["cd"]]', { keep_dims: attr.b(true) }),
  reduceJoin([0], str([2], ['a.c', 'b.d']), 'separator ".": ["a.c", "b.d"]', { separator: attr.s('.') }),
  reduceJoin([0, 1], str([], ['acbd']), 'reduce_join(a, [0, 1]) == "acbd": the last listed dimension is outermost'),
  reduceJoin([1, 0], str([], ['abcd']), 'reduce_join(a, [1, 0]) == "abcd" (what axis=None writes)'),
  reduceJoin([], A, 'reduce_join(a, []) == a'),
  {
    name: "a dimension out of range fails the request with OUT_OF_RANGE's text",
    source: 'core/kernels/reduce_join_op.cc ReduceJoinOp::Compute',
    op: 'ReduceJoin',
    inputs: [A, konst(i32([1], [2]))],
    want: failsAtRun('Invalid reduction dimension 2 for input with 2 dimension(s)', Code.OUT_OF_RANGE),
  },
  {
    name: 'a dimension listed twice fails the request',
    source: 'core/kernels/reduce_join_op.cc ReduceJoinOp::Compute',
    op: 'ReduceJoin',
    inputs: [A, konst(i32([2], [0, -2]))],
    want: failsAtRun('Duplicate reduction dimension -2'),
  },
];

const NGRAMS_TEST = 'tensorflow/python/ops/ragged/string_ngrams_op_test.py@0f563557 StringNgramsTest';

/** Rows of tokens as TF's ragged components. */
function rows(values: string[][]): { values: HostTensor; splits: HostTensor } {
  const splits = [0];
  for (const r of values) splits.push(splits[splits.length - 1] + r.length);
  return { values: str([splits[splits.length - 1]], values.flat()), splits: i64([splits.length], splits) };
}

interface NGramAttrs {
  widths: number[];
  pads?: [string, string];
  padWidth?: number;
  preserveShort?: boolean;
}
const ngrams = (data: string[][], a: NGramAttrs, want: string[][], name: string, test: string): OpCase => {
  const input = rows(data);
  const out = rows(want);
  return {
    name,
    source: `${NGRAMS_TEST} ${test}`,
    op: 'StringNGrams',
    attrs: {
      separator: attr.s('|'),
      ngram_widths: attr.ints(a.widths),
      left_pad: attr.s(a.pads?.[0] ?? ''),
      right_pad: attr.s(a.pads?.[1] ?? ''),
      pad_width: attr.i(a.padWidth ?? (a.pads ? -1 : 0)),
      preserve_short_sequences: attr.b(a.preserveShort ?? false),
    },
    inputs: [input.values, input.splits],
    want: { ngrams: out.values, ngrams_splits: out.splits },
  };
};
const AD_EF = [
  ['aa', 'bb', 'cc', 'dd'],
  ['ee', 'ff'],
];
const A_F = [['a'], ['b', 'c', 'd'], ['e', 'f']];
const LP_RP: [string, string] = ['LP', 'RP'];

const NGRAMS_CASES: OpCase[] = [
  ngrams(AD_EF, { widths: [3] }, [['aa|bb|cc', 'bb|cc|dd'], []], 'trigrams; a row too short gives none', 'test_unpadded_ngrams'),
  ngrams(
    AD_EF,
    { widths: [2, 3] },
    [['aa|bb', 'bb|cc', 'cc|dd', 'aa|bb|cc', 'bb|cc|dd'], ['ee|ff']],
    'widths (2, 3): bigrams then trigrams',
    'test_tuple_multi_ngrams',
  ),
  ngrams(
    A_F,
    { widths: [3], pads: LP_RP },
    [
      ['LP|LP|a', 'LP|a|RP', 'a|RP|RP'],
      ['LP|LP|b', 'LP|b|c', 'b|c|d', 'c|d|RP', 'd|RP|RP'],
      ['LP|LP|e', 'LP|e|f', 'e|f|RP', 'f|RP|RP'],
    ],
    'pads ("LP", "RP"), width - 1 of them',
    'test_fully_padded_ngrams',
  ),
  ngrams(
    A_F,
    { widths: [3], pads: LP_RP, padWidth: 10 },
    [
      ['LP|LP|a', 'LP|a|RP', 'a|RP|RP'],
      ['LP|LP|b', 'LP|b|c', 'b|c|d', 'c|d|RP', 'd|RP|RP'],
      ['LP|LP|e', 'LP|e|f', 'e|f|RP', 'f|RP|RP'],
    ],
    'padding_width 10 is capped at width - 1',
    'test_ngram_padding_size_cap',
  ),
  ngrams(
    A_F,
    { widths: [5], pads: LP_RP, padWidth: 1 },
    [[], ['LP|b|c|d|RP'], []],
    'width 5, one pad each side',
    'test_singly_padded_ngrams',
  ),
  ngrams(
    A_F,
    { widths: [5], pads: LP_RP, padWidth: 1, preserveShort: true },
    [['LP|a|RP'], ['LP|b|c|d|RP'], ['LP|e|f|RP']],
    'preserve_short_sequences: one n-gram of each short row',
    'test_singly_padded_ngrams_with_preserve_short',
  ),
  ngrams(
    A_F,
    { widths: [1, 5], pads: LP_RP, padWidth: 1 },
    [['a'], ['b', 'c', 'd', 'LP|b|c|d|RP'], ['e', 'f']],
    'widths (1, 5)',
    'test_singly_padded_multiple_ngrams',
  ),
  ngrams(
    AD_EF,
    { widths: [3, 2] },
    [['aa|bb|cc', 'bb|cc|dd', 'aa|bb', 'bb|cc', 'cc|dd'], ['ee|ff']],
    'widths (3, 2): in the order given',
    'test_multi_ngram_ordering',
  ),
  ngrams(
    [['a']],
    { widths: [5], pads: LP_RP, padWidth: 2 },
    [['LP|LP|a|RP|RP']],
    'padding_width 2 on a one-token row',
    'test_explicit_multiply_padded_ngrams',
  ),
  ngrams(
    [
      ['a', 'z'],
      ['b', ''],
      ['e', 'f'],
    ],
    { widths: [3], pads: LP_RP },
    [
      ['LP|LP|a', 'LP|a|z', 'a|z|RP', 'z|RP|RP'],
      ['LP|LP|b', 'LP|b|', 'b||RP', '|RP|RP'],
      ['LP|LP|e', 'LP|e|f', 'e|f|RP', 'f|RP|RP'],
    ],
    'an empty token keeps its separators',
    'test_dense_input',
  ),
  ngrams([[], [], []], { widths: [1, 2] }, [[], [], []], 'no tokens: splits [0, 0, 0, 0]', 'test_input_with_no_values'),
  ngrams(
    [
      ['aa', 'bb', 'cc', 'dd'],
      ['ee', 'ff'],
    ],
    { widths: [3], preserveShort: true },
    [['aa|bb|cc', 'bb|cc|dd'], ['ee|ff']],
    'preserve_short_sequences without pads',
    'test_ragged_inputs_with_multiple_ragged_dimensions_and_preserve',
  ),
  {
    ...ngrams(A_F, { widths: [3] }, [], 'splits that do not start at 0 fail the request', 'core/kernels/string_ngrams_op.cc'),
    source: 'core/kernels/string_ngrams_op.cc StringNGramsOp::Compute',
    inputs: [rows(A_F).values, i64([4], [1, 1, 4, 6])],
    want: failsAtRun('First split value must be 0, got 1'),
  },
  {
    ...ngrams(A_F, { widths: [3] }, [], 'splits past the data fail the request', 'core/kernels/string_ngrams_op.cc'),
    source: 'core/kernels/string_ngrams_op.cc StringNGramsOp::Compute',
    inputs: [rows(A_F).values, i64([4], [0, 1, 4, 7])],
    want: failsAtRun('Invalid split value 7, must be in [4, 6]'),
  },
];

const SEGMENT_JOIN_TEST = 'tensorflow/python/kernel_tests/strings_ops/unsorted_segment_join_op_test.py@03049341 UnsortedSegmentJoinOpTest';
const YQC = str([3, 3], ['Y', 'q', 'c', 'Y', '6', '6', 'p', 'G', 'a']);
const segmentJoin = (
  inputs: HostTensor,
  ids: HostTensor,
  numSegments: HostTensor,
  separator: string,
  want: HostTensor | string,
  name: string,
  test: string,
): OpCase => ({
  name,
  source: `${SEGMENT_JOIN_TEST} ${test}`,
  op: 'UnsortedSegmentJoin',
  attrs: { separator: attr.s(separator) },
  inputs: [inputs, ids, konst(numSegments)],
  want: typeof want === 'string' ? failsAtRun(want) : { output: want },
});

const SEGMENT_JOIN_CASES: OpCase[] = [
  segmentJoin(
    YQC,
    i32([3], [1, 0, 1]),
    i32([], [2]),
    ':',
    str([2, 3], ['Y', '6', '6', 'Y:p', 'q:G', 'c:a']),
    'rows 0 and 2 joined into segment 1',
    'test_basic_np_array',
  ),
  segmentJoin(
    YQC,
    i64([3], [1, 0, 1]),
    i64([], [2]),
    ':',
    str([2, 3], ['Y', '6', '6', 'Y:p', 'q:G', 'c:a']),
    'int64 segment ids and num_segments',
    'test_type_check',
  ),
  segmentJoin(
    str([2, 3], ['Y', '6', '6', 'Y:p', 'q:G', 'c:a']),
    i32([2], [1, 1]),
    i32([], [2]),
    '',
    str([2, 3], ['', '', '', 'YY:p', '6q:G', '6c:a']),
    'a segment nothing maps to is ""',
    'test_multiple_segment_join',
  ),
  segmentJoin(
    str([0], []),
    i32([0], []),
    i32([], [3]),
    ':',
    str([3], ['', '', '']),
    'no input: num_segments empty strings',
    'test_segment_id_and_input_empty',
  ),
  segmentJoin(
    str([3, 2, 2], ['Q', 'b', 'b', 'p', 'i', '9', 'n', 'b', 'T', 'h', 'g', 'z']),
    i32([3, 2, 2], [2, 1, 0, 0, 2, 0, 2, 2, 0, 2, 1, 0]),
    i32([], [3]),
    ':',
    str([3], ['b:p:9:T:z', 'b:g', 'Q:i:n:b:h']),
    "segment ids of the input's whole shape",
    'test_multiple_cases_with_different_dims',
  ),
  segmentJoin(
    str([3, 2, 1], ['z', 'h', 'c', 'z', 'V', 'T']),
    i32([3], [0, 1, 1]),
    i32([], [3]),
    ':',
    str([3, 2, 1], ['z', 'h', 'c:V', 'z:T', '', '']),
    'inner dimensions kept',
    'test_multiple_cases_with_different_dims',
  ),
  segmentJoin(
    str([4], ['this', 'is', 'a', 'test']),
    i32([4], [0, 0, 0, 0]),
    i32([], [1]),
    'UNK',
    str([1], ['thisUNKisUNKaUNKtest']),
    'separator "UNK"',
    'testSeparator',
  ),
  segmentJoin(
    str([3], ['', 'a', 'b']),
    i32([3], [0, 0, 0]),
    i32([], [1]),
    ':',
    str([1], ['a:b']),
    'no separator after an empty string (what is joined so far is empty)',
    'core/kernels/unsorted_segment_join_op.cc Compute: "if (output_flat(output_index).length() != 0) append(separator)"',
  ),
  segmentJoin(
    YQC,
    i32([3], [1, 0, 1]),
    i32([], [1]),
    ':',
    'segment_ids are not allowed to exceed num_segments or to have negative values.',
    'a segment id past num_segments fails the request',
    'test_fail_segment_id_exceeds_segment_nums',
  ),
  segmentJoin(
    YQC,
    i32([3], [-1, 0, -1]),
    i32([], [1]),
    ':',
    'segment_ids are not allowed to exceed num_segments or to have negative values.',
    'a negative segment id fails the request',
    'test_fail_negative_segment_id',
  ),
];

export const JOIN_MORE_CASES: readonly OpCase[] = [...REDUCE_JOIN_CASES, ...NGRAMS_CASES, ...SEGMENT_JOIN_CASES];

export const JOIN_MORE_REGISTRATIONS: readonly string[] = [
  `REGISTER_OP("UnsortedSegmentJoin")
    .Input("inputs: string")
    .Input("segment_ids: Tindices")
    .Input("num_segments: Tnumsegments")
    .Attr("separator: string = ''")
    .Attr("Tindices: {int32,int64}")
    .Attr("Tnumsegments: {int32,int64} = DT_INT32")
    .Output("output: string")`,
  `REGISTER_OP("ReduceJoin")
    .Input("inputs: string")
    .Input("reduction_indices: int32")
    .Attr("keep_dims: bool = false")
    .Attr("separator: string = ''")
    .Output("output: string")`,
  `REGISTER_OP("StringNGrams")
    .Attr("separator: string")
    .Attr("ngram_widths: list(int) >= 0")
    .Attr("left_pad: string")
    .Attr("right_pad: string")
    .Attr("pad_width: int")
    .Attr("preserve_short_sequences: bool")
    .Attr("Tsplits: {int32, int64} = DT_INT64")
    .Input("data: string")
    .Input("data_splits: Tsplits")
    .Output("ngrams: string")
    .Output("ngrams_splits: Tsplits")`,
];
