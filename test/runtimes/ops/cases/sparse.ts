// What Estimator categorical and embedding columns do with ParseExample's sparse outputs: the
// segment combiners (math_ops.cc), SparseToDense, SparseFillEmptyRows, SparseReshape,
// SparseTensorDenseMatMul (sparse_ops.cc), Unique (array_ops.cc). Values from TF's API docs
// (tf.sparse.*, tf.math.sparse_segment_*) and its kernels' float32 arithmetic.
import { attr, Tensor } from '../../../../test_util/savedmodel/writer/graph_builder.js';
import { example, parseExample, serialized } from '../../../helpers/sparse_examples.js';
import type { HostTensor } from '../../../../src/tensor/host_tensor.js';
import { bool, f32, failsAtRun, i32, i64, konst, refusedAtLoad, str, type CaseInput, type OpCase, type OpFamilyCases } from '../op_case.js';

const f = Math.fround;
// The docs' c = [[1, 2, 3, 4], [-1, -2, -3, -4], [5, 6, 7, 8]].
const C = f32([3, 4], [1, 2, 3, 4, -1, -2, -3, -4, 5, 6, 7, 8]);

const segment = (
  op: string,
  data: HostTensor,
  indices: number[],
  ids: number[],
  want: HostTensor | string,
  name: string,
  source: string,
  numSegments?: number,
): OpCase => ({
  name,
  source,
  op,
  inputs: [
    konst(data),
    konst(i32([indices.length], indices)),
    konst(i32([ids.length], ids)),
    ...(numSegments === undefined ? [] : [konst(i32([], [numSegments]))]),
  ],
  want: typeof want === 'string' ? failsAtRun(want) : { output: want },
});
const SUM_DOC = 'tf.sparse.segment_sum API doc';
const MEAN_DOC = 'tf.sparse.segment_mean API doc';
const KERNEL = 'tensorflow/core/kernels/segment_reduction_ops_impl.h';

// The mean of [1, 1, 1.0000003]: TF multiplies the sum by float(1/n) (n < 10); dividing gives another last bit.
const sum3 = f(f(1 + 1) + f(1.0000003));
// n = 11 rows: n & 7 = 3 → rows 0..2 summed first, then rows 3..10 as one block of 8; then divided by n.
const rows11 = Array.from({ length: 11 }, (_, i) => f(1 + i * 1e-7 + (i % 3) * 0.1));
const mean11 = (() => {
  let first = f(f(rows11[0] + rows11[1]) + rows11[2]);
  let block = rows11[3];
  for (let i = 4; i < 11; i++) block = f(block + rows11[i]);
  first = f(first + block);
  return f(first / 11);
})();

