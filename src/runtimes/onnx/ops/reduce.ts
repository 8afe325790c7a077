// Reductions (Sum, Mean, Max, Min, Prod, All, Any) and ArgMax/ArgMin. TF reduces over the
// axes given (none: nothing is reduced — ONNX would reduce everything, so that case is an
// Identity); keep_dims keeps size-1 dims.
import type { OpConverter } from '../convert_context.js';
import { normalizeAxis } from '../convert_context.js';
import { isFloat, ONNX_TYPE } from '../onnx_dtype.js';

function reduce(onnxOp: string, opts: { floatOnly?: boolean; bool?: boolean } = {}): OpConverter {
  return (ctx) => {
    const x = ctx.input(0);
    const rank = ctx.rank(0);
    if (opts.floatOnly && !isFloat(x.dtype)) ctx.fail(`${ctx.op} on ${x.dtype}`);
    if (opts.bool !== (x.dtype === 'bool')) ctx.fail(`${ctx.op} on ${x.dtype}`);
    const axes = [...new Set(ctx.constInts(1, 'reduction_indices').map((a) => normalizeAxis(ctx, a, rank)))].sort((a, b) => a - b);
    const keep = ctx.attrBool('keep_dims');
    if (axes.length === 0) return [ctx.out(ctx.emit('Identity', [ctx.use(0)]), x.dtype, x.shape)];
    // ONNX reductions have no bool kernels: All is a Min and Any a Max over 0/1 integers.
    let input = ctx.use(0);
    if (opts.bool) input = ctx.emit('Cast', [input], { to: ONNX_TYPE.int32 }, 'as_int');
    let y = ctx.emit(onnxOp, [input, ctx.int64s(axes, 'axes')], { keepdims: keep ? 1 : 0 });
    if (opts.bool) y = ctx.emit('Cast', [y], { to: ONNX_TYPE.bool }, 'as_bool');
    const shape = keep ? x.shape!.map((d, i) => (axes.includes(i) ? 1 : d)) : x.shape!.filter((_, i) => !axes.includes(i));
    return [ctx.out(y, x.dtype, shape)];
  };
}

/** ArgMax/ArgMin: the first index of the extreme value (TF and ONNX's select_last_index 0). */
function argExtreme(onnxOp: 'ArgMax' | 'ArgMin'): OpConverter {
  return (ctx) => {
    const x = ctx.input(0);
    if (x.dtype === 'bool' || x.dtype === 'string') ctx.fail(`${ctx.op} on ${x.dtype}`);
    const rank = ctx.rank(0);
    const axis = normalizeAxis(ctx, ctx.constInts(1, 'dimension')[0], rank);
    const to = ctx.attr('output_type') ? ctx.attrType('output_type') : 'int64';
    let y = ctx.emit(onnxOp, [ctx.use(0)], { axis, keepdims: 0, select_last_index: 0 });
    if (to !== 'int64') y = ctx.emit('Cast', [y], { to: ONNX_TYPE[to] }, 'cast');
    return [
      ctx.out(
        y,
        to,
        x.shape!.filter((_, i) => i !== axis),
      ),
    ];
  };
}

export const REDUCE_OPS: Record<string, OpConverter> = {
  Sum: reduce('ReduceSum', { bool: false }),
  // TF's integer Mean truncates; ONNX leaves integer ReduceMean to the kernel: floats only.
  Mean: reduce('ReduceMean', { floatOnly: true, bool: false }),
  Max: reduce('ReduceMax', { bool: false }),
  Min: reduce('ReduceMin', { bool: false }),
  Prod: reduce('ReduceProd', { bool: false }),
  All: reduce('ReduceMin', { bool: true }),
  Any: reduce('ReduceMax', { bool: true }),
  ArgMax: argExtreme('ArgMax'),
  ArgMin: argExtreme('ArgMin'),
};
