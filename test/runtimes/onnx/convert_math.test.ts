// Element-wise, reduction, matrix-product and resize converters against TF.js's CPU backend:
// integer floor division and modulo with negative operands, casts, reductions with keep_dims
// and negative/empty axes, ArgMax's int32 output, MatMul/BatchMatMul transposes, Einsum, and
// each resize mode TF has. Ops with values TF states (integer Div, FloorDiv/FloorMod, TF1
// Select's row condition, Softsign) are op cases (ops/cases/), run on every engine.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { GraphCase, a, assertSameOnBoth, f32, i32, randomF32, runOnnx, values } from './graph_case.js';
import type { DType } from '../../../src/tensor/dtype.js';

function binaryGraph(op: string, dtype: DType, shapes: [number[], number[]]): GraphCase {
  const g = new GraphCase();
  const x = g.placeholder('x', dtype, shapes[0]);
  const y = g.placeholder('y', dtype, shapes[1]);
  g.op(op, 'out', [x, y], { T: a.type(dtype) });
  return g;
}

describe('ONNX converter: element-wise ops (vs TF.js CPU)', () => {
  const FLOAT_BINARY = [
    'AddV2',
    'Sub',
    'Mul',
    'RealDiv',
    'Maximum',
    'Minimum',
    'SquaredDifference',
    'FloorDiv',
    'FloorMod',
    'Pow',
    'DivNoNan',
  ];
  for (const op of FLOAT_BINARY) {
    it(`${op} on float32 with broadcasting`, async () => {
      const g = binaryGraph(op, 'float32', [[2, 3], [3]]);
      const x = op === 'Pow' ? f32([2, 3], [1.5, 2, 0.5, 3, 1, 0.25]) : f32([2, 3], [7.5, -7.5, 3, -3, 0, 5.25]);
      const y = op === 'DivNoNan' ? f32([3], [2, 0, -1.5]) : f32([3], [2, 2.5, -1.5]);
      await assertSameOnBoth(g, { x, y }, ['out:0'], 1e-6);
    });
  }

  for (const op of ['FloorDiv', 'FloorMod', 'AddV2', 'Mul', 'Maximum']) {
    it(`${op} on int32 with negative operands`, async () => {
      const g = binaryGraph(op, 'int32', [[6], [6]]);
      await assertSameOnBoth(g, { x: i32([6], [7, -7, 7, -7, 0, 9]), y: i32([6], [2, 2, -2, -2, 3, 4]) }, ['out:0'], 0);
    });
  }

  it('comparisons and logic (Equal, NotEqual, Less, GreaterEqual, LogicalAnd/Or/Not), SelectV2', async () => {
    const g = new GraphCase();
    const x = g.placeholder('x', 'float32', [3, 2]);
    const y = g.placeholder('y', 'float32', [3, 2]);
    const eq = g.op('Equal', 'eq', [x, y], { T: a.type('float32') });
    const ne = g.op('NotEqual', 'ne', [x, y], { T: a.type('float32') });
    const lt = g.op('Less', 'lt', [x, y], { T: a.type('float32') });
    g.op('GreaterEqual', 'ge', [x, y], { T: a.type('float32') });
    g.op('LogicalAnd', 'and', [ne, lt]);
    g.op('LogicalOr', 'or', [eq, lt]);
    g.op('LogicalNot', 'not', [lt]);
    g.op('SelectV2', 'sel2', [lt, x, g.const('zero', f32([], [0]))], { T: a.type('float32') });
    const feeds = { x: f32([3, 2], [1, 2, 3, 4, 5, 6]), y: f32([3, 2], [1, 3, 2, 4, 6, 5]) };
    await assertSameOnBoth(g, feeds, ['eq:0', 'ne:0', 'lt:0', 'ge:0', 'and:0', 'or:0', 'not:0', 'sel2:0'], 0);
  });

  const UNARY = [
    'Relu',
    'Relu6',
    'Elu',
    'Selu',
    'Sigmoid',
    'Tanh',
    'Softplus',
    'Exp',
    'Neg',
    'Abs',
    'Sign',
    'Floor',
    'Ceil',
    'Round',
    'Square',
    'Erf',
    'Sin',
    'Cos',
    'Softmax',
    'LogSoftmax',
  ];
  for (const op of UNARY) {
    it(`${op}`, async () => {
      const g = new GraphCase();
      const x = g.placeholder('x', 'float32', [2, 6]);
      g.op(op, 'out', [x], { T: a.type('float32') });
      // Halves test Round's ties to even.
      await assertSameOnBoth(g, { x: f32([2, 6], [-7.5, -2.5, -0.5, 0, 0.5, 1.5, 2.5, 3.2, -1.3, 6.5, 0.01, -0.7]) }, ['out:0'], 2e-6);
    });
  }

  for (const op of ['Sqrt', 'Rsqrt', 'Log', 'Reciprocal']) {
    it(`${op} on positive values`, async () => {
      const g = new GraphCase();
      const x = g.placeholder('x', 'float32', [5]);
      g.op(op, 'out', [x], { T: a.type('float32') });
      await assertSameOnBoth(g, { x: f32([5], [0.25, 1, 2, 9, 100]) }, ['out:0'], 1e-6);
    });
  }

  it('LeakyRelu (alpha), ClipByValue, AddN, Cast float → int32 truncates toward zero, int → bool', async () => {
    const g = new GraphCase();
    const x = g.placeholder('x', 'float32', [6]);
    g.op('LeakyRelu', 'lr', [x], { T: a.type('float32'), alpha: a.f(0.3) });
    g.op('ClipByValue', 'clip', [x, g.const('lo', f32([], [-1])), g.const('hi', f32([], [2]))], { T: a.type('float32') });
    g.op('AddN', 'addn', [x, x, x], { T: a.type('float32'), N: a.i(3) });
    const ci = g.op('Cast', 'ci', [x], { SrcT: a.type('float32'), DstT: a.type('int32'), Truncate: a.b(false) });
    g.op('Cast', 'cb', [ci], { SrcT: a.type('int32'), DstT: a.type('bool'), Truncate: a.b(false) });
    await assertSameOnBoth(g, { x: f32([6], [-2.7, -0.5, 0, 0.9, 1.5, 3.99]) }, ['lr:0', 'clip:0', 'addn:0', 'ci:0', 'cb:0'], 1e-6);
  });
});

