// tfgate's fix to tfjs-converter's GraphExecutor: the map its async sweep disposes no longer
// holds tensors a TensorList (etc.) has kept, outputs stay readable, and nothing is edited
// in place. The end-to-end effect (a loop body writing a list item it does not return) is
// in embedded_loops.test.ts.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as tf from '@tensorflow/tfjs-core';
import '@tensorflow/tfjs-backend-cpu';
import { isGraphExecutorPatched, patchGraphExecutor, withoutKeptTensors } from '../../src/runtimes/embedded/graph_executor_patch.js';
import '../../src/runtimes/embedded/embedded_runtime.js';

describe('GraphExecutor kept-tensor patch', () => {
  it('is applied once the embedded runtime is loaded, and applying it again changes nothing', () => {
    assert.equal(isGraphExecutorPatched(), true);
    patchGraphExecutor();
    assert.equal(isGraphExecutorPatched(), true);
  });

  it('leaves kept tensors out of the map the sweep walks, except at the requested outputs', async () => {
    await tf.setBackend('cpu');
    const plain = tf.scalar(1);
    const item = tf.keep(tf.scalar(2));
    const keptOutput = tf.keep(tf.scalar(3));
    const weights = [tf.scalar(4)];
    const map = { add: [plain], 'while/TensorListSetItem': [undefined], mul: [item, plain], Identity: [keptOutput], weight: weights };
    const result = withoutKeptTensors(map, ['Identity:0']);
    assert.deepEqual(result.mul, [undefined, plain]);
    assert.equal(result.Identity, map.Identity, 'an output entry is handed back whole');
    assert.equal(result.add, map.add, 'lists without kept tensors are not copied');
    assert.equal(result.weight, weights);
    assert.deepEqual(map.mul, [item, plain], 'the original map is not edited');
    for (const t of [plain, item, keptOutput, ...weights]) t.dispose();
  });

  it('treats entries of TF1 loop frames (`node-<frame>`) of an output node as outputs', () => {
    const kept = tf.keep(tf.scalar(5));
    const result = withoutKeptTensors({ 'Exit-1': [kept], 'other-2': [kept] }, ['Exit']);
    assert.deepEqual(result['Exit-1'], [kept]);
    assert.deepEqual(result['other-2'], [undefined]);
    kept.dispose();
  });
});
