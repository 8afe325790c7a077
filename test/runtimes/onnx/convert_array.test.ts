// Shape and indexing converters against TF.js's CPU backend: StridedSlice over every mask
// (begin/end/ellipsis/new_axis/shrink, negative strides and indices), Slice, Reshape (0, −1,
// computed shapes), Concat/Pack/Unpack/Split/SplitV, Gather, Tile, Fill, Range, Pad and
// MirrorPad, OneHot (negative indices), TopK, Cumsum, ReverseV2 and Where.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { GraphCase, a, assertSameOnBoth, f32, i32, randomF32, runOnnx, values } from './graph_case.js';
import type { HostTensor } from '../../../src/tensor/host_tensor.js';

const ints = (v: number[]): HostTensor => i32([v.length], v);

function stridedSliceCase(
  shape: number[],
  begin: number[],
  end: number[],
  strides: number[],
  masks: Record<string, number>,
): [GraphCase, HostTensor] {
  const g = new GraphCase();
  const x = g.placeholder('x', 'float32', shape);
  const attrs = Object.fromEntries(Object.entries(masks).map(([k, v]) => [k, a.i(v)]));
  g.op('StridedSlice', 'ss', [x, g.const('begin', ints(begin)), g.const('end', ints(end)), g.const('strides', ints(strides))], {
    T: a.type('float32'),
    Index: a.type('int32'),
    begin_mask: a.i(0),
    end_mask: a.i(0),
    ellipsis_mask: a.i(0),
    new_axis_mask: a.i(0),
    shrink_axis_mask: a.i(0),
    ...attrs,
  });
  return [g, randomF32(shape, 3)];
}

describe('ONNX converter: StridedSlice masks (vs TF.js CPU)', () => {
  const CASES: Array<[string, number[], number[], number[], number[], Record<string, number>]> = [
    ['x[1:3]', [5, 4], [1], [3], [1], {}],
    ['x[:, 1:]', [5, 4], [0, 1], [0, 0], [1, 1], { begin_mask: 1, end_mask: 3 }],
    ['x[::-1]', [5, 4], [0], [0], [-1], { begin_mask: 1, end_mask: 1 }],
    ['x[-2:, ::2]', [5, 4, 3], [-2, 0], [0, 0], [1, 2], { begin_mask: 2, end_mask: 3 }],
    ['x[3:0:-2]', [6, 2], [3], [0], [-2], {}],
    ['x[-1] (shrink, last)', [5, 4], [-1], [0], [1], { shrink_axis_mask: 1 }],
    ['x[:, 2] (shrink)', [5, 4], [0, 2], [0, 3], [1, 1], { begin_mask: 1, end_mask: 1, shrink_axis_mask: 2 }],
    ['x[..., 1] (ellipsis + shrink)', [2, 3, 4], [0, 1], [0, 2], [1, 1], { ellipsis_mask: 1, shrink_axis_mask: 2 }],
    ['x[..., 1:3, :]', [2, 3, 4, 5], [0, 1, 0], [0, 3, 0], [1, 1, 1], { ellipsis_mask: 1, end_mask: 4, begin_mask: 4 }],
    ['x[tf.newaxis, :, 1]', [5, 4], [0, 0, 1], [0, 0, 2], [1, 1, 1], { new_axis_mask: 1, begin_mask: 2, end_mask: 2, shrink_axis_mask: 4 }],
    [
      'x[:, tf.newaxis, ..., -1]',
      [3, 4, 5],
      [0, 0, 0, -1],
      [0, 0, 0, 0],
      [1, 1, 1, 1],
      { begin_mask: 1, end_mask: 1, new_axis_mask: 2, ellipsis_mask: 4, shrink_axis_mask: 8 },
    ],
    ['x[1:100] (end beyond the dim)', [5, 4], [1], [100], [1], {}],
    ['x[-100:2] (begin before the start)', [5, 4], [-100], [2], [1], {}],
    ['x[4:-100:-1] (negative stride past the start)', [5, 4], [4], [-100], [-1], {}],
  ];
  for (const [what, shape, begin, end, strides, masks] of CASES) {
    it(what, async () => {
      const [g, x] = stridedSliceCase(shape, begin, end, strides, masks);
      await assertSameOnBoth(g, { x }, ['ss:0'], 0);
    });
  }
});