const SEGMENT_CASES: OpCase[] = [
  segment('SparseSegmentSum', C, [0, 1], [0, 0], f32([1, 4], [0, 0, 0, 0]), 'two rows, one segment', SUM_DOC),
  segment('SparseSegmentSum', C, [0, 1], [0, 1], f32([2, 4], [1, 2, 3, 4, -1, -2, -3, -4]), 'two rows, two segments', SUM_DOC),
  segment('SparseSegmentSum', C, [0, 1, 2], [0, 0, 1], f32([2, 4], [0, 0, 0, 0, 5, 6, 7, 8]), 'all rows', SUM_DOC),
  segment(
    'SparseSegmentSum',
    i32([3, 4], Array.from(C.values as Float32Array)),
    [0, 1, 2],
    [0, 0, 1],
    i32([2, 4], [0, 0, 0, 0, 5, 6, 7, 8]),
    'all rows of int32 data',
    SUM_DOC,
  ),
  segment(
    'SparseSegmentMean',
    C,
    [0, 1],
    [0, 0],
    f32([1, 4], [0, 0, 0, 0]),
    'sparse_segment_mean(c, [0, 1], [0, 0]) == [[0, 0, 0, 0]]',
    MEAN_DOC,
  ),
  segment(
    'SparseSegmentMean',
    C,
    [0, 1, 2],
    [0, 0, 1],
    f32([2, 4], [0, 0, 0, 0, 5, 6, 7, 8]),
    'sparse_segment_mean(c, [0, 1, 2], [0, 0, 1]) == [[0, 0, 0, 0], [5, 6, 7, 8]]',
    MEAN_DOC,
  ),
  segment(
    'SparseSegmentMean',
    C,
    [0, 2],
    [1, 3],
    f32([4, 4], [0, 0, 0, 0, 1, 2, 3, 4, 0, 0, 0, 0, 5, 6, 7, 8]),
    'segments no id names are rows of 0',
    KERNEL,
  ),
  segment('SparseSegmentMean', C, [], [], f32([0, 4], []), 'no indices: an empty [0, 4] output', KERNEL),
  segment(
    'SparseSegmentSqrtN',
    C,
    [0, 2],
    [0, 0],
    f32(
      [1, 4],
      [6, 8, 10, 12].map((v) => f(v * f(1 / f(Math.SQRT2)))),
    ),
    'divides by sqrt(n): rows 0 and 2 give (c0 + c2) * float(1/sqrt(2))',
    "tf.sparse.segment_sqrt_n API doc; its kernel's float32 arithmetic",
  ),
  segment(
    'SparseSegmentSumWithNumSegments',
    C,
    [0, 1],
    [0, 2],
    f32([4, 4], [1, 2, 3, 4, 0, 0, 0, 0, -1, -2, -3, -4, 0, 0, 0, 0]),
    'sparse_segment_sum_with_num_segments(c, [0, 1], [0, 2], num_segments=4)',
    'tf.math.sparse_segment_sum API doc',
    4,
  ),
  segment(
    'SparseSegmentMeanWithNumSegments',
    C,
    [0, 2],
    [1, 1],
    f32([3, 4], [0, 0, 0, 0, 3, 4, 5, 6, 0, 0, 0, 0]),
    'num_segments 3, one segment in the middle',
    KERNEL,
    3,
  ),
  segment(
    'SparseSegmentSqrtNWithNumSegments',
    C,
    [],
    [],
    f32([2, 4], [0, 0, 0, 0, 0, 0, 0, 0]),
    'no indices, num_segments 2: zeros',
    KERNEL,
    2,
  ),
  segment(
    'SparseSegmentMean',
    f32([3, 1], [1, 1, 1.0000003]),
    [0, 1, 2],
    [0, 0, 0],
    f32([1, 1], [f(sum3 * f(1 / 3))]),
    "n < 10: the sum times float(1/n), TF's last bit (TF.js divides)",
    KERNEL,
  ),
  segment(
    'SparseSegmentMean',
    f32([11, 1], rows11),
    [...Array(11).keys()],
    new Array<number>(11).fill(0),
    f32([1, 1], [mean11]),
    "n ≥ 10: summed in blocks of 8 and divided by n (TF's ReduceImpl)",
    KERNEL,
  ),
  segment('SparseSegmentSum', C, [0, 1], [1, 0], 'segment ids are not increasing', "segment ids not increasing: TF's message", KERNEL),
  segment(
    'SparseSegmentMean',
    C,
    [0, 3],
    [0, 1],
    'Bad: indices[1] == 3 out of range [0, 3)',
    "an index out of range: TF's message",
    KERNEL,
  ),
  segment(
    'SparseSegmentMean',
    C,
    [0, 1],
    [-1, 0],
    "Segment id -1 out of range [0, 1), possibly because 'segment_ids' input is not sorted.",
    "a negative segment id: TF's message",
    KERNEL,
  ),
  segment(
    'SparseSegmentSumWithNumSegments',
    C,
    [0, 1],
    [0, 2],
    'segment ids must be < num_segments',
    "an id past num_segments: TF's message",
    KERNEL,
    2,
  ),
  segment(
    'SparseSegmentSum',
    C,
    [0, 1],
    [0],
    'segment_ids and indices should have same size.',
    "ids and indices of different sizes: TF's message",
    KERNEL,
  ),
];

