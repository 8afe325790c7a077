// The embedded runtime on the WASM backend, end to end on tiny graphs written with tfgate's
// SavedModel writer: the WASM kernel fixes through both executors, FakeQuant* (TF's values,
// per-channel folding at load), Einsum (every equation against a plain-JS einsum),
// ReverseSequence (tf.reverse_sequence's documented example), and the load-time refusals.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { tempDir } from '../helpers/temp.js';
import * as tf from '@tensorflow/tfjs-core';
import { EmbeddedRuntime } from '../../src/runtimes/embedded/embedded_runtime.js';
import type { TfjsServable } from '../../src/runtimes/embedded/tfjs_servable.js';
import type { HostTensor } from '../../src/tensor/host_tensor.js';
import { Code } from '../../src/errors/status.js';
import { isError } from '../helpers/errors.js';
import { attr, f32, i64, node, writeTinyModel, type GraphBuilder, type Tensor } from '../helpers/tiny_graphs.js';
import { GraphBuilder as SavedModelGraph, type AttrValueInit } from '../../test_util/savedmodel/writer/graph_builder.js';
import { writeSavedModel } from '../../test_util/savedmodel/saved_model_writer.js';
import { conv2dRef, einsumRef, fakeQuantRef, reverseSequenceRef, sample } from '../helpers/reference_ops.js';

const compiledRuntime = new EmbeddedRuntime('wasm');
const graphModelRuntime = new EmbeddedRuntime('wasm', () => {}, false);
const load = async (dir: string, runtime = compiledRuntime) => (await runtime.load(dir, { tags: ['serve'] })) as TfjsServable;

async function run(dir: string, inputs: Record<string, HostTensor>, runtime = compiledRuntime): Promise<Record<string, HostTensor>> {
  const s = await load(dir, runtime);
  try {
    assert.equal(s.backend, 'wasm');
    return await s.run('serving_default', inputs);
  } finally {
    s.dispose();
  }
}

const values = (t: HostTensor) => Array.from(t.values as Float32Array, Number);
function assertClose(got: HostTensor, want: ArrayLike<number>, tol: number, what = ''): void {
  const v = values(got);
  assert.equal(v.length, want.length, `${what} length`);
  v.forEach((x, i) => assert.ok(Math.abs(x - want[i]) <= tol, `${what} element ${i}: got ${x}, want ${want[i]}`));
}

const floatT = attr.type('float32');
const conv = (g: GraphBuilder, op: 'Conv2D' | 'DepthwiseConv2dNative', name: string, x: Tensor, w: Tensor, stride: number) =>
  node(g, op, name, [x, w], {
    T: floatT,
    // TF's depthwise kernel takes equal row and column strides only; H is 1, so SAME is unchanged.
    strides: attr.ints(op === 'DepthwiseConv2dNative' ? [1, stride, stride, 1] : [1, 1, stride, 1]),
    padding: attr.s('SAME'),
    explicit_paddings: attr.ints([]),
    data_format: attr.s('NHWC'),
    dilations: attr.ints([1, 1, 1, 1]),
    ...(op === 'Conv2D' ? { use_cudnn_on_gpu: attr.b(true) } : {}),
  });

describe('WASM SAME conv through the embedded runtime', () => {
  const x16 = f32(
    [1, 1, 16, 1],
    Array.from({ length: 16 }, (_, i) => i + 1),
  );

  it("Conv2D: the issue's repro gives TF's [6, 30] and [6, 18, 30, 42] on CompiledGraph and on the GraphModel", async () => {
    const dir = await writeTinyModel((g) => {
      const x = g.placeholder('x', 'float32', [1, 1, 16, 1]);
      const w = g.constant('w', f32([1, 3, 1, 1], [1, 1, 1]));
      return {
        inputs: { x },
        outputs: { s8: g.identity('s8', conv(g, 'Conv2D', 'conv8', x, w, 8)), s4: g.identity('s4', conv(g, 'Conv2D', 'conv4', x, w, 4)) },
      };
    });
    const s = await load(dir);
    assert.equal(s.executorOf('serving_default'), 'compiled');
    s.dispose();
    for (const runtime of [compiledRuntime, graphModelRuntime]) {
      const out = await run(dir, { x: x16 }, runtime);
      assert.deepEqual(values(out.s8), [6, 30]);
      assert.deepEqual(values(out.s4), [6, 18, 30, 42]);
    }
  });

  it('DepthwiseConv2dNative: the same values on the GraphModel', async () => {
    const dir = await writeTinyModel((g) => {
      const x = g.placeholder('x', 'float32', [1, 1, 16, 1]);
      const w = g.constant('w', f32([1, 3, 1, 1], [1, 1, 1]));
      return { inputs: { x }, outputs: { y: g.identity('y', conv(g, 'DepthwiseConv2dNative', 'dw', x, w, 8)) } };
    });
    assert.deepEqual(values((await run(dir, { x: x16 })).y), [6, 30]);
  });
});

