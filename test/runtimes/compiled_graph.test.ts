// CompiledGraph (flat TF.js calls for graphs of common ops) against tfjs-converter's GraphModel
// over the same prepared graphs: same values, same refusals, no tensor left behind, and a
// graph with an op outside its table stays on the GraphModel.
import { describe, it, before } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import * as tf from '@tensorflow/tfjs-core';
import { EmbeddedRuntime } from '../../src/runtimes/embedded/embedded_runtime.js';
import { CompiledGraph } from '../../src/runtimes/embedded/compiled_graph.js';
import { initBackend } from '../../src/runtimes/shared/tfjs_backend.js';
import type { TfjsServable } from '../../src/runtimes/embedded/tfjs_servable.js';
import { writeConvSavedModel, writeMlpSavedModel } from '../../test_util/savedmodel/model_zoo.js';
import type { HostTensor } from '../../src/tensor/host_tensor.js';
import type { NodeDef } from '../../src/savedmodel/graph/types.js';
import { Code, ServingError } from '../../src/errors/status.js';
import { fixtureModel } from '../helpers/paths.js';
import { tempDir } from '../helpers/temp.js';

const compiledRuntime = new EmbeddedRuntime('auto');
const graphModelRuntime = new EmbeddedRuntime('auto', () => {}, false);
const f32 = (shape: number[], values: ArrayLike<number>): HostTensor => ({ dtype: 'float32', shape, values: Float32Array.from(values) });
const seeded = (n: number, seed: number) => Array.from({ length: n }, (_, i) => Math.sin(i * 12.9898 + seed) * 2);

async function loadBoth(dir: string): Promise<[TfjsServable, TfjsServable]> {
  const a = (await compiledRuntime.load(dir, { tags: ['serve'] })) as TfjsServable;
  const b = (await graphModelRuntime.load(dir, { tags: ['serve'] })) as TfjsServable;
  return [a, b];
}

async function assertSameOutputs(dir: string, signature: string, inputs: Record<string, HostTensor>): Promise<void> {
  const [compiled, graphModel] = await loadBoth(dir);
  try {
    assert.equal(compiled.executorOf(signature), 'compiled');
    assert.equal(graphModel.executorOf(signature), 'graph-model');
    const before = tf.memory().numTensors;
    const got = await compiled.run(signature, inputs);
    assert.equal(tf.memory().numTensors, before, 'no tensor left behind by the compiled run');
    const want = await graphModel.run(signature, inputs);
    assert.deepEqual(Object.keys(got).sort(), Object.keys(want).sort());
    for (const k of Object.keys(want)) {
      assert.deepEqual(got[k].shape, want[k].shape, k);
      assert.equal(got[k].dtype, want[k].dtype, k);
      assert.deepEqual(Array.from(got[k].values as Float32Array), Array.from(want[k].values as Float32Array), `output ${k}`);
    }
  } finally {
    compiled.dispose();
    graphModel.dispose();
  }
}