const toDense = (
  indices: HostTensor,
  shape: number[],
  values: HostTensor,
  dflt: HostTensor,
  want: HostTensor | string,
  name: string,
  source: string,
  validate = true,
): OpCase => ({
  name,
  source,
  op: 'SparseToDense',
  attrs: { validate_indices: attr.b(validate) },
  inputs: [konst(indices), konst(i64([shape.length], shape)), konst(values), konst(dflt)],
  want: typeof want === 'string' ? failsAtRun(want) : { dense: want },
});
const TO_DENSE = 'tf.sparse.to_dense API doc; tensorflow/core/kernels/sparse_to_dense_op.cc';

const TO_DENSE_CASES: OpCase[] = [
  toDense(
    i64([2, 2], [0, 1, 2, 3]),
    [3, 4],
    f32([2], [1, 2]),
    f32([], [-1]),
    f32([3, 4], [-1, 1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 2]),
    'values at their indices, the default elsewhere',
    TO_DENSE,
  ),
  toDense(
    i64([2], [1, 3]),
    [5],
    i32([], [7]),
    i32([], [0]),
    i32([5], [0, 7, 0, 7, 0]),
    'a scalar value broadcast over 1-D indices',
    TO_DENSE,
  ),
  toDense(
    i64([2, 2], [0, 2, 0, 1]),
    [3, 4],
    f32([2], [1, 2]),
    f32([], [0]),
    'indices[1] = [0,1] is out of order. Many sparse ops require sorted indices.\n    Use `tf.sparse.reorder` to create a correctly ordered copy.\n\n',
    "indices out of order (the TF guide's s5) fail with TF's message",
    'tensorflow/core/util/sparse/sparse_tensor.h (IndicesValid)',
  ),
  toDense(
    i64([1, 2], [0, 5]),
    [2, 3],
    f32([1], [1]),
    f32([], [0]),
    'indices[0] = [0,5] is out of bounds: need 0 <= index < [2,3]',
    'an index out of one dimension fails',
    'tensorflow/core/util/sparse/sparse_tensor.h (IndicesValid)',
  ),
  toDense(
    i64([2, 2], [1, 1, 1, 1]),
    [2, 3],
    f32([2], [1, 2]),
    f32([], [0]),
    'indices[1] = [1,1] is repeated',
    'a repeated index fails',
    'tensorflow/core/util/sparse/sparse_tensor.h (IndicesValid)',
  ),
  toDense(
    i64([2, 2], [0, 2, 0, 1]),
    [1, 3],
    f32([2], [1, 2]),
    f32([], [0]),
    f32([1, 3], [0, 2, 1]),
    'validate_indices false: order is not checked',
    TO_DENSE,
    false,
  ),
  toDense(
    i64([1, 2], [0, 5]),
    [2, 3],
    f32([1], [1]),
    f32([], [0]),
    'Indices are not valid (out of bounds).  Shape: [2,3]',
    'validate_indices false: bounds still are',
    'tensorflow/core/kernels/sparse_to_dense_op.cc',
    false,
  ),
];

const OTHER_CASES: OpCase[] = [
  {
    name: 'rows 1 and 4 are empty: they get [1, 0] and [4, 0] with the default',
    source: 'tf.sparse.fill_empty_rows API doc',
    op: 'SparseFillEmptyRows',
    inputs: [
      konst(i64([4, 2], [0, 1, 0, 3, 2, 0, 3, 1])),
      konst(f32([4], [10, 13, 14, 32])),
      konst(i64([2], [5, 6])),
      konst(f32([], [-1])),
    ],
    want: {
      output_indices: i64([6, 2], [0, 1, 0, 3, 1, 0, 2, 0, 3, 1, 4, 0]),
      output_values: f32([6], [10, 13, -1, 14, 32, -1]),
      empty_row_indicator: bool([5], [0, 1, 0, 0, 1]),
      reverse_index_map: i64([4], [0, 1, 3, 4]),
    },
  },
  {
    name: '[2, 3, 6] → [9, -1]: each index mapped through its row-major position, -1 inferred as 4',
    source: 'tf.sparse.reshape API doc',
    op: 'SparseReshape',
    inputs: [konst(i64([3, 3], [0, 0, 0, 0, 1, 2, 1, 2, 5])), konst(i64([3], [2, 3, 6])), konst(i64([2], [9, -1]))],
    // Flat positions 0, 8, 35 in a [9, 4] shape.
    want: { output_indices: i64([3, 2], [0, 0, 2, 0, 8, 3]), output_shape: i64([2], [9, 4]) },
  },
  {
    name: 'tf.unique([1, 1, 2, 4, 4, 4, 7, 8, 8]) == ([1, 2, 4, 7, 8], [0, 0, 1, 2, 2, 2, 3, 4, 4])',
    source: 'tf.unique API doc',
    op: 'Unique',
    inputs: [i64([9], [1, 1, 2, 4, 4, 4, 7, 8, 8])],
    want: { y: i64([5], [1, 2, 4, 7, 8]), idx: i32([9], [0, 0, 1, 2, 2, 2, 3, 4, 4]) },
  },
];

