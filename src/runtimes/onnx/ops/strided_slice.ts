// TF StridedSlice → ONNX Slice (+ Squeeze for shrink_axis_mask, Unsqueeze for
// new_axis_mask). begin/end/strides must be constants; the masks are expanded against the
// input's rank exactly as TF's ValidateStridedSliceOp does (strided_slice_op.cc):
//   - an ellipsis stands for every input dim no other spec entry names;
//   - without an ellipsis, dims after the last spec entry are taken whole;
//   - new_axis inserts a size-1 dim and consumes no input dim (it wins over shrink);
//   - shrink_axis takes the single element at begin and removes the dim;
//   - begin_mask/end_mask take the dim from its start/end in the stride's direction.
import type { OpConverter, OpContext } from '../convert_context.js';
import { sliceLength } from './slice_length.js';

export { sliceLength };

/** ±∞ for Slice starts/ends: ONNX clamps them to the dim, as TF does with masked bounds. */
const BIG = Number.POSITIVE_INFINITY;

interface DimSlice {
  axis: number;
  start: number;
  end: number;
  step: number;
}

type OutputEntry = { kind: 'new' } | { kind: 'dim'; axis: number; shrink: boolean };

const bit = (mask: number, i: number) => (mask >> i) & 1;

function expand(
  ctx: OpContext,
  rank: number,
  begin: number[],
  end: number[],
  strides: number[],
): { slices: DimSlice[]; entries: OutputEntry[] } {
  const beginMask = ctx.attrInt('begin_mask', 0);
  const endMask = ctx.attrInt('end_mask', 0);
  const ellipsisMask = ctx.attrInt('ellipsis_mask', 0);
  const newAxisMask = ctx.attrInt('new_axis_mask', 0);
  const shrinkMask = ctx.attrInt('shrink_axis_mask', 0);
  const m = begin.length;
  if (end.length !== m || strides.length !== m) ctx.fail('begin, end and strides differ in length');
  if (ellipsisMask & (ellipsisMask - 1)) ctx.fail('more than one ellipsis');
  const named = Array.from({ length: m }, (_, i) => i).filter((i) => !bit(ellipsisMask, i) && !bit(newAxisMask, i)).length;
  const slices: DimSlice[] = [];
  const entries: OutputEntry[] = [];
  let axis = 0;
  const whole = () => {
    slices.push({ axis, start: 0, end: BIG, step: 1 });
    entries.push({ kind: 'dim', axis, shrink: false });
    axis++;
  };
  for (let i = 0; i < m; i++) {
    if (bit(ellipsisMask, i)) {
      const count = rank - named;
      if (count < 0) ctx.fail(`slice spec names ${named} dims of a rank-${rank} input`);
      for (let k = 0; k < count; k++) whole();
      continue;
    }
    if (bit(newAxisMask, i)) {
      entries.push({ kind: 'new' });
      continue;
    }
    if (axis >= rank) ctx.fail(`slice spec names more dims than the input's rank ${rank}`);
    const step = strides[i];
    if (step === 0) ctx.fail('stride 0');
    if (bit(shrinkMask, i)) {
      const b = begin[i];
      slices.push({ axis, start: b, end: b === -1 ? BIG : b + 1, step: 1 });
      entries.push({ kind: 'dim', axis, shrink: true });
    } else {
      const start = bit(beginMask, i) ? (step > 0 ? 0 : BIG) : begin[i];
      const stop = bit(endMask, i) ? (step > 0 ? BIG : -BIG) : end[i];
      slices.push({ axis, start, end: stop, step });
      entries.push({ kind: 'dim', axis, shrink: false });
    }
    axis++;
  }
  while (axis < rank) whole();
  return { slices, entries };
}

export const stridedSlice: OpConverter = (ctx) => {
  const x = ctx.input(0);
  const rank = ctx.rank(0);
  const { slices, entries } = expand(ctx, rank, ctx.constInts(1, 'begin'), ctx.constInts(2, 'end'), ctx.constInts(3, 'strides'));
  const active = slices.filter((s) => !(s.start === 0 && s.end === BIG && s.step === 1));
  let y = ctx.use(0);
  if (active.length) {
    y = ctx.emit(
      'Slice',
      [
        y,
        ctx.int64s(
          active.map((s) => s.start),
          'starts',
        ),
        ctx.int64s(
          active.map((s) => s.end),
          'ends',
        ),
        ctx.int64s(
          active.map((s) => s.axis),
          'axes',
        ),
        ctx.int64s(
          active.map((s) => s.step),
          'steps',
        ),
      ],
      {},
      'slice',
    );
  } else {
    y = ctx.emit('Identity', [y]);
  }
  const shrunk = entries.filter((e): e is Extract<OutputEntry, { kind: 'dim' }> => e.kind === 'dim' && e.shrink).map((e) => e.axis);
  if (shrunk.length) y = ctx.emit('Squeeze', [y, ctx.int64s(shrunk, 'shrink_axes')], {}, 'shrink');
  const kept = entries.filter((e) => e.kind === 'new' || !e.shrink);
  const newPositions = kept.flatMap((e, pos) => (e.kind === 'new' ? [pos] : []));
  if (newPositions.length) y = ctx.emit('Unsqueeze', [y, ctx.int64s(newPositions, 'new_axes')], {}, 'new_axis');
  const lengths = new Map(slices.map((s) => [s.axis, sliceLength(x.shape![s.axis], s.start, s.end, s.step)]));
  const shape = kept.map((e) => (e.kind === 'new' ? 1 : lengths.get(e.axis)!));
  return [ctx.out(y, x.dtype, shape)];
};
