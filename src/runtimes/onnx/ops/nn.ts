// Convolutions, pooling, bias and batch normalisation. TF's default layout is NHWC and
// ONNX's Conv/Pool are NCHW: an NHWC op becomes Transpose → op → Transpose, and ONNX
// Runtime's layout optimiser removes back-to-back transposes between consecutive layers.
import type { OpContext, OpConverter, TfValue } from '../convert_context.js';
import { isFloat } from '../onnx_dtype.js';
import type { HostTensor } from '../../../tensor/host_tensor.js';
import { spatialAxes, spatialPads, TO_NCHW, TO_NHWC, transposeHost, transposeValue } from './layout.js';

interface Window {
  kernel: [number, number];
  strides: [number, number];
  dilations: [number, number];
}

/** Reads a 4-element TF attr list (strides, dilations, ksize) for the spatial dims. */
function spatialPair(ctx: OpContext, name: string, axes: [number, number], dflt = 1): [number, number] {
  const v = ctx.attrInts(name);
  if (v.length === 0) return [dflt, dflt];
  if (v.length !== 4) ctx.fail(`${name} of length ${v.length}`);
  const other = [0, 1, 2, 3].filter((i) => !axes.includes(i));
  if (other.some((i) => v[i] !== 1)) ctx.fail(`${name} [${v}] moves along the batch or channel dim`);
  return [v[axes[0]], v[axes[1]]];
}

function explicitPads(ctx: OpContext, axes: [number, number]): number[][] | undefined {
  if (ctx.attrString('padding') !== 'EXPLICIT') return undefined;
  const p = ctx.attrInts('explicit_paddings');
  if (p.length !== 8) ctx.fail(`explicit_paddings of length ${p.length}`);
  return axes.map((a) => [p[2 * a], p[2 * a + 1]]);
}

/** x in NCHW for an ONNX op, given the TF layout. */
function toNchw(ctx: OpContext, format: string): string {
  return format === 'NHWC' ? ctx.emit('Transpose', [ctx.use(0)], { perm: TO_NCHW }, 'nchw') : ctx.use(0);
}

function fromNchw(ctx: OpContext, format: string, y: string): string {
  return format === 'NHWC' ? ctx.emit('Transpose', [y], { perm: TO_NHWC }, 'nhwc') : y;
}

function outShape(x: number[] | null, format: string, spatial: number[], channels: number): number[] {
  const n = x ? x[0] : -1;
  return format === 'NHWC' ? [n, spatial[0], spatial[1], channels] : [n, channels, spatial[0], spatial[1]];
}

/**
 * Conv2D (groups when the input has k× the filter's channels) and DepthwiseConv2dNative
 * (filter [kh, kw, C, M] → ONNX [C·M, 1, kh, kw] with group C).
 */
function conv(depthwise: boolean): OpConverter {
  return (ctx) => {
    const x = ctx.input(0);
    const filter = ctx.input(1);
    if (!isFloat(x.dtype)) ctx.fail(`${ctx.op} on ${x.dtype}`);
    if (ctx.rank(0) !== 4 || ctx.rank(1) !== 4) ctx.fail(`${ctx.op} needs rank-4 input and filter`);
    const format = ctx.attrString('data_format', 'NHWC');
    const axes = spatialAxes(ctx, format);
    const cAxis = format === 'NHWC' ? 3 : 1;
    const [kh, kw, ci, co] = filter.shape!;
    if ([kh, kw, ci, co].some((d) => d < 0)) ctx.fail('filter shape known only at run time');
    const win: Window = { kernel: [kh, kw], strides: spatialPair(ctx, 'strides', axes), dilations: spatialPair(ctx, 'dilations', axes) };
    const inC = x.shape![cAxis];
    let group = 1;
    let weights: string;
    let outC: number;
    if (depthwise) {
      if (inC >= 0 && inC !== ci) ctx.fail(`depthwise input has ${inC} channels, filter ${ci}`);
      group = ci;
      outC = ci * co;
      weights = filter.value
        ? ctx.constTensor(depthwiseWeights(filter.value), 'weights')
        : ctx.emit(
            'Reshape',
            [transposeValue(ctx, 1, [2, 3, 0, 1], 'weights_t'), ctx.int64s([ci * co, 1, kh, kw], 'wshape')],
            {},
            'weights',
          );
    } else {
      if (inC < 0) ctx.fail('input channel count known only at run time');
      if (inC % ci !== 0) ctx.fail(`input has ${inC} channels, filter ${ci}`);
      group = inC / ci;
      outC = co;
      weights = transposeValue(ctx, 1, [3, 2, 0, 1], 'weights');
    }
    const pads = spatialPads(
      ctx,
      ctx.attrString('padding'),
      axes.map((a) => x.shape![a]),
      win.kernel,
      win.strides,
      win.dilations,
      explicitPads(ctx, axes),
    );
    const y = ctx.emit(
      'Conv',
      [toNchw(ctx, format), weights],
      { kernel_shape: win.kernel, strides: win.strides, dilations: win.dilations, pads: pads.pads, group },
      'conv',
    );
    return [ctx.out(fromNchw(ctx, format, y), x.dtype, outShape(x.shape, format, pads.out, outC))];
  };
}

