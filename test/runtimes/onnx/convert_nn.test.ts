// Convolution, pooling, bias and batch-norm converters against TF.js's CPU backend, over the
// awkward attributes: SAME/VALID with strides and dilations (including the sizes where TF's
// total SAME padding would be negative and is clamped to 0), NCHW, EXPLICIT pads, grouped and
// depthwise convs, Conv2DBackpropInput's output sizes.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { GraphCase, a, assertSameOnBoth, f32, randomF32, runOnnx, values } from './graph_case.js';
import { OnnxConversionRefused } from '../../../src/runtimes/onnx/tf_to_onnx.js';

interface ConvCase {
  input: [number, number, number, number];
  filter: [number, number, number, number];
  strides: [number, number];
  dilations?: [number, number];
  padding: 'SAME' | 'VALID';
}

function convGraph(op: 'Conv2D' | 'DepthwiseConv2dNative', c: ConvCase): GraphCase {
  const g = new GraphCase();
  const x = g.placeholder('x', 'float32', [-1, c.input[1], c.input[2], c.input[3]]);
  const w = g.const('w', randomF32(c.filter, 7, 0.5));
  const [dh, dw] = c.dilations ?? [1, 1];
  g.op(op, 'conv', [x, w], {
    T: a.type('float32'),
    strides: a.ints([1, c.strides[0], c.strides[1], 1]),
    dilations: a.ints([1, dh, dw, 1]),
    padding: a.s(c.padding),
    data_format: a.s('NHWC'),
  });
  return g;
}

