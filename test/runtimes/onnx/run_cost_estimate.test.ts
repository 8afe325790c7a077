// A signature's RunCost from its shapes: values live from their node to their last consumer,
// the peak of what is live at once is split into a fixed part and a part per batch row, and a
// real Keras conv net's estimate is its two 26×26×16 float activations per row.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { estimateRunCost } from '../../../src/runtimes/onnx/run_cost_estimate.js';
import { OnnxRuntime } from '../../../src/runtimes/onnx/onnx_runtime.js';
import type { NodeDef } from '../../../src/savedmodel/graph/types.js';
import type { TfValue } from '../../../src/runtimes/onnx/tf_value.js';
import { MODELS } from '../../helpers/paths.js';

const node = (name: string, op: string, ...input: string[]): NodeDef => ({ name, op, input });
const f32 = (...shape: number[]): TfValue => ({ dtype: 'float32', shape });

describe('RunCost from shapes', () => {
  it('a chain: each value dies after its consumer, so two are live at the peak', () => {
    const nodes = [node('x', 'Placeholder'), node('a', 'Relu', 'x'), node('b', 'Relu', 'a'), node('c', 'Relu', 'b')];
    const values = new Map([
      ['x:0', f32(-1, 4)],
      ['a:0', f32(-1, 4)],
      ['b:0', f32(-1, 4)],
      ['c:0', f32(-1, 4)],
    ]);
    assert.deepEqual(estimateRunCost(nodes, values, ['c:0']), {
      peakFixedBytes: 0,
      peakBytesPerRow: 32,
      outputFixedBytes: 0,
      outputBytesPerRow: 16,
    });
  });

  it('a value read again later stays live; fetched values live to the end; constants cost nothing', () => {
    const nodes = [
      node('x', 'Placeholder'),
      node('k', 'Const'),
      node('a', 'Mul', 'x', 'k'),
      node('b', 'Relu', 'a'),
      node('c', 'AddV2', 'b', 'x'),
      node('d', 'Relu', 'c'),
    ];
    const values = new Map<string, TfValue>([
      ['x:0', f32(-1, 10)],
      ['k:0', { dtype: 'float32', shape: [10], value: { dtype: 'float32', shape: [10], values: new Float32Array(10) } }],
      ['a:0', f32(-1, 10)],
      ['b:0', f32(-1, 10)],
      ['c:0', f32(-1, 10)],
      ['d:0', f32(-1, 10)],
    ]);
    // At c: x (read by c), a (fetched), b and c are live: 160 bytes per row.
    const cost = estimateRunCost(nodes, values, ['a:0', 'd:0']);
    assert.equal(cost.peakBytesPerRow, 160);
    assert.equal(cost.outputBytesPerRow, 80);
  });

  it('fully known shapes are fixed bytes; a shape unknown past its first dim counts as its largest input', () => {
    const nodes = [node('x', 'Placeholder'), node('w', 'Fill'), node('r', 'Reshape', 'x', 'w')];
    const values = new Map([
      ['x:0', f32(-1, 8)],
      ['w:0', f32(100, 100)],
      ['r:0', f32(-1, -1)],
    ]);
    assert.deepEqual(estimateRunCost(nodes, values, ['r:0']), {
      peakFixedBytes: 40_000,
      peakBytesPerRow: 64,
      outputFixedBytes: 0,
      outputBytesPerRow: 32,
    });
  });

  it('keras3_mnist_conv: two 26×26×16 float activations per row at the peak (the conv and its relu), 10 floats out', async () => {
    const servable = await new OnnxRuntime({ device: 'cpu' }).load(path.join(MODELS, 'keras3_mnist_conv', '1'), { tags: ['serve'] });
    try {
      const cost = servable.runCosts?.serving_default;
      assert.ok(cost);
      assert.equal(cost.peakBytesPerRow, 2 * 26 * 26 * 16 * 4);
      assert.equal(cost.outputBytesPerRow, 10 * 4);
    } finally {
      servable.dispose();
    }
  });
});
