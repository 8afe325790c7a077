// Shape and indexing ops: Reshape, Transpose, Concat, Pack/Unpack, Split/SplitV, Squeeze,
// ExpandDims, Slice, Shape/Size/Rank, Gather, Tile, Fill, Range, Pad, BroadcastTo, OneHot,
// Cumsum, Where, ReverseV2 (TopKV2: top_k.ts). Axes are TF's (negative counts from the end) normalised
// with the input's rank, which must be known at conversion.
import type { OpContext, OpConverter, TfValue } from '../convert_context.js';
import { normalizeAxis } from '../convert_context.js';
import { ONNX_TYPE } from '../onnx_dtype.js';
import type { DType } from '../../../tensor/dtype.js';
import type { HostTensor } from '../../../tensor/host_tensor.js';
import { sliceLength, stridedSlice } from './strided_slice.js';
import { shapeFromKnown } from '../known_elements.js';

const BIG = Number.POSITIVE_INFINITY;

/** Casts an int64 ONNX result (Shape, Size, ArgMax, TopK indices …) to the TF out_type. */
function fromInt64(ctx: OpContext, name: string, to: DType): string {
  return to === 'int64' ? name : ctx.emit('Cast', [name], { to: ONNX_TYPE[to] }, 'cast');
}

const reshape: OpConverter = (ctx) => {
  const x = ctx.input(0);
  const target = ctx.input(1);
  let shape: number[] | null = null;
  const knownDims = ctx.known(1);
  if (target.value) {
    const dims = ctx.constInts(1, 'shape');
    if (dims.includes(0) && dims.includes(-1)) ctx.fail('Reshape to a shape with both 0 and -1');
    shape = dims;
    if (x.shape && !x.shape.includes(-1) && dims.includes(-1)) {
      const known = dims.filter((d) => d !== -1).reduce((a, b) => a * b, 1);
      shape = dims.map((d) => (d === -1 ? (known ? x.shape!.reduce((a, b) => a * b, 1) / known : 0) : d));
    }
  } else if (knownDims) {
    shape = shapeFromKnown(knownDims);
  } else if (target.shape?.length === 1 && target.shape[0] >= 0) {
    shape = new Array<number>(target.shape[0]).fill(-1);
  }
  // TF's 0 is a zero-size dim, ONNX's (without allowzero) "copy the input's dim".
  return [ctx.out(ctx.emit('Reshape', [ctx.use(0), ctx.int64Input(1)], { allowzero: 1 }), x.dtype, shape)];
};

const transpose: OpConverter = (ctx) => {
  const x = ctx.input(0);
  const perm = ctx.constInts(1, 'perm');
  if (x.shape && perm.length !== x.shape.length) ctx.fail(`perm of length ${perm.length} for rank ${x.shape.length}`);
  return [ctx.out(ctx.emit('Transpose', [ctx.use(0)], { perm }), x.dtype, x.shape && perm.map((p) => x.shape![p]))];
};

function concatShape(values: TfValue[], axis: number): number[] | null {
  if (values.some((v) => !v.shape)) return null;
  const out = [...values[0].shape!];
  out[axis] = values.some((v) => v.shape![axis] < 0) ? -1 : values.reduce((s, v) => s + v.shape![axis], 0);
  for (let d = 0; d < out.length; d++) if (d !== axis && out[d] < 0) out[d] = values.find((v) => v.shape![d] >= 0)?.shape![d] ?? -1;
  return out;
}

function concatOf(ctx: OpContext, indices: number[], axisInput: number): TfValue[] {
  const values = indices.map((i) => ctx.input(i));
  const rank = values.find((v) => v.shape)?.shape?.length;
  if (rank === undefined) ctx.fail('Concat inputs of unknown rank');
  const axis = normalizeAxis(ctx, ctx.constInts(axisInput, 'axis')[0], rank);
  const y =
    indices.length === 1
      ? ctx.emit('Identity', [ctx.use(indices[0])])
      : ctx.emit(
          'Concat',
          indices.map((i) => ctx.use(i)),
          { axis },
        );
  return [ctx.out(y, values[0].dtype, concatShape(values, axis))];
}