describe('ONNX converter: convolutions and pools (vs TF.js CPU)', () => {
  const CASES: ConvCase[] = [
    { input: [2, 9, 7, 3], filter: [3, 3, 3, 4], strides: [1, 1], padding: 'SAME' },
    { input: [2, 9, 7, 3], filter: [3, 2, 3, 4], strides: [2, 3], padding: 'SAME' },
    { input: [1, 1, 16, 1], filter: [1, 3, 1, 1], strides: [1, 8], padding: 'SAME' }, // total SAME padding < 0: clamped
    { input: [1, 1, 16, 1], filter: [1, 3, 1, 1], strides: [1, 4], padding: 'SAME' },
    { input: [1, 10, 10, 2], filter: [3, 3, 2, 2], strides: [1, 1], dilations: [2, 2], padding: 'SAME' },
    { input: [2, 9, 8, 3], filter: [3, 3, 3, 5], strides: [2, 2], padding: 'VALID' },
    { input: [1, 11, 11, 2], filter: [5, 5, 2, 3], strides: [3, 2], padding: 'VALID' },
  ];
  for (const c of CASES) {
    it(`Conv2D ${c.padding} input ${c.input} filter ${c.filter} strides ${c.strides} dilations ${c.dilations ?? [1, 1]}`, async () => {
      await assertSameOnBoth(convGraph('Conv2D', c), { x: randomF32(c.input, 1) }, ['conv:0'], 1e-4);
    });
  }

  it('Conv2D: the negative-SAME-padding case gives TF documented sums (x = 1..16, ones filter, stride 8 → [6, 30])', async () => {
    const ones = new GraphCase();
    const x = ones.placeholder('x', 'float32', [1, 1, 16, 1]);
    const w = ones.const('w', f32([1, 3, 1, 1], [1, 1, 1]));
    ones.op('Conv2D', 'conv', [x, w], {
      T: a.type('float32'),
      strides: a.ints([1, 1, 8, 1]),
      padding: a.s('SAME'),
      data_format: a.s('NHWC'),
      dilations: a.ints([1, 1, 1, 1]),
    });
    const [y] = await runOnnx(
      ones,
      {
        x: f32(
          [1, 1, 16, 1],
          Array.from({ length: 16 }, (_, i) => i + 1),
        ),
      },
      ['conv:0'],
    );
    assert.deepEqual(values(y), [6, 30]);
  });

  it('Conv2D with EXPLICIT padding and NCHW', async () => {
    const g = new GraphCase();
    const x = g.placeholder('x', 'float32', [1, 6, 6, 2]);
    const w = g.const('w', randomF32([3, 3, 2, 3], 3, 0.5));
    g.op('Conv2D', 'conv', [x, w], {
      T: a.type('float32'),
      strides: a.ints([1, 2, 1, 1]),
      padding: a.s('EXPLICIT'),
      explicit_paddings: a.ints([0, 0, 1, 2, 0, 1, 0, 0]),
      data_format: a.s('NHWC'),
      dilations: a.ints([1, 1, 1, 1]),
    });
    await assertSameOnBoth(g, { x: randomF32([1, 6, 6, 2], 4) }, ['conv:0'], 1e-4);
    // NCHW: the same conv on the transposed input gives the transposed output.
    const n = new GraphCase();
    const xn = n.placeholder('x', 'float32', [1, 2, 6, 6]);
    const wn = n.const('w', randomF32([3, 3, 2, 3], 3, 0.5));
    n.op('Conv2D', 'conv', [xn, wn], {
      T: a.type('float32'),
      strides: a.ints([1, 1, 2, 1]),
      padding: a.s('SAME'),
      data_format: a.s('NCHW'),
      dilations: a.ints([1, 1, 1, 1]),
    });
    const nhwc = new GraphCase();
    const x2 = nhwc.placeholder('x', 'float32', [1, 2, 6, 6]);
    const perm = nhwc.const('perm', { dtype: 'int32', shape: [4], values: Int32Array.from([0, 2, 3, 1]) });
    const t = nhwc.op('Transpose', 't', [x2, perm], { T: a.type('float32') });
    const w2 = nhwc.const('w', randomF32([3, 3, 2, 3], 3, 0.5));
    const c = nhwc.op('Conv2D', 'conv', [t, w2], {
      T: a.type('float32'),
      strides: a.ints([1, 2, 1, 1]),
      padding: a.s('SAME'),
      data_format: a.s('NHWC'),
      dilations: a.ints([1, 1, 1, 1]),
    });
    const back = nhwc.const('back', { dtype: 'int32', shape: [4], values: Int32Array.from([0, 3, 1, 2]) });
    nhwc.op('Transpose', 'out', [c, back], { T: a.type('float32') });
    const input = randomF32([1, 2, 6, 6], 5);
    const [got] = await runOnnx(n, { x: input }, ['conv:0']);
    const [want] = await runOnnx(nhwc, { x: input }, ['out:0']);
    assert.deepEqual(got.shape, want.shape);
    values(got).forEach((v, i) => assert.ok(Math.abs(v - values(want)[i]) < 1e-5));
  });

  it("Conv2D with groups (input channels a multiple of the filter's) equals per-group convs", async () => {
    const g = new GraphCase();
    const x = g.placeholder('x', 'float32', [1, 5, 5, 4]);
    const filter = randomF32([3, 3, 2, 6], 9, 0.5);
    const w = g.const('w', filter);
    g.op('Conv2D', 'conv', [x, w], {
      T: a.type('float32'),
      strides: a.ints([1, 1, 1, 1]),
      padding: a.s('SAME'),
      data_format: a.s('NHWC'),
      dilations: a.ints([1, 1, 1, 1]),
    });
    const input = randomF32([1, 5, 5, 4], 2);
    const [y] = await runOnnx(g, { x: input }, ['conv:0']);
    assert.deepEqual(y.shape, [1, 5, 5, 6]);
    // Group k: input channels 2k..2k+1 with filter outputs 3k..3k+2, via plain convs.
    const wv = values(filter);
    for (let k = 0; k < 2; k++) {
      const part = new GraphCase();
      const xp = part.placeholder('x', 'float32', [1, 5, 5, 4]);
      const begin = part.const('b', { dtype: 'int32', shape: [4], values: Int32Array.from([0, 0, 0, 2 * k]) });
      const size = part.const('s', { dtype: 'int32', shape: [4], values: Int32Array.from([-1, -1, -1, 2]) });
      const sl = part.op('Slice', 'slice', [xp, begin, size], { T: a.type('float32'), Index: a.type('int32') });
      const wk = new Float32Array(3 * 3 * 2 * 3);
      for (let i = 0; i < 3 * 3 * 2; i++) for (let o = 0; o < 3; o++) wk[i * 3 + o] = wv[i * 6 + 3 * k + o];
      const wp = part.const('w', f32([3, 3, 2, 3], wk));
      part.op('Conv2D', 'conv', [sl, wp], {
        T: a.type('float32'),
        strides: a.ints([1, 1, 1, 1]),
        padding: a.s('SAME'),
        data_format: a.s('NHWC'),
        dilations: a.ints([1, 1, 1, 1]),
      });
      const [yk] = await assertSameOnBoth(part, { x: input }, ['conv:0'], 1e-4);
      const full = values(y);
      const pv = values(yk);
      for (let p = 0; p < 25; p++)
        for (let o = 0; o < 3; o++) assert.ok(Math.abs(full[p * 6 + 3 * k + o] - pv[p * 3 + o]) < 1e-5, `group ${k} pixel ${p} out ${o}`);
    }
  });

  for (const c of [
    { input: [2, 8, 8, 3], filter: [3, 3, 3, 2], strides: [1, 1], padding: 'SAME' },
    { input: [1, 9, 9, 4], filter: [3, 3, 4, 1], strides: [2, 2], padding: 'SAME' },
    { input: [1, 1, 16, 2], filter: [1, 3, 2, 1], strides: [1, 8], padding: 'SAME' },
    { input: [1, 9, 7, 2], filter: [2, 3, 2, 3], strides: [2, 1], padding: 'VALID' },
  ] as ConvCase[]) {
    it(`DepthwiseConv2dNative ${c.padding} input ${c.input} filter ${c.filter} strides ${c.strides}`, async () => {
      await assertSameOnBoth(convGraph('DepthwiseConv2dNative', c), { x: randomF32(c.input, 3) }, ['conv:0'], 1e-4);
    });
  }

  for (const [padding, sizes, strides] of [
    ['SAME', [1, 8, 8, 2], [2, 2]],
    ['VALID', [1, 9, 9, 2], [2, 2]],
    ['SAME', [1, 7, 7, 2], [2, 2]],
    ['SAME', [2, 6, 9, 2], [1, 3]],
  ] as Array<['SAME' | 'VALID', number[], [number, number]]>) {
    it(`Conv2DBackpropInput ${padding} to ${sizes} strides ${strides}`, async () => {
      const g = new GraphCase();
      const outH = padding === 'SAME' ? Math.ceil(sizes[1] / strides[0]) : Math.ceil((sizes[1] - 3 + 1) / strides[0]);
      const outW = padding === 'SAME' ? Math.ceil(sizes[2] / strides[1]) : Math.ceil((sizes[2] - 3 + 1) / strides[1]);
      const dy = g.placeholder('dy', 'float32', [sizes[0], outH, outW, 4]);
      const s = g.const('sizes', { dtype: 'int32', shape: [4], values: Int32Array.from(sizes) });
      const w = g.const('w', randomF32([3, 3, 2, 4], 11, 0.5));
      g.op('Conv2DBackpropInput', 'deconv', [s, w, dy], {
        T: a.type('float32'),
        strides: a.ints([1, strides[0], strides[1], 1]),
        padding: a.s(padding),
        data_format: a.s('NHWC'),
        dilations: a.ints([1, 1, 1, 1]),
      });
      await assertSameOnBoth(g, { dy: randomF32([sizes[0], outH, outW, 4], 12) }, ['deconv:0'], 1e-4);
    });
  }

  for (const op of ['MaxPool', 'AvgPool']) {
    for (const [padding, ksize, strides, input] of [
      ['SAME', [3, 3], [2, 2], [2, 7, 9, 3]],
      ['VALID', [2, 2], [2, 2], [1, 8, 8, 2]],
      ['SAME', [2, 3], [1, 1], [1, 5, 6, 2]],
      ['SAME', [3, 3], [3, 3], [1, 10, 10, 1]],
    ] as Array<[string, number[], number[], number[]]>) {
      it(`${op} ${padding} ksize ${ksize} strides ${strides} on ${input} (SAME averages over valid elements only)`, async () => {
        const g = new GraphCase();
        const x = g.placeholder('x', 'float32', [-1, input[1], input[2], input[3]]);
        g.op(op, 'pool', [x], {
          T: a.type('float32'),
          ksize: a.ints([1, ...ksize, 1]),
          strides: a.ints([1, ...strides, 1]),
          padding: a.s(padding),
          data_format: a.s('NHWC'),
        });
        await assertSameOnBoth(g, { x: randomF32(input, 21) }, ['pool:0'], 1e-5);
      });
    }
  }

  it('BiasAdd NHWC and NCHW, FusedBatchNormV3 (inference) NHWC with constant and computed statistics', async () => {
    const g = new GraphCase();
    const x = g.placeholder('x', 'float32', [-1, 4, 4, 3]);
    const bias = g.const('bias', f32([3], [0.5, -1, 2]));
    const b = g.op('BiasAdd', 'bias_add', [x, bias], { T: a.type('float32'), data_format: a.s('NHWC') });
    const [scale, offset, mean, variance] = ['scale', 'offset', 'mean', 'variance'].map((n, k) =>
      g.const(n, f32([3], k === 3 ? [0.5, 2, 1.5] : seeded3(k))),
    );
    g.op('FusedBatchNormV3', 'bn', [b, scale, offset, mean, variance], {
      T: a.type('float32'),
      U: a.type('float32'),
      epsilon: a.f(0.001),
      is_training: a.b(false),
      data_format: a.s('NHWC'),
    });
    await assertSameOnBoth(g, { x: randomF32([2, 4, 4, 3], 8) }, ['bias_add:0', 'bn:0'], 1e-5);

    const n = new GraphCase();
    const xn = n.placeholder('x', 'float32', [2, 3, 2, 2]);
    const bn = n.const('bias', f32([3], [0.5, -1, 2]));
    n.op('BiasAdd', 'bias_add', [xn, bn], { T: a.type('float32'), data_format: a.s('NCHW') });
    const input = randomF32([2, 3, 2, 2], 9);
    const [y] = await runOnnx(n, { x: input }, ['bias_add:0']);
    values(y).forEach((v, i) => assert.ok(Math.abs(v - (values(input)[i] + [0.5, -1, 2][Math.floor(i / 4) % 3])) < 1e-6));
  });

  it('FusedBatchNormV3 in training mode is refused, naming the op and node', async () => {
    const g = new GraphCase();
    const x = g.placeholder('x', 'float32', [-1, 4, 4, 3]);
    const v = g.const('v', f32([3], [1, 1, 1]));
    g.op('FusedBatchNormV3', 'bn_train', [x, v, v, v, v], {
      T: a.type('float32'),
      U: a.type('float32'),
      epsilon: a.f(0.001),
      is_training: a.b(true),
      data_format: a.s('NHWC'),
    });
    await assert.rejects(
      runOnnx(g, { x: randomF32([1, 4, 4, 3], 1) }, ['bn_train:0']),
      (e: unknown) =>
        e instanceof OnnxConversionRefused && /FusedBatchNormV3 \(node bn_train: FusedBatchNormV3 with is_training=true/.test(e.message),
    );
  });

  it('SAME padding with stride > 1 on a spatial size known only at run time is refused, not guessed', async () => {
    const g = new GraphCase();
    const x = g.placeholder('x', 'float32', [-1, -1, -1, 2]);
    const w = g.const('w', randomF32([3, 3, 2, 2], 1));
    g.op('Conv2D', 'strided', [x, w], {
      T: a.type('float32'),
      strides: a.ints([1, 2, 2, 1]),
      padding: a.s('SAME'),
      data_format: a.s('NHWC'),
      dilations: a.ints([1, 1, 1, 1]),
    });
    await assert.rejects(
      runOnnx(g, { x: randomF32([1, 5, 5, 2], 1) }, ['strided:0']),
      (e: unknown) =>
        e instanceof OnnxConversionRefused &&
        /Conv2D \(node strided: SAME padding with stride 2 on a spatial size known only at run time/.test(e.message),
    );
  });
});

function seeded3(k: number): number[] {
  return [0.3 + k, -0.7 * k, 1.1 - k];
}