describe('rank-7 tensors through the embedded runtime', () => {
  it('AddV2 and Mul on a rank-7 input give the plain-JS values on both executors (3.57e-41 before)', async () => {
    const shape = [2, 1, 2, 3, 1, 2, 2];
    const dir = await writeTinyModel((g) => {
      const x = g.placeholder('x', 'float32', [-1, 1, 2, 3, 1, 2, 2]);
      const y = g.mul('mul', g.add('add', x, g.constant('one', f32([], [1]))), g.constant('two', f32([2], [2, -3])));
      return { inputs: { x }, outputs: { y: g.identity('y', y) } };
    });
    const xs = sample(48, 1);
    const want = xs.map((v, i) => Math.fround(Math.fround(v + 1) * (i % 2 ? -3 : 2)));
    for (const runtime of [compiledRuntime, graphModelRuntime]) {
      const { y } = await run(dir, { x: f32(shape, xs) }, runtime);
      assert.deepEqual(y.shape, shape);
      assert.deepEqual(values(y), want);
    }
  });
});

describe('FakeQuant*', () => {
  const fq = (g: GraphBuilder, op: string, inputs: Tensor[], attrs: Record<string, AttrValueInit> = {}) =>
    node(g, op, 'fq', inputs, { num_bits: attr.i(8), narrow_range: attr.b(false), ...attrs });

  // The issue's input. TF computes the nudge in float32: scale = 2/255 rounds up, so
  // -min/scale = 127.49999 rounds to zero point 127 (not 128, as float64 arithmetic would
  // give) and the nudged range is [-0.996078, 1.003922]. Real TF shows exactly that in
  // tensorflow/model-optimization#858: fake_quant_with_min_max_vars([-1.0, 0.0, 1.0], min=-1,
  // max=1) is [-0.9960785, 0., 1.0039215]. The middle values are the issue's.
  const X = [-3, 0.1, 0.26, 1.7];
  const TF_SAYS = [-0.9960785, 0.101961, 0.258824, 1.0039215];

  it("FakeQuantWithMinMaxVars gives TF's values to 1e-6 (tfjs-converter returned x unchanged)", async () => {
    const dir = await writeTinyModel((g) => {
      const x = g.placeholder('x', 'float32', [-1]);
      const y = fq(g, 'FakeQuantWithMinMaxVars', [x, g.constant('min', f32([], [-1])), g.constant('max', f32([], [1]))]);
      return { inputs: { x }, outputs: { y: g.identity('y', y) } };
    });
    assertClose((await run(dir, { x: f32([4], X) })).y, TF_SAYS, 1e-6);
    assertClose((await run(dir, { x: f32([3], [-1, 0, 1]) })).y, [-0.9960785, 0, 1.0039215], 1e-6, 'model-optimization#858');
  });

  it('FakeQuantWithMinMaxArgs (range as attributes) gives the same values', async () => {
    const dir = await writeTinyModel((g) => {
      const x = g.placeholder('x', 'float32', [4]);
      return { inputs: { x }, outputs: { y: g.identity('y', fq(g, 'FakeQuantWithMinMaxArgs', [x], { min: attr.f(-1), max: attr.f(1) })) } };
    });
    assertClose((await run(dir, { x: f32([4], X) })).y, TF_SAYS, 1e-6);
  });

  it('nudging with 4 bits, narrow range, a range not containing 0 and ties: equal to the float32 reference element by element', async () => {
    const xs = [...sample(40, 3).map((v) => v * 2), 0, -0.7, 0.7, 1.3, 2.2];
    for (const [min, max, numBits, narrow] of [
      [-0.7, 2.2, 4, true],
      [0.3, 1.3, 8, false], // nudged down to include 0
      [-1.3, -0.2, 5, false],
      [-1, 1, 2, true],
      [-6, 6, 16, false],
    ] as const) {
      const dir = await writeTinyModel((g) => {
        const x = g.placeholder('x', 'float32', [-1]);
        const y = fq(g, 'FakeQuantWithMinMaxVars', [x, g.constant('min', f32([], [min])), g.constant('max', f32([], [max]))], {
          num_bits: attr.i(numBits),
          narrow_range: attr.b(narrow),
        });
        return { inputs: { x }, outputs: { y: g.identity('y', y) } };
      });
      const want = fakeQuantRef(xs, [Math.fround(min)], [Math.fround(max)], numBits, narrow, true);
      assert.deepEqual(
        values((await run(dir, { x: f32([xs.length], xs) })).y),
        Array.from(want),
        `[${min}, ${max}] ${numBits} bits${narrow ? ' narrow' : ''}`,
      );
    }
  });

  it('FakeQuantWithMinMaxVarsPerChannel on a fed tensor: one range per last-axis channel, min = max = 0 gives 0', async () => {
    const mins = [-1, 0, -0.5];
    const maxs = [1, 0, 3];
    const dir = await writeTinyModel((g) => {
      const x = g.placeholder('x', 'float32', [-1, 3]);
      const y = fq(g, 'FakeQuantWithMinMaxVarsPerChannel', [x, g.constant('min', f32([3], mins)), g.constant('max', f32([3], maxs))], {
        narrow_range: attr.b(true),
      });
      return { inputs: { x }, outputs: { y: g.identity('y', y) } };
    });
    const xs = sample(18, 4).map((v) => v * 2);
    assert.deepEqual(values((await run(dir, { x: f32([6, 3], xs) })).y), Array.from(fakeQuantRef(xs, mins, maxs, 8, true)));
  });

  it('per-channel quantized conv weights (QAT) are folded into a constant at load: the graph compiles and gives conv(x, fake_quant(w))', async () => {
    const wShape = [3, 3, 2, 4];
    const ws = sample(72, 5).map((v) => v / 3);
    const mins = [-0.5, -0.7, -0.2, -0.66];
    const maxs = [0.6, 0.4, 0.7, 0.5];
    const dir = await writeTinyModel((g) => {
      const images = g.placeholder('images', 'float32', [-1, 5, 5, 2]);
      const kernel = g.variable('conv2d/kernel', f32(wShape, ws));
      const qkernel = node(
        g,
        'FakeQuantWithMinMaxVarsPerChannel',
        'conv2d/fq',
        [kernel, g.variable('conv2d/min', f32([4], mins)), g.variable('conv2d/max', f32([4], maxs))],
        {
          num_bits: attr.i(8),
          narrow_range: attr.b(true),
        },
      );
      return { inputs: { images }, outputs: { y: g.identity('y', conv(g, 'Conv2D', 'conv2d/Conv2D', images, qkernel, 2)) } };
    });
    const s = await load(dir);
    // CompiledGraph has no FakeQuant kernel: 'compiled' means no FakeQuant node is left.
    assert.equal(s.executorOf('serving_default'), 'compiled');
    const xs = sample(50, 6);
    const { y } = await s.run('serving_default', { images: f32([1, 5, 5, 2], xs) });
    s.dispose();
    const qw = fakeQuantRef(ws, mins.map(Math.fround), maxs.map(Math.fround), 8, true);
    const [shape, want] = conv2dRef(xs, [1, 5, 5, 2], qw, wShape, { strides: [1, 2], padding: 'SAME' });
    assert.deepEqual(y.shape, shape);
    assertClose(y, want, 1e-5);
    // The quantization is real: the float weights give other values.
    const [, unquantized] = conv2dRef(xs, [1, 5, 5, 2], ws, wShape, { strides: [1, 2], padding: 'SAME' });
    assert.ok(values(y).some((v, i) => Math.abs(v - unquantized[i]) > 1e-3));
  });
});