const concatV2: OpConverter = (ctx) => {
  const n = ctx.inputs.length - 1;
  return concatOf(
    ctx,
    Array.from({ length: n }, (_, k) => k),
    n,
  );
};

const concatV1: OpConverter = (ctx) =>
  concatOf(
    ctx,
    Array.from({ length: ctx.inputs.length - 1 }, (_, k) => k + 1),
    0,
  );

const pack: OpConverter = (ctx) => {
  const values = ctx.inputs;
  const rank = values.find((v) => v.shape)?.shape?.length;
  if (rank === undefined) return ctx.fail('Pack inputs of unknown rank');
  const axis = normalizeAxis(ctx, ctx.attrInt('axis', 0), rank + 1);
  const axes = ctx.int64s([axis], 'axis');
  const parts = values.map((_, i) => ctx.emit('Unsqueeze', [ctx.use(i), axes], {}, `unsqueeze${i}`));
  const y = parts.length === 1 ? parts[0] : ctx.emit('Concat', parts, { axis });
  const shape = concatShape(
    values.map((v, i) => ({ ...v, name: parts[i], shape: v.shape && [...v.shape.slice(0, axis), 1, ...v.shape.slice(axis)] })),
    axis,
  );
  return [ctx.out(y, values[0].dtype, shape)];
};

const unpack: OpConverter = (ctx) => {
  const x = ctx.input(0);
  const rank = ctx.rank(0);
  const axis = normalizeAxis(ctx, ctx.attrInt('axis', 0), rank);
  const num = ctx.attrInt('num');
  const parts = num === 1 ? [ctx.use(0)] : ctx.emitMany('Split', [ctx.use(0)], num, { axis, num_outputs: num }, 'split');
  const axes = ctx.int64s([axis], 'axis');
  const shape = x.shape!.filter((_, d) => d !== axis);
  return parts.map((p, k) => ctx.out(ctx.emit('Squeeze', [p, axes], {}, `squeeze${k}`), x.dtype, shape));
};

function splitInto(ctx: OpContext, valueIndex: number, axis: number, sizes: number[]): TfValue[] {
  const x = ctx.input(valueIndex);
  if (sizes.length === 1) return [ctx.out(ctx.emit('Identity', [ctx.use(valueIndex)]), x.dtype, x.shape)];
  const parts = ctx.emitMany('Split', [ctx.use(valueIndex), ctx.int64s(sizes, 'split')], sizes.length, { axis }, 'split');
  return parts.map((p, k) =>
    ctx.out(
      p,
      x.dtype,
      x.shape!.map((d, i) => (i === axis ? sizes[k] : d)),
    ),
  );
}

const split: OpConverter = (ctx) => {
  const x = ctx.input(1);
  const rank = ctx.rank(1);
  const axis = normalizeAxis(ctx, ctx.constInts(0, 'split_dim')[0], rank);
  const num = ctx.attrInt('num_split');
  const dim = x.shape![axis];
  if (dim < 0) {
    const parts =
      num === 1 ? [ctx.emit('Identity', [ctx.use(1)])] : ctx.emitMany('Split', [ctx.use(1)], num, { axis, num_outputs: num }, 'split');
    return parts.map((p) =>
      ctx.out(
        p,
        x.dtype,
        x.shape!.map((d, i) => (i === axis ? -1 : d)),
      ),
    );
  }
  if (dim % num !== 0) ctx.fail(`Split of ${dim} into ${num} parts`);
  return splitInto(ctx, 1, axis, new Array<number>(num).fill(dim / num));
};

const splitV: OpConverter = (ctx) => {
  const x = ctx.input(0);
  const rank = ctx.rank(0);
  const axis = normalizeAxis(ctx, ctx.constInts(2, 'split_dim')[0], rank);
  const sizes = ctx.constInts(1, 'size_splits');
  const free = sizes.indexOf(-1);
  if (free >= 0) {
    const dim = x.shape![axis];
    if (dim < 0) ctx.fail('SplitV with a -1 size on a dim known only at run time');
    sizes[free] = dim - sizes.reduce((s, v, i) => (i === free ? s : s + v), 0);
  }
  return splitInto(ctx, 0, axis, sizes);
};

