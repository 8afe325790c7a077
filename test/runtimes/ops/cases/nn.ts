// Neural-network ops (tensorflow/core/ops/nn_ops.cc). Values from TF's API docs and kernel tests.
import type { DType } from '../../../../src/tensor/dtype.js';
import type { HostTensor } from '../../../../src/tensor/host_tensor.js';
import { attr } from '../../../../test_util/savedmodel/writer/graph_builder.js';
import { f32, failsAtRun, i32, type OpCase, type OpFamilyCases } from '../op_case.js';

const NN_REGISTRATIONS = [
  `REGISTER_OP("Softsign")
    .Input("features: T")
    .Output("activations: T")
    .Attr("T: {half, bfloat16, float, double}")`,
  `REGISTER_OP("TopKV2")
    .Input("input: T")
    .Input("k: int32")
    .Output("values: T")
    .Output("indices: int32")
    .Attr("sorted: bool = true")
    .Attr("T: realnumbertype")`,
];

const SOFTSIGN_CASES: OpCase[] = [
  {
    name: 'x / (1 + |x|)',
    source: 'tf.nn.softsign API doc',
    op: 'Softsign',
    inputs: [f32([4], [-3, -0.5, 0, 2])],
    want: { activations: f32([4], [-0.75, -1 / 3, 0, 2 / 3]) },
    tol: 1e-6,
    engines: {
      wasm: { refuse: /Softsign/ },
      cpu: { refuse: /Softsign/ },
    },
  },
];

const TOPK_TEST = 'tensorflow/python/kernel_tests/nn_ops/topk_op_test.py (2026 version, index id 70679018303)';
const TOPK_KERNEL = 'tensorflow/core/kernels/topk_op.cc@c3bd2f4b';

/** Float32 values with NaN sign written out: 'nan' is +NaN (numpy's), '-nan' the sign bit set. */
function floats(shape: number[], values: Array<number | 'nan' | '-nan'>): HostTensor {
  const bits = new Uint32Array(values.length);
  const view = new Float32Array(bits.buffer);
  values.forEach((v, i) => {
    if (v === 'nan') bits[i] = 0x7fc00000;
    else if (v === '-nan') bits[i] = 0xffc00000;
    else view[i] = v;
  });
  return { dtype: 'float32', shape, values: view };
}

/** ONNX Runtime orders NaN its own way, and no ONNX op reads a NaN's sign: a guard refuses such runs. */
const ONNX_NAN: OpCase['engines'] = { onnx: { refuseRun: /holds NaN, which TensorFlow orders .* and ONNX Runtime cannot/ } };

const topK = (
  name: string,
  test: string,
  input: HostTensor,
  k: number,
  want: { values?: HostTensor; indices: number[] } | string,
  sorted = true,
): OpCase => {
  const outShape = [...input.shape.slice(0, -1), k];
  const hasNan = input.dtype === 'float32' && Array.from(input.values as Float32Array).some(Number.isNaN);
  return {
    name,
    source: `${TOPK_TEST} ${test}`,
    op: 'TopKV2',
    ...(sorted
      ? {}
      : { attrs: { sorted: attr.b(false) }, engines: { onnx: { refuse: /sorted=false: TF answers in the order its heap/ } } }),
    ...(hasNan ? { engines: ONNX_NAN } : {}),
    inputs: [input, i32([], [k])],
    want:
      typeof want === 'string'
        ? failsAtRun(want)
        : { ...(want.values ? { values: want.values } : {}), indices: i32(outShape, want.indices) },
  };
};

const ROWS = [0.1, 0.3, 0.2, 0.4, 0.1, 0.3, 0.3, 0.2];
const ROWS_2 = [0.1, 0.3, 0.2, 0.4, 0.1, 0.3, 0.4, 0.2];
const VECTOR = [3, 6, 15, 18, 6, 12, 1, 17, 3, 0, 4, 19, 1, 6];
const INTS = [5, 2, 8, 8, 1, 9, 3, 7, 0, 4];
const ints = (dtype: DType, shape: number[], v: number[]): HostTensor => ({
  dtype,
  shape,
  values: dtype === 'uint8' ? Uint8Array.from(v) : dtype === 'int8' ? Int8Array.from(v) : Int32Array.from(v),
});
const NAN_ROW: Array<number | 'nan'> = ['nan', 3, 1, 'nan', 2, 'nan', 0.5];

