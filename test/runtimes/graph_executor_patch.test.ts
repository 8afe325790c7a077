// tfgate's fix to tfjs-converter's GraphExecutor, on tfjs-converter's own TensorList ops (this
// file does not load the embedded runtime, which replaces them and applies the fix): unpatched,
// a loop body that writes a list item it does not return has that item freed and the request
// fails; patched, it runs and leaves no tensor behind. If the first test fails, tfjs-converter
// has fixed the bug upstream and the patch can go. Also: the map filter itself.
import { describe, it, before } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import * as tf from '@tensorflow/tfjs-core';
import '@tensorflow/tfjs-backend-cpu';
import { loadGraphModelSync, type GraphModel } from '@tensorflow/tfjs-converter';
import { isGraphExecutorPatched, patchGraphExecutor, withoutKeptTensors } from '../../src/runtimes/tfjs_patches/graph_executor_patch.js';
import { closeListsOpenedDuring } from '../../src/runtimes/embedded/ops/control/tensor_list.js';
import { toModelArtifacts } from '../../src/runtimes/shared/tfjs_artifacts.js';
import { isTfjsSupportedOp } from '../../src/runtimes/embedded/tfjs_ops.js';
import { prepareSignatureGraph, type PreparedGraph } from '../../src/savedmodel/graph/prepare_signature_graph.js';
import { readMetaGraph } from '../../src/savedmodel/saved_model_reader.js';
import { writeTensorListLoopModel } from '../../test_util/savedmodel/loop_model_zoo.js';
import { tempDir } from '../helpers/temp.js';

describe('GraphExecutor kept-tensor patch', () => {
  let prepared: PreparedGraph;
  let model: GraphModel<tf.io.IOHandlerSync>;
  before(async () => {
    tf.env().set('IS_TEST', true);
    await tf.setBackend('cpu');
    const dir = path.join(tempDir('tfgate-executor-patch-'), '1');
    await writeTensorListLoopModel(dir, { itemScale: 10 });
    prepared = prepareSignatureGraph(await readMetaGraph(dir, ['serve']), 'serving_default', null, { isSupportedOp: isTfjsSupportedOp });
    model = loadGraphModelSync(toModelArtifacts(prepared));
  });
  const run = async () => {
    const x = tf.tensor1d([10, 20]);
    try {
      const y = (await model.executeAsync({ [prepared.inputs.x.placeholder!]: x }, prepared.outputs.stacked)) as tf.Tensor;
      const values = Array.from(await y.data());
      y.dispose();
      return values;
    } finally {
      x.dispose();
    }
  };

  it('is needed: unpatched, tfjs-converter frees the list item and TensorListStack fails', async () => {
    assert.equal(isGraphExecutorPatched(), false);
    await assert.rejects(run(), /reading 'backend'/);
  });

  it('patched, the loop gives its values and leaves no tensor behind; patching twice changes nothing', async () => {
    patchGraphExecutor(closeListsOpenedDuring);
    patchGraphExecutor(closeListsOpenedDuring);
    assert.equal(isGraphExecutorPatched(), true);
    assert.deepEqual(await run(), [110, 210, 120, 220, 130, 230]);
    const before = tf.memory().numTensors;
    assert.deepEqual(await run(), [110, 210, 120, 220, 130, 230]);
    assert.equal(tf.memory().numTensors, before);
  });

  it('leaves kept tensors out of the map the sweep walks, except at the requested outputs', () => {
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