const squeeze: OpConverter = (ctx) => {
  const x = ctx.input(0);
  const dims = ctx.attrInts('squeeze_dims').length ? ctx.attrInts('squeeze_dims') : ctx.attrInts('axis');
  if (dims.length === 0) {
    // All size-1 dims: the output rank is known only when every dim is.
    const shape = x.shape && !x.shape.includes(-1) ? x.shape.filter((d) => d !== 1) : null;
    return [ctx.out(ctx.emit('Squeeze', [ctx.use(0)]), x.dtype, shape)];
  }
  const rank = ctx.rank(0);
  const axes = dims.map((d) => normalizeAxis(ctx, d, rank));
  return [
    ctx.out(
      ctx.emit('Squeeze', [ctx.use(0), ctx.int64s(axes, 'axes')]),
      x.dtype,
      x.shape!.filter((_, d) => !axes.includes(d)),
    ),
  ];
};

const expandDims: OpConverter = (ctx) => {
  const x = ctx.input(0);
  const rank = ctx.rank(0);
  const axis = normalizeAxis(ctx, ctx.constInts(1, 'dim')[0], rank + 1);
  const shape = [...x.shape!.slice(0, axis), 1, ...x.shape!.slice(axis)];
  return [ctx.out(ctx.emit('Unsqueeze', [ctx.use(0), ctx.int64s([axis], 'axes')]), x.dtype, shape)];
};

/** Slice(x, begin, size): size −1 means "to the end". */
const slice: OpConverter = (ctx) => {
  const x = ctx.input(0);
  const rank = ctx.rank(0);
  const axes = ctx.int64s(
    Array.from({ length: rank }, (_, k) => k),
    'axes',
  );
  if (ctx.input(1).value && ctx.input(2).value) {
    const begin = ctx.constInts(1, 'begin');
    const size = ctx.constInts(2, 'size');
    if (size.length !== rank || begin.length !== rank)
      ctx.fail(`Slice begin/size of length ${begin.length}/${size.length} for rank ${rank}`);
    const ends = begin.map((b, k) => (size[k] === -1 ? BIG : b + size[k]));
    const y = ctx.emit('Slice', [ctx.use(0), ctx.int64s(begin, 'starts'), ctx.int64s(ends, 'ends'), axes]);
    return [
      ctx.out(
        y,
        x.dtype,
        size.map((s, k) => (s === -1 ? sliceLength(x.shape![k], begin[k], BIG, 1) : s)),
      ),
    ];
  }
  // Computed at run time (e.g. Keras' Resizing crops): end = begin + size, or the dim's end for −1.
  const starts = ctx.int64Input(1);
  const sizes = ctx.int64Input(2);
  const toEnd = ctx.emit('Equal', [sizes, ctx.int64s([-1], 'minus_one')], {}, 'to_end');
  const ends = ctx.emit('Where', [toEnd, ctx.int64s([BIG], 'big'), ctx.emit('Add', [starts, sizes], {}, 'begin_plus_size')], {}, 'ends');
  const size = ctx.known(2);
  const begin = ctx.known(1);
  const dims = x.shape!.map((d, k) => {
    const n = size?.[k] ?? null;
    if (n === null) return -1;
    if (n >= 0) return n;
    const b = begin?.[k] ?? null;
    return b === null ? -1 : sliceLength(d, b, BIG, 1);
  });
  return [ctx.out(ctx.emit('Slice', [ctx.use(0), starts, ends, axes]), x.dtype, dims)];
};

const shapeOp: OpConverter = (ctx) => {
  const x = ctx.input(0);
  const to = ctx.attr('out_type') ? ctx.attrType('out_type') : 'int32';
  const rank = x.shape ? x.shape.length : -1;
  return [ctx.out(fromInt64(ctx, ctx.emit('Shape', [ctx.use(0)]), to), to, [rank])];
};