describe('Einsum', () => {
  const cases: Array<{ eq: string; a: number[]; b?: number[]; ref?: string }> = [
    // Keras MultiHeadAttention
    { eq: 'abc,cde->abde', a: [2, 3, 4], b: [4, 2, 5] },
    { eq: 'aecd,abcd->acbe', a: [2, 3, 2, 4], b: [2, 5, 2, 4] },
    { eq: 'acbe,aecd->abcd', a: [2, 2, 5, 3], b: [2, 3, 2, 4] },
    { eq: 'abcd,cde->abe', a: [2, 3, 2, 4], b: [2, 4, 5] },
    // common forms
    { eq: 'ij,jk->ik', a: [3, 4], b: [4, 5] },
    { eq: 'bij,bjk->bik', a: [2, 3, 4], b: [2, 4, 5] },
    { eq: '...ij,...jk->...ik', a: [2, 1, 3, 4], b: [5, 4, 2], ref: 'xyij,yjk->xyik' },
    { eq: 'bij,jk->bik', a: [2, 3, 4], b: [4, 5] },
    { eq: 'ij,kj->ik', a: [3, 4], b: [5, 4] },
    { eq: 'i,i->', a: [6], b: [6] },
    { eq: 'i,j->ij', a: [3], b: [4] },
    { eq: 'ij,k->i', a: [3, 4], b: [2] }, // j and k summed away before the product
    { eq: 'ij->ji', a: [3, 4] },
    { eq: 'ij->i', a: [3, 4] },
    { eq: 'ij->', a: [3, 4] },
    { eq: 'aA,Ab->ab', a: [2, 3], b: [3, 4] }, // case matters: A is not a
  ];

  for (const c of cases) {
    it(`${c.eq} equals a plain-JS einsum`, async () => {
      const n = c.b ? 2 : 1;
      const dir = await writeTinyModel((g) => {
        const a = g.placeholder('a', 'float32', c.a);
        const ins = [a, ...(c.b ? [g.placeholder('b', 'float32', c.b)] : [])];
        const y = node(g, 'Einsum', 'einsum', ins, { equation: attr.s(c.eq), N: attr.i(n), T: floatT });
        return { inputs: Object.fromEntries(ins.map((t) => [t.node, t])), outputs: { y: g.identity('y', y) } };
      });
      const size = (s: number[]) => s.reduce((x, y) => x * y, 1);
      const operands = [{ shape: c.a, values: sample(size(c.a), 1) }, ...(c.b ? [{ shape: c.b, values: sample(size(c.b), 2) }] : [])];
      const inputs: Record<string, HostTensor> = { a: f32(c.a, operands[0].values) };
      if (c.b) inputs.b = f32(c.b, operands[1].values);
      const { y } = await run(dir, inputs);
      const want = einsumRef(c.ref ?? c.eq, operands);
      assert.deepEqual(y.shape, want.shape);
      assertClose(y, want.values, 1e-5);
    });
  }
});