function depthwiseWeights(f: HostTensor): HostTensor {
  const [kh, kw, c, m] = f.shape;
  const t = transposeHost(f, [2, 3, 0, 1]);
  return { ...t, shape: [c * m, 1, kh, kw] };
}

/**
 * Conv2DBackpropInput (Keras Conv2DTranspose): ONNX ConvTranspose with the forward conv's
 * pads, and output_padding making the output exactly `input_sizes` (static shapes only).
 */
const conv2dBackpropInput: OpConverter = (ctx) => {
  const sizes = ctx.constInts(0, 'input_sizes');
  const filter = ctx.input(1);
  const dy = ctx.input(2);
  if (ctx.rank(2) !== 4) ctx.fail('Conv2DBackpropInput needs a rank-4 input');
  const format = ctx.attrString('data_format', 'NHWC');
  const axes = spatialAxes(ctx, format);
  const [kh, kw, ci, co] = filter.shape ?? [];
  if ([kh, kw, ci, co].some((d) => d === undefined || d < 0)) ctx.fail('filter shape known only at run time');
  const strides = spatialPair(ctx, 'strides', axes);
  const dilations = spatialPair(ctx, 'dilations', axes);
  const outSizes = axes.map((a) => sizes[a]);
  const inSizes = axes.map((a) => dy.shape![a]);
  if (inSizes.some((d) => d < 0)) ctx.fail('spatial size known only at run time');
  // The forward conv maps the output (outSizes) to dy (inSizes); its pads are TF's.
  const fwd = spatialPads(ctx, ctx.attrString('padding'), outSizes, [kh, kw], strides, dilations, explicitPads(ctx, axes));
  const outputPadding = outSizes.map((o, i) => {
    const produced = strides[i] * (inSizes[i] - 1) + (([kh, kw][i] - 1) * dilations[i] + 1) - fwd.pads[i] - fwd.pads[i + 2];
    return o - produced;
  });
  if (outputPadding.some((p, i) => p < 0 || p >= Math.max(strides[i], dilations[i])))
    ctx.fail(`input_sizes [${sizes}] do not match the filter and strides`);
  const weights = transposeValue(ctx, 1, [3, 2, 0, 1], 'weights');
  const x = format === 'NHWC' ? ctx.emit('Transpose', [ctx.use(2)], { perm: TO_NCHW }, 'nchw') : ctx.use(2);
  const y = ctx.emit(
    'ConvTranspose',
    [x, weights],
    { kernel_shape: [kh, kw], strides, dilations, pads: fwd.pads, output_padding: outputPadding },
    'convT',
  );
  return [ctx.out(fromNchw(ctx, format, y), dy.dtype, sizes)];
};

function pool(onnxOp: 'MaxPool' | 'AveragePool'): OpConverter {
  return (ctx) => {
    const x = ctx.input(0);
    if (!isFloat(x.dtype)) ctx.fail(`${ctx.op} on ${x.dtype}`);
    if (ctx.rank(0) !== 4) ctx.fail(`${ctx.op} needs a rank-4 input`);
    const format = ctx.attrString('data_format', 'NHWC');
    const axes = spatialAxes(ctx, format);
    const kernel = spatialPair(ctx, 'ksize', axes);
    const strides = spatialPair(ctx, 'strides', axes);
    const pads = spatialPads(
      ctx,
      ctx.attrString('padding'),
      axes.map((a) => x.shape![a]),
      kernel,
      strides,
      [1, 1],
      explicitPads(ctx, axes),
    );
    // TF averages over the window's valid elements only: count_include_pad 0.
    const attrs = onnxOp === 'AveragePool' ? { count_include_pad: 0 } : {};
    const y = ctx.emit(onnxOp, [toNchw(ctx, format)], { kernel_shape: kernel, strides, pads: pads.pads, ...attrs }, 'pool');
    const c = x.shape![format === 'NHWC' ? 3 : 1];
    return [ctx.out(fromNchw(ctx, format, y), x.dtype, outShape(x.shape, format, pads.out, c))];
  };
}