const shapeN: OpConverter = (ctx) => {
  const to = ctx.attr('out_type') ? ctx.attrType('out_type') : 'int32';
  return ctx.inputs.map((x, i) =>
    ctx.out(fromInt64(ctx, ctx.emit('Shape', [ctx.use(i)], {}, `shape${i}`), to), to, [x.shape ? x.shape.length : -1]),
  );
};

const size: OpConverter = (ctx) => {
  const to = ctx.attr('out_type') ? ctx.attrType('out_type') : 'int32';
  return [ctx.out(fromInt64(ctx, ctx.emit('Size', [ctx.use(0)]), to), to, [])];
};

const rankOp: OpConverter = (ctx) => {
  const r = ctx.rank(0);
  const value: HostTensor = { dtype: 'int32', shape: [], values: Int32Array.of(r) };
  return [{ dtype: 'int32', shape: [], value }];
};

function gatherShape(params: number[] | null, indices: number[] | null, axis: number): number[] | null {
  return params && indices ? [...params.slice(0, axis), ...indices, ...params.slice(axis + 1)] : null;
}

const gatherV2: OpConverter = (ctx) => {
  const params = ctx.input(0);
  const rank = ctx.rank(0);
  const axis = normalizeAxis(ctx, ctx.op === 'Gather' ? 0 : ctx.constInts(2, 'axis')[0], rank);
  if (ctx.attrInt('batch_dims', 0) !== 0) ctx.fail(`${ctx.op} with batch_dims`);
  return [
    ctx.out(ctx.emit('Gather', [ctx.use(0), ctx.use(1)], { axis }), params.dtype, gatherShape(params.shape, ctx.input(1).shape, axis)),
  ];
};

const gatherNd: OpConverter = (ctx) => {
  const params = ctx.input(0);
  const idx = ctx.input(1);
  let shape: number[] | null = null;
  if (params.shape && idx.shape && idx.shape.at(-1)! >= 0) shape = [...idx.shape.slice(0, -1), ...params.shape.slice(idx.shape.at(-1)!)];
  return [ctx.out(ctx.emit('GatherND', [ctx.use(0), ctx.int64Input(1)]), params.dtype, shape)];
};

const tile: OpConverter = (ctx) => {
  const x = ctx.input(0);
  let shape: number[] | null = null;
  const m = ctx.known(1);
  if (x.shape) shape = x.shape.map((d, i) => (d < 0 || !m || m[i] === null ? -1 : d * m[i]!));
  return [ctx.out(ctx.emit('Tile', [ctx.use(0), ctx.int64Input(1)]), x.dtype, shape)];
};

const fill: OpConverter = (ctx) => {
  const value = ctx.input(1);
  const dims = ctx.input(0);
  const knownDims = ctx.known(0);
  const shape = knownDims
    ? shapeFromKnown(knownDims)
    : dims.shape?.[0] !== undefined && dims.shape[0] >= 0
      ? new Array<number>(dims.shape[0]).fill(-1)
      : null;
  if (value.dtype === 'string') ctx.fail('Fill with a string');
  if (value.value) {
    const v = value.value;
    const y = ctx.emit('ConstantOfShape', [ctx.int64Input(0)], { value: { tensor: { ...v, shape: [1] } } });
    return [ctx.out(y, value.dtype, shape)];
  }
  return [ctx.out(ctx.emit('Expand', [ctx.use(1), ctx.int64Input(0)]), value.dtype, shape)];
};

const range: OpConverter = (ctx) => {
  const dtype = ctx.input(0).dtype;
  if (dtype !== 'int32' && dtype !== 'int64' && dtype !== 'float32' && dtype !== 'float64') ctx.fail(`Range of ${dtype}`);
  for (const i of [1, 2]) if (ctx.input(i).dtype !== dtype) ctx.fail('Range with mixed dtypes');
  let length = -1;
  if (ctx.input(0).value && ctx.input(1).value && ctx.input(2).value) {
    const [s, l, d] = [0, 1, 2].map((i) => Number(ctx.input(i).value!.values[0]));
    length = Math.max(0, Math.ceil((l - s) / d));
  }
  return [ctx.out(ctx.emit('Range', [ctx.use(0), ctx.use(1), ctx.use(2)]), dtype, [length])];
};