describe('ONNX converter: shape and indexing ops (vs TF.js CPU)', () => {
  it('Reshape to a constant shape with −1, and to a shape computed from Shape/StridedSlice/Pack (Keras Flatten)', async () => {
    const g = new GraphCase();
    const x = g.placeholder('x', 'float32', [-1, 3, 4]);
    g.op('Reshape', 'r1', [x, g.const('s1', ints([-1, 2, 6]))], { T: a.type('float32'), Tshape: a.type('int32') });
    const shape = g.op('Shape', 'shape', [x], { T: a.type('float32'), out_type: a.type('int32') });
    const n = g.op('StridedSlice', 'n', [shape, g.const('b', ints([0])), g.const('e', ints([1])), g.const('st', ints([1]))], {
      T: a.type('int32'),
      Index: a.type('int32'),
      shrink_axis_mask: a.i(1),
      begin_mask: a.i(0),
      end_mask: a.i(0),
      ellipsis_mask: a.i(0),
      new_axis_mask: a.i(0),
    });
    const packed = g.op('Pack', 'pack', [n, g.const('m1', i32([], [-1]))], { T: a.type('int32'), N: a.i(2), axis: a.i(0) });
    g.op('Reshape', 'flat', [x, packed], { T: a.type('float32'), Tshape: a.type('int32') });
    await assertSameOnBoth(g, { x: randomF32([2, 3, 4], 1) }, ['r1:0', 'flat:0'], 0);
  });

  it('Reshape to a shape with a 0: a zero-size dim, as in TF (not ONNX\'s "copy the dim")', async () => {
    const g = new GraphCase();
    const x = g.placeholder('x', 'float32', [0, 4]);
    g.op('Reshape', 'r', [x, g.const('s', ints([2, 0, 3]))], { T: a.type('float32'), Tshape: a.type('int32') });
    const [y] = await runOnnx(g, { x: f32([0, 4], []) }, ['r:0']);
    assert.deepEqual(y.shape, [2, 0, 3]);
  });

  it('Transpose, ConcatV2 (negative axis), Pack (axis 1), Unpack, Split, SplitV (with −1)', async () => {
    const g = new GraphCase();
    const x = g.placeholder('x', 'float32', [2, 6, 3]);
    const y = g.placeholder('y', 'float32', [2, 6, 3]);
    g.op('Transpose', 't', [x, g.const('perm', ints([2, 0, 1]))], { T: a.type('float32'), Tperm: a.type('int32') });
    g.op('ConcatV2', 'cat', [x, y, g.const('axis', i32([], [-1]))], { T: a.type('float32'), N: a.i(2), Tidx: a.type('int32') });
    g.op('Pack', 'pack', [x, y], { T: a.type('float32'), N: a.i(2), axis: a.i(1) });
    g.op('Unpack', 'unpack', [x], { T: a.type('float32'), num: a.i(2), axis: a.i(0) });
    g.op('Split', 'split', [g.const('dim', i32([], [1])), x], { T: a.type('float32'), num_split: a.i(3) });
    g.op('SplitV', 'splitv', [x, g.const('sizes', ints([1, -1, 2])), g.const('d2', i32([], [1]))], {
      T: a.type('float32'),
      Tlen: a.type('int32'),
      num_split: a.i(3),
    });
    await assertSameOnBoth(
      g,
      { x: randomF32([2, 6, 3], 1), y: randomF32([2, 6, 3], 2) },
      ['t:0', 'cat:0', 'pack:0', 'unpack:0', 'unpack:1', 'split:0', 'split:2', 'splitv:0', 'splitv:1', 'splitv:2'],
      0,
    );
  });

  it('Squeeze (given and all dims), ExpandDims (negative dim), Slice (−1 size), Tile, Fill, Range', async () => {
    const g = new GraphCase();
    const x = g.placeholder('x', 'float32', [3, 1, 4, 1]);
    g.op('Squeeze', 'sq', [x], { T: a.type('float32'), squeeze_dims: a.ints([-1]) });
    g.op('Squeeze', 'sq_all', [x], { T: a.type('float32') });
    g.op('ExpandDims', 'ed', [x, g.const('d', i32([], [-2]))], { T: a.type('float32'), Tdim: a.type('int32') });
    g.op('Slice', 'sl', [x, g.const('b', ints([1, 0, 1, 0])), g.const('s', ints([-1, 1, 2, -1]))], {
      T: a.type('float32'),
      Index: a.type('int32'),
    });
    g.op('Tile', 'tile', [x, g.const('m', ints([1, 3, 1, 2]))], { T: a.type('float32'), Tmultiples: a.type('int32') });
    g.op('Fill', 'fill', [g.const('dims', ints([2, 3])), g.const('v', f32([], [1.5]))], {
      T: a.type('float32'),
      index_type: a.type('int32'),
    });
    g.op('Range', 'range', [g.const('start', i32([], [3])), g.const('limit', i32([], [-4])), g.const('delta', i32([], [-2]))], {
      Tidx: a.type('int32'),
    });
    await assertSameOnBoth(g, { x: randomF32([3, 1, 4, 1], 5) }, ['sq:0', 'sq_all:0', 'ed:0', 'sl:0', 'tile:0', 'fill:0', 'range:0'], 0);
  });

  it('GatherV2 (axis 1, int32 and int64 indices), GatherNd', async () => {
    const g = new GraphCase();
    const x = g.placeholder('x', 'float32', [4, 5]);
    const idx = g.placeholder('idx', 'int32', [2, 2]);
    g.op('GatherV2', 'g1', [x, idx, g.const('axis', i32([], [1]))], {
      Tparams: a.type('float32'),
      Tindices: a.type('int32'),
      Taxis: a.type('int32'),
      batch_dims: a.i(0),
    });
    g.op(
      'GatherV2',
      'g0',
      [x, g.const('i64', { dtype: 'int64', shape: [3], values: BigInt64Array.from([3n, 0n, 3n]) }), g.const('a0', i32([], [0]))],
      { Tparams: a.type('float32'), Tindices: a.type('int64'), Taxis: a.type('int32'), batch_dims: a.i(0) },
    );
    g.op('GatherNd', 'gnd', [x, g.const('nd', i32([2, 2], [0, 1, 3, 4]))], { Tparams: a.type('float32'), Tindices: a.type('int32') });
    await assertSameOnBoth(g, { x: randomF32([4, 5], 5), idx: i32([2, 2], [4, 0, 2, 2]) }, ['g1:0', 'g0:0', 'gnd:0'], 0);
  });

  it('Pad, PadV2 (constant value), MirrorPad REFLECT; SYMMETRIC is refused', async () => {
    const g = new GraphCase();
    const x = g.placeholder('x', 'float32', [2, 3, 4]);
    const p = g.const('p', i32([3, 2], [0, 1, 2, 0, 1, 2]));
    g.op('Pad', 'pad', [x, p], { T: a.type('float32'), Tpaddings: a.type('int32') });
    g.op('PadV2', 'pad2', [x, p, g.const('c', f32([], [-7]))], { T: a.type('float32'), Tpaddings: a.type('int32') });
    g.op('MirrorPad', 'mirror', [x, g.const('mp', i32([3, 2], [1, 1, 2, 1, 0, 2]))], {
      T: a.type('float32'),
      Tpaddings: a.type('int32'),
      mode: a.s('REFLECT'),
    });
    await assertSameOnBoth(g, { x: randomF32([2, 3, 4], 7) }, ['pad:0', 'pad2:0', 'mirror:0'], 0);
    const s = new GraphCase();
    const xs = s.placeholder('x', 'float32', [2, 3]);
    s.op('MirrorPad', 'sym', [xs, s.const('p', i32([2, 2], [1, 1, 1, 1]))], {
      T: a.type('float32'),
      Tpaddings: a.type('int32'),
      mode: a.s('SYMMETRIC'),
    });
    await assert.rejects(runOnnx(s, { x: randomF32([2, 3], 1) }, ['sym:0']), /MirrorPad \(node sym: MirrorPad mode SYMMETRIC\)/);
  });

  it('OneHot: negative and out-of-range indices give all off_value (ONNX alone would count negatives from the end)', async () => {
    const g = new GraphCase();
    const idx = g.placeholder('idx', 'int32', [5]);
    g.op('OneHot', 'oh', [idx, g.const('depth', i32([], [4])), g.const('on', f32([], [5])), g.const('off', f32([], [-1]))], {
      T: a.type('float32'),
      TI: a.type('int32'),
      axis: a.i(-1),
    });
    g.op('OneHot', 'oh0', [idx, g.const('depth0', i32([], [3])), g.const('on0', f32([], [1])), g.const('off0', f32([], [0]))], {
      T: a.type('float32'),
      TI: a.type('int32'),
      axis: a.i(0),
    });
    const feeds = { idx: i32([5], [0, 3, -1, 4, -4]) };
    const [oh] = await assertSameOnBoth(g, feeds, ['oh:0'], 0);
    assert.deepEqual(values(oh).slice(8), new Array(12).fill(-1), 'indices −1, 4 and −4 give all off_value');
    // axis 0 puts the depth first (tf.one_hot's docs: indices [N] → [depth, N]); TF.js 4.22
    // ignores the axis here, so the expected values are written out.
    const [first] = await runOnnx(g, feeds, ['oh0:0']);
    assert.deepEqual(first.shape, [3, 5]);
    assert.deepEqual(values(first), [1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
  });

  it("ReverseSequence with seq/batch dims in any position, against tf.reverse_sequence's documented example and TF.js", async () => {
    // tf.reverse_sequence docs: seq_lengths [7, 2, 3, 5], seq_axis 1, batch_axis 0 on x [4, 8].
    const g = new GraphCase();
    const x = g.placeholder('x', 'float32', [4, 8]);
    g.op('ReverseSequence', 'rs', [x, g.const('lens', ints([7, 2, 3, 5]))], {
      T: a.type('float32'),
      Tlen: a.type('int32'),
      seq_dim: a.i(1),
      batch_dim: a.i(0),
    });
    const rows = Array.from({ length: 32 }, (_, i) => (i % 8) + 1);
    const [y] = await runOnnx(g, { x: f32([4, 8], rows) }, ['rs:0']);
    assert.deepEqual(values(y), [7, 6, 5, 4, 3, 2, 1, 8, 2, 1, 3, 4, 5, 6, 7, 8, 3, 2, 1, 4, 5, 6, 7, 8, 5, 4, 3, 2, 1, 6, 7, 8]);
    const h = new GraphCase();
    const z = h.placeholder('z', 'float32', [3, 2, 5, 4]);
    h.op('ReverseSequence', 'rs3', [z, h.const('lens', ints([4, 1, 2, 3]))], {
      T: a.type('float32'),
      Tlen: a.type('int32'),
      seq_dim: a.i(2),
      batch_dim: a.i(3),
    });
    await assertSameOnBoth(h, { z: randomF32([3, 2, 5, 4], 9) }, ['rs3:0'], 0);
  });

  it('TopKV2 (ties keep the lower index first), Cumsum (exclusive, reverse), ReverseV2, Where', async () => {
    const g = new GraphCase();
    const x = g.placeholder('x', 'float32', [2, 5]);
    g.op('TopKV2', 'top', [x, g.const('k', i32([], [3]))], { T: a.type('float32'), sorted: a.b(true) });
    g.op('Cumsum', 'cs', [x, g.const('axis', i32([], [1]))], {
      T: a.type('float32'),
      Tidx: a.type('int32'),
      exclusive: a.b(true),
      reverse: a.b(true),
    });
    g.op('ReverseV2', 'rev', [x, g.const('ax', ints([1, 0]))], { T: a.type('float32'), Tidx: a.type('int32') });
    const pos = g.op('Greater', 'pos', [x, g.const('zero', f32([], [0]))], { T: a.type('float32') });
    g.op('Where', 'where', [pos], { T: a.type('bool') });
    await assertSameOnBoth(g, { x: f32([2, 5], [1, 3, 3, -2, 3, 0, -1, 5, 5, 2]) }, ['top:0', 'top:1', 'cs:0', 'rev:0', 'where:0'], 1e-6);
  });
});
