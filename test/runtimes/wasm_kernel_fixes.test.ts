// tfgate's replacements of tfjs-backend-wasm kernels that give wrong numbers
// (wasm_conv_same_fix.ts, wasm_rank_fix.ts), checked at the TF.js op level on the WASM backend
// against a plain-JS reference and the CPU backend. Importing tfjs_backend.ts registers both
// backends and applies the fixes, as the runtime does.
import { describe, it, before } from 'node:test';
import assert from 'node:assert/strict';
import * as tf from '@tensorflow/tfjs-core';
import '../../src/runtimes/shared/tfjs_backend.js';
import { tfSamePadding, xnnSamePaddingWraps, WASM_SAME_CONV_KERNELS } from '../../src/runtimes/tfjs_patches/wasm_conv_same_fix.js';
import { WASM_XNN_ND_KERNELS } from '../../src/runtimes/tfjs_patches/wasm_rank_fix.js';
import { wasmGatherMisindexes } from '../../src/runtimes/tfjs_patches/wasm_gather_fix.js';
import { conv2dRef, sample } from '../helpers/reference_ops.js';

type Backend = 'wasm' | 'cpu';

/** Runs `f` on `backend` and returns its result as plain numbers and shape. */
async function on(backend: Backend, f: () => tf.Tensor): Promise<{ shape: number[]; values: number[] }> {
  await tf.setBackend(backend);
  const t = f();
  const out = { shape: t.shape, values: Array.from(t.dataSync(), Number) };
  t.dispose();
  return out;
}

function assertClose(got: ArrayLike<number>, want: ArrayLike<number>, what: string, tol = 1e-5): void {
  assert.equal(got.length, want.length, `${what}: length`);
  for (let i = 0; i < want.length; i++) {
    assert.ok(Math.abs(got[i] - want[i]) <= tol * (1 + Math.abs(want[i])), `${what}: element ${i} is ${got[i]}, want ${want[i]}`);
  }
}

