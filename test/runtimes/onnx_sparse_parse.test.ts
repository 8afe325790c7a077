// ParseExample's sparse outputs through ONNX Runtime: ParseExample runs as tfgate's host step in
// front of the ONNX graph (src/runtimes/onnx/host_step.ts), so its sparse indices, values and
// shapes become inputs of the ONNX graph. They must arrive exactly as the embedded runtime gives
// them; a graph using sparse ops ONNX has no conversion for is refused by name (--runtime=onnx)
// or runs on the fallback, never answered wrongly.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Code, ServingError } from '../../src/errors/status.js';
import { OnnxRuntime } from '../../src/runtimes/onnx/onnx_runtime.js';
import { CompositeRuntime } from '../../src/runtimes/composite_runtime.js';
import { EmbeddedRuntime } from '../../src/runtimes/embedded/embedded_runtime.js';
import type { Runtime } from '../../src/runtimes/runtime.js';
import type { HostTensor } from '../../src/tensor/host_tensor.js';
import { estimatorModel, estimatorReference, example, serialized, sparseParseModel } from '../helpers/sparse_examples.js';

const nums = (t: HostTensor) => Array.from(t.values as ArrayLike<number | bigint>, Number);

async function runOn(runtime: Runtime, dir: string, inputs: Record<string, HostTensor>): Promise<Record<string, HostTensor>> {
  const s = await runtime.load(dir, { tags: ['serve'] });
  try {
    return await s.run('serving_default', inputs);
  } finally {
    s.dispose();
  }
}

describe('ParseExample sparse features on ONNX Runtime (host step)', () => {
  it('passes sparse indices, values and shapes through the ONNX graph exactly (int64 indices, float and string values)', async () => {
    const dir = await sparseParseModel();
    const inputs = {
      examples: serialized(
        example({ ids: { int64: [7, 3] }, w: { float: [0.5] }, x: { float: [1] } }),
        example({ tags: { bytes: ['a', 'bc'] } }),
        example({ ids: { int64: [9] } }),
      ),
    };
    let r: Record<string, HostTensor>;
    try {
      r = await runOn(new OnnxRuntime({ device: 'cpu' }), dir, inputs);
    } catch (e) {
      // Refusing (string outputs, say) is allowed; it must name what it cannot run.
      assert.ok(e instanceof ServingError && (e.code === Code.UNIMPLEMENTED || e.code === Code.FAILED_PRECONDITION), String(e));
      return;
    }
    assert.equal(r.ids_indices.dtype, 'int64');
    assert.deepEqual(r.ids_indices.shape, [3, 2]);
    assert.deepEqual(nums(r.ids_indices), [0, 0, 0, 1, 2, 0]);
    assert.deepEqual(nums(r.ids_values), [7, 3, 9]);
    assert.deepEqual(nums(r.ids_shape), [3, 2]);
    assert.deepEqual(nums(r.w_indices), [0, 0]);
    assert.deepEqual(nums(r.w_values), [0.5]);
    assert.deepEqual(nums(r.w_shape), [3, 1]);
    assert.deepEqual(nums(r.tags_indices), [1, 0, 1, 1]);
    assert.deepEqual(
      (r.tags_values.values as Uint8Array[]).map((b) => Buffer.from(b).toString()),
      ['a', 'bc'],
    );
    assert.deepEqual(nums(r.tags_shape), [3, 2]);
    assert.deepEqual(nums(r.x), [1, 0, 0]);
  });

  it('the Estimator-shaped model: refused naming the sparse op without a fallback, the reference logits with the WASM fallback', async () => {
    const dir = await estimatorModel();
    const batch = [
      { ids: [1, 3], x: 2 },
      { ids: [], x: -1 },
    ];
    const inputs = {
      examples: serialized(...batch.map((e) => example({ ...(e.ids.length ? { ids: { int64: e.ids } } : {}), x: { float: [e.x] } }))),
    };
    await assert.rejects(runOn(new OnnxRuntime({ device: 'cpu' }), dir, inputs), (e: unknown) => {
      assert.ok(e instanceof ServingError, String(e));
      assert.ok(e.code === Code.UNIMPLEMENTED || e.code === Code.FAILED_PRECONDITION, e.message);
      assert.match(e.message, /ONNX Runtime cannot run exactly: .*(SparseFillEmptyRows|SparseSegmentMean)/);
      return true;
    });
    const r = await runOn(new CompositeRuntime(new OnnxRuntime({ device: 'cpu' }), new EmbeddedRuntime('wasm')), dir, inputs);
    const want = estimatorReference(batch);
    nums(r.logits).forEach((v, i) => assert.ok(Math.abs(v - want[i]) < 1e-5, `example ${i}: ${v} vs ${want[i]}`));
  });
});