const TOPK_CASES: OpCase[] = [
  topK('k = 1: the first maximum of each row', 'testTop1', f32([2, 4], ROWS), 1, { values: f32([2, 1], [0.4, 0.3]), indices: [3, 1] }),
  topK('k = 2', 'testTop2', f32([2, 4], ROWS_2), 2, { values: f32([2, 2], [0.4, 0.3, 0.4, 0.3]), indices: [3, 1, 2, 1] }),
  topK('k = n sorts the rows, equal values by index', 'testTopAll', f32([2, 4], ROWS), 4, {
    values: f32([2, 4], [0.4, 0.3, 0.2, 0.1, 0.3, 0.3, 0.2, 0.1]),
    indices: [3, 1, 2, 0, 1, 2, 3, 0],
  }),
  topK(
    "sorted=false, 1 < k < n: the order gtl::TopN's heap leaves",
    'testTop3Unsorted',
    f32([2, 4], [0.1, 0.3, 0.2, 0.4, 0.1, 0.4, 0.3, 0.2]),
    3,
    { values: f32([2, 3], [0.2, 0.3, 0.4, 0.2, 0.4, 0.3]), indices: [2, 1, 3, 3, 1, 2] },
    false,
  ),
  topK('a vector of ints', 'testTop3Vector', i32([14], VECTOR), 3, { values: i32([3], [19, 18, 17]), indices: [11, 3, 7] }),
  topK('int32, k = 3: ties by index', 'testTopKIntegerTypes', i32([2, 5], INTS), 3, {
    values: i32([2, 3], [8, 8, 5, 9, 7, 4]),
    indices: [2, 3, 0, 0, 2, 4],
  }),
  topK('int32, k = 5', 'testTopKIntegerTypes', i32([2, 5], INTS), 5, {
    values: i32([2, 5], [8, 8, 5, 2, 1, 9, 7, 4, 3, 0]),
    indices: [2, 3, 0, 1, 4, 0, 2, 4, 1, 3],
  }),
  topK('uint8 [0, 255, 0, 255], k = 1: the first maximum', 'testTopKIntegerTypes', ints('uint8', [1, 4], [0, 255, 0, 255]), 1, {
    values: ints('uint8', [1, 1], [255]),
    indices: [1],
  }),
  topK('int8 [-128, 127, 0, 127], k = 1: the first maximum', 'testTopKIntegerTypes', ints('int8', [1, 4], [-128, 127, 0, 127]), 1, {
    values: ints('int8', [1, 1], [127]),
    indices: [1],
  }),
  topK('no rows: [0, 10] → [0, 3]', 'testTop3ZeroRows', f32([0, 10], []), 3, { values: f32([0, 3], []), indices: [] }),
  topK('+NaN first, −NaN last, −0 after 0 by index', 'testTopKNanEdgeCases', floats([6], [-Infinity, 'nan', 0, Infinity, -0, '-nan']), 6, {
    values: floats([6], ['nan', Infinity, 0, -0, -Infinity, 'nan']),
    indices: [1, 3, 2, 4, 0, 5],
  }),
  topK('all NaN, k = 2: the +NaNs by index', 'testTopKNanEdgeCases', floats([4], ['nan', '-nan', 'nan', '-nan']), 2, { indices: [0, 2] }),
  topK('all NaN, k = 4', 'testTopKNanEdgeCases', floats([4], ['nan', '-nan', 'nan', '-nan']), 4, { indices: [0, 2, 1, 3] }),
  topK('k = 1 prefers any number to −NaN', 'testTopKNanEdgeCases', floats([3], ['-nan', -Infinity, '-nan']), 1, { indices: [1] }),
  topK('negated NaNs sort last', 'testTopKNegatedNan', floats([7], ['-nan', -3, -1, '-nan', -2, '-nan', -0.5]), 7, {
    values: floats([7], [-0.5, -1, -2, -3, 'nan', 'nan', 'nan']),
    indices: [6, 2, 4, 1, 0, 3, 5],
  }),
  topK('NaNs first, k = 3 (the heap path)', 'testTopKNanDtypes', floats([7], NAN_ROW), 3, { indices: [0, 3, 5] }),
  topK('NaNs first, k = 7', 'testTopKNanDtypes', floats([7], NAN_ROW), 7, { indices: [0, 3, 5, 1, 4, 2, 6] }),
  topK('a leading −NaN does not stop k = 1', 'testTopKNanDtypes', floats([4], ['-nan', 1, 'nan', 2]), 1, { indices: [2] }),
  topK('+NaN, then numbers, then −NaN: k = 2', 'testTopKNanDtypes', floats([4], ['-nan', 1, 'nan', 2]), 2, { indices: [2, 3] }),
  topK('+NaN, then numbers, then −NaN: k = 4', 'testTopKNanDtypes', floats([4], ['-nan', 1, 'nan', 2]), 4, { indices: [2, 3, 1, 0] }),
  topK('rows with NaN, k = 2', 'testTopKBatchedWithNan', floats([2, 4], [3, 'nan', 2, 1, 'nan', 5, 'nan', 4]), 2, {
    indices: [1, 0, 0, 2],
  }),
  topK('k = -7 is refused', 'testKNegative', f32([2, 2], [0.1, 0.2, 0.3, 0.4]), -7, 'Need k >= 0, got -7'),
  {
    ...topK(
      'k = 4 of 2 columns is refused',
      `testKTooLarge; the message: ${TOPK_KERNEL}`,
      f32([2, 2], [0.1, 0.2, 0.3, 0.4]),
      4,
      'input must have at least k columns. Had 2, needed 4',
    ),
  },
];

export const NN_CASES: OpFamilyCases = {
  family: 'nn',
  registrations: NN_REGISTRATIONS,
  cases: [...SOFTSIGN_CASES, ...TOPK_CASES],
};