describe('WASM SAME-padded convolutions', () => {
  before(async () => {
    await tf.setBackend('wasm');
    await tf.ready();
  });

  it('are replaced for the four kernels that pass the TF-SAME flag to XNNPACK', () => {
    for (const name of WASM_SAME_CONV_KERNELS) assert.ok(tf.getKernel(name, 'wasm'), name);
  });

  it("give the issue's repro exactly: x = 1..16 [1,1,16,1], a [1,3,1,1] filter of ones, SAME, stride 8 → [6, 30], stride 4 → [6, 18, 30, 42]", async () => {
    // TF: out = ceil(16/s); total padding max(0, (out-1)s + 3 - 16) = 0 for s = 4 and 8, so
    // output j sums x[j·s .. j·s+2] = 3·j·s + 6.
    const x = () =>
      tf.tensor4d(
        Array.from({ length: 16 }, (_, i) => i + 1),
        [1, 1, 16, 1],
      );
    const w = () => tf.ones([1, 3, 1, 1]) as tf.Tensor4D;
    const bias = () => tf.tensor1d([0]);
    for (const [s, want] of [
      [8, [6, 30]],
      [4, [6, 18, 30, 42]],
    ] as const) {
      const calls: Array<[string, () => tf.Tensor]> = [
        ['Conv2D', () => tf.conv2d(x(), w(), [1, s], 'same')],
        ['DepthwiseConv2dNative', () => tf.depthwiseConv2d(x(), w(), [1, s], 'same')],
        ['FusedConv2D', () => tf.fused.conv2d({ x: x(), filter: w(), strides: [1, s], pad: 'same', bias: bias(), activation: 'relu' })],
        [
          'FusedDepthwiseConv2D',
          () => tf.fused.depthwiseConv2d({ x: x(), filter: w(), strides: [1, s], pad: 'same', bias: bias(), activation: 'relu' }),
        ],
      ];
      for (const [kernel, call] of calls) {
        const got = await on('wasm', () => tf.tidy(call));
        assert.deepEqual(got.values, [...want], `${kernel} stride ${s}`);
      }
    }
  });

  it("XNNPACK's unclamped total padding is negative exactly when (in - 1) mod stride >= effective kernel", () => {
    for (let inSize = 1; inSize <= 20; inSize++)
      for (let k = 1; k <= 5; k++)
        for (let s = 1; s <= 6; s++)
          for (let d = 1; d <= 3; d++) {
            const eff = (k - 1) * d + 1;
            assert.equal(xnnSamePaddingWraps(inSize, k, s, d), (inSize - 1) % s >= eff, `in ${inSize} k ${k} s ${s} d ${d}`);
            const [before, after] = tfSamePadding(inSize, k, s, d);
            assert.ok(before >= 0 && after >= before && after - before <= 1, 'TF puts the odd pixel after');
          }
  });

  it('match a plain-JS conv and the CPU backend over a sweep of input size, kernel, stride and dilation', async () => {
    let wrapped = 0;
    for (let inSize = 1; inSize <= 11; inSize++)
      for (let k = 1; k <= 4; k++)
        for (const [s, d] of [
          [1, 1],
          [2, 1],
          [3, 1],
          [4, 1],
          [5, 1],
          [1, 2],
          [1, 3],
        ]) {
          if ((k - 1) * d + 1 > inSize + 8) continue;
          if (xnnSamePaddingWraps(inSize, k, s, d)) wrapped++;
          // H and W differ so that each dimension's padding is exercised on its own.
          const xShape = [2, inSize, inSize + 1, 2];
          const xs = sample(
            xShape.reduce((a, b) => a * b),
            inSize * 31 + k,
          );
          for (const depthwise of [false, true]) {
            const wShape = [k, k + 1, 2, depthwise ? 2 : 3];
            const ws = sample(
              wShape.reduce((a, b) => a * b),
              s * 7 + d,
            );
            const strides: [number, number] = [s, s];
            const dilations: [number, number] = [d, d];
            const run = () => {
              const x = tf.tensor4d(xs, xShape as [number, number, number, number]);
              const w = tf.tensor4d(ws, wShape as [number, number, number, number]);
              return depthwise
                ? tf.depthwiseConv2d(x, w, strides, 'same', 'NHWC', dilations)
                : tf.conv2d(x, w, strides, 'same', 'NHWC', dilations);
            };
            const what = `${depthwise ? 'depthwise' : 'conv'} in ${inSize} k ${k} s ${s} d ${d}`;
            const wasm = await on('wasm', () => tf.tidy(run));
            const cpu = await on('cpu', () => tf.tidy(run));
            const [shape, ref] = conv2dRef(xs, xShape, ws, wShape, { strides, dilations, padding: 'SAME', depthwise });
            assert.deepEqual(wasm.shape, shape, what);
            assertClose(wasm.values, ref, `${what} vs plain JS`);
            assertClose(wasm.values, cpu.values, `${what} vs CPU`);
          }
        }
    assert.ok(wrapped > 20, `the sweep includes the cases XNNPACK wraps (${wrapped})`);
  });

  it('1×1 kernels, VALID padding, pools and transposed convs agree with the CPU backend where the wrap condition holds', async () => {
    // Sizes chosen so that (in - 1) mod stride >= window: the condition under which the
    // convolutions above wrapped (10×10, stride 4: 9 mod 4 = 1 >= 1 for the 1×1 kernel).
    const x = (n: number) => tf.tensor4d(sample(n * n * 2, n), [1, n, n, 2]);
    const calls: Array<[string, () => tf.Tensor]> = [
      ['1×1 SAME stride 4', () => tf.conv2d(x(10), tf.tensor4d(sample(6, 4), [1, 1, 2, 3]), 4, 'same')],
      ['3×3 VALID stride 4', () => tf.conv2d(x(10), tf.tensor4d(sample(54, 5), [3, 3, 2, 3]), 4, 'valid')],
      ['MaxPool 1×1 SAME stride 4', () => tf.maxPool(x(10), 1, 4, 'same')],
      ['MaxPool 2×2 SAME stride 4 (15: 14 mod 4 = 2 >= 2)', () => tf.maxPool(x(15), 2, 4, 'same')],
      ['AvgPool 2×2 SAME stride 5 (14: 13 mod 5 = 3 >= 2)', () => tf.avgPool(x(14), 2, 5, 'same')],
      ['MaxPool 2×2 SAME stride 5 (14)', () => tf.maxPool(x(14), 2, 5, 'same')],
      [
        'Conv2DBackpropInput SAME stride 4',
        () =>
          tf.conv2dTranspose(tf.tensor4d(sample(27, 6), [1, 3, 3, 3]), tf.tensor4d(sample(54, 7), [3, 3, 2, 3]), [1, 10, 10, 2], 4, 'same'),
      ],
    ];
    for (const [what, call] of calls) {
      const wasm = await on('wasm', () => tf.tidy(call));
      const cpu = await on('cpu', () => tf.tidy(call));
      assert.deepEqual(wasm.shape, cpu.shape, what);
      assertClose(wasm.values, cpu.values, what);
    }
  });
});