describe('ONNX converter: reductions, matrix products, resize (vs TF.js CPU)', () => {
  for (const op of ['Sum', 'Mean', 'Max', 'Min', 'Prod']) {
    for (const [axes, keep] of [
      [[1], false],
      [[-1, 0], true],
      [[], false],
    ] as Array<[number[], boolean]>) {
      it(`${op} over [${axes}] keep_dims ${keep}`, async () => {
        const g = new GraphCase();
        const x = g.placeholder('x', 'float32', [3, 4, 2]);
        g.op(op, 'r', [x, g.const('axes', i32([axes.length], axes))], {
          T: a.type('float32'),
          Tidx: a.type('int32'),
          keep_dims: a.b(keep),
        });
        await assertSameOnBoth(g, { x: randomF32([3, 4, 2], 4, 1.5) }, ['r:0'], 1e-5);
      });
    }
  }

  it('All, Any; ArgMax with int32 output and ties (first index), ArgMin', async () => {
    const g = new GraphCase();
    const x = g.placeholder('x', 'float32', [2, 4]);
    const pos = g.op('Greater', 'pos', [x, g.const('zero', f32([], [0]))], { T: a.type('float32') });
    g.op('All', 'all', [pos, g.const('ax', i32([], [1]))], { Tidx: a.type('int32'), keep_dims: a.b(false) });
    g.op('Any', 'any', [pos, g.const('ax0', i32([1], [0]))], { Tidx: a.type('int32'), keep_dims: a.b(true) });
    g.op('ArgMax', 'amax', [x, g.const('d', i32([], [1]))], { T: a.type('float32'), Tidx: a.type('int32'), output_type: a.type('int32') });
    g.op('ArgMin', 'amin', [x, g.const('d0', i32([], [0]))], { T: a.type('float32'), Tidx: a.type('int32'), output_type: a.type('int64') });
    await assertSameOnBoth(g, { x: f32([2, 4], [1, 3, 3, -1, 2, 2, 0, -5]) }, ['all:0', 'any:0', 'amax:0', 'amin:0'], 0);
  });

  it('MatMul with every transpose_a/transpose_b, constant and fed right operands; BatchMatMulV2 with adj_x/adj_y', async () => {
    const g = new GraphCase();
    const x = g.placeholder('x', 'float32', [3, 4]);
    const y = g.placeholder('y', 'float32', [3, 4]);
    const w = g.const('w', randomF32([4, 3], 6));
    g.op('MatMul', 'mm', [x, w], { T: a.type('float32'), transpose_a: a.b(false), transpose_b: a.b(false) });
    g.op('MatMul', 'mm_ta', [x, y], { T: a.type('float32'), transpose_a: a.b(true), transpose_b: a.b(false) });
    g.op('MatMul', 'mm_tb', [x, y], { T: a.type('float32'), transpose_a: a.b(false), transpose_b: a.b(true) });
    g.op('MatMul', 'mm_tb_const', [x, g.const('wt', randomF32([5, 4], 7))], {
      T: a.type('float32'),
      transpose_a: a.b(false),
      transpose_b: a.b(true),
    });
    const bx = g.placeholder('bx', 'float32', [5, 3, 4]);
    const by = g.placeholder('by', 'float32', [5, 3, 4]);
    g.op('BatchMatMulV2', 'bmm', [bx, by], { T: a.type('float32'), adj_x: a.b(true), adj_y: a.b(false) });
    g.op('BatchMatMulV2', 'bmm_y', [bx, by], { T: a.type('float32'), adj_x: a.b(false), adj_y: a.b(true) });
    await assertSameOnBoth(
      g,
      { x: randomF32([3, 4], 1), y: randomF32([3, 4], 2), bx: randomF32([5, 3, 4], 3), by: randomF32([5, 3, 4], 4) },
      ['mm:0', 'mm_ta:0', 'mm_tb:0', 'mm_tb_const:0', 'bmm:0', 'bmm_y:0'],
      1e-5,
    );
  });

  it('BatchMatMulV2 with adj_x/adj_y and broadcast batch dims, against a plain-JS product (TF.js 4.22 gets broadcast batch dims wrong)', async () => {
    const g = new GraphCase();
    const bx = g.placeholder('bx', 'float32', [2, 1, 3, 4]);
    const by = g.placeholder('by', 'float32', [5, 4, 3]);
    g.op('BatchMatMulV2', 'bmm', [bx, by], { T: a.type('float32'), adj_x: a.b(true), adj_y: a.b(true) });
    const X = randomF32([2, 1, 3, 4], 3);
    const Y = randomF32([5, 4, 3], 4);
    const [out] = await runOnnx(g, { bx: X, by: Y }, ['bmm:0']);
    assert.deepEqual(out.shape, [2, 5, 4, 4]);
    const x = values(X);
    const y = values(Y);
    let k = 0;
    // out[i, j, m, n] = Σ_c x[i, 0, c, m] · y[j, n, c]
    for (let i = 0; i < 2; i++)
      for (let j = 0; j < 5; j++)
        for (let m = 0; m < 4; m++)
          for (let n = 0; n < 4; n++) {
            let sum = 0;
            for (let c = 0; c < 3; c++) sum += x[i * 12 + c * 4 + m] * y[j * 12 + n * 3 + c];
            assert.ok(Math.abs(values(out)[k++] - sum) < 1e-5);
          }
  });

  it('Einsum with the equations Keras MultiHeadAttention emits, against a plain-JS einsum', async () => {
    const CASES: Array<[string, number[], number[]]> = [
      ['abc,cde->abde', [2, 3, 4], [4, 2, 5]],
      ['aecd,abcd->acbe', [2, 3, 2, 5], [2, 4, 2, 5]],
      ['acbe,aecd->abcd', [2, 2, 4, 3], [2, 3, 2, 5]],
      ['abcd,cde->abe', [2, 3, 2, 5], [2, 5, 4]],
    ];
    for (const [eq, sa, sb] of CASES) {
      const g = new GraphCase();
      const x = g.placeholder('x', 'float32', sa);
      const y = g.placeholder('y', 'float32', sb);
      g.op('Einsum', 'e', [x, y], { T: a.type('float32'), N: a.i(2), equation: a.s(eq) });
      const xa = randomF32(sa, 1);
      const ya = randomF32(sb, 2);
      const [got] = await runOnnx(g, { x: xa, y: ya }, ['e:0']);
      const want = einsum(eq, xa.shape, values(xa), ya.shape, values(ya));
      assert.deepEqual(got.shape, want.shape, eq);
      values(got).forEach((v, i) => assert.ok(Math.abs(v - want.values[i]) < 1e-4, `${eq}[${i}] ${v} vs ${want.values[i]}`));
    }
  });

  for (const [op, align, half] of [
    ['ResizeBilinear', false, false],
    ['ResizeBilinear', true, false],
    ['ResizeBilinear', false, true],
    ['ResizeNearestNeighbor', false, false],
    ['ResizeNearestNeighbor', true, false],
    ['ResizeNearestNeighbor', false, true],
  ] as Array<[string, boolean, boolean]>) {
    it(`${op} align_corners=${align} half_pixel_centers=${half}, up and down`, async () => {
      const g = new GraphCase();
      const x = g.placeholder('x', 'float32', [-1, 5, 7, 2]);
      const attrs = { T: a.type('float32'), align_corners: a.b(align), half_pixel_centers: a.b(half) };
      g.op(op, 'up', [x, g.const('s_up', i32([2], [9, 11]))], attrs);
      g.op(op, 'down', [x, g.const('s_down', i32([2], [3, 4]))], attrs);
      await assertSameOnBoth(g, { x: randomF32([2, 5, 7, 2], 3) }, ['up:0', 'down:0'], 1e-5);
    });
  }
});