describe('ReverseSequence', () => {
  const model = (seqDim: number, batchDim: number, dtype: 'float32' | 'int32') =>
    writeTinyModel((g) => {
      const x = g.placeholder('input', dtype, null);
      const lengths = g.placeholder('seq_lengths', 'int64', [-1]);
      const y = node(
        g,
        'ReverseSequence',
        'rev',
        [x, lengths],
        { seq_dim: attr.i(seqDim), batch_dim: attr.i(batchDim), T: attr.type(dtype), Tlen: attr.type('int64') },
        dtype,
      );
      return { inputs: { input: x, seq_lengths: lengths }, outputs: { output: g.identity('output', y) } };
    });

  it("gives tf.reverse_sequence's documented example exactly", async () => {
    const dir = await model(1, 0, 'int32');
    const input = [
      [1, 2, 3, 4, 5, 0, 0, 0],
      [1, 2, 0, 0, 0, 0, 0, 0],
      [1, 2, 3, 4, 0, 0, 0, 0],
      [1, 2, 3, 4, 5, 6, 7, 8],
    ];
    const { output } = await run(dir, {
      input: { dtype: 'int32', shape: [4, 8], values: Int32Array.from(input.flat()) },
      seq_lengths: i64([4], [7, 2, 3, 5]),
    });
    assert.deepEqual(
      Array.from(output.values as Int32Array),
      [
        [0, 0, 5, 4, 3, 2, 1, 0],
        [2, 1, 0, 0, 0, 0, 0, 0],
        [3, 2, 1, 4, 0, 0, 0, 0],
        [5, 4, 3, 2, 1, 6, 7, 8],
      ].flat(),
    );
  });

  it("batch_dim 2, seq_dim 0 (the docs' second form) equals the plain-JS definition", async () => {
    const dir = await model(0, 2, 'float32');
    const shape = [8, 3, 4, 2];
    const xs = sample(192, 7);
    const { output } = await run(dir, { input: f32(shape, xs), seq_lengths: i64([4], [7, 2, 3, 5]) });
    assert.deepEqual(values(output), Array.from(reverseSequenceRef(xs, shape, [7, 2, 3, 5], 0, 2), Math.fround));
  });

  it("a length past the sequence is INVALID_ARGUMENT with TF's message, at predict (it depends on the request)", async () => {
    const s = await load(await model(1, 0, 'float32'));
    await assert.rejects(
      s.run('serving_default', { input: f32([2, 3], sample(6, 1)), seq_lengths: i64([2], [1, 4]) }),
      isError(Code.INVALID_ARGUMENT, /seq_lens\(1\) > input\.dims\(1\)/),
    );
    s.dispose();
  });
});

