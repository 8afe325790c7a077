// Element-wise TF ops: arithmetic, comparisons, logic, activations, casts. TF and ONNX
// broadcast the same way (numpy rules), so most map one to one; the ones that differ say why.
import { isFloat, ONNX_TYPE } from '../onnx_dtype.js';
import { broadcastShapes, type OpContext, type OpConverter, type TfValue } from '../convert_context.js';
import type { DType } from '../../../tensor/dtype.js';

function binary(onnxOp: string, outDtype?: DType): OpConverter {
  return (ctx) => {
    const [a, b] = [ctx.input(0), ctx.input(1)];
    if (a.dtype === 'string') ctx.fail(`${ctx.op} on strings`);
    const out = ctx.emit(onnxOp, [ctx.use(0), ctx.use(1)]);
    return [ctx.out(out, outDtype ?? a.dtype, broadcastShapes(a.shape, b.shape))];
  };
}

function unary(onnxOp: string, attrs: Record<string, number> = {}, floatOnly = true): OpConverter {
  return (ctx) => {
    const x = ctx.input(0);
    if (floatOnly && !isFloat(x.dtype)) ctx.fail(`${ctx.op} on ${x.dtype}`);
    if (x.dtype === 'string') ctx.fail(`${ctx.op} on strings`);
    return [ctx.out(ctx.emit(onnxOp, [ctx.use(0)], attrs), x.dtype, x.shape)];
  };
}

const same = (ctx: OpContext, name: string): TfValue => ({ ...ctx.input(0), name, value: undefined });

/** TF Div on integers truncates toward zero, as ONNX Div does; on floats both divide. */
const div: OpConverter = binary('Div');

/** FloorDiv: floats floor the quotient; integers (x − floormod(x, y)) / y, exact. */
const floorDiv: OpConverter = (ctx) => {
  const [a, b] = [ctx.input(0), ctx.input(1)];
  const shape = broadcastShapes(a.shape, b.shape);
  if (isFloat(a.dtype)) return [ctx.out(ctx.emit('Floor', [ctx.emit('Div', [ctx.use(0), ctx.use(1)])]), a.dtype, shape)];
  const mod = ctx.emit('Mod', [ctx.use(0), ctx.use(1)], { fmod: 0 });
  return [ctx.out(ctx.emit('Div', [ctx.emit('Sub', [ctx.use(0), mod]), ctx.use(1)]), a.dtype, shape)];
};

/**
 * FloorMod: the remainder takes the divisor's sign. ONNX Mod(fmod=0) is exactly that for
 * integers but is not defined for floats; there TF computes fmod and adds y when the signs
 * differ (cwise_ops.h, floor_fmod), which is reproduced here step by step.
 */
const floorMod: OpConverter = (ctx) => {
  const [a, b] = [ctx.input(0), ctx.input(1)];
  const shape = broadcastShapes(a.shape, b.shape);
  if (!isFloat(a.dtype)) return [ctx.out(ctx.emit('Mod', [ctx.use(0), ctx.use(1)], { fmod: 0 }), a.dtype, shape)];
  const r = ctx.emit('Mod', [ctx.use(0), ctx.use(1)], { fmod: 1 }, 'fmod');
  const zero = ctx.scalar(a.dtype, 0, 'zero');
  const nonzero = ctx.emit('Not', [ctx.emit('Equal', [r, zero])]);
  const signsDiffer = ctx.emit('Xor', [ctx.emit('Less', [r, zero]), ctx.emit('Less', [ctx.use(1), zero])]);
  const adjust = ctx.emit('And', [nonzero, signsDiffer]);
  return [ctx.out(ctx.emit('Where', [adjust, ctx.emit('Add', [r, ctx.use(1)]), r]), a.dtype, shape)];
};

/** DivNoNan: 0 where the divisor is 0, else x / y. */
const divNoNan: OpConverter = (ctx) => {
  const [a, b] = [ctx.input(0), ctx.input(1)];
  const zero = ctx.scalar(a.dtype, 0, 'zero');
  const shape = broadcastShapes(a.shape, b.shape);
  const q = ctx.emit('Div', [ctx.use(0), ctx.use(1)]);
  return [ctx.out(ctx.emit('Where', [ctx.emit('Equal', [ctx.use(1), zero]), zero, q]), a.dtype, shape)];
};

const squaredDifference: OpConverter = (ctx) => {
  const d = ctx.emit('Sub', [ctx.use(0), ctx.use(1)]);
  return [ctx.out(ctx.emit('Mul', [d, d]), ctx.input(0).dtype, broadcastShapes(ctx.input(0).shape, ctx.input(1).shape))];
};

const square: OpConverter = (ctx) => [same(ctx, ctx.emit('Mul', [ctx.use(0), ctx.use(0)]))];

const rsqrt: OpConverter = (ctx) => [same(ctx, ctx.emit('Reciprocal', [ctx.emit('Sqrt', [ctx.use(0)])]))];