describe('CompiledGraph', () => {
  it('runs a writer-made MLP (MatMul, BiasAdd, Relu, Softmax) exactly as the GraphModel does, batch 1 and 7', async () => {
    const dir = path.join(tempDir('tfgate-compiled-mlp-'), '1');
    await writeMlpSavedModel(dir, {
      inputDim: 6,
      hiddenSizes: [8, 8],
      outputDim: 3,
      activation: 'relu',
      outputActivation: 'softmax',
      seed: 11,
    });
    await assertSameOutputs(dir, 'serving_default', { x: f32([1, 6], seeded(6, 1)) });
    await assertSameOutputs(dir, 'serving_default', { x: f32([7, 6], seeded(42, 2)) });
  });

  it('runs writer-made tanh and sigmoid MLPs exactly as the GraphModel does', async () => {
    for (const activation of ['tanh', 'sigmoid'] as const) {
      const dir = path.join(tempDir(`tfgate-compiled-${activation}-`), '1');
      await writeMlpSavedModel(dir, { inputDim: 4, hiddenSizes: [5], outputDim: 2, activation, seed: 3 });
      await assertSameOutputs(dir, 'serving_default', { x: f32([3, 4], seeded(12, 3)) });
    }
  });

  it('runs a writer-made conv net (Conv2D, MaxPool, Reshape, dense) exactly as the GraphModel does', async () => {
    const dir = path.join(tempDir('tfgate-compiled-conv-'), '1');
    await writeConvSavedModel(dir, { height: 8, width: 8, channels: 2, filters: [3, 4], kernelSize: 3, classes: 4, seed: 2 });
    await assertSameOutputs(dir, 'serving_default', { images: f32([2, 8, 8, 2], seeded(256, 4)) });
  });

  it("runs TF Serving's TF1 half_plus_two (feeds of x:0, an output that passes through Identity)", async () => {
    const dir = fixtureModel('saved_model_half_plus_two_cpu', '00000123');
    await assertSameOutputs(dir, 'serving_default', { x: f32([3], [1, 2, 5]) });
    // classify parses tf.Example protos (ParseExample): that signature stays on the GraphModel.
    const s = (await compiledRuntime.load(dir, { tags: ['serve'] })) as TfjsServable;
    assert.equal(s.executorOf('classify_x_to_y'), 'graph-model');
    s.dispose();
  });

  it('refuses a feed that does not fit with the same error as the GraphModel (Keras MNIST dense)', async () => {
    const [compiled, graphModel] = await loadBoth(fixtureModel('keras2_mnist_dense_4versions', '1'));
    try {
      assert.equal(compiled.executorOf('serving_default'), 'compiled');
      const [key] = Object.keys(compiled.signatures.serving_default.inputs);
      const bad = { [key]: f32([2, 3], seeded(6, 5)) };
      const errors: string[] = [];
      for (const s of [compiled, graphModel]) {
        const before = tf.memory().numTensors;
        await assert.rejects(s.run('serving_default', bad), (e: unknown) => {
          assert.ok(e instanceof ServingError && e.code === Code.INVALID_ARGUMENT, String(e));
          errors.push(e.message);
          return true;
        });
        assert.equal(tf.memory().numTensors, before, 'a refused run leaves no tensor');
      }
      assert.equal(errors[0], errors[1]);
      assert.match(errors[0], /Got 6 \/ 784/);
    } finally {
      compiled.dispose();
      graphModel.dispose();
    }
  });

  it('keeps graphs with other ops on the GraphModel (Keras MobileNet: depthwise conv, batch norm)', async () => {
    const s = (await compiledRuntime.load(fixtureModel('keras2_mobilenet_gesture', '1'), { tags: ['serve'] })) as TfjsServable;
    try {
      assert.equal(s.executorOf('serving_default'), 'graph-model');
    } finally {
      s.dispose();
    }
  });

  describe('compile()', () => {
    let w: Record<string, tf.Tensor[]>;
    before(async () => {
      await initBackend('auto');
      w = { k: [tf.tensor2d([[2]])] };
    });
    const placeholder = (name: string): NodeDef => ({ name, op: 'Placeholder', attr: { dtype: { type: 'DT_FLOAT' } } });
    const k: NodeDef = { name: 'k', op: 'Const' };

    it('returns null for an op outside its table, a second output, or a layout it does not handle', () => {
      assert.equal(CompiledGraph.compile([placeholder('x'), { name: 'y', op: 'Cumsum', input: ['x'] }], w, ['y:0']), null);
      assert.equal(CompiledGraph.compile([placeholder('x'), { name: 'y', op: 'Relu', input: ['x:1'] }], w, ['y:0']), null);
      const nchw = { name: 'y', op: 'BiasAdd', input: ['x', 'k'], attr: { data_format: { s: new TextEncoder().encode('NCHW') } } };
      assert.equal(CompiledGraph.compile([placeholder('x'), k, nchw], w, ['y:0']), null);
      assert.equal(CompiledGraph.compile([placeholder('x'), { name: 'y', op: 'Reshape', input: ['x', 'x'] }], w, ['y:0']), null);
    });

    it("checks a feed against the placeholder's shape and dtype with the converter's words", () => {
      const shaped: NodeDef = {
        name: 'x',
        op: 'Placeholder',
        attr: { dtype: { type: 'DT_FLOAT' }, shape: { shape: { dim: [{ size: -1 }, { size: 1 }] } } },
      };
      const g = CompiledGraph.compile([shaped, k, { name: 'y', op: 'MatMul', input: ['x', 'k'] }], w, ['y:0']);
      assert.ok(g);
      const wrongShape = tf.tensor2d([[1, 2]]);
      const wrongType = tf.tensor2d([[1]], [1, 1], 'int32');
      const before = tf.memory().numTensors;
      assert.throws(
        () => g.execute({ x: wrongShape }, ['y:0']),
        /The shape of dict\['x'\] provided in model.execute\(dict\) must be \[-1,1\], but was \[1,2\]/,
      );
      assert.throws(
        () => g.execute({ x: wrongType }, ['y:0']),
        /The dtype of dict\['x'\] provided in model.execute\(dict\) must be float32, but was int32/,
      );
      assert.equal(tf.memory().numTensors, before);
      const fed = tf.tensor2d([[3], [4]]);
      const [y] = g.execute({ x: fed }, ['y:0']);
      assert.deepEqual(Array.from(y.dataSync()), [6, 8]);
      tf.dispose([wrongShape, wrongType, fed, y]);
    });

    it('frees every intermediate during the run and returns weights and feeds as clones the caller may dispose', () => {
      const g = CompiledGraph.compile(
        [
          placeholder('x'),
          k,
          { name: 'm', op: 'MatMul', input: ['x', 'k'] },
          { name: 'r', op: 'Relu', input: ['m'] },
          { name: 'y', op: 'Identity', input: ['r'] },
          { name: 'kk', op: 'Identity', input: ['k'] },
        ],
        w,
        ['y:0', 'kk:0', 'x:0'],
      );
      assert.ok(g);
      const x = tf.tensor2d([[-1], [3]]);
      const before = tf.memory().numTensors;
      const [y, kk, xOut] = g.execute({ x }, ['y:0', 'kk:0', 'x:0']);
      assert.deepEqual(Array.from(y.dataSync()), [0, 6]);
      assert.deepEqual(Array.from(kk.dataSync()), [2]);
      assert.equal(tf.memory().numTensors, before + 3, 'only the three results remain');
      [y, kk, xOut].forEach((t) => t.dispose());
      assert.equal(w.k[0].isDisposed, false, 'the weight survives its clone being disposed');
      assert.equal(x.isDisposed, false);
      x.dispose();
    });
  });
});