describe('WASM kernels on tensors of rank 7 and 8', () => {
  const S7 = [2, 1, 3, 2, 1, 2, 2];
  const S8 = [1, 2, 1, 3, 2, 1, 2, 2];
  const t = (shape: number[], seed: number) =>
    tf.tensor(
      sample(
        shape.reduce((a, b) => a * b, 1),
        seed,
      ),
      shape,
    );
  const ti = (shape: number[]) =>
    tf.tensor(
      Array.from({ length: shape.reduce((a, b) => a * b, 1) }, (_, i) => ((i * 7) % 11) - 5),
      shape,
      'int32',
    );
  // Every op here was compared on both backends; the first block went wrong before the fix
  // (uninitialized memory such as 3.57e-41), the rest were already right and must stay so.
  const cases: Record<string, () => tf.Tensor> = {
    add: () => tf.add(t(S7, 1), t(S7, 2)),
    addBroadcast: () => tf.add(t(S7, 1), t([3, 1, 1, 2, 1], 2)),
    addScalar: () => tf.add(t(S7, 1), 2),
    addAlternatingBroadcast: () => tf.add(t([2, 1, 2, 1, 2, 1, 2], 1), t([1, 2, 1, 2, 1, 2, 1], 2)),
    add8: () => tf.add(t(S8, 1), t(S8, 2)),
    sub: () => tf.sub(t(S7, 1), t(S7, 2)),
    mul: () => tf.mul(t(S7, 1), t(S7, 2)),
    mul8Broadcast: () => tf.mul(t(S8, 1), t([2, 2], 2)),
    div: () => tf.div(t(S7, 1), t(S7, 2)),
    squaredDifference: () => tf.squaredDifference(t(S7, 1), t(S7, 2)),
    pad: () =>
      tf.pad(
        t(S7, 1),
        [
          [0, 1],
          [1, 0],
          [0, 0],
          [0, 0],
          [1, 1],
          [0, 0],
          [0, 1],
        ],
        0.5,
      ),
    logSoftmax: () => tf.logSoftmax(t(S7, 1)),
    fill: () => tf.add(tf.fill(S7, 2), 0),
    // already right
    maximum: () => tf.maximum(t(S7, 1), t(S7, 2)),
    minimum: () => tf.minimum(t(S7, 1), t(S7, 2)),
    pow: () => tf.pow(t(S7, 1), tf.scalar(2)),
    addInt: () => tf.add(ti(S7), ti(S7)),
    padInt: () =>
      tf.pad(ti(S7), [
        [0, 1],
        [1, 0],
        [0, 0],
        [0, 0],
        [1, 1],
        [0, 0],
        [0, 1],
      ]),
    greater: () => tf.greater(t(S7, 1), t(S7, 2)),
    where: () => tf.where(tf.greater(t(S7, 1), 0), t(S7, 1), t(S7, 2)),
    relu: () => tf.relu(t(S7, 1)),
    sigmoid: () => tf.sigmoid(t(S7, 1)),
    tanh: () => tf.tanh(t(S7, 1)),
    exp: () => tf.exp(t(S7, 1)),
    softmax: () => tf.softmax(t(S7, 1)),
    clip: () => tf.clipByValue(t(S7, 1), -1, 1),
    sum: () => tf.sum(t(S7, 1), [1, 3]),
    mean: () => tf.mean(t(S7, 1), 6),
    max: () => tf.max(t(S7, 1), [0, 5]),
    prod: () => tf.prod(t(S7, 1), 3),
    argMax: () => tf.argMax(t(S7, 1), 2),
    transpose: () => tf.transpose(t(S7, 1), [6, 0, 5, 1, 4, 2, 3]),
    slice: () => tf.slice(t(S7, 1), [1, 0, 1, 0, 0, 1, 0], [1, 1, 2, 2, 1, 1, 2]),
    stridedSlice: () => tf.stridedSlice(t(S7, 1), [0, 0, 0, 0, 0, 0, 0], [2, 1, 3, 2, 1, 2, 2], [1, 1, 2, 1, 1, 1, -1]),
    concat: () => tf.concat([t(S7, 1), t(S7, 2)], 3),
    tile: () => tf.tile(t(S7, 1), [1, 2, 1, 1, 2, 1, 1]),
    reverse: () => tf.reverse(t(S7, 1), [2, 6]),
    gather: () => tf.gather(t(S7, 1), tf.tensor1d([2, 0], 'int32'), 2),
    cumsum: () => tf.cumsum(t(S7, 1), 2),
    broadcastTo: () => tf.broadcastTo(t([3, 1, 1, 2, 1], 1), S7),
    addN: () => tf.addN([t(S7, 1), t(S7, 2), t(S7, 3)]),
    batchMatMul: () => tf.matMul(t([2, 1, 3, 2, 1, 2, 3], 1), t([2, 1, 3, 2, 1, 3, 2], 2)),
    mirrorPad: () =>
      tf.mirrorPad(
        t(S7, 1),
        [
          [0, 1],
          [0, 0],
          [1, 1],
          [0, 0],
          [0, 0],
          [0, 0],
          [0, 1],
        ],
        'reflect',
      ),
    prelu: () => tf.prelu(t(S7, 1), tf.scalar(0.2)),
    leakyRelu: () => tf.leakyRelu(t(S7, 1), 0.2),
    relu6: () => tf.relu6(t(S7, 1)),
    elu: () => tf.elu(t(S7, 1)),
    selu: () => tf.selu(t(S7, 1)),
    abs: () => tf.abs(t(S7, 1)),
    neg: () => tf.neg(t(S7, 1)),
    square: () => tf.square(t(S7, 1)),
    sqrt: () => tf.sqrt(tf.abs(t(S7, 1))),
    rsqrt: () => tf.rsqrt(tf.abs(t(S7, 1))),
    round: () => tf.round(t(S7, 1)),
    floor: () => tf.floor(t(S7, 1)),
    ceil: () => tf.ceil(t(S7, 1)),
    softplus: () => tf.softplus(t(S7, 1)),
    log1p: () => tf.log1p(tf.abs(t(S7, 1))),
    sign: () => tf.sign(t(S7, 1)),
    cast: () => tf.cast(t(S7, 1), 'int32'),
    atan2: () => tf.atan2(t(S7, 1), t(S7, 2)),
    floorDiv: () => tf.floorDiv(t(S7, 1), tf.scalar(0.7)),
    mod: () => tf.mod(t(S7, 1), 0.7),
    equal: () => tf.equal(tf.round(t(S7, 1)), tf.round(t(S7, 2))),
    logicalAnd: () => tf.logicalAnd(tf.greater(t(S7, 1), 0), tf.less(t(S7, 2), 0)),
    min: () => tf.min(t(S7, 1), 2),
    any: () => tf.any(tf.greater(t(S7, 1), 0), 2),
    stack: () => tf.stack([t([2, 1, 3, 2, 1, 2], 1), t([2, 1, 3, 2, 1, 2], 2)]),
    unstack: () => tf.unstack(t(S8, 1), 3)[1],
    split: () => tf.split(t(S7, 1), 3, 2)[1],
    expandDims: () => tf.expandDims(t([2, 1, 3, 2, 1, 2], 1), 3),
    squeeze: () => tf.squeeze(t([1, ...S7], 1), [0]),
    oneHot: () => tf.oneHot(tf.tensor([1, 0, 2, 1, 0, 2], [1, 1, 1, 1, 2, 3], 'int32'), 3),
    zerosLike: () => tf.zerosLike(t(S7, 1)),
  };

  before(async () => {
    await tf.setBackend('wasm');
    await tf.ready();
  });

  it(`${WASM_XNN_ND_KERNELS.join(', ')} are replaced; every op listed agrees with the CPU backend`, async () => {
    for (const [name, f] of Object.entries(cases)) {
      const wasm = await on('wasm', () => tf.tidy(f));
      const cpu = await on('cpu', () => tf.tidy(f));
      assert.deepEqual(wasm.shape, cpu.shape, name);
      assertClose(wasm.values, cpu.values, name);
    }
  });

  it('a rank-7 Add: exact values, and no tensor or buffer left behind on either backend', async () => {
    await tf.setBackend('wasm');
    const wasm = tf.backend();
    const cpu = tf.findBackend('cpu')!;
    const before = [tf.memory().numTensors, wasm.numDataIds(), cpu.numDataIds()];
    const a = tf.tensor(
      Array.from({ length: 128 }, (_, i) => i),
      [2, 2, 2, 2, 2, 2, 2],
    );
    const y = tf.tidy(() => tf.add(a, tf.scalar(1)));
    assert.deepEqual(
      Array.from(y.dataSync()),
      Array.from({ length: 128 }, (_, i) => i + 1),
    );
    tf.dispose([a, y]);
    assert.deepEqual([tf.memory().numTensors, wasm.numDataIds(), cpu.numDataIds()], before);
  });
});

