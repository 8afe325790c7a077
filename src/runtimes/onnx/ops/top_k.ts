// TopKV2 on ONNX Runtime's TopK, where it answers as TF does (core/kernels/topk_op.cc): the
// k largest along the last axis, sorted, equal values by index (ONNX's TopK breaks ties the
// same way). Not converted: sorted=false with 1 < k < n (TF then answers in the order its
// heap leaves). At run time, guards give TF's messages for a k out of range, and refuse a
// float input holding NaN, whose order ONNX Runtime leaves undefined (TF puts +NaN first and
// −NaN last, and no ONNX op reads a NaN's sign). A row of zeros is added under the input,
// and taken off after: ONNX Runtime 1.30's TopK dies of SIGFPE on an input with no rows.
import { Code } from '../../../errors/status.js';
import type { DType } from '../../../tensor/dtype.js';
import type { OpContext, OpConverter } from '../convert_context.js';
import { isFloat, ONNX_TYPE } from '../onnx_dtype.js';

const INT64 = ONNX_TYPE.int64;

/** An int64 vector [trip, …details] for a guard. */
function guardVector(ctx: OpContext, trip: string, details: string[], hint: string): string {
  const flag = ctx.emit(
    'Reshape',
    [ctx.emit('Cast', [trip], { to: INT64 }, `${hint}_flag`), ctx.int64s([1], `${hint}_one`)],
    {},
    `${hint}_trip`,
  );
  return details.length ? ctx.emit('Concat', [flag, ...details], { axis: 0 }, hint) : flag;
}

const castTo = (ctx: OpContext, name: string, to: DType) =>
  to === 'int64' ? name : ctx.emit('Cast', [name], { to: ONNX_TYPE[to] }, 'cast');

const topK: OpConverter = (ctx) => {
  const x = ctx.input(0);
  const rank = ctx.rank(0);
  if (rank === 0) ctx.fail('input must be >= 1-D, got shape []');
  const n = x.shape![rank - 1];
  const kConst = ctx.input(1).value ? ctx.constInts(1, 'k')[0] : null;
  // TF fails every run of these: refused at load rather than served and failing.
  if (kConst !== null && kConst < 0) ctx.fail(`Need k >= 0, got ${kConst}`);
  if (kConst !== null && n >= 0 && kConst > n) ctx.fail(`input must have at least k columns. Had ${n}, needed ${kConst}`);
  if (!ctx.attrBool('sorted', true) && !(kConst === 1 || (kConst !== null && kConst === n))) {
    ctx.fail("sorted=false: TF answers in the order its heap (gtl::TopN) leaves, ONNX's TopK in sorted order");
  }

  const shape = ctx.emit('Shape', [ctx.use(0)], {}, 'shape');
  const cols = ctx.emit('Slice', [shape, ctx.int64s([-1], 'last'), ctx.int64s([rank], 'rank')], {}, 'cols');
  let k = ctx.emit('Reshape', [ctx.int64Input(1), ctx.int64s([1], 'one')], {}, 'k');
  if (kConst === null || n < 0) {
    const zero = ctx.int64s([0], 'zero');
    if (kConst === null)
      ctx.guard(
        guardVector(ctx, ctx.emit('Less', [k, zero], {}, 'k_negative'), [k], 'k_guard'),
        Code.INVALID_ARGUMENT,
        ([got]) => `Need k >= 0, got ${got}`,
      );
    ctx.guard(
      guardVector(ctx, ctx.emit('Greater', [k, cols], {}, 'k_over'), [cols, k], 'cols_guard'),
      Code.INVALID_ARGUMENT,
      ([had, needed]) => `input must have at least k columns. Had ${had}, needed ${needed}`,
    );
    // Within range for ONNX Runtime, which must answer before the guards are read.
    k = ctx.emit('Min', [ctx.emit('Max', [k, zero], {}, 'k_low'), cols], {}, 'k_safe');
  }
  if (isFloat(x.dtype)) {
    const nans = ctx.emit(
      'ReduceSum',
      [ctx.emit('Cast', [ctx.emit('IsNaN', [ctx.use(0)])], { to: INT64 }, 'nan_i64')],
      { keepdims: 0 },
      'nans',
    );
    ctx.guard(
      guardVector(ctx, ctx.emit('Greater', [nans, ctx.int64s([0], 'none')], {}, 'has_nan'), [], 'nan_guard'),
      Code.UNIMPLEMENTED,
      () =>
        `${ctx.op} (node ${ctx.node.name}): a row of its input holds NaN, which TensorFlow orders (+NaN first, -NaN last) and ONNX Runtime cannot; serve this model with --runtime=embedded for TensorFlow's order`,
    );
  }
  // [rows, n] plus a row of zeros, so that TopK never sees an input without rows.
  const outer = ctx.emit('Slice', [shape, ctx.int64s([0], 'begin'), ctx.int64s([-1], 'end')], {}, 'outer');
  const rows = ctx.emit('ReduceProd', [outer], { keepdims: 1 }, 'rows');
  const matrix = ctx.emit('Reshape', [ctx.use(0), ctx.emit('Concat', [rows, cols], { axis: 0 }, 'matrix_shape')], {}, 'matrix');
  const padded = ctx.emit('Pad', [matrix, ctx.int64s([0, 0, 1, 0], 'pads')], { mode: 'constant' }, 'padded');
  const [values, indices] = ctx.emitMany('TopK', [padded, k], 2, { axis: -1, largest: 1, sorted: 1 }, 'topk');
  const outShape = ctx.emit('Concat', [outer, k], { axis: 0 }, 'out_shape');
  const unpad = (v: string, hint: string) =>
    ctx.emit(
      'Reshape',
      [ctx.emit('Slice', [v, ctx.int64s([0], `${hint}_from`), rows, ctx.int64s([0], `${hint}_axis`)], {}, `${hint}_rows`), outShape],
      {},
      hint,
    );
  const kv = kConst ?? -1;
  const shapeOut = [...x.shape!.slice(0, -1), kv];
  const idxType = ctx.attr('index_type') ? ctx.attrType('index_type') : 'int32';
  return [ctx.out(unpad(values, 'values'), x.dtype, shapeOut), ctx.out(castTo(ctx, unpad(indices, 'indices'), idxType), idxType, shapeOut)];
};

export const TOP_K_OPS: Record<string, OpConverter> = { TopKV2: topK };