const relu6: OpConverter = (ctx) => {
  const x = ctx.input(0);
  return [same(ctx, ctx.emit('Clip', [ctx.use(0), ctx.scalar(x.dtype, 0, 'zero'), ctx.scalar(x.dtype, 6, 'six')]))];
};

const notEqual: OpConverter = (ctx) => {
  const eq = ctx.emit('Equal', [ctx.use(0), ctx.use(1)]);
  return [ctx.out(ctx.emit('Not', [eq]), 'bool', broadcastShapes(ctx.input(0).shape, ctx.input(1).shape))];
};

const leakyRelu: OpConverter = (ctx) => [same(ctx, ctx.emit('LeakyRelu', [ctx.use(0)], { alpha: { float: ctx.attrFloat('alpha', 0.2) } }))];

/** TF's Selu constants are ONNX's defaults (alpha 1.6732632…, gamma 1.0507010…). */
const selu: OpConverter = unary('Selu');

const cast: OpConverter = (ctx) => {
  const to = ctx.attrType('DstT');
  const x = ctx.input(0);
  if (x.dtype === 'string' || to === 'string') ctx.fail(`Cast between ${x.dtype} and ${to}`);
  if (ctx.attrBool('Truncate')) ctx.fail('Cast with Truncate');
  if (to === x.dtype) return [same(ctx, ctx.emit('Identity', [ctx.use(0)]))];
  return [ctx.out(ctx.emit('Cast', [ctx.use(0)], { to: ONNX_TYPE[to] }), to, x.shape)];
};

const identity: OpConverter = (ctx) => [same(ctx, ctx.emit('Identity', [ctx.use(0)]))];

const addN: OpConverter = (ctx) => {
  const n = ctx.inputs.length;
  if (n === 1) return identity(ctx);
  const shape = ctx.inputs.reduce<number[] | null>((s, v) => broadcastShapes(s, v.shape), ctx.input(0).shape);
  return [
    ctx.out(
      ctx.emit(
        'Sum',
        ctx.inputs.map((_, i) => ctx.use(i)),
      ),
      ctx.input(0).dtype,
      shape,
    ),
  ];
};

/** TF: min(max(x, lo), hi), with lo/hi broadcastable tensors (ONNX Clip wants scalars). */
const clipByValue: OpConverter = (ctx) => {
  const lo = ctx.emit('Max', [ctx.use(0), ctx.use(1)]);
  return [ctx.out(ctx.emit('Min', [lo, ctx.use(2)]), ctx.input(0).dtype, ctx.input(0).shape)];
};

/** SelectV2 broadcasts like ONNX Where; TF1 Select also takes a vector condition picking rows. */
const select: OpConverter = (ctx) => {
  const [c, x, y] = [ctx.input(0), ctx.input(1), ctx.input(2)];
  let cond = ctx.use(0);
  if (ctx.op === 'Select') {
    const xr = ctx.rank(1);
    const cr = ctx.rank(0);
    if (cr === 1 && xr > 1)
      cond = ctx.emit('Unsqueeze', [
        cond,
        ctx.int64s(
          Array.from({ length: xr - 1 }, (_, k) => k + 1),
          'axes',
        ),
      ]);
    else if (cr !== xr) ctx.fail(`Select with a rank-${cr} condition on rank-${xr} values`);
  }
  const shape = broadcastShapes(broadcastShapes(c.shape, x.shape), y.shape);
  return [ctx.out(ctx.emit('Where', [cond, ctx.use(1), ctx.use(2)]), x.dtype, shape)];
};

const softmax =
  (onnxOp: string): OpConverter =>
  (ctx) => [same(ctx, ctx.emit(onnxOp, [ctx.use(0)], { axis: -1 }))];

const zerosLike =
  (value: number): OpConverter =>
  (ctx) => {
    const x = ctx.input(0);
    const shape = ctx.emit('Shape', [ctx.use(0)]);
    const filled = ctx.emit('ConstantOfShape', [shape], {
      value: { tensor: { dtype: x.dtype === 'bool' ? 'bool' : x.dtype, shape: [1], values: valueArray(x.dtype, value) } },
    });
    return [ctx.out(filled, x.dtype, x.shape)];
  };

function valueArray(dtype: DType, v: number) {
  switch (dtype) {
    case 'float32':
      return Float32Array.of(v);
    case 'float64':
      return Float64Array.of(v);
    case 'int32':
      return Int32Array.of(v);
    case 'int64':
      return BigInt64Array.of(BigInt(v));
    case 'bool':
      return Uint8Array.of(v);
    default:
      throw new Error(`ZerosLike of ${dtype}`);
  }
}

/**
 * Bucketize (core/kernels/bucketize_op.cc): std::upper_bound of each value over the sorted float
 * boundaries, compared as C++ compares `value < boundary` (an integer converted to float, a
 * double against the boundary widened). For sorted boundaries the upper bound is the count of
 * boundaries b with !(x < b) — NaN lands in the last bucket, as in TF.
 */
