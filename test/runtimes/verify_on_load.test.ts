// The check --verify_on_load makes, in this process: ONNX Runtime against the WASM runtime
// on a two-signature model, first as it is (they agree), then with TF.js's Relu kernel on
// WASM swapped for Sigmoid's (a wrong kernel, as a real bug would be): the signature using
// Relu is refused with the Relu node named, the other still verifies.
import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import * as tf from '@tensorflow/tfjs-core';
import { EmbeddedRuntime } from '../../src/runtimes/embedded/embedded_runtime.js';
import { OnnxRuntime } from '../../src/runtimes/onnx/onnx_runtime.js';
import type { Servable } from '../../src/runtimes/runtime.js';
import { GraphBuilder } from '../../test_util/savedmodel/writer/graph_builder.js';
import { writeSavedModel } from '../../test_util/savedmodel/saved_model_writer.js';
import { writeConvSavedModel, writeMlpSavedModel } from '../../test_util/savedmodel/model_zoo.js';
import { verifySignatures, type ReferenceOpener } from '../../src/runtimes/verify/verify_signatures.js';
import { seededInputs } from '../../src/runtimes/verify/seeded_inputs.js';
import { tensorDifference } from '../../src/runtimes/verify/compare_tensors.js';
import { tempDir } from '../helpers/temp.js';
import { writeStringSignaturesModel } from '../helpers/string_signatures.js';
import { protoType, TO_OBJECT } from '../../src/proto/index.js';

const f32 = (shape: number[], values: number[]) => ({ dtype: 'float32' as const, shape, values: Float32Array.from(values) });

async function twoSignatureModel(dir: string): Promise<void> {
  const g = new GraphBuilder();
  const x = g.placeholder('x', 'float32', [-1, 3]);
  const w = g.variable('w', f32([3, 4], [0.5, -1, 0.25, 2, -0.75, 1, 1.5, -0.5, 0.1, 0.2, -0.3, 0.4]));
  const h = g.matMul('MatMul', x, w);
  const relu = g.unary('Relu', 'relu', h);
  const tanh = g.unary('Tanh', 'tanh', h);
  await writeSavedModel(dir, g, { with_relu: { inputs: { x }, outputs: { y: relu } }, with_tanh: { inputs: { x }, outputs: { y: tanh } } });
}

/** The WASM runtime in this process, as the reference the check opens. */
function inProcess(servable: Servable): ReferenceOpener {
  return async () => ({
    engines: servable.engines,
    refusals: servable.refusals,
    run: (s, inputs) => servable.run(s, inputs),
    trace: (s, inputs) => servable.trace!(s, inputs),
    close: async () => servable.dispose(),
  });
}

async function check(dir: string) {
  const primary = await new OnnxRuntime({ device: 'cpu' }).load(dir, { tags: ['serve'] });
  const reference = await new EmbeddedRuntime('wasm').load(dir, { tags: ['serve'] });
  try {
    return await verifySignatures(
      { run: (s, i) => primary.run(s, i), trace: (s, i) => primary.trace!(s, i) },
      { engines: primary.engines, signatures: primary.signatures },
      dir,
      inProcess(reference),
    );
  } finally {
    primary.dispose();
  }
}