describe('FusedBatchNormV3', () => {
  const fbn = (g: GraphBuilder, x: Tensor, depth: number, o: { format: string; training: boolean; mean?: number[]; variance?: number[] }) =>
    node(
      g,
      'FusedBatchNormV3',
      'fbn',
      [
        x,
        g.constant('gamma', f32([depth], sample(depth, 3))),
        g.constant('beta', f32([depth], sample(depth, 4))),
        g.constant('mean', f32([o.mean?.length ?? 0], o.mean ?? [])),
        g.constant('variance', f32([o.variance?.length ?? 0], o.variance ?? [])),
      ],
      {
        T: floatT,
        U: floatT,
        epsilon: attr.f(0.001),
        exponential_avg_factor: attr.f(1),
        data_format: attr.s(o.format),
        is_training: attr.b(o.training),
      },
    );
  /** y per channel c (index of the channel axis): gamma·(x - mean)/sqrt(var + eps) + beta. */
  const normalizeRef = (xs: number[], shape: number[], channelAxis: number, stats: (c: number) => [number, number]) => {
    const gamma = sample(shape[channelAxis], 3);
    const beta = sample(shape[channelAxis], 4);
    const inner = shape.slice(channelAxis + 1).reduce((a, b) => a * b, 1);
    return xs.map((v, i) => {
      const c = Math.floor(i / inner) % shape[channelAxis];
      const [m, varc] = stats(c);
      return (gamma[c] * (v - m)) / Math.sqrt(varc + Math.fround(0.001)) + beta[c];
    });
  };

  it("Keras 2 LayerNormalization's form (NCHW, is_training, empty mean/variance) normalizes each row by its own statistics", async () => {
    // keras LayerNormalization: [rows, features] → [1, rows, features, 1] NCHW, fused_batch_norm.
    const dir = await writeTinyModel((g) => {
      const x = g.placeholder('x', 'float32', [3, 5]);
      const y = fbn(g, g.reshape('to4d', x, [1, 3, 5, 1]), 3, { format: 'NCHW', training: true });
      return { inputs: { x }, outputs: { y: g.identity('y', g.reshape('back', y, [3, 5])) } };
    });
    const xs = sample(15, 8).map((v, i) => v * (1 + i));
    const stats = (r: number): [number, number] => {
      const row = xs.slice(r * 5, r * 5 + 5);
      const m = row.reduce((a, b) => a + b) / 5;
      return [m, row.reduce((a, b) => a + (b - m) ** 2, 0) / 5];
    };
    const { y } = await run(dir, { x: f32([3, 5], xs) });
    assertClose(y, normalizeRef(xs, [3, 5], 0, stats), 1e-5);
  });

  it('inference with given estimates, NHWC and NCHW, equals the plain-JS formula', async () => {
    const mean = [0.5, -1, 0.25];
    const variance = [2, 0.5, 1.5];
    for (const [format, shape, axis] of [
      ['NHWC', [2, 2, 2, 3], 3],
      ['NCHW', [2, 3, 2, 2], 1],
    ] as const) {
      const dir = await writeTinyModel((g) => {
        const x = g.placeholder('x', 'float32', [...shape]);
        return { inputs: { x }, outputs: { y: g.identity('y', fbn(g, x, 3, { format, training: false, mean, variance })) } };
      });
      const xs = sample(24, 9);
      const { y } = await run(dir, { x: f32([...shape], xs) });
      assertClose(
        y,
        normalizeRef(xs, [...shape], axis, (c) => [mean[c], variance[c]]),
        1e-5,
        format,
      );
    }
  });
});

