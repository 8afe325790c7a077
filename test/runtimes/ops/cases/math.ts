// Math ops (tensorflow/core/ops/math_ops.cc): Bucketize, the integer divisions whose rounding
// TF defines, Select's TF1 row condition. Values from TF's API docs and kernel tests.
import { attr } from '../../../../test_util/savedmodel/writer/graph_builder.js';
import type { DType } from '../../../../src/tensor/dtype.js';
import type { HostTensor } from '../../../../src/tensor/host_tensor.js';
import { bool, f32, failsAtRun, i32, i64, konst, refusedAtLoad, str, type OpCase, type OpFamilyCases } from '../op_case.js';

const bucketize = (x: HostTensor, boundaries: number[], want: number[] | RegExp, name: string, source: string): OpCase => ({
  name,
  source,
  op: 'Bucketize',
  attrs: { boundaries: { list: { f: boundaries } } },
  inputs: [x],
  want: want instanceof RegExp ? refusedAtLoad(want) : { output: i32(x.shape, want) },
});
const BUCKETIZE_TEST = 'tensorflow/python/kernel_tests/math_ops/bucketize_op_test.py@03049341';
const API_DEF = 'tensorflow/core/api_def/base_api/api_def_Bucketize.pbtxt@c3bd2f4b';
const DOC_INPUT = [-5, 10000, 150, 10, 5, 100];

const BUCKETIZE_CASES: OpCase[] = [
  bucketize(
    f32([3, 2], DOC_INPUT),
    [0, 10, 100],
    [0, 3, 3, 2, 1, 3],
    'boundaries [0, 10, 100]: [[-5, 10000], [150, 10], [5, 100]] → [[0, 3], [3, 2], [1, 3]] (float32)',
    API_DEF,
  ),
  bucketize(i32([3, 2], DOC_INPUT), [0, 10, 100], [0, 3, 3, 2, 1, 3], 'the same example on int32', API_DEF),
  bucketize(
    i64([9], [-5, 0, 2, 3, 5, 8, 10, 11, 12]),
    [0, 3, 8, 11],
    [0, 1, 1, 2, 2, 3, 3, 4, 4],
    'boundaries [0, 3, 8, 11] (int64 input): a value equal to a boundary goes right',
    `${BUCKETIZE_TEST}:36 testInt`,
  ),
  bucketize(
    f32([9], [-5, 0, 2, 3, 5, 8, 10, 11, 12]),
    [0, 3, 8, 11],
    [0, 1, 1, 2, 2, 3, 3, 4, 4],
    'the same on float32',
    `${BUCKETIZE_TEST}:53 testFloat`,
  ),
  bucketize(
    i32([2, 5], [-5, 0, 2, 3, 5, 8, 10, 11, 12, 0]),
    [0, 3, 8, 11],
    [0, 1, 1, 2, 2, 3, 3, 4, 4, 1],
    '2-D input',
    `${BUCKETIZE_TEST}:62 test2DInput`,
  ),
  bucketize(
    f32([0, 3], []),
    [],
    [],
    'an empty [0, 3] input with no boundaries gives an empty [0, 3] output',
    `${BUCKETIZE_TEST}:44 testEmptyFloat`,
  ),
  bucketize(
    f32([0, 3], []),
    [1, 2],
    [],
    'an empty [0, 3] input gives an empty [0, 3] output whatever the boundaries',
    "tensorflow/core/kernels/bucketize_op.cc (the output is allocated with the input's shape)",
  ),
  bucketize(
    i32([2], [-5, 0]),
    [0, 8, 3, 11],
    /Bucketize \(node Bucketize: Expected sorted boundaries\)/,
    'unsorted boundaries are refused at load',
    `${BUCKETIZE_TEST}:71 testInvalidBoundariesOrder`,
  ),
];

const ints = (dtype: DType, x: number[]) => (dtype === 'int64' ? i64([x.length], x) : i32([x.length], x));
const X = [7, -7, 7, -7];
const Y = [3, 3, -3, -3];
const binary = (op: string, dtype: DType, x: number[], y: number[], want: number[], name: string, source: string): OpCase => ({
  name: `${dtype}: ${name}`,
  source,
  op,
  inputs: [ints(dtype, x), ints(dtype, y)],
  want: { z: ints(dtype, want) },
});