// A = [[1, 0, 0], [0, 0, 2], [0, 3, 0]] as indices/values; B = [[1, 2], [3, 4], [5, 6]].
const matmul = (adjointA: boolean, adjointB: boolean, b: HostTensor, want: number[], name: string): OpCase => ({
  name,
  source: 'tf.sparse.sparse_dense_matmul API doc (the dense product)',
  op: 'SparseTensorDenseMatMul',
  attrs: { adjoint_a: attr.b(adjointA), adjoint_b: attr.b(adjointB) },
  inputs: [konst(i64([3, 2], [0, 0, 1, 2, 2, 1])), konst(f32([3], [1, 2, 3])), konst(i64([2], [3, 3])), konst(b)],
  want: { product: f32([3, 2], want) },
});
const MATMUL_CASES: OpCase[] = [
  matmul(false, false, f32([3, 2], [1, 2, 3, 4, 5, 6]), [1, 2, 10, 12, 9, 12], 'A·B'),
  matmul(true, false, f32([3, 2], [1, 2, 3, 4, 5, 6]), [1, 2, 15, 18, 6, 8], 'Aᵀ·B (adjoint_a)'),
  matmul(false, true, f32([2, 3], [1, 3, 5, 2, 4, 6]), [1, 2, 10, 12, 9, 12], 'A·(Bᵀ)ᵀ (adjoint_b)'),
];

// Crossed feature columns: SparseCross (crossed_column, Keras HashedCrossing), SparseCrossV2
// (tf.sparse.cross), SparseCrossHashed. Values from TF's kernel test, which states the hashed
// outputs "to prevent unintentional hashing changes".
const CROSS_TEST = 'tensorflow/python/kernel_tests/sparse_ops/sparse_cross_op_test.py@02dd752a';
/** The test's _sparse_tensor: row b's features at [b, 0..], shape [batch, widest row]. */
function sparseInput(rows: ReadonlyArray<ReadonlyArray<string | number | bigint>>, batch = rows.length): [CaseInput, CaseInput, CaseInput] {
  const at = rows.flatMap((r, b) => r.map((_, c) => [b, c]));
  const values = rows.flat();
  const width = Math.max(0, ...rows.map((r) => r.length));
  const v =
    values.length && typeof values[0] !== 'string'
      ? i64([values.length], values as Array<number | bigint>)
      : str([values.length], values as string[]);
  return [konst(i64([at.length, 2], at.flat())), konst(v), konst(i64([2], [batch, width]))];
}
/** SparseCross*'s list inputs from sparse columns and dense ones. */
const crossInputs = (sparse: Array<[CaseInput, CaseInput, CaseInput]>, dense: CaseInput[] = []) => [
  sparse.map((s) => s[0]),
  sparse.map((s) => s[1]),
  sparse.map((s) => s[2]),
  dense,
];
/** The expected SparseTensor, as the test builds it. */
function crossOutput(rows: ReadonlyArray<ReadonlyArray<string | bigint>>, batch = rows.length): Record<string, HostTensor> {
  const at = rows.flatMap((r, b) => r.map((_, c) => [b, c]));
  const values = rows.flat();
  const width = Math.max(0, ...rows.map((r) => r.length));
  return {
    output_indices: i64([at.length, 2], at.flat()),
    output_values: typeof values[0] === 'bigint' ? i64([values.length], values as bigint[]) : str([values.length], values as string[]),
    output_shape: i64([2], [batch, width]),
  };
}
const DEFAULT_HASH_KEY = 0xdecafcaffe; // sparse_ops._DEFAULT_HASH_KEY
/** sparse_ops.sparse_cross / sparse_cross_hashed's attrs: internal_type int64 when any input is. */
const v1Attrs = (hashed: boolean, internal: 'DT_STRING' | 'DT_INT64', numBuckets = 0, hashKey = DEFAULT_HASH_KEY) => ({
  hashed_output: attr.b(hashed),
  num_buckets: attr.i(numBuckets),
  hash_key: attr.i(hashKey),
  out_type: attr.type(hashed ? 'DT_INT64' : 'DT_STRING'),
  internal_type: attr.type(internal),
});
const ONE_FEATURE_EACH = crossInputs([
  sparseInput([['batch1-FC1-F1']]),
  sparseInput([['batch1-FC2-F1']]),
  sparseInput([['batch1-FC3-F1']]),
]);
const BATCH2_FC1 = sparseInput([['batch1-FC1-F1'], ['batch2-FC1-F1', 'batch2-FC1-F2']]);
const BATCH2_FC2 = sparseInput([['batch1-FC2-F1'], ['batch2-FC2-F1', 'batch2-FC2-F2']]);
const WIDE_BUCKETS = /num_buckets 0: its hashed crosses \(modulo INT64_MAX\) do not fit the embedded runtime's 32-bit integers/;
const EMBEDDED_REFUSES = (r: RegExp) => ({ wasm: { refuse: r }, cpu: { refuse: r } });

