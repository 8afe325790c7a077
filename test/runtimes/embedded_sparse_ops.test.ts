// Estimator serving inputs with sparse tf.Example features, through the embedded runtime on WASM
// and on CPU (both must agree), on tiny graphs written with tfgate's SavedModel writer:
// ParseExample's sparse outputs, and the sparse ops feature columns emit (SparseToDense,
// SparseReshape, SparseFillEmptyRows, SparseSegmentSum/Mean/SqrtN[WithNumSegments],
// SparseTensorDenseMatMul, Unique). Expected values are TensorFlow's: its op docs
// (tf.sparse.*, tf.math.sparse_segment_*), its kernel tests and its kernels' arithmetic.
import { describe, it } from 'node:test';
import * as tf from '@tensorflow/tfjs-core';
import assert from 'node:assert/strict';
import type { TfjsServable } from '../../src/runtimes/embedded/tfjs_servable.js';
import type { HostTensor } from '../../src/tensor/host_tensor.js';
import type { DType } from '../../src/tensor/dtype.js';
import { Code, ServingError } from '../../src/errors/status.js';
import { attr, f32, i32, i64, node, Tensor, writeTinyModel, type GraphBuilder } from '../helpers/tiny_graphs.js';
import { EMBEDDED_BACKENDS, runOnBothBackends } from '../helpers/both_backends.js';
import type { AttrValueInit } from '../../test_util/savedmodel/writer/graph_builder.js';
import { sparseParseModel, estimatorModel, estimatorReference, example, parseExample, serialized } from '../helpers/sparse_examples.js';

const RUNTIMES = EMBEDDED_BACKENDS;

const run = runOnBothBackends;

/** Both runtimes refuse the request with INVALID_ARGUMENT and exactly `message`. */
async function refuses(dir: string, inputs: Record<string, HostTensor>, message: string): Promise<void> {
  for (const runtime of RUNTIMES) {
    const s = (await runtime.load(dir, { tags: ['serve'] })) as TfjsServable;
    try {
      await assert.rejects(s.run('serving_default', inputs), (err: unknown) => {
        assert.ok(err instanceof ServingError, String(err));
        assert.equal(err.code, Code.INVALID_ARGUMENT);
        assert.equal(err.message, message);
        return true;
      });
    } finally {
      s.dispose();
    }
  }
}

const nums = (t: HostTensor) => Array.from(t.values as ArrayLike<number | bigint>, Number);
const out = (g: GraphBuilder, op: string, inputs: Tensor[], attrs: Record<string, AttrValueInit>, dtype: DType, outputs: Array<[string, DType]>) => {
  const name = g.addNode(op, op.toLowerCase(), inputs, attrs);
  return Object.fromEntries(outputs.map(([key, d], i) => [key, g.identity(key, new Tensor(name, i, d, null))]));
};