describe('ONNX converter: FakeQuant (quantisation-aware training)', () => {
  it("FakeQuantWithMinMaxVars gives TF's float32-nudged values (x = [-3, 0.1, 0.26, 1.7], range [-1, 1], 8 bits)", async () => {
    const g = new GraphCase();
    const x = g.placeholder('x', 'float32', [4]);
    g.op('FakeQuantWithMinMaxVars', 'fq', [x, g.const('min', f32([], [-1])), g.const('max', f32([], [1]))], {
      num_bits: a.i(8),
      narrow_range: a.b(false),
    });
    const [y] = await runOnnx(g, { x: f32([4], [-3, 0.1, 0.26, 1.7]) }, ['fq:0']);
    values(y).forEach((v, i) => assert.ok(Math.abs(v - [-0.996078, 0.101961, 0.258824, 1.003922][i]) < 1e-6, `${i}: ${v}`));
  });

  it('Args, Vars (narrow range, 4 bits), PerChannel and a zero range agree with the embedded runtime exactly', async () => {
    const g = new GraphCase();
    const x = g.placeholder('x', 'float32', [3, 4]);
    g.op('FakeQuantWithMinMaxArgs', 'args', [x], { min: a.f(-0.7), max: a.f(1.3), num_bits: a.i(8), narrow_range: a.b(false) });
    g.op('FakeQuantWithMinMaxVars', 'vars', [x, g.const('min', f32([], [-2])), g.const('max', f32([], [0.5]))], {
      num_bits: a.i(4),
      narrow_range: a.b(true),
    });
    g.op(
      'FakeQuantWithMinMaxVarsPerChannel',
      'pc',
      [x, g.const('cmin', f32([4], [-1, -0.5, 0, -3])), g.const('cmax', f32([4], [1, 2, 0, 0.25]))],
      { num_bits: a.i(8), narrow_range: a.b(false) },
    );
    g.op('FakeQuantWithMinMaxVars', 'zero', [x, g.const('z', f32([], [0])), g.const('z2', f32([], [0]))], {
      num_bits: a.i(8),
      narrow_range: a.b(false),
    });
    await assertSameOnBoth(g, { x: randomF32([3, 4], 5, 2.5) }, ['args:0', 'vars:0', 'pc:0', 'zero:0'], 0);
  });
});

/** A plain-JS einsum for explicit two-operand equations (no ellipsis). */
function einsum(eq: string, sa: number[], a_: number[], sb: number[], b_: number[]): { shape: number[]; values: number[] } {
  const [lhs, out] = eq.split('->');
  const [ta, tb] = lhs.split(',');
  const size = new Map<string, number>();
  [...ta].forEach((c, i) => size.set(c, sa[i]));
  [...tb].forEach((c, i) => size.set(c, sb[i]));
  const letters = [...size.keys()];
  const shape = [...out].map((c) => size.get(c)!);
  const result = new Array<number>(shape.reduce((x, y) => x * y, 1)).fill(0);
  const idx = new Map<string, number>();
  const offset = (term: string, shapeOf: number[]) => [...term].reduce((o, c, i) => o * shapeOf[i] + idx.get(c)!, 0);
  const loop = (k: number) => {
    if (k === letters.length) {
      result[offset(out, shape)] += a_[offset(ta, sa)] * b_[offset(tb, sb)];
      return;
    }
    for (let v = 0; v < size.get(letters[k])!; v++) {
      idx.set(letters[k], v);
      loop(k + 1);
    }
  };
  loop(0);
  return { shape, values: result };
}
