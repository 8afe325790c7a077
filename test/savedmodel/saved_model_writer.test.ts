// tfgate's SavedModel writer: the runtime reproduces a plain-JS forward pass of the written
// weights, the bytes are deterministic, and the files have the structure real TF exports have.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { writeConvSavedModel, writeMlpSavedModel } from '../../src/savedmodel/model_zoo.js';
import { convForward, mlpForward } from '../../src/savedmodel/reference_forward.js';
import { EmbeddedRuntime } from '../../src/runtimes/embedded/embedded_runtime.js';
import { readSavedModelProto, readMetaGraph } from '../../src/savedmodel/saved_model_reader.js';
import { readTable, readTensorBundle } from '../../src/savedmodel/tensor_bundle/index.js';
import { fixtureModel } from '../helpers/paths.js';
import { tempDir } from '../helpers/temp.js';

const tmp = () => tempDir('tfgate-writer-');
const runtime = new EmbeddedRuntime('auto');

function assertRelClose(actual: Float32Array, expected: Float64Array, tol = 1e-4): void {
  assert.equal(actual.length, expected.length);
  for (let i = 0; i < actual.length; i++) {
    const scale = Math.max(1e-3, Math.abs(expected[i]));
    assert.ok(Math.abs(actual[i] - expected[i]) / scale <= tol, `element ${i}: ${actual[i]} vs ${expected[i]}`);
  }
}

describe('SavedModel writer', () => {
  for (const activation of ['relu', 'tanh', 'sigmoid'] as const) {
    it(`MLP (${activation}) runs in the embedded runtime as the reference forward pass computes`, async () => {
      const dir = path.join(tmp(), '1');
      const model = await writeMlpSavedModel(dir, { inputDim: 13, hiddenSizes: [32, 16], outputDim: 5, activation, outputActivation: 'softmax', seed: 42 });
      const s = await runtime.load(dir, { tags: ['serve'] });
      const x = Float32Array.from({ length: 4 * 13 }, (_, i) => Math.cos(i * 0.7) * 2);
      const { y } = await s.run('serving_default', { x: { dtype: 'float32', shape: [4, 13], values: x } });
      assert.deepEqual(y.shape, [4, 5]);
      assertRelClose(y.values as Float32Array, mlpForward(model, x, 4));
    });
  }

  for (const padding of ['SAME', 'VALID'] as const) {
    it(`conv net (${padding}) runs as the reference forward pass computes`, async () => {
      const dir = path.join(tmp(), '1');
      const model = await writeConvSavedModel(dir, { height: 12, width: 10, channels: 3, filters: [4, 6], kernelSize: 3, classes: 7, padding, seed: 3 });
      const s = await runtime.load(dir, { tags: ['serve'] });
      const x = Float32Array.from({ length: 2 * 12 * 10 * 3 }, (_, i) => Math.sin(i * 0.13));
      const { probabilities } = await s.run('serving_default', { images: { dtype: 'float32', shape: [2, 12, 10, 3], values: x } });
      assertRelClose(probabilities.values as Float32Array, convForward(model, x, 2));
    });
  }

  it('is deterministic: the same seed gives the same bytes, another seed other weights', async () => {
    const opts = { inputDim: 8, hiddenSizes: [8], outputDim: 2, activation: 'relu' as const, seed: 1 };
    const [a, b, c] = [tmp(), tmp(), tmp()];
    await writeMlpSavedModel(a, opts);
    await writeMlpSavedModel(b, opts);
    await writeMlpSavedModel(c, { ...opts, seed: 2 });
    for (const f of ['saved_model.pb', 'variables/variables.index', 'variables/variables.data-00000-of-00001']) {
      assert.deepEqual(fs.readFileSync(path.join(a, f)), fs.readFileSync(path.join(b, f)), f);
    }
    assert.notDeepEqual(fs.readFileSync(path.join(a, 'variables/variables.data-00000-of-00001')), fs.readFileSync(path.join(c, 'variables/variables.data-00000-of-00001')));
  });

  it('has the structure of a real TF1 export (saved_model_half_plus_two_2_versions)', async () => {
    const dir = tmp();
    await writeMlpSavedModel(dir, { inputDim: 3, hiddenSizes: [4], outputDim: 2, activation: 'relu', seed: 5 });
    const [ours, real] = await Promise.all([readMetaGraph(dir, ['serve']), readMetaGraph(fixtureModel('saved_model_half_plus_two_2_versions', '00000123'), ['serve'])]);
    assert.equal((await readSavedModelProto(dir)).savedModelSchemaVersion, 1);
    for (const field of ['restoreOpName', 'filenameTensorName', 'version'] as const) assert.equal(ours.saverDef?.[field], real.saverDef?.[field], field);
    const ops = (mg: typeof ours, prefix: string) => new Set(mg.graphDef!.node!.filter((n) => n.name.startsWith(prefix)).map((n) => n.op));
    assert.deepEqual(ops(ours, 'save/'), ops(real, 'save/'));
    assert.deepEqual(Object.keys(ours.signatureDef!.serving_default.inputs!.x).sort(), Object.keys(real.signatureDef!.serving_default.inputs!.x).sort());
    assert.deepEqual(ours.metaInfoDef?.tags, ['serve']);
    assert.ok(ours.graphDef?.versions?.producer);
    // Variables are VariableV2 + Assign + /read, as in the real graph.
    const realA = real.graphDef!.node!.filter((n) => n.name === 'a' || n.name.startsWith('a/')).map((n) => n.op).sort();
    const oursK = ours.graphDef!.node!.filter((n) => n.name === 'dense/kernel' || n.name.startsWith('dense/kernel/')).map((n) => n.op).sort();
    assert.deepEqual(oursK, realA);
  });

  it('writes a bundle with the layout of a real one: header entry, sorted keys, footer magic', async () => {
    const dir = tmp();
    await writeMlpSavedModel(dir, { inputDim: 3, hiddenSizes: [4], outputDim: 2, activation: 'relu', seed: 5 });
    const ours = readTable(fs.readFileSync(path.join(dir, 'variables/variables.index')));
    const real = readTable(fs.readFileSync(path.join(fixtureModel('saved_model_half_plus_two_2_versions', '00000123'), 'variables/variables.index')));
    for (const table of [ours, real]) {
      assert.equal(table[0][0], '', 'header entry first');
      const keys = table.map(([k]) => k);
      assert.deepEqual(keys, [...keys].sort());
    }
    const bundle = await readTensorBundle(path.join(dir, 'variables/variables'));
    assert.deepEqual(bundle.keys().sort(), ['dense/bias', 'dense/kernel', 'dense_1/bias', 'dense_1/kernel']);
    assert.deepEqual(bundle.read('dense/kernel').shape, [3, 4]);
  });
});