describe('ParseExample: sparse features (VarLenFeature)', () => {
  const model = sparseParseModel;

  it('gives TF layout: indices [n, 2] (example, position) row-major, values in order, shape [batch, largest count]; missing and empty features give no values', async () => {
    const dir = await model();
    const r = await run(dir, {
      examples: serialized(
        example({ ids: { int64: [7, 3] }, w: { float: [0.5] }, x: { float: [1] } }),
        example({ x: { float: [2] }, tags: { bytes: ['a', 'bc', 'd'] } }), // no ids, no w
        example({ ids: { int64: [] }, w: { float: [1.5, -2] } }), // empty ids; x from its default
        example({ ids: { int64: [9] } }),
      ),
    });
    assert.equal(r.ids_indices.dtype, 'int64');
    assert.deepEqual(r.ids_indices.shape, [3, 2]);
    assert.deepEqual(nums(r.ids_indices), [0, 0, 0, 1, 3, 0]);
    assert.equal(r.ids_values.dtype, 'int64');
    assert.deepEqual(nums(r.ids_values), [7, 3, 9]);
    assert.deepEqual(nums(r.ids_shape), [4, 2]);
    assert.deepEqual(nums(r.w_indices), [0, 0, 2, 0, 2, 1]);
    assert.equal(r.w_values.dtype, 'float32');
    assert.deepEqual(nums(r.w_values), [0.5, 1.5, -2]);
    assert.deepEqual(nums(r.w_shape), [4, 2]);
    assert.deepEqual(nums(r.tags_indices), [1, 0, 1, 1, 1, 2]);
    assert.deepEqual((r.tags_values.values as Uint8Array[]).map((b) => Buffer.from(b).toString()), ['a', 'bc', 'd']);
    assert.deepEqual(nums(r.tags_shape), [4, 3]);
    assert.deepEqual(nums(r.x), [1, 2, 0, 0]);
  });

  it('a batch where no example has the feature gives indices [0, 2], values [0], shape [batch, 0]', async () => {
    const r = await run(await model(), { examples: serialized(example({ x: { float: [1] } }), example({})) });
    assert.deepEqual(r.ids_indices.shape, [0, 2]);
    assert.deepEqual(r.ids_values.shape, [0]);
    assert.deepEqual(nums(r.ids_shape), [2, 0]);
  });

  it("refuses a feature of another type with TF's text (example_proto_fast_parsing.cc)", async () => {
    const dir = await model();
    await refuses(dir, { examples: serialized(example({ ids: { float: [1] } })) }, "Name: <unknown>, Feature: ids.  Data types don't match. Expected type: int64");
    await refuses(dir, { examples: serialized(example({ w: { int64: [1] } })) }, "Name: <unknown>, Feature: w.  Data types don't match. Expected type: float");
    await refuses(dir, { examples: serialized(example({ tags: { float: [] } })) }, "Name: <unknown>, Feature: tags.  Data types don't match. Expected type: string");
  });

  it("refuses an int64 value outside int32 (TF.js's integers) by name rather than wrapping it", async () => {
    const s = (await RUNTIMES[1].load(await model(), { tags: ['serve'] })) as TfjsServable;
    try {
      await assert.rejects(s.run('serving_default', { examples: serialized(example({ ids: { int64: [2 ** 31] } })) }), (err: unknown) => {
        assert.ok(err instanceof ServingError && err.code === Code.UNIMPLEMENTED, String(err));
        assert.match(err.message, /int64 value 2147483648 of sparse feature 'ids' does not fit/);
        return true;
      });
    } finally {
      s.dispose();
    }
  });

  it('ParseExampleV2: sparse keys as a vector input, same outputs; ragged keys still refused by name', async () => {
    const v2 = (ragged: string[]) =>
      writeTinyModel((g) => {
        const x = g.placeholder('examples', 'string', [-1]);
        const strs = (name: string, v: string[]) => g.constant(name, { dtype: 'string', shape: [v.length], values: v.map((s) => Buffer.from(s)) });
        const name = g.addNode('ParseExampleV2', 'ParseExampleV2', [x, strs('names', []), strs('sparse_keys', ['ids']), strs('dense_keys', []), strs('ragged_keys', ragged)], {
          Tdense: attr.types([]),
          num_sparse: attr.i(1),
          sparse_types: attr.types(['int64']),
          ragged_value_types: attr.types(ragged.map(() => 'int64')),
          ragged_split_types: attr.types(ragged.map(() => 'int64')),
          dense_shapes: { list: {} },
        });
        return {
          inputs: { examples: x },
          outputs: {
            indices: g.identity('indices', new Tensor(name, 0, 'int64', null)),
            values: g.identity('values', new Tensor(name, 1, 'int64', null)),
            shape: g.identity('shape', new Tensor(name, 2, 'int64', null)),
          },
        };
      });
    const r = await run(await v2([]), { examples: serialized(example({}), example({ ids: { int64: [4, 5, 6] } })) });
    assert.deepEqual(nums(r.indices), [1, 0, 1, 1, 1, 2]);
    assert.deepEqual(nums(r.values), [4, 5, 6]);
    assert.deepEqual(nums(r.shape), [2, 3]);
    const s = (await RUNTIMES[1].load(await v2(['r']), { tags: ['serve'] })) as TfjsServable;
    try {
      await assert.rejects(s.run('serving_default', { examples: serialized(example({})) }), /ragged features are not supported by tfgate's embedded runtime: r/);
    } finally {
      s.dispose();
    }
  });
});

/** A model running `op` on constants (and one int64 placeholder `x` when the op reads it). */
const constOp = (op: string, inputs: (g: GraphBuilder) => Tensor[], attrs: Record<string, AttrValueInit>, outputs: Array<[string, DType]>) =>
  writeTinyModel((g) => {
    const x = g.placeholder('x', 'int64', [-1]);
    const ins = inputs(g);
    return { inputs: { x }, outputs: out(g, op, ins, attrs, 'float32', outputs) };
  });
const noFeed = { x: i64([0], []) };

describe('SparseSegmentSum / Mean / SqrtN (tf.math.sparse_segment_*)', () => {
  const c = [1, 2, 3, 4, -1, -2, -3, -4, 5, 6, 7, 8];
  const segment = (op: string, data: HostTensor, indices: number[], ids: number[], numSegments?: number) =>
    constOp(
      op,
      (g) => [
        g.constant('data', data),
        g.constant('indices', i32([indices.length], indices)),
        g.constant('segment_ids', i32([ids.length], ids)),
        ...(numSegments === undefined ? [] : [g.constant('num_segments', i32([], [numSegments]))]),
      ],
      { T: attr.type(data.dtype), Tidx: attr.type('int32'), Tsegmentids: attr.type('int32'), ...(numSegments === undefined ? {} : { Tnumsegments: attr.type('int32') }) },
      [['y', data.dtype]],
    );
  const y = async (op: string, data: HostTensor, indices: number[], ids: number[], numSegments?: number) => {
    const r = (await run(await segment(op, data, indices, ids, numSegments), noFeed)).y;
    return { shape: r.shape, values: nums(r) };
  };
  const C = f32([3, 4], c);

  it('SparseSegmentSum: the docs\' examples (two rows one segment, two segments, all rows) on float and int32 data', async () => {
    assert.deepEqual(await y('SparseSegmentSum', C, [0, 1], [0, 0]), { shape: [1, 4], values: [0, 0, 0, 0] });
    assert.deepEqual(await y('SparseSegmentSum', C, [0, 1], [0, 1]), { shape: [2, 4], values: [1, 2, 3, 4, -1, -2, -3, -4] });
    assert.deepEqual(await y('SparseSegmentSum', C, [0, 1, 2], [0, 0, 1]), { shape: [2, 4], values: [0, 0, 0, 0, 5, 6, 7, 8] });
    assert.deepEqual(await y('SparseSegmentSum', i32([3, 4], c), [0, 1, 2], [0, 0, 1]), { shape: [2, 4], values: [0, 0, 0, 0, 5, 6, 7, 8] });
  });

  it('SparseSegmentMean: sparse_segment_mean(c, [0,1], [0,0]) == [[0,0,0,0]]; (c, [0,1,2], [0,0,1]) == [[0,0,0,0],[5,6,7,8]]; rows no id names are 0', async () => {
    assert.deepEqual(await y('SparseSegmentMean', C, [0, 1], [0, 0]), { shape: [1, 4], values: [0, 0, 0, 0] });
    assert.deepEqual(await y('SparseSegmentMean', C, [0, 1, 2], [0, 0, 1]), { shape: [2, 4], values: [0, 0, 0, 0, 5, 6, 7, 8] });
    assert.deepEqual(await y('SparseSegmentMean', C, [0, 2], [1, 3]), { shape: [4, 4], values: [0, 0, 0, 0, 1, 2, 3, 4, 0, 0, 0, 0, 5, 6, 7, 8] });
    assert.deepEqual(await y('SparseSegmentMean', C, [], []), { shape: [0, 4], values: [] });
  });

  it('SparseSegmentSqrtN divides by sqrt(n): rows 0 and 2 of c in one segment give (c0 + c2) * float(1/sqrt(2))', async () => {
    const r = await y('SparseSegmentSqrtN', C, [0, 2], [0, 0]);
    const k = Math.fround(1 / Math.fround(Math.SQRT2));
    assert.deepEqual(r, { shape: [1, 4], values: [6, 8, 10, 12].map((v) => Math.fround(v * k)) });
  });

  it('WithNumSegments: sparse_segment_sum_with_num_segments(c, [0,1], [0,2], num_segments=4) (its docs), and Mean/SqrtN alike', async () => {
    assert.deepEqual(await y('SparseSegmentSumWithNumSegments', C, [0, 1], [0, 2], 4), {
      shape: [4, 4],
      values: [1, 2, 3, 4, 0, 0, 0, 0, -1, -2, -3, -4, 0, 0, 0, 0],
    });
    assert.deepEqual(await y('SparseSegmentMeanWithNumSegments', C, [0, 2], [1, 1], 3), { shape: [3, 4], values: [0, 0, 0, 0, 3, 4, 5, 6, 0, 0, 0, 0] });
    assert.deepEqual(await y('SparseSegmentSqrtNWithNumSegments', C, [], [], 2), { shape: [2, 4], values: [0, 0, 0, 0, 0, 0, 0, 0] });
  });

  it("Mean multiplies by float(1/n) as TF's kernel does (n < 10), where TF.js's kernel divides: the mean of [1, 1, 1.0000003] differs in the last bit", async () => {
    const data = f32([3, 1], [1, 1, 1.0000003]);
    const sum = Math.fround(Math.fround(1 + 1) + Math.fround(1.0000003));
    const tfValue = Math.fround(sum * Math.fround(1 / 3)); // 1.0000002384185791
    const tfjsValue = Math.fround(sum / 3); // 1.0000001192092896
    assert.notEqual(tfValue, tfjsValue);
    assert.deepEqual((await y('SparseSegmentMean', data, [0, 1, 2], [0, 0, 0])).values, [tfValue]);
    // The regression: TF.js's own op gives the other value.
    const own = tf.tidy(() => tf.sparse.sparseSegmentMean(tf.tensor2d([1, 1, 1.0000003], [3, 1]), tf.tensor1d([0, 1, 2], 'int32'), tf.tensor1d([0, 0, 0], 'int32')).dataSync()[0]);
    assert.equal(own, tfjsValue);
  });

  it('segments of 10 or more rows are summed in blocks of 8 and divided by n (TF\'s ReduceImpl)', async () => {
    const v = Array.from({ length: 11 }, (_, i) => Math.fround(1 + i * 1e-7 + (i % 3) * 0.1));
    const f = Math.fround;
    // n = 11: n & 7 = 3 → first block rows 0..2, then rows 3..10 as one block of 8.
    let first = f(f(v[0] + v[1]) + v[2]);
    let block = v[3];
    for (let i = 4; i < 11; i++) block = f(block + v[i]);
    first = f(first + block);
    const r = await y('SparseSegmentMean', f32([11, 1], v), [...Array(11).keys()], new Array(11).fill(0));
    assert.deepEqual(r.values, [f(first / 11)]);
  });

  it("refuses as TF does, with TF's messages", async () => {
    const refusesSegment = async (op: string, indices: number[], ids: number[], message: string, numSegments?: number) =>
      refuses(await segment(op, C, indices, ids, numSegments), noFeed, message);
    await refusesSegment('SparseSegmentSum', [0, 1], [1, 0], 'segment ids are not increasing');
    await refusesSegment('SparseSegmentMean', [0, 3], [0, 1], 'Bad: indices[1] == 3 out of range [0, 3)');
    await refusesSegment('SparseSegmentMean', [0, 1], [-1, 0], "Segment id -1 out of range [0, 1), possibly because 'segment_ids' input is not sorted.");
    await refusesSegment('SparseSegmentSumWithNumSegments', [0, 1], [0, 2], 'segment ids must be < num_segments', 2);
    await refusesSegment('SparseSegmentSum', [0, 1], [0], 'segment_ids and indices should have same size.');
  });
});

describe('SparseToDense (tf.sparse.to_dense)', () => {
  const toDense = (indices: HostTensor, shape: number[], values: HostTensor, dflt: HostTensor, validate?: boolean) =>
    constOp(
      'SparseToDense',
      (g) => [g.constant('indices', indices), g.constant('shape', i64([shape.length], shape)), g.constant('values', values), g.constant('default', dflt)],
      { T: attr.type(values.dtype), Tindices: attr.type('int64'), ...(validate === undefined ? {} : { validate_indices: attr.b(validate) }) },
      [['y', values.dtype]],
    );

  it('places values at their indices, the rest the default; scalar values broadcast; 1-D indices', async () => {
    let r = (await run(await toDense(i64([2, 2], [0, 1, 2, 3]), [3, 4], f32([2], [1, 2]), f32([], [-1])), noFeed)).y;
    assert.deepEqual(r.shape, [3, 4]);
    assert.deepEqual(nums(r), [-1, 1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 2]);
    r = (await run(await toDense(i64([2], [1, 3]), [5], i32([], [7]), i32([], [0])), noFeed)).y;
    assert.deepEqual(nums(r), [0, 7, 0, 7, 0]);
  });

  it("refuses indices out of order (the TF guide's s5: [[0, 2], [0, 1]]) where TF.js's kernel fills [[0, 2, 1, 0], …]", async () => {
    const own = tf.tidy(() => Array.from(tf.sparseToDense(tf.tensor2d([0, 2, 0, 1], [2, 2], 'int32'), tf.tensor1d([1, 2]), [3, 4], tf.scalar(0)).dataSync()));
    assert.deepEqual(own.slice(0, 4), [0, 2, 1, 0]);
    await refuses(
      await toDense(i64([2, 2], [0, 2, 0, 1]), [3, 4], f32([2], [1, 2]), f32([], [0])),
      noFeed,
      'indices[1] = [0,1] is out of order. Many sparse ops require sorted indices.\n    Use `tf.sparse.reorder` to create a correctly ordered copy.\n\n',
    );
  });

  it('refuses an index out of one dimension (TF.js writes it into the next row), and a repeated one', async () => {
    const own = tf.tidy(() => Array.from(tf.sparseToDense(tf.tensor2d([0, 5], [1, 2], 'int32'), tf.tensor1d([1]), [2, 3], tf.scalar(0)).dataSync()));
    assert.deepEqual(own, [0, 0, 0, 0, 0, 1]);
    await refuses(await toDense(i64([1, 2], [0, 5]), [2, 3], f32([1], [1]), f32([], [0])), noFeed, 'indices[0] = [0,5] is out of bounds: need 0 <= index < [2,3]');
    await refuses(await toDense(i64([2, 2], [1, 1, 1, 1]), [2, 3], f32([2], [1, 2]), f32([], [0])), noFeed, 'indices[1] = [1,1] is repeated');
    // validate_indices=false: order is not checked, bounds still are.
    const r = (await run(await toDense(i64([2, 2], [0, 2, 0, 1]), [1, 3], f32([2], [1, 2]), f32([], [0]), false), noFeed)).y;
    assert.deepEqual(nums(r), [0, 2, 1]);
    await refuses(await toDense(i64([1, 2], [0, 5]), [2, 3], f32([1], [1]), f32([], [0]), false), noFeed, 'Indices are not valid (out of bounds).  Shape: [2,3]');
  });
});

describe("TF.js's own SparseReshape, SparseFillEmptyRows and Unique give TF's documented results", () => {
  it('SparseFillEmptyRows: the docs\' example (rows 1 and 4 empty get [1, 0] and [4, 0] with the default)', async () => {
    const dir = await constOp(
      'SparseFillEmptyRows',
      (g) => [g.constant('indices', i64([4, 2], [0, 1, 0, 3, 2, 0, 3, 1])), g.constant('values', f32([4], [10, 13, 14, 32])), g.constant('shape', i64([2], [5, 6])), g.constant('default', f32([], [-1]))],
      { T: attr.type('float32') },
      [['indices', 'int64'], ['values', 'float32'], ['empty', 'bool'], ['reverse', 'int64']],
    );
    const r = await run(dir, noFeed);
    assert.deepEqual(nums(r.indices), [0, 1, 0, 3, 1, 0, 2, 0, 3, 1, 4, 0]);
    assert.deepEqual(nums(r.values), [10, 13, -1, 14, 32, -1]);
    assert.deepEqual(Array.from(r.empty.values as ArrayLike<unknown>, Boolean), [false, true, false, false, true]);
    assert.deepEqual(nums(r.reverse), [0, 1, 3, 4]);
    assert.equal(r.reverse.dtype, 'int64');
  });

  it('SparseReshape: [2, 3, 6] → [9, -1] maps each index through its row-major position and infers 4', async () => {
    const dir = await constOp(
      'SparseReshape',
      (g) => [g.constant('indices', i64([3, 3], [0, 0, 0, 0, 1, 2, 1, 2, 5])), g.constant('shape', i64([3], [2, 3, 6])), g.constant('new_shape', i64([2], [9, -1]))],
      {},
      [['indices', 'int64'], ['shape', 'int64']],
    );
    const r = await run(dir, noFeed);
    // Flat positions 0, 8, 35 in a [9, 4] shape.
    assert.deepEqual(nums(r.indices), [0, 0, 2, 0, 8, 3]);
    assert.deepEqual(nums(r.shape), [9, 4]);
  });

  it('Unique: tf.unique([1, 1, 2, 4, 4, 4, 7, 8, 8]) == ([1, 2, 4, 7, 8], [0, 0, 1, 2, 2, 2, 3, 4, 4]) (its docs)', async () => {
    const dir = await writeTinyModel((g) => {
      const x = g.placeholder('x', 'int64', [-1]);
      return { inputs: { x }, outputs: out(g, 'Unique', [x], { T: attr.type('int64'), out_idx: attr.type('int32') }, 'int64', [['y', 'int64'], ['idx', 'int32']]) };
    });
    const r = await run(dir, { x: i64([9], [1, 1, 2, 4, 4, 4, 7, 8, 8]) });
    assert.deepEqual(nums(r.y), [1, 2, 4, 7, 8]);
    assert.deepEqual(nums(r.idx), [0, 0, 1, 2, 2, 2, 3, 4, 4]);
  });
});

describe('SparseTensorDenseMatMul (tf.sparse.sparse_dense_matmul)', () => {
  const matmul = (adjointA: boolean, adjointB: boolean, b: HostTensor) =>
    constOp(
      'SparseTensorDenseMatMul',
      (g) => [g.constant('a_indices', i64([3, 2], [0, 0, 1, 2, 2, 1])), g.constant('a_values', f32([3], [1, 2, 3])), g.constant('a_shape', i64([2], [3, 3])), g.constant('b', b)],
      { T: attr.type('float32'), Tindices: attr.type('int64'), adjoint_a: attr.b(adjointA), adjoint_b: attr.b(adjointB) },
      [['y', 'float32']],
    );
  // A = [[1, 0, 0], [0, 0, 2], [0, 3, 0]]; B = [[1, 2], [3, 4], [5, 6]].
  it('A·B, Aᵀ·B and A·(Bᵀ)ᵀ against the dense products', async () => {
    assert.deepEqual(nums((await run(await matmul(false, false, f32([3, 2], [1, 2, 3, 4, 5, 6])), noFeed)).y), [1, 2, 10, 12, 9, 12]);
    assert.deepEqual(nums((await run(await matmul(true, false, f32([3, 2], [1, 2, 3, 4, 5, 6])), noFeed)).y), [1, 2, 15, 18, 6, 8]);
    assert.deepEqual(nums((await run(await matmul(false, true, f32([2, 3], [1, 3, 5, 2, 4, 6])), noFeed)).y), [1, 2, 10, 12, 9, 12]);
  });
});

describe('An Estimator-shaped model: tf.Example → ParseExample (sparse ids, dense x) → SparseFillEmptyRows → SparseSegmentMean over an embedding → concat x → MatMul', () => {
  it('logits on WASM and CPU equal the plain-JS reference (an example without ids gets the fill id 0)', async () => {
    const batch = [
      { ids: [1, 3], x: 2 },
      { ids: [], x: -1 },
      { ids: [4, 4, 2], x: 0.5 },
      { ids: [0], x: 3 },
    ];
    const r = await run(await estimatorModel(), {
      examples: serialized(...batch.map((e) => example({ ...(e.ids.length ? { ids: { int64: e.ids } } : {}), x: { float: [e.x] } }))),
    });
    assert.deepEqual(r.logits.shape, [4, 1]);
    const want = estimatorReference(batch);
    nums(r.logits).forEach((v, i) => assert.ok(Math.abs(v - want[i]) < 1e-5, `example ${i}: ${v} vs ${want[i]}`));
  });
});