const CROSS_CASES: OpCase[] = [
  {
    name: 'SparseCross: two sparse string columns, every feature of a row with every other, joined by "_X_"',
    source: `${CROSS_TEST} SparseCrossOpTest.test_simple`,
    op: 'SparseCross',
    attrs: v1Attrs(false, 'DT_STRING'),
    inputs: crossInputs([BATCH2_FC1, BATCH2_FC2]),
    want: crossOutput([
      ['batch1-FC1-F1_X_batch1-FC2-F1'],
      ['batch2-FC1-F1_X_batch2-FC2-F1', 'batch2-FC1-F1_X_batch2-FC2-F2', 'batch2-FC1-F2_X_batch2-FC2-F1', 'batch2-FC1-F2_X_batch2-FC2-F2'],
    ]),
  },
  {
    name: 'SparseCross: an int64 dense column crossed with a string one (int64 written as decimal)',
    source: `${CROSS_TEST} SparseCrossOpTest.test_integer_mixed_string_dense`,
    op: 'SparseCross',
    attrs: v1Attrs(false, 'DT_INT64'),
    inputs: crossInputs(
      [],
      [
        konst(i64([2, 2], [11, 333, 55555, 999999])),
        konst(str([2, 2], ['batch1-FC2-F1', 'batch1-FC2-F2', 'batch2-FC2-F1', 'batch2-FC2-F2'])),
      ],
    ),
    want: crossOutput([
      ['11_X_batch1-FC2-F1', '11_X_batch1-FC2-F2', '333_X_batch1-FC2-F1', '333_X_batch1-FC2-F2'],
      ['55555_X_batch2-FC2-F1', '55555_X_batch2-FC2-F2', '999999_X_batch2-FC2-F1', '999999_X_batch2-FC2-F2'],
    ]),
  },
  {
    name: 'SparseCross: 3x1x2 features, the last column varying fastest',
    source: `${CROSS_TEST} SparseCrossOpTest.test_permutation_3x1x2`,
    op: 'SparseCross',
    attrs: v1Attrs(false, 'DT_STRING'),
    inputs: crossInputs([
      sparseInput([['batch1-FC1-F1', 'batch1-FC1-F2', 'batch1-FC1-F3']]),
      sparseInput([['batch1-FC2-F1']]),
      sparseInput([['batch1-FC3-F1', 'batch1-FC3-F2']]),
    ]),
    want: crossOutput([
      [
        'batch1-FC1-F1_X_batch1-FC2-F1_X_batch1-FC3-F1',
        'batch1-FC1-F1_X_batch1-FC2-F1_X_batch1-FC3-F2',
        'batch1-FC1-F2_X_batch1-FC2-F1_X_batch1-FC3-F1',
        'batch1-FC1-F2_X_batch1-FC2-F1_X_batch1-FC3-F2',
        'batch1-FC1-F3_X_batch1-FC2-F1_X_batch1-FC3-F1',
        'batch1-FC1-F3_X_batch1-FC2-F1_X_batch1-FC3-F2',
      ],
    ]),
  },
  {
    name: 'SparseCross: a row where a column is empty has no crosses',
    source: `${CROSS_TEST} SparseCrossOpTest.test_some_columns_empty`,
    op: 'SparseCross',
    attrs: v1Attrs(false, 'DT_STRING'),
    inputs: crossInputs([
      sparseInput([['batch1-FC1-F1', 'batch1-FC1-F2']], 2),
      sparseInput([['batch1-FC2-F1'], ['batch2-FC2-F1']], 2),
      sparseInput([['batch1-FC3-F1', 'batch1-FC3-F2']], 2),
    ]),
    want: crossOutput(
      [
        [
          'batch1-FC1-F1_X_batch1-FC2-F1_X_batch1-FC3-F1',
          'batch1-FC1-F1_X_batch1-FC2-F1_X_batch1-FC3-F2',
          'batch1-FC1-F2_X_batch1-FC2-F1_X_batch1-FC3-F1',
          'batch1-FC1-F2_X_batch1-FC2-F1_X_batch1-FC3-F2',
        ],
      ],
      2,
    ),
  },
  {
    name: 'SparseCross hashed, num_buckets 100, the default hash key: 83',
    source: `${CROSS_TEST} SparseCrossOpTest.test_hashed_no_hash_key`,
    op: 'SparseCross',
    attrs: v1Attrs(true, 'DT_STRING', 100),
    inputs: ONE_FEATURE_EACH,
    want: crossOutput([[83n]]),
  },
  {
    name: 'SparseCross hashed, num_buckets 100, hash key + 1: 31',
    source: `${CROSS_TEST} SparseCrossOpTest.test_hashed_output`,
    op: 'SparseCross',
    attrs: v1Attrs(true, 'DT_STRING', 100, DEFAULT_HASH_KEY + 1),
    inputs: ONE_FEATURE_EACH,
    want: crossOutput([[31n]]),
  },
  {
    name: "SparseCross hashed, num_buckets 0: the 63-bit hash 1971693436396284976 (beyond the embedded runtime's integers: refused there)",
    source: `${CROSS_TEST} SparseCrossOpTest.test_hashed_zero_bucket_no_hash_key`,
    op: 'SparseCross',
    attrs: v1Attrs(true, 'DT_STRING', 0),
    inputs: ONE_FEATURE_EACH,
    want: crossOutput([[1971693436396284976n]]),
    engines: EMBEDDED_REFUSES(WIDE_BUCKETS),
  },
  {
    name: 'SparseCross: columns of different batch sizes fail the request',
    source: `${CROSS_TEST} SparseCrossOpTest.test_batch_size_mismatch; tensorflow/core/kernels/sparse_cross_op.cc ValidateInput`,
    op: 'SparseCross',
    attrs: v1Attrs(false, 'DT_INT64'),
    inputs: crossInputs([
      [konst(i64([1, 2], [0, 0])), konst(i64([1], [0])), konst(i64([2], [10, 10]))],
      [konst(i64([1, 2], [0, 0])), konst(i64([1], [0])), konst(i64([2], [7, 10]))],
    ]),
    want: failsAtRun('Expected batch size 10 got 7 at position 1'),
  },
  {
    name: "SparseCross: a negative num_buckets is refused at load with TF's words",
    source: 'tensorflow/core/ops/sparse_ops.cc REGISTER_OP("SparseCross") .Attr("num_buckets: int >= 0"); op_def_util.cc ValidateAttrValue',
    op: 'SparseCross',
    attrs: v1Attrs(true, 'DT_STRING', -1),
    inputs: ONE_FEATURE_EACH,
    want: refusedAtLoad(
      /Value for attr 'num_buckets' of -1 must be at least minimum 0; NodeDef: \{\{node SparseCross\}\}; Op<name=SparseCross/,
    ),
    // Refused by the graph check every engine shares, before ONNX conversion (the family's note).
    engines: { onnx: { refuse: /Value for attr 'num_buckets' of -1 must be at least minimum 0; NodeDef: \{\{node SparseCross\}\}/ } },
  },
  {
    name: 'SparseCrossV2: sep "_Y_" joins the features',
    source: `${CROSS_TEST} SparseCrossV2OpTest.test_sparse_sep`,
    op: 'SparseCrossV2',
    inputs: [...crossInputs([BATCH2_FC1, BATCH2_FC2]), konst(str([], ['_Y_']))],
    want: crossOutput([
      ['batch1-FC1-F1_Y_batch1-FC2-F1'],
      ['batch2-FC1-F1_Y_batch2-FC2-F1', 'batch2-FC1-F1_Y_batch2-FC2-F2', 'batch2-FC1-F2_Y_batch2-FC2-F1', 'batch2-FC1-F2_Y_batch2-FC2-F2'],
    ]),
  },
  {
    name: 'SparseCrossV2: a sparse int64 column crossed with a sparse string one',
    source: `${CROSS_TEST} SparseCrossV2OpTest.test_integer_mixed_string_sparse`,
    op: 'SparseCrossV2',
    inputs: [...crossInputs([sparseInput([[11], [333, 55555]]), BATCH2_FC2]), konst(str([], ['_X_']))],
    want: crossOutput([
      ['11_X_batch1-FC2-F1'],
      ['333_X_batch2-FC2-F1', '333_X_batch2-FC2-F2', '55555_X_batch2-FC2-F1', '55555_X_batch2-FC2-F2'],
    ]),
  },
  {
    name: 'SparseCrossV2: a separator that is not a scalar fails the request',
    source: `${CROSS_TEST} SparseCrossV2OpTest.testNonScalarInput`,
    op: 'SparseCrossV2',
    inputs: [...crossInputs([]), konst(str([2], ['a', 'b']))],
    want: failsAtRun(/^Input separator should be a scalar\. Received: Tensor<type: string shape: \[2\] values: a b>$/),
  },
  {
    name: 'SparseCrossHashed, num_buckets 100, strong_hash false: 79',
    source: `${CROSS_TEST} SparseCrossHashedOpTest.test_hashed_output`,
    op: 'SparseCrossHashed',
    inputs: [...ONE_FEATURE_EACH, konst(i64([], [100])), konst(bool([], [false])), konst(i64([2], [137, 173]))],
    want: crossOutput([[79n]]),
  },
  {
    name: 'SparseCrossHashed, num_buckets 0: the 63-bit hash 9186962005966787372 (refused on the embedded runtime)',
    source: `${CROSS_TEST} SparseCrossHashedOpTest.test_hashed_zero_bucket_no_hash_key`,
    op: 'SparseCrossHashed',
    inputs: [...ONE_FEATURE_EACH, konst(i64([], [0])), konst(bool([], [false])), konst(i64([2], [1, 1]))],
    want: crossOutput([[9186962005966787372n]]),
    engines: EMBEDDED_REFUSES(WIDE_BUCKETS),
  },
  {
    name: 'SparseCrossHashed: a salt of length 0 fails the request',
    source: `${CROSS_TEST} SparseCrossHashedOpTest.test_sparse_cross_hashed_empty_seed`,
    op: 'SparseCrossHashed',
    inputs: [...crossInputs([]), konst(i64([], [100])), konst(bool([], [false])), konst(i64([0], []))],
    want: failsAtRun('Input "salt" must have length 2 but has length 0'),
  },
  {
    name: "a crossed column as an Estimator's linear model reads it: ParseExample → SparseCross (hashed, 100 buckets) → the weight of bucket 83",
    source: `${CROSS_TEST} SparseCrossOpTest.test_hashed_no_hash_key (bucket 83); the graph as feature_column's crossed_column feeds a linear model`,
    op: 'SparseCross',
    graph: (g) => {
      const keys = ['fc1', 'fc2', 'fc3'];
      const p = parseExample(
        g,
        keys.map((k) => [k, 'string']),
        [],
      );
      const cross = g.addNode('SparseCross', 'SparseCross', [...p.indices, ...p.values, ...p.shapes], {
        ...v1Attrs(true, 'DT_STRING', 100),
        N: attr.i(3),
        sparse_types: attr.types(['string', 'string', 'string']),
        dense_types: attr.types([]),
      });
      const bucket = new Tensor(cross, 1, 'int64', [-1]);
      const weights = g.constant(
        'weights',
        f32(
          [100],
          Array.from({ length: 100 }, (_, i) => i + 0.5),
        ),
      );
      const weight = g.addNode('GatherV2', 'weight', [weights, bucket, g.constant('axis', i32([], [0]))], {
        Tparams: attr.type('float32'),
        Tindices: attr.type('int64'),
        Taxis: attr.type('int32'),
        batch_dims: attr.i(0),
      });
      return {
        inputs: { examples: p.x },
        outputs: { bucket: g.identity('bucket', bucket), weight: g.identity('weight_out', new Tensor(weight, 0, 'float32', [-1])) },
      };
    },
    feeds: {
      examples: serialized(
        example({ fc1: { bytes: ['batch1-FC1-F1'] }, fc2: { bytes: ['batch1-FC2-F1'] }, fc3: { bytes: ['batch1-FC3-F1'] } }),
      ),
    },
    want: { bucket: i64([1], [83]), weight: f32([1], [83.5]) },
    engines: {
      onnx: {
        skip: 'ONNX Runtime takes no string tensors in tfgate: the parsed string features are refused by name before SparseCross is reached',
      },
    },
  },
];