describe('--verify_on_load: ONNX Runtime checked against the WASM runtime', () => {
  const restore: Array<() => void> = [];
  after(() => restore.forEach((r) => r()));

  it('agrees on the bench MLP, a conv net and a two-signature model as they are', async () => {
    const root = tempDir();
    await writeMlpSavedModel(path.join(root, 'mlp'), {
      inputDim: 64,
      hiddenSizes: new Array(24).fill(64),
      outputDim: 8,
      activation: 'relu',
      seed: 3,
    });
    await writeConvSavedModel(path.join(root, 'conv'), {
      height: 32,
      width: 32,
      channels: 3,
      filters: [8, 16, 16],
      kernelSize: 3,
      classes: 5,
      seed: 4,
    });
    await twoSignatureModel(path.join(root, 'two'));
    for (const model of ['mlp', 'conv', 'two']) {
      const report = await check(path.join(root, model));
      assert.deepEqual(report.refused, {}, model);
      assert.deepEqual(report.unchecked, {}, model);
      assert.ok(Object.values(report.verified).every((engine) => engine === 'wasm') && Object.keys(report.verified).length > 0, model);
    }
  });

  it("a wrong kernel (WASM's Relu swapped for Sigmoid) refuses the signature using it, naming the Relu node; the other signature verifies", async () => {
    const dir = path.join(tempDir(), 'two');
    await twoSignatureModel(dir);
    await tf.setBackend('wasm');
    const relu = tf.getKernel('Relu', 'wasm')!;
    const sigmoid = tf.getKernel('Sigmoid', 'wasm')!;
    tf.unregisterKernel('Relu', 'wasm');
    tf.registerKernel({ ...sigmoid, kernelName: 'Relu' });
    restore.push(() => {
      tf.unregisterKernel('Relu', 'wasm');
      tf.registerKernel(relu);
    });
    const report = await check(dir);
    assert.deepEqual(Object.keys(report.refused), ['with_relu']);
    assert.match(
      report.refused.with_relu,
      /^onnxruntime and wasm disagree on made-up inputs: output 'y': \d+ of 8 elements differ, most at element \d+: .*; first differing node: relu:0 \(/,
    );
    assert.deepEqual(report.verified, { with_tanh: 'wasm' });
  });
});

describe('the pieces of the check', () => {
  it('made-up inputs follow the declared specs (open batch 2, other open dims 3), and are the same each time', () => {
    const spec = {
      key: 's',
      methodName: '',
      defaults: {},
      outputs: {},
      inputs: { x: { name: 'x:0', dtype: 'DT_FLOAT', shape: [-1, 4, -1] }, ids: { name: 'i:0', dtype: 'DT_INT64', shape: [-1] } },
    };
    const a = seededInputs(spec);
    const b = seededInputs(spec);
    assert.ok('inputs' in a && 'inputs' in b);
    assert.deepEqual(a.inputs.x.shape, [2, 4, 3]);
    assert.deepEqual(a.inputs, b.inputs);
    assert.deepEqual(Array.from(a.inputs.ids.values as BigInt64Array), [0n, 1n]);
  });

  it('made-up strings are small decimal numbers; a tf.Example input gets Examples holding every feature its ParseExample declares', () => {
    const strings = seededInputs({
      key: 's',
      methodName: '',
      defaults: {},
      outputs: {},
      inputs: { s: { name: 's:0', dtype: 'DT_STRING', shape: [-1] } },
    });
    assert.ok('inputs' in strings);
    assert.deepEqual(
      (strings.inputs.s.values as Uint8Array[]).map((b) => Buffer.from(b).toString()),
      ['0', '1'],
    );
    const example = [
      { key: 'x', dtype: 'float32' as const, shape: [2] },
      { key: 'ids', dtype: 'int64' as const, shape: null },
      { key: 'word', dtype: 'string' as const, shape: [] },
    ];
    const made = seededInputs({
      key: 's',
      methodName: '',
      defaults: {},
      outputs: {},
      inputs: { examples: { name: 'e:0', dtype: 'DT_STRING', shape: [-1], example } },
    });
    assert.ok('inputs' in made);
    const Example = protoType('tensorflow.Example');
    const decoded = (made.inputs.examples.values as Uint8Array[]).map(
      (b) =>
        Example.toObject(Example.decode(b), TO_OBJECT) as { features: { feature: Record<string, Record<string, { value: unknown[] }>> } },
    );
    assert.equal(decoded.length, 2);
    for (const [i, { features }] of decoded.entries()) {
      assert.deepEqual(Object.keys(features.feature).sort(), ['ids', 'word', 'x']);
      assert.equal(features.feature.x.floatList.value.length, 2);
      assert.deepEqual(features.feature.ids.int64List.value, [i]);
      assert.deepEqual(
        features.feature.word.bytesList.value.map((b) => Buffer.from(b as Uint8Array).toString()),
        [String(i)],
      );
    }
  });

  it('a tf.Example signature is checked on made-up Examples (ONNX Runtime with its parsing step against WASM)', async () => {
    const base = await writeStringSignaturesModel();
    const report = await check(path.join(base, '1'));
    assert.deepEqual(report.verified, { parsed: 'wasm' });
  });

  it('tensors agree within 1e-4 relative (absolute below 1), integers exactly; NaN matches NaN', () => {
    assert.equal(tensorDifference(f32([3], [1000, 0.5, NaN]), f32([3], [1000.09, 0.50009, NaN])), null);
    assert.match(
      tensorDifference(f32([3], [1000, 0.5, 1]), f32([3], [1000.2, 0.5, 1]))!,
      /^1 of 3 elements differ, most at element 0: 1000 vs 1000\.2/,
    );
    assert.match(tensorDifference(f32([2], [1, 2]), f32([1, 2], [1, 2]))!, /^shape \[2\] vs \[1,2\]/);
    const i = (v: number[]) => ({ dtype: 'int32' as const, shape: [v.length], values: Int32Array.from(v) });
    assert.match(tensorDifference(i([3, -3]), i([3, -4]))!, /1 of 2 elements differ/);
  });
});