/** BiasAdd: NHWC adds along the last dim (plain broadcasting); NCHW along dim 1. */
const biasAdd: OpConverter = (ctx) => {
  const x = ctx.input(0);
  let bias = ctx.use(1);
  if (ctx.attrString('data_format', 'NHWC') === 'NCHW') {
    const r = ctx.rank(0);
    if (r > 2)
      bias = ctx.emit(
        'Unsqueeze',
        [
          bias,
          ctx.int64s(
            Array.from({ length: r - 2 }, (_, k) => k + 1),
            'axes',
          ),
        ],
        {},
        'bias',
      );
  }
  return [ctx.out(ctx.emit('Add', [ctx.use(0), bias]), x.dtype, x.shape)];
};

/**
 * FusedBatchNorm (inference): y = (x − mean)·scale/√(var + ε) + offset, per channel.
 * ONNX BatchNormalization is NCHW-only; with NHWC the per-channel vectors broadcast along the
 * last axis, so it is written as Mul + Add (constants folded at conversion when known).
 */
const fusedBatchNorm: OpConverter = (ctx) => {
  if (ctx.attrBool('is_training', true)) ctx.fail(`${ctx.op} with is_training=true (training-mode statistics)`);
  const x = ctx.input(0);
  if (x.dtype !== 'float32') ctx.fail(`${ctx.op} on ${x.dtype}`);
  const eps = ctx.attrFloat('epsilon', 0.0001);
  const format = ctx.attrString('data_format', 'NHWC');
  const [scale, offset, mean, variance] = [1, 2, 3, 4].map((i) => ctx.input(i).value);
  let mul: string;
  let add: string;
  if (scale && offset && mean && variance) {
    const n = scale.values.length;
    const a = new Float32Array(n);
    const b = new Float32Array(n);
    for (let c = 0; c < n; c++) {
      a[c] = (scale.values as Float32Array)[c] / Math.sqrt((variance.values as Float32Array)[c] + eps);
      b[c] = (offset.values as Float32Array)[c] - (mean.values as Float32Array)[c] * a[c];
    }
    mul = ctx.constTensor({ dtype: 'float32', shape: [n], values: a }, 'bn_scale');
    add = ctx.constTensor({ dtype: 'float32', shape: [n], values: b }, 'bn_shift');
  } else {
    const inv = ctx.emit('Reciprocal', [ctx.emit('Sqrt', [ctx.emit('Add', [ctx.use(4), ctx.scalar('float32', eps, 'eps')])])]);
    mul = ctx.emit('Mul', [ctx.use(1), inv], {}, 'bn_scale');
    add = ctx.emit('Sub', [ctx.use(2), ctx.emit('Mul', [ctx.use(3), mul])], {}, 'bn_shift');
  }
  if (format === 'NCHW') {
    const axes = ctx.int64s(
      Array.from({ length: ctx.rank(0) - 2 }, (_, k) => k + 1),
      'axes',
    );
    mul = ctx.emit('Unsqueeze', [mul, axes], {}, 'bn_scale_c');
    add = ctx.emit('Unsqueeze', [add, axes], {}, 'bn_shift_c');
  } else if (format !== 'NHWC') ctx.fail(`data_format ${format}`);
  const y = ctx.emit('Add', [ctx.emit('Mul', [ctx.use(0), mul]), add]);
  const out: TfValue[] = [ctx.out(y, x.dtype, x.shape)];
  // batch_mean, batch_variance and the reserve spaces are for training; nothing reads them in
  // a serving graph, and one that did would be refused.
  for (let k = 1; k < 6; k++) out.push({ dtype: 'float32', shape: null, unavailable: `${ctx.op} output ${k} (a training statistic)` });
  return out;
};

export const NN_OPS: Record<string, OpConverter> = {
  BiasAdd: biasAdd,
  BiasAddV1: biasAdd,
  Conv2D: conv(false),
  DepthwiseConv2dNative: conv(true),
  Conv2DBackpropInput: conv2dBackpropInput,
  MaxPool: pool('MaxPool'),
  AvgPool: pool('AveragePool'),
  FusedBatchNorm: fusedBatchNorm,
  FusedBatchNormV2: fusedBatchNorm,
  FusedBatchNormV3: fusedBatchNorm,
};