const DIVISION_CASES: OpCase[] = [
  binary(
    'FloorMod',
    'int32',
    X,
    Y,
    [1, 2, -2, -1],
    "the remainder takes the divisor's sign (Python semantics: floor(x / y) * y + floormod(x, y) = x)",
    'tf.math.floormod API doc',
  ),
  binary('FloorDiv', 'int32', X, Y, [2, -3, -3, 2], 'rounds toward negative infinity (floor(x / y))', 'tf.math.floordiv API doc'),
  {
    ...binary(
      'Div',
      'int32',
      [7, -7, 7, -7, 0, 9],
      [2, 2, -2, -2, 3, 4],
      [3, -3, -3, 3, 0, 2],
      'integer Div truncates toward zero, as C++ division',
      'tensorflow/core/kernels/cwise_op_div.cc (integers: safe_div_or_mod_op with std::divides)',
    ),
  },
];

const WHERE_DOC = 'tf.where API doc (tensorflow/python/ops/array_ops.py, where_v2)';
const SELECT_KERNEL = 'tensorflow/core/kernels/cwise_op_select.cc';
/** TF registers Select and SelectV2 for every type (TF_CALL_ALL_TYPES): strings are picked as numbers are. */
const STRINGS_ON_ONNX = { skip: 'ONNX Runtime takes no string tensors in tfgate (the string placeholder is refused by name)' };
const MASK = bool([4], [1, 0, 0, 1]);
const selectV2 = (name: string, source: string, inputs: OpCase['inputs'], want: OpCase['want'], engines?: OpCase['engines']): OpCase => ({
  name,
  source,
  op: 'SelectV2',
  inputs,
  want,
  ...(engines && { engines }),
});

const SELECT_CASES: OpCase[] = [
  selectV2(
    '[T, F, F, T], [1, 2, 3, 4], [100, 200, 300, 400] → [1, 200, 300, 4]',
    WHERE_DOC,
    [MASK, i32([4], [1, 2, 3, 4]), i32([4], [100, 200, 300, 400])],
    { output: i32([4], [1, 200, 300, 4]) },
  ),
  selectV2(
    '[T, F, F, T], [1, 2, 3, 4], [100] → [1, 100, 100, 4]: else broadcasts',
    WHERE_DOC,
    [MASK, i32([4], [1, 2, 3, 4]), i32([1], [100])],
    { output: i32([4], [1, 100, 100, 4]) },
  ),
  selectV2(
    '[T, F, F, T], 1, 100 → [1, 100, 100, 1]: both values broadcast to the condition',
    WHERE_DOC,
    [MASK, i32([], [1]), i32([], [100])],
    { output: i32([4], [1, 100, 100, 1]) },
  ),
  selectV2(
    'the same three selections on strings',
    `${WHERE_DOC}; ${SELECT_KERNEL} (TF_CALL_ALL_TYPES)`,
    [MASK, str([4], ['1', '2', '3', '4']), str([1], ['100'])],
    { output: str([4], ['1', '100', '100', '4']) },
    { onnx: STRINGS_ON_ONNX },
  ),
  selectV2(
    'strings: a scalar then and else broadcast to the condition',
    `${WHERE_DOC}; ${SELECT_KERNEL}`,
    [MASK, str([], ['1']), str([], ['100'])],
    { output: str([4], ['1', '100', '100', '1']) },
    { onnx: STRINGS_ON_ONNX },
  ),
  selectV2(
    'strings: a [2, 1] condition against [1, 2] labels gives [2, 2], bytes as they are',
    `${WHERE_DOC} (numpy broadcasting); ${SELECT_KERNEL}`,
    [bool([2, 1], [1, 0]), str([1, 2], ['yes', '\xff']), str([1, 2], [new Uint8Array([0xc3]), 'no'])],
    { output: str([2, 2], ['yes', '\xff', new Uint8Array([0xc3]), 'no']) },
    { onnx: STRINGS_ON_ONNX },
  ),
  selectV2(
    'strings: shapes that do not broadcast fail the request',
    `${SELECT_KERNEL} SelectV2Op::Compute`,
    [bool([3], [1, 0, 1]), str([2], ['a', 'b']), str([2], ['c', 'd'])],
    failsAtRun('condition [3], then [2], and else [2] must be broadcastable'),
    { onnx: STRINGS_ON_ONNX },
  ),
  {
    name: 'TF1 Select with a vector condition picks whole rows of x or y',
    source:
      'tf.compat.v1.where API doc ("If condition is rank 1, x may have higher rank, but its first dimension must match the size of condition")',
    op: 'Select',
    inputs: [bool([3], [1, 0, 1]), f32([3, 2], [1, 2, 3, 4, 5, 6]), f32([3, 2], [1, 3, 2, 4, 6, 5])],
    want: { output: f32([3, 2], [1, 2, 2, 4, 5, 6]) },
  },
  {
    name: 'TF1 Select picks rows of strings',
    source: `tf.compat.v1.where API doc; ${SELECT_KERNEL} SelectOp::ComputeBroadcasting`,
    op: 'Select',
    inputs: [bool([2], [0, 1]), str([2, 2], ['a', 'b', 'c', 'd']), str([2, 2], ['w', 'x', 'y', 'z'])],
    want: { output: str([2, 2], ['w', 'x', 'c', 'd']) },
    engines: { onnx: STRINGS_ON_ONNX },
  },
  {
    name: 'TF1 Select with a scalar condition takes all of then (strings)',
    source: `${SELECT_KERNEL} SelectOp::ComputeScalar`,
    op: 'Select',
    inputs: [bool([], [1]), str([2], ['a', 'b']), str([2], ['c', 'd'])],
    want: { output: str([2], ['a', 'b']) },
    engines: { onnx: STRINGS_ON_ONNX },
  },
  {
    name: 'TF1 Select: a vector condition must match the rows of then',
    source: `${SELECT_KERNEL} SelectOp::ComputeBroadcasting`,
    op: 'Select',
    inputs: [bool([3], [1, 0, 1]), str([2, 2], ['a', 'b', 'c', 'd']), str([2, 2], ['w', 'x', 'y', 'z'])],
    want: failsAtRun("Number of batches of 'then' must match size of 'cond', but saw: 2 vs. 3"),
    engines: { onnx: STRINGS_ON_ONNX },
  },
  {
    name: 'TF1 Select element by element needs one shape',
    source: `${SELECT_KERNEL} SelectOp::ComputeElementwise (OpKernelContext::ValidateInputsAreSameShape)`,
    op: 'Select',
    inputs: [bool([2, 2], [1, 0, 1, 0]), str([2, 2], ['a', 'b', 'c', 'd']), str([1, 2], ['w', 'x'])],
    want: failsAtRun('Inputs to operation Select of type Select must have the same size and shape.  Input 0: [2,2] != input 2: [1,2]'),
    engines: { onnx: STRINGS_ON_ONNX },
  },
];