function padsInput(ctx: OpContext, rank: number): { name: string; pairs: number[][] | null } {
  const p = ctx.input(1);
  if (p.value) {
    const flat = ctx.constInts(1, 'paddings');
    if (flat.length !== 2 * rank) ctx.fail(`paddings of ${flat.length} values for rank ${rank}`);
    const pairs = Array.from({ length: rank }, (_, d) => [flat[2 * d], flat[2 * d + 1]]);
    return { name: ctx.int64s([...pairs.map((q) => q[0]), ...pairs.map((q) => q[1])], 'pads'), pairs };
  }
  // [[b0, a0], [b1, a1] …] → [b0, b1 …, a0, a1 …]
  const t = ctx.emit('Transpose', [ctx.int64Input(1)], { perm: [1, 0] }, 'pads_t');
  return { name: ctx.emit('Reshape', [t, ctx.int64s([-1], 'flat')], {}, 'pads'), pairs: null };
}

function pad(mode: 'constant' | 'mirror'): OpConverter {
  return (ctx) => {
    const x = ctx.input(0);
    const rank = ctx.rank(0);
    const { name, pairs } = padsInput(ctx, rank);
    let onnxMode = 'constant';
    const inputs = [ctx.use(0), name];
    if (mode === 'mirror') {
      const m = ctx.attrString('mode');
      if (m !== 'REFLECT') ctx.fail(`MirrorPad mode ${m}`);
      onnxMode = 'reflect';
    } else if (ctx.op === 'PadV2') inputs.push(ctx.use(2));
    const shape = x.shape!.map((d, i) => (d < 0 || !pairs ? -1 : d + pairs[i][0] + pairs[i][1]));
    return [ctx.out(ctx.emit('Pad', inputs, { mode: onnxMode }), x.dtype, shape)];
  };
}

const broadcastTo: OpConverter = (ctx) => {
  const x = ctx.input(0);
  const known = ctx.known(1);
  const shape = known ? shapeFromKnown(known) : null;
  return [ctx.out(ctx.emit('Expand', [ctx.use(0), ctx.int64Input(1)]), x.dtype, shape)];
};

/** TF gives all off_value for a negative index; ONNX would count it from the end, so they are moved out of range. */
const oneHot: OpConverter = (ctx) => {
  const idx = ctx.input(0);
  const rank = ctx.rank(0);
  const axisAttr = ctx.attrInt('axis', -1);
  const axis = axisAttr === -1 ? rank : normalizeAxis(ctx, axisAttr, rank + 1);
  const depth = ctx.int64Input(1);
  const idx64 = ctx.int64Input(0);
  const negative = ctx.emit('Less', [idx64, ctx.int64s([0], 'zero')]);
  const safe = ctx.emit('Where', [negative, ctx.emit('Reshape', [depth, ctx.int64s([1], 'one')], {}, 'depth1'), idx64], {}, 'indices');
  const values = ctx.emit(
    'Concat',
    [
      ctx.emit('Reshape', [ctx.use(3), ctx.int64s([1], 'one_')], {}, 'off'),
      ctx.emit('Reshape', [ctx.use(2), ctx.int64s([1], 'one__')], {}, 'on'),
    ],
    { axis: 0 },
    'values',
  );
  const d = ctx.input(1).value ? ctx.constInts(1, 'depth')[0] : -1;
  const shape = idx.shape ? [...idx.shape.slice(0, axis), d, ...idx.shape.slice(axis)] : null;
  return [ctx.out(ctx.emit('OneHot', [safe, depth, values], { axis }), ctx.input(2).dtype, shape)];
};

