// TF's StringFormat (tf.strings.format): tensors summarized into a template as
// Tensor::SummarizeValue(summarize, print_v2) writes them. Values from
// tensorflow/python/kernel_tests/strings_ops/string_format_op_test.py@03049341 (math_ops.range
// gives int32; constant_op.constant of Python floats float32).
import { attr } from '../../../../test_util/savedmodel/writer/graph_builder.js';
import type { HostTensor } from '../../../../src/tensor/host_tensor.js';
import { f32, i32, refusedAtLoad, str, type OpCase } from '../op_case.js';

const TEST = 'tensorflow/python/kernel_tests/strings_ops/string_format_op_test.py@03049341';
const range = (n: number, shape = [n], times = 1) =>
  i32(
    shape,
    Array.from({ length: n }, (_, i) => i * times),
  );

function format(
  name: string,
  test: string,
  template: string,
  inputs: HostTensor[],
  want: string,
  o: { summarize?: number; placeholder?: string } = {},
): OpCase {
  return {
    name,
    source: `${TEST} ${test}`,
    op: 'StringFormat',
    attrs: { template: attr.s(template), placeholder: attr.s(o.placeholder ?? '{}'), summarize: attr.i(o.summarize ?? 3) },
    inputs: [inputs],
    want: { output: str([], [want]) },
  };
}

const TEN_BY_TEN = [
  '[[0 1 2 ... 7 8 9]',
  ' [10 11 12 ... 17 18 19]',
  ' [20 21 22 ... 27 28 29]',
  ' ...',
  ' [70 71 72 ... 77 78 79]',
  ' [80 81 82 ... 87 88 89]',
  ' [90 91 92 ... 97 98 99]]',
].join('\n');

/** testFormatOneTensorThreeDim's expected text, block by block as the test writes it. */
const block = (b: number) =>
  [0, 1, 2, -1, 7, 8, 9]
    .map((r, i) =>
      r < 0
        ? '  ...'
        : `${i === 0 ? '[' : '  '}[${[0, 1, 2].map((c) => b * 100 + r * 10 + c).join(' ')} ... ${[7, 8, 9].map((c) => b * 100 + r * 10 + c).join(' ')}]`,
    )
    .join('\n') + ']';
const THREE_DIM = `[${[0, 1, 2].map(block).join('\n\n ')}\n\n ...\n\n ${[7, 8, 9].map(block).join('\n\n ')}]`;

export const STRING_FORMAT_CASES: readonly OpCase[] = [
  format('range(10): "[0 1 2 ... 7 8 9]"', 'testFormatOneTensorOneDim', '{}', [range(10)], '[0 1 2 ... 7 8 9]'),
  format('a float scalar: "3.34"', 'testFormatOneVariableScalar', '{}', [f32([], [3.34])], '3.34'),
  format(
    'two inputs: "3.14, [0 1 2 ... 7 8 9]"',
    'testFormatTwoVariablesWithAssignAdd',
    '{}, {}',
    [f32([], [3.14]), range(10)],
    '3.14, [0 1 2 ... 7 8 9]',
  ),
  format(
    'floats: "[0 0.1 0.2 ... 0.5 0.6 0.7]"',
    'testFormatOneTensorOneDimFloat',
    '{}',
    [f32([8], [0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7])],
    '[0 0.1 0.2 ... 0.5 0.6 0.7]',
  ),
  format('range(6), summarize 3: all six', 'testFormatOneTensorOneDimMatchesSummarize', '{}', [range(6)], '[0 1 2 3 4 5]'),
  format('summarize -1: all', 'testFormatOneTensorOneDimVarySummarize', '{}', [range(6)], '[0 1 2 3 4 5]', { summarize: -1 }),
  format('summarize 1: "[0 ... 5]"', 'testFormatOneTensorOneDimVarySummarize', '{}', [range(6)], '[0 ... 5]', { summarize: 1 }),
  format('summarize 2: "[0 1 ... 4 5]"', 'testFormatOneTensorOneDimVarySummarize', '{}', [range(6)], '[0 1 ... 4 5]', { summarize: 2 }),
  format('summarize 10 on six: all', 'testFormatOneTensorOneDimVarySummarize', '{}', [range(6)], '[0 1 2 3 4 5]', { summarize: 10 }),
  format('range(5), summarize 3: all five', 'testFormatOneTensorOneDimAlmostSummarize', '{}', [range(5)], '[0 1 2 3 4]'),
  format('2x2: rows on new lines', 'testFormatOneTensorTwoDimLessThanSummarize', '{}', [range(4, [2, 2])], '[[0 1]\n [2 3]]'),
  format(
    '10x10 with prefix and suffix',
    'testFormatOneTensorTemplatePrefixAndSuffix',
    'tensor summary: {}, suffix',
    [range(100, [10, 10])],
    `tensor summary: ${TEN_BY_TEN}, suffix`,
  ),
  format('10x10x10: blocks apart by a blank line', 'testFormatOneTensorThreeDim', '{}', [range(1000, [10, 10, 10])], THREE_DIM),
  format(
    '10x10, summarize 1',
    'testFormatSummarizeOne',
    'tensor summary: {}',
    [range(100, [10, 10])],
    'tensor summary: [[0 ... 9]\n ...\n [90 ... 99]]',
    { summarize: 1 },
  ),
  format(
    '10x10, summarize 2',
    'testFormatSummarizeTwo',
    'tensor summary: {}',
    [range(100, [10, 10])],
    'tensor summary: [[0 1 ... 8 9]\n [10 11 ... 18 19]\n ...\n [80 81 ... 88 89]\n [90 91 ... 98 99]]',
    { summarize: 2 },
  ),
  format('placeholder "%t%"', 'testFormatPlaceholder', 'tensor summary: %t%', [range(100, [10, 10])], `tensor summary: ${TEN_BY_TEN}`, {
    placeholder: '%t%',
  }),
  format('no tensor', 'testFormatNoTensor', 'No tensor.', [], 'No tensor.'),
  format(
    'two tensors, a new line in the template',
    'testFormatMultiTensor',
    'One: {},\nTwo: {}',
    [range(100, [10, 10]), range(100, [10, 10], 10)],
    `One: ${TEN_BY_TEN},\nTwo: ${TEN_BY_TEN.replace(/\d+/g, (d) => String(Number(d) * 10))}`,
  ),
  format('a string in double quotes, UTF-8 kept', 'testTensorAndFormatUnicode', '😊:{}', [str([], ['😊'])], '😊:"😊"'),
  {
    name: 'more inputs than placeholders: refused when the kernel is built',
    source: 'tensorflow/core/kernels/string_format_op.cc StringFormatOp (OP_REQUIRES num_inputs == num_placeholders)',
    op: 'StringFormat',
    attrs: { template: attr.s('{}'), placeholder: attr.s('{}'), summarize: attr.i(3) },
    inputs: [[range(3), range(3)]],
    want: refusedAtLoad(/num placeholders in template and num inputs must match: 1 vs\. 2/),
  },
];

// tensorflow/core/ops/string_ops.cc
export const STRING_FORMAT_REGISTRATIONS: readonly string[] = [
  `REGISTER_OP("StringFormat")
    .Input("inputs: T")
    .Output("output: string")
    .Attr("T: list(type) >= 0")
    .Attr("template: string = '%s'")
    .Attr("placeholder: string = '%s'")
    .Attr("summarize: int = 3")`,
];