describe('WASM GatherV2 with batch_dims', () => {
  before(async () => {
    await tf.setBackend('wasm');
    await tf.ready();
  });

  it('x [4, 8], per-row indices, axis 1, batch_dims 1: each row gathers its own indices', async () => {
    const x = Array.from({ length: 32 }, (_, i) => i);
    const idx = [
      [7, 0],
      [1, 1],
      [6, 2],
      [0, 5],
    ].flatMap(([a, b]) => [a, b, a, b, a, b, a, b]);
    const got = await on('wasm', () => tf.tidy(() => tf.gather(tf.tensor2d(x, [4, 8]), tf.tensor2d(idx, [4, 8], 'int32'), 1, 1)));
    // Row r of the result holds x[r][idx[r][j]] = 8r + idx[r][j].
    assert.deepEqual(
      got.values,
      idx.map((v, k) => 8 * Math.floor(k / 8) + v),
    );
  });

  it('agrees with the CPU backend over batch sizes, indices per batch, axes and batch_dims 1 and 2', async () => {
    let misindexed = 0;
    for (const [xShape, iShape, axis, batchDims] of [
      [[4, 8], [4, 8], 1, 1],
      [[3, 5, 2], [3, 4], 1, 1],
      [[3, 5, 2], [3, 4, 2], 1, 1],
      [[2, 3, 4], [2, 6], 2, 1], // an outer dimension between batch and axis
      [[2, 3, 5, 2], [2, 3, 4], 2, 2],
      [[2, 2, 5], [2, 2], 2, 1], // n = batchSize: right before the fix too
      [[1, 5, 3], [1, 7], 1, 1],
    ] as Array<[number[], number[], number, number]>) {
      if (wasmGatherMisindexes(xShape, iShape, batchDims)) misindexed++;
      const xs = sample(
        xShape.reduce((a, b) => a * b, 1),
        9,
      );
      const is = Array.from({ length: iShape.reduce((a, b) => a * b, 1) }, (_, i) => (i * 7 + 3) % xShape[axis]);
      const run = () => tf.gather(tf.tensor(xs, xShape), tf.tensor(is, iShape, 'int32'), axis, batchDims);
      const what = `x [${xShape}] indices [${iShape}] axis ${axis} batch_dims ${batchDims}`;
      const wasm = await on('wasm', () => tf.tidy(run));
      const cpu = await on('cpu', () => tf.tidy(run));
      assert.deepEqual(wasm.shape, cpu.shape, what);
      assert.deepEqual(wasm.values, cpu.values, what);
    }
    assert.equal(misindexed, 5, 'five of the cases are ones the WASM kernel got wrong');
  });
});