export const SPARSE_CASES: OpFamilyCases = {
  family: 'sparse',
  registrations: [
    `REGISTER_OP("SparseCross")
    .Input("indices: N * int64")
    .Input("values: sparse_types")
    .Input("shapes: N * int64")
    .Input("dense_inputs: dense_types")
    .Output("output_indices: int64")
    .Output("output_values: out_type")
    .Output("output_shape: int64")
    .Attr("N: int >= 0")
    .Attr("hashed_output: bool")
    .Attr("num_buckets: int >= 0")
    .Attr("hash_key: int")
    .Attr("sparse_types: list({int64, string}) >= 0")
    .Attr("dense_types: list({int64, string}) >= 0")
    .Attr("out_type: {int64, string}")
    .Attr("internal_type: {int64, string}")`,
    `REGISTER_OP("SparseCrossV2")
    .Input("indices: N * int64")
    .Input("values: sparse_types")
    .Input("shapes: N * int64")
    .Input("dense_inputs: dense_types")
    .Input("sep: string")
    .Output("output_indices: int64")
    .Output("output_values: string")
    .Output("output_shape: int64")
    .Attr("N: int >= 0")
    .Attr("sparse_types: list({int64, string}) >= 0")
    .Attr("dense_types: list({int64, string}) >= 0")`,
    `REGISTER_OP("GatherV2")
    .Input("params: Tparams")
    .Input("indices: Tindices")
    .Input("axis: Taxis")
    .Attr("batch_dims: int = 0")
    .Output("output: Tparams")
    .Attr("Tparams: type")
    .Attr("Tindices: {int16, int32, int64}")
    .Attr("Taxis: {int32, int64}")`,
    `REGISTER_OP("SparseCrossHashed")
    .Input("indices: N * int64")
    .Input("values: sparse_types")
    .Input("shapes: N * int64")
    .Input("dense_inputs: dense_types")
    .Input("num_buckets: int64")
    .Input("strong_hash: bool")
    .Input("salt: int64")
    .Output("output_indices: int64")
    .Output("output_values: int64")
    .Output("output_shape: int64")
    .Attr("N: int >= 0")
    .Attr("sparse_types: list({int64, string}) >= 0")
    .Attr("dense_types: list({int64, string}) >= 0")`,
  ],
  engines: { onnx: { refuse: /no ONNX converter/ } },
  cases: [...SEGMENT_CASES, ...TO_DENSE_CASES, ...OTHER_CASES, ...MATMUL_CASES, ...CROSS_CASES],
};
