// Estimator serving inputs with sparse tf.Example features, through the embedded runtime, on
// tiny graphs written with tfgate's SavedModel writer: ParseExample's sparse outputs, and an
// Estimator-shaped pipeline through the sparse ops feature columns emit. The sparse ops one by
// one, with TF's values, are op cases (ops/cases/sparse.ts), run on every engine.
import { describe, it } from 'node:test';
import * as tf from '@tensorflow/tfjs-core';
import assert from 'node:assert/strict';
import type { TfjsServable } from '../../src/runtimes/embedded/tfjs_servable.js';
import type { HostTensor } from '../../src/tensor/host_tensor.js';
import { Code, ServingError } from '../../src/errors/status.js';
import { attr, Tensor, writeTinyModel } from '../helpers/tiny_graphs.js';
import { EMBEDDED_BACKENDS, runOnBothBackends } from '../helpers/both_backends.js';
import { sparseParseModel, estimatorModel, estimatorReference, example, serialized } from '../helpers/sparse_examples.js';

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
    assert.deepEqual(
      (r.tags_values.values as Uint8Array[]).map((b) => Buffer.from(b).toString()),
      ['a', 'bc', 'd'],
    );
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
    await refuses(
      dir,
      { examples: serialized(example({ ids: { float: [1] } })) },
      "Name: <unknown>, Feature: ids.  Data types don't match. Expected type: int64",
    );
    await refuses(
      dir,
      { examples: serialized(example({ w: { int64: [1] } })) },
      "Name: <unknown>, Feature: w.  Data types don't match. Expected type: float",
    );
    await refuses(
      dir,
      { examples: serialized(example({ tags: { float: [] } })) },
      "Name: <unknown>, Feature: tags.  Data types don't match. Expected type: string",
    );
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
        const strs = (name: string, v: string[]) =>
          g.constant(name, { dtype: 'string', shape: [v.length], values: v.map((s) => Buffer.from(s)) });
        const name = g.addNode(
          'ParseExampleV2',
          'ParseExampleV2',
          [x, strs('names', []), strs('sparse_keys', ['ids']), strs('dense_keys', []), strs('ragged_keys', ragged)],
          {
            Tdense: attr.types([]),
            num_sparse: attr.i(1),
            sparse_types: attr.types(['int64']),
            ragged_value_types: attr.types(ragged.map(() => 'int64')),
            ragged_split_types: attr.types(ragged.map(() => 'int64')),
            dense_shapes: { list: {} },
          },
        );
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
      await assert.rejects(
        s.run('serving_default', { examples: serialized(example({})) }),
        /ragged features are not supported by tfgate: r/,
      );
    } finally {
      s.dispose();
    }
  });
});

describe("TF.js's own sparse kernels differ from TF (why tfgate replaces them; TF's values: op cases, cases/sparse.ts)", () => {
  it('SparseSegmentMean divides by n where TF multiplies by float(1/n): the mean of [1, 1, 1.0000003] differs in the last bit', () => {
    const sum = Math.fround(Math.fround(1 + 1) + Math.fround(1.0000003));
    const own = tf.tidy(
      () =>
        tf.sparse
          .sparseSegmentMean(tf.tensor2d([1, 1, 1.0000003], [3, 1]), tf.tensor1d([0, 1, 2], 'int32'), tf.tensor1d([0, 0, 0], 'int32'))
          .dataSync()[0],
    );
    assert.equal(own, Math.fround(sum / 3));
    assert.notEqual(own, Math.fround(sum * Math.fround(1 / 3)));
  });

  it("SparseToDense fills indices out of order (the TF guide's s5) and writes an index out of one dimension into the next row, where TF refuses both", () => {
    const outOfOrder = tf.tidy(() =>
      Array.from(tf.sparseToDense(tf.tensor2d([0, 2, 0, 1], [2, 2], 'int32'), tf.tensor1d([1, 2]), [3, 4], tf.scalar(0)).dataSync()),
    );
    assert.deepEqual(outOfOrder.slice(0, 4), [0, 2, 1, 0]);
    const outOfBounds = tf.tidy(() =>
      Array.from(tf.sparseToDense(tf.tensor2d([0, 5], [1, 2], 'int32'), tf.tensor1d([1]), [2, 3], tf.scalar(0)).dataSync()),
    );
    assert.deepEqual(outOfBounds, [0, 0, 0, 0, 0, 1]);
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