function bucketize(ctx: OpContext): TfValue[] {
  const x = ctx.input(0);
  if (!['float32', 'float64', 'int32', 'int64'].includes(x.dtype)) ctx.fail(`Bucketize on ${x.dtype}`);
  const boundaries = (ctx.attr('boundaries')?.list?.f ?? []).map(Number);
  if (boundaries.some((b, i) => i > 0 && b < boundaries[i - 1])) ctx.fail('Expected sorted boundaries');
  // No boundaries: every value in bucket 0.
  if (!boundaries.length) {
    const zeros = ctx.emit('ConstantOfShape', [ctx.emit('Shape', [ctx.use(0)])], {
      value: { tensor: { dtype: 'int32', shape: [1], values: Int32Array.of(0) } },
    });
    return [ctx.out(zeros, 'int32', x.shape)];
  }
  const as: DType = x.dtype === 'float64' ? 'float64' : 'float32';
  const value = x.dtype === as ? ctx.use(0) : ctx.emit('Cast', [ctx.use(0)], { to: ONNX_TYPE[as] }, 'as_float');
  const bounds = ctx.constTensor(
    { dtype: as, shape: [boundaries.length], values: as === 'float64' ? Float64Array.from(boundaries) : Float32Array.from(boundaries) },
    'boundaries',
  );
  const below = ctx.emit('Less', [ctx.emit('Unsqueeze', [value, ctx.int64s([-1], 'last')], {}, 'value'), bounds], {}, 'below');
  const passed = ctx.emit('Cast', [ctx.emit('Not', [below], {}, 'passed')], { to: ONNX_TYPE.int32 }, 'passed_i32');
  // Reshaped to x's shape rather than reduced with keepdims 0: ONNX Runtime 1.30 keeps the
  // reduced axis of an empty input then ([0, 3] with 2 boundaries gave [0, 3, 2]).
  const counts = ctx.emit('ReduceSum', [passed, ctx.int64s([-1], 'axis')], { keepdims: 1 }, 'counts');
  return [ctx.out(ctx.emit('Reshape', [counts, ctx.emit('Shape', [ctx.use(0)], {}, 'shape')]), 'int32', x.shape)];
}

export const ELEMENTWISE_OPS: Record<string, OpConverter> = {
  Add: binary('Add'),
  AddV2: binary('Add'),
  Sub: binary('Sub'),
  Mul: binary('Mul'),
  RealDiv: binary('Div'),
  Div: div,
  DivNoNan: divNoNan,
  FloorDiv: floorDiv,
  FloorMod: floorMod,
  Maximum: binary('Max'),
  Minimum: binary('Min'),
  Pow: binary('Pow'),
  SquaredDifference: squaredDifference,
  Equal: binary('Equal', 'bool'),
  NotEqual: notEqual,
  Less: binary('Less', 'bool'),
  LessEqual: binary('LessOrEqual', 'bool'),
  Greater: binary('Greater', 'bool'),
  GreaterEqual: binary('GreaterOrEqual', 'bool'),
  LogicalAnd: binary('And', 'bool'),
  LogicalOr: binary('Or', 'bool'),
  LogicalNot: unary('Not', {}, false),
  AddN: addN,
  Relu: unary('Relu', {}, false),
  Relu6: relu6,
  Elu: unary('Elu'),
  Selu: selu,
  LeakyRelu: leakyRelu,
  Sigmoid: unary('Sigmoid'),
  Tanh: unary('Tanh'),
  Softplus: unary('Softplus'),
  Softsign: unary('Softsign'),
  Softmax: softmax('Softmax'),
  LogSoftmax: softmax('LogSoftmax'),
  Exp: unary('Exp'),
  Log: unary('Log'),
  Sqrt: unary('Sqrt'),
  Rsqrt: rsqrt,
  Square: square,
  Reciprocal: unary('Reciprocal'),
  Inv: unary('Reciprocal'),
  Neg: unary('Neg', {}, false),
  Abs: unary('Abs', {}, false),
  Sign: unary('Sign', {}, false),
  Floor: unary('Floor'),
  Ceil: unary('Ceil'),
  // TF rounds half to even, as ONNX Round does.
  Round: unary('Round'),
  Erf: unary('Erf'),
  Sin: unary('Sin'),
  Cos: unary('Cos'),
  Tan: unary('Tan'),
  Asin: unary('Asin'),
  Acos: unary('Acos'),
  Atan: unary('Atan'),
  Sinh: unary('Sinh'),
  Cosh: unary('Cosh'),
  IsNan: (ctx) => [ctx.out(ctx.emit('IsNaN', [ctx.use(0)]), 'bool', ctx.input(0).shape)],
  IsInf: (ctx) => [ctx.out(ctx.emit('IsInf', [ctx.use(0)]), 'bool', ctx.input(0).shape)],
  Cast: cast,
  Identity: identity,
  Snapshot: identity,
  StopGradient: identity,
  PreventGradient: identity,
  PlaceholderWithDefault: identity,
  ClipByValue: clipByValue,
  Select: select,
  SelectV2: select,
  ZerosLike: zerosLike(0),
  OnesLike: zerosLike(1),
  Bucketize: bucketize,
};