describe("tfgate's ops in one graph", () => {
  it('leave no tensor behind across runs (FakeQuant, ReverseSequence, Einsum, FusedBatchNormV3)', async () => {
    const dir = await writeTinyModel((g) => {
      const x = g.placeholder('x', 'float32', [4, 3]);
      const q = node(
        g,
        'FakeQuantWithMinMaxVarsPerChannel',
        'fq',
        [x, g.constant('lo', f32([3], [-1, -2, -3])), g.constant('hi', f32([3], [1, 2, 3]))],
        { num_bits: attr.i(8), narrow_range: attr.b(false) },
      );
      const r = node(g, 'ReverseSequence', 'rev', [q, g.constant('len', i64([4], [3, 2, 1, 0]))], {
        seq_dim: attr.i(1),
        batch_dim: attr.i(0),
        T: floatT,
        Tlen: attr.type('int64'),
      });
      const e = node(g, 'Einsum', 'ein', [r, g.constant('w', f32([3, 2], sample(6, 1)))], {
        equation: attr.s('ij,jk->ik'),
        N: attr.i(2),
        T: floatT,
      });
      const norm = node(
        g,
        'FusedBatchNormV3',
        'ln',
        [
          g.reshape('r4', e, [1, 4, 2, 1]),
          g.constant('one', f32([4], [1, 1, 1, 1])),
          g.constant('zero', f32([4], [0, 0, 0, 0])),
          g.constant('m', f32([0], [])),
          g.constant('v', f32([0], [])),
        ],
        {
          T: floatT,
          U: floatT,
          data_format: attr.s('NCHW'),
          is_training: attr.b(true),
        },
      );
      return { inputs: { x }, outputs: { y: g.identity('y', g.reshape('r2', norm, [4, 2])) } };
    });
    const s = await load(dir);
    const x = f32([4, 3], sample(12, 2));
    const first = await s.run('serving_default', { x });
    const before = tf.memory().numTensors;
    for (let i = 0; i < 3; i++) assert.deepEqual(values((await s.run('serving_default', { x })).y), values(first.y));
    assert.equal(tf.memory().numTensors, before);
    s.dispose();
  });
});