const cumsum: OpConverter = (ctx) => {
  const x = ctx.input(0);
  const y = ctx.emit('CumSum', [ctx.use(0), ctx.int64Input(1)], {
    exclusive: ctx.attrBool('exclusive') ? 1 : 0,
    reverse: ctx.attrBool('reverse') ? 1 : 0,
  });
  return [ctx.out(y, x.dtype, x.shape)];
};

/** Where(x): coordinates of true / non-zero elements, [n, rank] int64 (NonZero gives [rank, n]). */
const whereIndices: OpConverter = (ctx) => {
  const rank = ctx.rank(0);
  const nz = ctx.emit('NonZero', [ctx.use(0)]);
  return [ctx.out(ctx.emit('Transpose', [nz], { perm: [1, 0] }), 'int64', [-1, rank])];
};

const reverseV2: OpConverter = (ctx) => {
  const x = ctx.input(0);
  const rank = ctx.rank(0);
  const axes = ctx.constInts(1, 'axis').map((a) => normalizeAxis(ctx, a, rank));
  if (axes.length === 0) return [ctx.out(ctx.emit('Identity', [ctx.use(0)]), x.dtype, x.shape)];
  const y = ctx.emit('Slice', [
    ctx.use(0),
    ctx.int64s(
      axes.map(() => -1),
      'starts',
    ),
    ctx.int64s(
      axes.map(() => -BIG),
      'ends',
    ),
    ctx.int64s(axes, 'axes'),
    ctx.int64s(
      axes.map(() => -1),
      'steps',
    ),
  ]);
  return [ctx.out(y, x.dtype, x.shape)];
};

/**
 * ReverseSequence: ONNX's op takes the batch and time axes among dims 0 and 1 only, so other
 * layouts are transposed there and back.
 */
const reverseSequence: OpConverter = (ctx) => {
  const x = ctx.input(0);
  const rank = ctx.rank(0);
  const seq = normalizeAxis(ctx, ctx.attrInt('seq_dim'), rank);
  const batch = normalizeAxis(ctx, ctx.attrInt('batch_dim', 0), rank);
  if (seq === batch) ctx.fail('seq_dim equals batch_dim');
  const lens = ctx.int64Input(1);
  if (batch <= 1 && seq <= 1) {
    return [ctx.out(ctx.emit('ReverseSequence', [ctx.use(0), lens], { batch_axis: batch, time_axis: seq }), x.dtype, x.shape)];
  }
  const perm = [batch, seq, ...Array.from({ length: rank }, (_, k) => k).filter((k) => k !== batch && k !== seq)];
  const inverse = perm.map((_, k) => perm.indexOf(k));
  const moved = ctx.emit('Transpose', [ctx.use(0)], { perm }, 'to_batch_time');
  const reversed = ctx.emit('ReverseSequence', [moved, lens], { batch_axis: 0, time_axis: 1 });
  return [ctx.out(ctx.emit('Transpose', [reversed], { perm: inverse }, 'back'), x.dtype, x.shape)];
};

export const ARRAY_OPS: Record<string, OpConverter> = {
  ReverseSequence: reverseSequence,
  Reshape: reshape,
  Transpose: transpose,
  ConcatV2: concatV2,
  Concat: concatV1,
  Pack: pack,
  Unpack: unpack,
  Split: split,
  SplitV: splitV,
  Squeeze: squeeze,
  ExpandDims: expandDims,
  Slice: slice,
  StridedSlice: stridedSlice,
  Shape: shapeOp,
  ShapeN: shapeN,
  Size: size,
  Rank: rankOp,
  GatherV2: gatherV2,
  Gather: gatherV2,
  GatherNd: gatherNd,
  Tile: tile,
  Fill: fill,
  Range: range,
  Pad: pad('constant'),
  PadV2: pad('constant'),
  MirrorPad: pad('mirror'),
  BroadcastTo: broadcastTo,
  OneHot: oneHot,
  Cumsum: cumsum,
  Where: whereIndices,
  ReverseV2: reverseV2,
};