const MATH_REGISTRATIONS = [
  `REGISTER_OP("FloorMod")
    .Input("x: T")
    .Input("y: T")
    .Output("z: T")
    .Attr( "T: {int8, int16, int32, int64, uint8, uint16, uint32, uint64, " "bfloat16, half, float, double}")`,
  // FloorDiv and Div are .BINARY_MORE() in math_ops.cc, expanded here.
  `REGISTER_OP("FloorDiv")
    .Input("x: T").Input("y: T").Output("z: T").Attr(
      "T: {bfloat16, half, float, double, uint8, int8, uint16, int16, int32, "
      "int64, complex64, complex128}")`,
  `REGISTER_OP("Div")
    .Input("x: T").Input("y: T").Output("z: T").Attr(
      "T: {bfloat16, half, float, double, uint8, int8, uint16, int16, int32, "
      "int64, complex64, complex128}")`,
  `REGISTER_OP("Select")
    .Input("condition: bool")
    .Input("t: T")
    .Input("e: T")
    .Output("output: T")
    .Attr("T: type")`,
  `REGISTER_OP("SelectV2")
    .Input("condition: bool")
    .Input("t: T")
    .Input("e: T")
    .Output("output: T")
    .Attr("T: type")`,
];

// int64 beyond 32 bits: ONNX Runtime computes on int64; the embedded runtime (TF.js has no
// int64) would clamp such a constant to int32, so it refuses the node that reads it.
const WIDE_CONSTANT = /AddV2 \(node AddV2: it reads the int64 constant .* \(4294967297\), beyond the embedded runtime's 32-bit integers\)/;
const INT64_CASES: OpCase[] = [
  {
    name: 'AddV2 on int64 with the constant 2^32 + 1: exact where int64 is native, refused where a clamp would change it',
    source: 'tensorflow/core/ops/math_ops.cc AddV2 (int64 in its type list); int64 arithmetic',
    op: 'AddV2',
    inputs: [i64([3], [1, -1, -4294967297]), konst(i64([], [4294967297]))],
    want: { z: i64([3], [4294967298n, 4294967296n, 0n]) },
    engines: { wasm: { refuse: WIDE_CONSTANT }, cpu: { refuse: WIDE_CONSTANT } },
  },
];

export const MATH_CASES: OpFamilyCases = {
  family: 'math',
  registrations: MATH_REGISTRATIONS,
  cases: [...BUCKETIZE_CASES, ...DIVISION_CASES, ...SELECT_CASES, ...INT64_CASES],
};