describe('load-time refusals name the op, the node and why', () => {
  const refused = async (build: (g: GraphBuilder, x: Tensor) => Tensor, pattern: RegExp) => {
    const dir = await writeTinyModel((g) => {
      const x = g.placeholder('x', 'float32', null);
      return { inputs: { x }, outputs: { y: g.identity('y', build(g, x)) } };
    });
    await assert.rejects(load(dir), isError(Code.FAILED_PRECONDITION, pattern));
  };
  const einsum = (eq: string, n: number) => (g: GraphBuilder, x: Tensor) =>
    node(
      g,
      'Einsum',
      'ein',
      Array.from({ length: n }, () => x),
      { equation: attr.s(eq), N: attr.i(n), T: floatT },
    );

  it('an Einsum equation with a repeated label (a diagonal)', () =>
    refused(einsum('ii->i', 1), /Einsum \(node ein: einsum equation 'ii->i' repeats label 'i'/));
  it('an Einsum of three operands', () =>
    refused(einsum('ij,jk,kl->il', 3), /Einsum \(node ein: einsum equation 'ij,jk,kl->il' has 3 operands; 1 or 2 are supported/));
  it('FakeQuantWithMinMaxArgs with min >= max', () =>
    refused(
      (g, x) => node(g, 'FakeQuantWithMinMaxArgs', 'fq', [x], { min: attr.f(1), max: attr.f(-1) }),
      /FakeQuantWithMinMaxArgs \(node fq: min has to be smaller than max, was: 1 >= -1\)/,
    ));
  it('FakeQuantWithMinMaxVars with num_bits 1', () =>
    refused(
      (g, x) =>
        node(g, 'FakeQuantWithMinMaxVars', 'fq', [x, g.constant('lo', f32([], [-1])), g.constant('hi', f32([], [1]))], {
          num_bits: attr.i(1),
        }),
      /FakeQuantWithMinMaxVars \(node fq: num_bits must be between 2 and 16, inclusive\)/,
    ));
  it('a complex64 tensor into a WASM kernel that cannot read one (Mul of an RFFT)', () =>
    refused((g, x) => {
      const spectrum = node(g, 'RFFT', 'rfft', [x, g.constant('n', { dtype: 'int32', shape: [1], values: Int32Array.of(4) })], {});
      return node(g, 'ComplexAbs', 'abs', [node(g, 'Mul', 'mul', [spectrum, spectrum], { T: attr.type('DT_COMPLEX64') })], {});
    }, /Mul \(node mul: a complex64 tensor: the wasm backend's Mul kernel cannot read one\)/));
  it('a signature whose output is the complex64 RFFT itself: refused, not served as its float pairs', async () => {
    const g = new SavedModelGraph();
    const x = g.placeholder('x', 'float32', [4]);
    node(g, 'RFFT', 'rfft', [x, g.constant('n', { dtype: 'int32', shape: [1], values: Int32Array.of(4) })], {});
    const dir = path.join(tempDir('tfgate-complex-out-'), '1');
    await writeSavedModel(dir, g, {
      serving_default: { inputs: { x }, outputs: { y: { name: 'rfft:0', dtype: 'DT_COMPLEX64', shape: [3] } } },
    });
    await assert.rejects(
      load(dir),
      isError(
        Code.FAILED_PRECONDITION,
        /signature 'serving_default' output 'y' is DT_COMPLEX64: tfgate's requests and responses carry no complex tensors/,
      ),
    );
  });
  it('BiasAdd over NCHW, whose data_format tfjs-converter ignores', () =>
    refused(
      (g, x) => node(g, 'BiasAdd', 'bias', [x, g.constant('b', f32([2], [1, 2]))], { T: floatT, data_format: attr.s('NCHW') }),
      /BiasAdd \(node bias: data_format NCHW: tfjs-converter ignores the attribute/,
    ));
});

describe('TF.js graph models (model.json) get the same load-time check and ops', () => {
  const b64 = (v: string) => Buffer.from(v).toString('base64');
  const placeholder = (name: string, dims: number[]) => ({
    name,
    op: 'Placeholder',
    attr: { dtype: { type: 'DT_FLOAT' }, shape: { shape: { dim: dims.map((size) => ({ size: String(size) })) } } },
  });
  const writeModelJson = (
    nodes: unknown[],
    weights: Array<{ name: string; shape: number[]; dtype: string }> = [],
    data = new Uint8Array(0),
  ) => {
    const dir = tempDir('tfgate-modeljson-');
    fs.writeFileSync(path.join(dir, 'weights.bin'), data);
    fs.writeFileSync(
      path.join(dir, 'model.json'),
      JSON.stringify({
        format: 'graph-model',
        modelTopology: { node: nodes, versions: { producer: 1 } },
        weightsManifest: [{ paths: ['weights.bin'], weights }],
      }),
    );
    return dir;
  };

  it("an Einsum node (which failed at predict on WASM) runs through tfgate's Einsum", async () => {
    const dir = writeModelJson([
      placeholder('a', [2, 3]),
      placeholder('b', [3, 2]),
      { name: 'y', op: 'Einsum', input: ['a', 'b'], attr: { equation: { s: b64('ij,jk->ik') }, N: { i: '2' }, T: { type: 'DT_FLOAT' } } },
    ]);
    const a = sample(6, 1);
    const b = sample(6, 2);
    const { y } = await run(dir, { a: f32([2, 3], a), b: f32([3, 2], b) });
    assertClose(
      y,
      einsumRef('ij,jk->ik', [
        { shape: [2, 3], values: a },
        { shape: [3, 2], values: b },
      ]).values,
      1e-5,
    );
  });

  it('BatchMatMulV2 with batch dimensions broadcast on both sides equals a plain-JS product (TF.js pairs the wrong batches)', async () => {
    const dir = writeModelJson([
      placeholder('a', [2, 1, 3, 4]),
      placeholder('b', [5, 2, 4]),
      { name: 'y', op: 'BatchMatMulV2', input: ['a', 'b'], attr: { T: { type: 'DT_FLOAT' }, adj_x: { b: false }, adj_y: { b: true } } },
    ]);
    const a = sample(24, 1);
    const b = sample(40, 2);
    const { y } = await run(dir, { a: f32([2, 1, 3, 4], a), b: f32([5, 2, 4], b) });
    // adj_y: b's last two axes swapped, i.e. y[i, j, m, n] = Σ_c a[i, 0, m, c] · b[j, n, c].
    const want = einsumRef('xymc,ync->xymn', [
      { shape: [2, 1, 3, 4], values: a },
      { shape: [5, 2, 4], values: b },
    ]);
    assert.deepEqual(y.shape, want.shape);
    assertClose(y, want.values, 1e-5);
  });

  it('Div on int32 truncates toward zero as TF does (TF.js floors), and dividing by zero is INVALID_ARGUMENT', async () => {
    const int = (name: string) => ({
      name,
      op: 'Placeholder',
      attr: { dtype: { type: 'DT_INT32' }, shape: { shape: { dim: [{ size: '6' }] } } },
    });
    const dir = writeModelJson([int('x'), int('y'), { name: 'q', op: 'Div', input: ['x', 'y'], attr: { T: { type: 'DT_INT32' } } }]);
    const i32s = (v: number[]): HostTensor => ({ dtype: 'int32', shape: [6], values: Int32Array.from(v) });
    const { q } = await run(dir, { x: i32s([7, -7, 7, -7, 6, -1]), y: i32s([2, 2, -2, -2, 3, 5]) });
    assert.deepEqual(Array.from(q.values as Int32Array), [3, -3, -3, 3, 2, 0]);
    const s = await load(dir);
    await assert.rejects(
      s.run('serving_default', { x: i32s([1, 2, 3, 4, 5, 6]), y: i32s([1, 1, 0, 1, 1, 1]) }),
      isError(Code.INVALID_ARGUMENT, /^Integer division by zero$/),
    );
    s.dispose();
  });

  it('a model.json whose output is an RFFT (complex64) is refused, not served as its float pairs', async () => {
    const dir = writeModelJson(
      [
        placeholder('x', [4]),
        {
          name: 'n',
          op: 'Const',
          attr: { dtype: { type: 'DT_INT32' }, value: { tensor: { dtype: 'DT_INT32', tensorShape: { dim: [{ size: '1' }] } } } },
        },
        { name: 'spectrum', op: 'RFFT', input: ['x', 'n'], attr: {} },
      ],
      [{ name: 'n', shape: [1], dtype: 'int32' }],
      new Uint8Array(Int32Array.of(4).buffer),
    );
    await assert.rejects(
      load(dir),
      isError(
        Code.UNIMPLEMENTED,
        /signature 'serving_default' output 'spectrum' is DT_COMPLEX64: tfgate's requests and responses carry no complex tensors/,
      ),
    );
  });

  it('RFFT → ComplexAbs, which the WASM backend had no kernels for, runs on WASM: |[10, −2 + 2i, −2]|', async () => {
    const dir = writeModelJson(
      [
        placeholder('x', [4]),
        {
          name: 'n',
          op: 'Const',
          attr: { dtype: { type: 'DT_INT32' }, value: { tensor: { dtype: 'DT_INT32', tensorShape: { dim: [{ size: '1' }] } } } },
        },
        { name: 'spectrum', op: 'RFFT', input: ['x', 'n'], attr: {} },
        { name: 'y', op: 'ComplexAbs', input: ['spectrum'], attr: {} },
      ],
      [{ name: 'n', shape: [1], dtype: 'int32' }],
      new Uint8Array(Int32Array.of(4).buffer),
    );
    const { y } = await run(dir, { x: f32([4], [1, 2, 3, 4]) });
    assertClose(y, [10, Math.hypot(2, 2), 2], 1e-6);
  });
});