describe('WASM Tile and GatherNd on string tensors', () => {
  const strings = (t: tf.Tensor) => Array.from(t.dataSync() as unknown as string[]);

  it("give the CPU backend's strings instead of aborting the WASM module", async () => {
    await tf.setBackend('wasm');
    const s = tf.tensor(
      [
        ['a', 'b'],
        ['c', 'd'],
      ],
      [2, 2],
      'string',
    );
    const tiled = tf.tile(s, [2, 2]);
    assert.deepEqual(tiled.shape, [4, 4]);
    assert.deepEqual(strings(tiled), ['a', 'b', 'a', 'b', 'c', 'd', 'c', 'd', 'a', 'b', 'a', 'b', 'c', 'd', 'c', 'd']);
    const gathered = tf.gatherND(
      s,
      tf.tensor2d(
        [
          [0, 1],
          [1, 0],
        ],
        [2, 2],
        'int32',
      ),
    );
    assert.deepEqual(strings(gathered), ['b', 'c']);
    // Numeric tensors keep the WASM kernel, and agree with the CPU backend.
    const numeric = await on('wasm', () => tf.tile(tf.tensor2d([1, 2, 3, 4], [2, 2]), [1, 2]));
    assert.deepEqual(numeric, await on('cpu', () => tf.tile(tf.tensor2d([1, 2, 3, 4], [2, 2]), [1, 2])));
    tf.dispose([s, tiled, gathered]);
    await tf.setBackend('wasm');
  });
});

describe('complex64 tensors on WASM', () => {
  it('are made by tf.complex, read as interleaved (re, im) pairs, cloned and reshaped, and freed, as on the CPU backend', async () => {
    const pairs = async (backend: Backend) => {
      await tf.setBackend(backend);
      const before = tf.memory().numTensors;
      const re = tf.tensor1d([1, -2, 3.5]);
      const im = tf.tensor1d([0.5, 4, -6]);
      const z = tf.complex(re, im);
      const cloned = tf.clone(z);
      const reshaped = tf.reshape(cloned, [3, 1]);
      const out = { dtype: reshaped.dtype, shape: reshaped.shape, values: Array.from(reshaped.dataSync()) };
      tf.dispose([re, im, z, cloned, reshaped]);
      assert.equal(tf.memory().numTensors, before, `${backend}: tensors left`);
      return out;
    };
    const wasm = await pairs('wasm');
    assert.deepEqual(wasm, { dtype: 'complex64', shape: [3, 1], values: [1, 0.5, -2, 4, 3.5, -6] });
    assert.deepEqual(wasm, await pairs('cpu'));
    await tf.setBackend('wasm');
  });
});
