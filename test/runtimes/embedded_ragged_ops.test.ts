// RaggedTensorToTensor on the embedded runtime (WASM and CPU): TF.js has the kernel but its
// op mapper never loads the ragged op list, and WASM has no kernel (the CPU backend's is
// borrowed). Checked against tf.RaggedTensor.to_tensor's documented example, with the scalar
// -1 shape that to_tensor() without a shape writes, and with an explicit shape.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { converterOps } from '../../src/runtimes/embedded/tfjs_ops.js';
import type { HostTensor } from '../../src/tensor/host_tensor.js';
import { attr, f32, i32, i64, node, writeTinyModel } from '../helpers/tiny_graphs.js';
import { EMBEDDED_BACKENDS, runOnBothBackends } from '../helpers/both_backends.js';

const RUNTIMES = EMBEDDED_BACKENDS;
const runBoth = async (dir: string, inputs: Record<string, HostTensor>) => (await runOnBothBackends(dir, inputs)).y;

/** A graph computing RaggedTensorToTensor(shape, values (fed), 0, row_splits), shape a constant. */
function toTensorModel(shape: HostTensor, rowSplits: number[]) {
  return writeTinyModel((g) => {
    const values = g.placeholder('values', 'float32', [-1]);
    const s = g.constant('shape', shape);
    const dflt = g.constant('default', f32([], [0]));
    const splits = g.constant('splits', i64([rowSplits.length], rowSplits));
    const y = node(g, 'RaggedTensorToTensor', 'to_tensor', [s, values, dflt, splits], {
      T: attr.type('float32'),
      Tindex: attr.type('int64'),
      Tshape: attr.type('int64'),
      num_row_partition_tensors: attr.i(1),
      row_partition_types: attr.strings(['ROW_SPLITS']),
    });
    return { inputs: { values }, outputs: { y: g.identity('y', y) } };
  });
}

describe('RaggedTensorToTensor on the embedded runtime', () => {
  // tf.RaggedTensor.from_row_splits([3, 1, 4, 1, 5, 9, 2, 6], [0, 4, 4, 7, 8, 8]).to_tensor()
  const values = f32([8], [3, 1, 4, 1, 5, 9, 2, 6]);
  const splits = [0, 4, 4, 7, 8, 8];

  it('is not taken for a converter op: TF.js 4.22 maps no ragged op', () => {
    assert.equal(converterOps().has('RaggedTensorToTensor'), false);
    assert.equal(converterOps().has('MatMul'), true);
  });

  it("to_tensor() (a scalar -1 shape): TF's documented natural shape [5, 4], on WASM and CPU", async () => {
    const dir = await toTensorModel(i64([], [-1]), splits);
    const y = await runBoth(dir, { values });
    assert.deepEqual(y.shape, [5, 4]);
    assert.deepEqual(Array.from(y.values as Float32Array), [3, 1, 4, 1, 0, 0, 0, 0, 5, 9, 2, 0, 6, 0, 0, 0, 0, 0, 0, 0]);
  });

  it('to_tensor(shape=[3, 2]) truncates and pads as TF does', async () => {
    const dir = await toTensorModel(i64([2], [3, 2]), splits);
    const y = await runBoth(dir, { values });
    assert.deepEqual(y.shape, [3, 2]);
    assert.deepEqual(Array.from(y.values as Float32Array), [3, 1, 0, 0, 5, 9]);
  });

  it('an int32 feed where the graph declares float values is refused on both engines', async () => {
    const dir = await toTensorModel(i64([], [-1]), splits);
    for (const runtime of RUNTIMES) {
      const s = await runtime.load(dir, { tags: ['serve'] });
      try {
        await assert.rejects(s.run('serving_default', { values: i32([8], [3, 1, 4, 1, 5, 9, 2, 6]) }));
      } finally {
        s.dispose();
      }
    }
  });
});
