// How large a graph's tensors will be, known before anything runs: shapes propagated from the
// feeds' shapes and the graph's constants (and the small integer vectors shapes are computed
// from: Fill's dims, Tile's multiples, Pad's paddings, OneHot's depth, Reshape's shape …).
// A load refuses a graph whose known sizes exceed its memory bound (load_bounds.ts) before
// any engine allocates them: at preparation with the signature's declared shapes, and before
// a verification or warmup run with that run's inputs. Where a size depends on values only a
// run computes, it is unknown and not checked: the bound is a refusal of what is certainly
// too large, never a guess.
//
// Two checks, both naming the op and node at fault:
// - one tensor over the bound (TF would fail the allocation: RESOURCE_EXHAUSTED, "OOM when
//   allocating tensor with shape[…] and type …");
// - the tensors alive at once, in the graph's order with each freed after its last consumer,
//   over the bound (many tensors each under it). Constants are the version's own weights,
//   counted in its size, not here.
import { Code, ServingError } from '../../errors/status.js';
import { bytesPerElement, dtypeFromTf, tfDataTypeString } from '../../tensor/dtype.js';
import { hostTensorFromProto, shapeFromProto, type TensorProtoObject } from '../tensor_proto.js';
import type { LoadMemoryBound } from '../load_bounds.js';
import { parseTensorName } from './graph_flattener.js';
import type { AttrValue, NodeDef } from './types.js';

/** What is known of a tensor before it is computed. */
export interface TensorFacts {
  /** DataType name, when known. */
  dtype?: string;
  /** Dims (-1 unknown), or null for unknown rank. */
  shape: number[] | null;
  /** Its elements, for small integer tensors whose values are known (shape arithmetic). */
  values?: number[];
}

/** Integer tensors up to this many elements carry their values. */
const MAX_KNOWN_VALUES = 64;
/** What a string element costs at least (its object on the heap), for sizes. */
const STRING_ELEMENT_BYTES = 16;

const UNKNOWN: TensorFacts = { shape: null };

const attrOf = (n: NodeDef, name: string): AttrValue | undefined => n.attr?.[name];
const attrInt = (n: NodeDef, name: string, dflt = 0) => Number(attrOf(n, name)?.i ?? dflt);
const attrInts = (n: NodeDef, name: string) => (attrOf(n, name)?.list?.i ?? []).map(Number);
const attrStr = (n: NodeDef, name: string, dflt = '') => {
  const s = attrOf(n, name)?.s;
  return s ? new TextDecoder().decode(s) : dflt;
};
const attrType = (n: NodeDef, name: string) => attrOf(n, name)?.type;

function known(shape: number[] | null): shape is number[] {
  return shape !== null && shape.every((d) => d >= 0);
}

function elements(shape: readonly number[]): number {
  let n = 1;
  for (const d of shape) n *= d;
  return n;
}

/** Bytes of a tensor of `facts`, or undefined when its dtype or shape is not fully known. */
function tensorBytes(facts: TensorFacts): number | undefined {
  if (!facts.dtype || !known(facts.shape)) return undefined;
  const dtype = dtypeFromTf(facts.dtype);
  const n = elements(facts.shape);
  if (!dtype) return n * 8;
  return n * (dtype === 'string' ? STRING_ELEMENT_BYTES : bytesPerElement(dtype));
}

const isInt = (dtype: string | undefined) => !!dtype && /^DT_U?INT(8|16|32|64)$/.test(dtype.replace(/_REF$/, ''));

function withValues(dtype: string | undefined, shape: number[], values: number[] | undefined): TensorFacts {
  return values && values.length <= MAX_KNOWN_VALUES && values.every(Number.isFinite) ? { dtype, shape, values } : { dtype, shape };
}

/** numpy broadcasting; -1 where unknown; null when a rank is unknown or the shapes do not broadcast. */
function broadcast(a: number[] | null, b: number[] | null): number[] | null {
  if (!a || !b) return null;
  const rank = Math.max(a.length, b.length);
  const out: number[] = [];
  for (let i = 0; i < rank; i++) {
    const x = a[a.length - rank + i] ?? 1;
    const y = b[b.length - rank + i] ?? 1;
    if (x === 1) out.push(y);
    else if (y === 1 || x === y) out.push(x);
    else if (x === -1 || y === -1) out.push(Math.max(x, y) > 1 ? Math.max(x, y) : -1);
    else return null;
  }
  return out;
}

/** The integer ops shape computations use (Shape → Mul → Reshape …), as folded on known values. */
export const SHAPE_ARITHMETIC: Record<string, (x: number, y: number) => number> = {
  Add: (x, y) => x + y,
  AddV2: (x, y) => x + y,
  Sub: (x, y) => x - y,
  Mul: (x, y) => x * y,
  FloorDiv: (x, y) => Math.floor(x / y),
  Maximum: Math.max,
  Minimum: Math.min,
};

const SAME_SHAPE = new Set([
  'Identity',
  'Snapshot',
  'StopGradient',
  'PreventGradient',
  'CheckNumerics',
  'EnsureShape',
  'Relu',
  'Relu6',
  'Elu',
  'Selu',
  'LeakyRelu',
  'Tanh',
  'Sigmoid',
  'Neg',
  'Abs',
  'Exp',
  'Expm1',
  'Log',
  'Log1p',
  'Sqrt',
  'Rsqrt',
  'Square',
  'Floor',
  'Ceil',
  'Round',
  'Sin',
  'Cos',
  'Tan',
  'Softplus',
  'Softsign',
  'Softmax',
  'LogSoftmax',
  'Erf',
  'Sign',
  'Reciprocal',
  'LogicalNot',
  'ZerosLike',
  'OnesLike',
  'Cumsum',
  'Cumprod',
  'ClipByValue',
  'BiasAdd',
  'FakeQuantWithMinMaxArgs',
  'FakeQuantWithMinMaxVars',
  'FakeQuantWithMinMaxVarsPerChannel',
  'ReverseV2',
  'ReverseSequence',
  'LRN',
  'FusedBatchNorm',
  'FusedBatchNormV2',
  'FusedBatchNormV3',
  'Atan',
  'Asin',
  'Acos',
  'Sinh',
  'Cosh',
  'IsNan',
  'IsInf',
  'IsFinite',
]);
const BROADCAST = new Set([
  'Add',
  'AddV2',
  'Sub',
  'Mul',
  'RealDiv',
  'Div',
  'DivNoNan',
  'FloorDiv',
  'FloorMod',
  'Mod',
  'Maximum',
  'Minimum',
  'Pow',
  'SquaredDifference',
  'Atan2',
  'Equal',
  'NotEqual',
  'Less',
  'LessEqual',
  'Greater',
  'GreaterEqual',
  'LogicalAnd',
  'LogicalOr',
]);
const COMPARISON = new Set([
  'Equal',
  'NotEqual',
  'Less',
  'LessEqual',
  'Greater',
  'GreaterEqual',
  'LogicalAnd',
  'LogicalOr',
  'IsNan',
  'IsInf',
  'IsFinite',
]);
const REDUCTIONS = new Set(['Sum', 'Mean', 'Max', 'Min', 'Prod', 'All', 'Any', 'EuclideanNorm']);

/** Output spatial size of a window op (TF's GetWindowedOutputSize), -1 when unknown. */
function windowed(size: number, k: number, stride: number, dilation: number, padding: string): number {
  if (size < 0 || k <= 0 || stride <= 0) return -1;
  const eff = (k - 1) * dilation + 1;
  if (padding === 'SAME') return Math.ceil(size / stride);
  if (padding === 'VALID') return Math.max(0, Math.floor((size - eff + stride) / stride));
  return -1;
}

/** Facts of `node`'s outputs (index 0 unless the op has several), from its inputs' facts. */
function inferOutputs(node: NodeDef, inputs: TensorFacts[]): TensorFacts[] {
  const x = inputs[0] ?? UNKNOWN;
  const T = attrType(node, 'T');
  const op = node.op;
  if (SAME_SHAPE.has(op)) {
    const dtype = COMPARISON.has(op) ? 'DT_BOOL' : (T ?? x.dtype);
    return [op === 'Identity' || op === 'Snapshot' || op === 'StopGradient' ? { ...x, dtype } : { dtype, shape: x.shape }];
  }
  if (BROADCAST.has(op)) {
    const y = inputs[1] ?? UNKNOWN;
    const shape = broadcast(x.shape, y.shape);
    const dtype = COMPARISON.has(op) ? 'DT_BOOL' : (T ?? x.dtype);
    const f = Object.hasOwn(SHAPE_ARITHMETIC, op) ? SHAPE_ARITHMETIC[op] : undefined;
    if (f && x.values && y.values && shape && known(shape) && isInt(dtype)) {
      const n = elements(shape);
      const at = (v: number[], i: number) => v[v.length === 1 ? 0 : i];
      return [
        withValues(
          dtype,
          shape,
          Array.from({ length: n }, (_, i) => f(at(x.values!, i), at(y.values!, i))),
        ),
      ];
    }
    return [{ dtype, shape }];
  }
  switch (op) {
    case 'Cast':
      return [
        { dtype: attrType(node, 'DstT'), shape: x.shape, values: isInt(attrType(node, 'DstT')) ? x.values?.map(Math.trunc) : undefined },
      ];
    case 'Select':
    case 'SelectV2':
      return [{ dtype: T ?? inputs[1]?.dtype, shape: broadcast(broadcast(x.shape, inputs[1]?.shape ?? null), inputs[2]?.shape ?? null) }];
    case 'AddN':
      return [{ dtype: T ?? x.dtype, shape: x.shape }];
    case 'Shape':
    case 'Size':
    case 'Rank': {
      const dtype = attrType(node, 'out_type') ?? 'DT_INT32';
      if (op === 'Rank') return [withValues('DT_INT32', [], x.shape ? [x.shape.length] : undefined)];
      if (op === 'Size') return [withValues(dtype, [], known(x.shape) ? [elements(x.shape)] : undefined)];
      return [withValues(dtype, [x.shape ? x.shape.length : -1], known(x.shape) ? [...x.shape] : undefined)];
    }
    case 'Fill':
      return [
        {
          dtype: T ?? inputs[1]?.dtype,
          shape: x.values ?? (known(x.shape) && x.shape.length === 1 ? new Array<number>(x.shape[0]).fill(-1) : null),
        },
      ];
    case 'BroadcastTo':
      return [{ dtype: T ?? x.dtype, shape: inputs[1]?.values ?? null }];
    case 'Tile': {
      const m = inputs[1]?.values;
      if (!x.shape || !m || m.length !== x.shape.length) return [{ dtype: T ?? x.dtype, shape: x.shape ? x.shape.map(() => -1) : null }];
      return [{ dtype: T ?? x.dtype, shape: x.shape.map((d, i) => (d < 0 ? -1 : d * m[i])) }];
    }
    case 'Pad':
    case 'PadV2':
    case 'MirrorPad': {
      const p = inputs[1]?.values;
      if (!x.shape || !p || p.length !== 2 * x.shape.length)
        return [{ dtype: T ?? x.dtype, shape: x.shape ? x.shape.map(() => -1) : null }];
      return [{ dtype: T ?? x.dtype, shape: x.shape.map((d, i) => (d < 0 ? -1 : d + p[2 * i] + p[2 * i + 1])) }];
    }
    case 'OneHot': {
      const depth = inputs[1]?.values?.[0] ?? -1;
      if (!x.shape) return [{ dtype: T, shape: null }];
      const axis = attrInt(node, 'axis', -1);
      const shape = [...x.shape];
      shape.splice(axis < 0 ? shape.length : axis, 0, depth);
      return [{ dtype: T, shape }];
    }
    case 'Reshape': {
      const target = inputs[1]?.values;
      if (!target)
        return [
          {
            dtype: T ?? x.dtype,
            shape: inputs[1]?.shape && known(inputs[1].shape) ? new Array<number>(inputs[1].shape[0] ?? 0).fill(-1) : null,
          },
        ];
      const shape = [...target];
      const free = shape.indexOf(-1);
      if (free >= 0 && known(x.shape)) {
        const rest = elements(shape.filter((_, i) => i !== free));
        shape[free] = rest > 0 ? elements(x.shape) / rest : 0;
        if (!Number.isInteger(shape[free])) shape[free] = -1;
      }
      return [withValues(T ?? x.dtype, shape, x.values)];
    }
    case 'ExpandDims': {
      const axis = inputs[1]?.values?.[0];
      if (!x.shape || axis === undefined) return [{ dtype: T ?? x.dtype, shape: null }];
      const shape = [...x.shape];
      shape.splice(axis < 0 ? shape.length + 1 + axis : axis, 0, 1);
      return [withValues(T ?? x.dtype, shape, x.values)];
    }
    case 'Squeeze': {
      if (!x.shape) return [{ dtype: T ?? x.dtype, shape: null }];
      const dims = attrInts(node, 'squeeze_dims').map((d) => (d < 0 ? d + x.shape!.length : d));
      if (!dims.length && x.shape.includes(-1)) return [{ dtype: T ?? x.dtype, shape: null }];
      return [
        withValues(
          T ?? x.dtype,
          x.shape.filter((d, i) => (dims.length ? !dims.includes(i) : d !== 1)),
          x.values,
        ),
      ];
    }
    case 'ConcatV2': {
      const parts = inputs.slice(0, -1);
      const axis = inputs[inputs.length - 1]?.values?.[0];
      const rank = parts.find((p) => p.shape)?.shape?.length;
      if (axis === undefined || rank === undefined || parts.some((p) => !p.shape || p.shape.length !== rank))
        return [{ dtype: T, shape: null }];
      const a = axis < 0 ? axis + rank : axis;
      const shape = parts[0].shape!.map((d, i) =>
        i === a
          ? parts.some((p) => p.shape![a] < 0)
            ? -1
            : parts.reduce((s, p) => s + p.shape![a], 0)
          : (parts.find((p) => p.shape![i] >= 0)?.shape![i] ?? d),
      );
      const values = rank === 1 && parts.every((p) => p.values) ? parts.flatMap((p) => p.values!) : undefined;
      return [withValues(T, shape, values)];
    }
    case 'Pack': {
      const axis = attrInt(node, 'axis');
      const rank = x.shape?.length;
      if (rank === undefined) return [{ dtype: T, shape: null }];
      const shape = [...x.shape!];
      shape.splice(axis < 0 ? rank + 1 + axis : axis, 0, inputs.length);
      const values = rank === 0 && inputs.every((i) => i.values?.length === 1) ? inputs.map((i) => i.values![0]) : undefined;
      return [withValues(T, shape, values)];
    }
    case 'Transpose': {
      const perm = inputs[1]?.values;
      if (!x.shape || !perm || perm.length !== x.shape.length)
        return [{ dtype: T ?? x.dtype, shape: x.shape ? x.shape.map(() => -1) : null }];
      return [{ dtype: T ?? x.dtype, shape: perm.map((p) => x.shape![p] ?? -1) }];
    }
    case 'MatMul': {
      const y = inputs[1] ?? UNKNOWN;
      if (x.shape?.length !== 2 || y.shape?.length !== 2) return [{ dtype: T, shape: [-1, -1] }];
      return [{ dtype: T, shape: [x.shape[attrOf(node, 'transpose_a')?.b ? 1 : 0], y.shape[attrOf(node, 'transpose_b')?.b ? 0 : 1]] }];
    }
    case 'BatchMatMul':
    case 'BatchMatMulV2':
    case 'BatchMatMulV3': {
      const y = inputs[1] ?? UNKNOWN;
      if (!x.shape || !y.shape || x.shape.length < 2 || y.shape.length < 2) return [{ dtype: T ?? attrType(node, 'Tout'), shape: null }];
      const batch = broadcast(x.shape.slice(0, -2), y.shape.slice(0, -2));
      const m = x.shape[x.shape.length - (attrOf(node, 'adj_x')?.b ? 1 : 2)];
      const n = y.shape[y.shape.length - (attrOf(node, 'adj_y')?.b ? 2 : 1)];
      return [{ dtype: T ?? attrType(node, 'Tout'), shape: batch ? [...batch, m, n] : null }];
    }
    case 'Conv2D':
    case 'DepthwiseConv2dNative':
    case 'MaxPool':
    case 'AvgPool': {
      if (x.shape?.length !== 4) return [{ dtype: T, shape: null }];
      const nchw = attrStr(node, 'data_format', 'NHWC') === 'NCHW';
      const [h, w, c] = nchw ? [2, 3, 1] : [1, 2, 3];
      const strides = attrInts(node, 'strides');
      const dil = attrInts(node, 'dilations');
      const padding = attrStr(node, 'padding');
      let kh: number;
      let kw: number;
      let channels: number;
      if (op === 'MaxPool' || op === 'AvgPool') {
        const k = attrInts(node, 'ksize');
        [kh, kw, channels] = [k[h] ?? -1, k[w] ?? -1, x.shape[c]];
      } else {
        const f = inputs[1]?.shape;
        if (f?.length !== 4) return [{ dtype: T, shape: null }];
        [kh, kw] = [f[0], f[1]];
        channels = op === 'Conv2D' ? f[3] : f[3] >= 0 && x.shape[c] >= 0 ? f[3] * x.shape[c] : -1;
      }
      const out = [...x.shape];
      out[h] = windowed(x.shape[h], kh, strides[h] ?? 1, dil[h] ?? 1, padding);
      out[w] = windowed(x.shape[w], kw, strides[w] ?? 1, dil[w] ?? 1, padding);
      out[c] = channels;
      return [{ dtype: T, shape: out }];
    }
    case 'ArgMax':
    case 'ArgMin':
    case 'Sum':
    case 'Mean':
    case 'Max':
    case 'Min':
    case 'Prod':
    case 'All':
    case 'Any':
    case 'EuclideanNorm': {
      const arg = op === 'ArgMax' || op === 'ArgMin';
      const dtype = arg
        ? (attrType(node, 'output_type') ?? 'DT_INT64')
        : REDUCTIONS.has(op) && (op === 'All' || op === 'Any')
          ? 'DT_BOOL'
          : T;
      const axes = inputs[1]?.values;
      if (!x.shape || !axes) return [{ dtype, shape: null }];
      const rank = x.shape.length;
      const drop = new Set(axes.map((a) => (a < 0 ? a + rank : a)));
      const keep = !arg && attrOf(node, 'keep_dims')?.b;
      return [{ dtype, shape: x.shape.flatMap((d, i) => (drop.has(i) ? (keep ? [1] : []) : [d])) }];
    }
    case 'Range': {
      const [s, l, d] = [0, 1, 2].map((i) => inputs[i]?.values?.[0]);
      const dtype = attrType(node, 'Tidx') ?? x.dtype;
      if (s === undefined || l === undefined || d === undefined || d === 0) return [{ dtype, shape: [-1] }];
      const n = Math.max(0, Math.ceil((l - s) / d));
      return [withValues(dtype, [n], isInt(dtype) && n <= MAX_KNOWN_VALUES ? Array.from({ length: n }, (_, i) => s + i * d) : undefined)];
    }
    case 'Slice': {
      const begin = inputs[1]?.values;
      const size = inputs[2]?.values;
      if (!size) return [{ dtype: T ?? x.dtype, shape: x.shape ? x.shape.map(() => -1) : null }];
      return [
        { dtype: T ?? x.dtype, shape: size.map((s, i) => (s >= 0 ? s : x.shape && x.shape[i] >= 0 && begin ? x.shape[i] - begin[i] : -1)) },
      ];
    }
    case 'GatherV2':
    case 'Gather': {
      const params = x.shape;
      const idx = inputs[1]?.shape;
      const axis = op === 'Gather' ? 0 : inputs[2]?.values?.[0];
      const dtype = attrType(node, 'Tparams') ?? x.dtype;
      if (!params || !idx || axis === undefined || attrInt(node, 'batch_dims') !== 0) return [{ dtype, shape: null }];
      const a = axis < 0 ? axis + params.length : axis;
      return [{ dtype, shape: [...params.slice(0, a), ...idx, ...params.slice(a + 1)] }];
    }
    case 'ResizeBilinear':
    case 'ResizeNearestNeighbor':
    case 'ResizeBicubic': {
      const size = inputs[1]?.values;
      const dtype = op === 'ResizeNearestNeighbor' ? T : 'DT_FLOAT';
      if (x.shape?.length !== 4 || !size || size.length !== 2)
        return [{ dtype, shape: x.shape?.length === 4 ? [x.shape[0], -1, -1, x.shape[3]] : null }];
      return [{ dtype, shape: [x.shape[0], size[0], size[1], x.shape[3]] }];
    }
    case 'StridedSlice':
      return [stridedSliceFacts(node, inputs)];
    default:
      return [];
  }
}

/** A rank-1 StridedSlice of known elements (Keras' Shape → StridedSlice → Pack chains); else unknown. */
function stridedSliceFacts(node: NodeDef, inputs: TensorFacts[]): TensorFacts {
  const x = inputs[0] ?? UNKNOWN;
  const dtype = attrType(node, 'T') ?? x.dtype;
  const [begin, end, strides] = [1, 2, 3].map((i) => inputs[i]?.values);
  if (
    !x.values ||
    x.shape?.length !== 1 ||
    !begin ||
    !end ||
    !strides ||
    begin.length !== 1 ||
    attrInt(node, 'ellipsis_mask') ||
    attrInt(node, 'new_axis_mask')
  ) {
    return { dtype, shape: null };
  }
  const n = x.values.length;
  const step = strides[0];
  if (step === 0) return { dtype, shape: null };
  if (attrInt(node, 'shrink_axis_mask') & 1) {
    const i = begin[0] < 0 ? begin[0] + n : begin[0];
    return i >= 0 && i < n ? withValues(dtype, [], [x.values[i]]) : { dtype, shape: [] };
  }
  const clamp = (v: number, lo: number, hi: number) => Math.max(lo, Math.min(hi, v));
  const norm = (v: number) => (v < 0 ? v + n : v);
  let start = attrInt(node, 'begin_mask') & 1 ? (step > 0 ? 0 : n - 1) : norm(begin[0]);
  let stop = attrInt(node, 'end_mask') & 1 ? (step > 0 ? n : -1) : norm(end[0]);
  start = step > 0 ? clamp(start, 0, n) : clamp(start, -1, n - 1);
  stop = step > 0 ? clamp(stop, 0, n) : clamp(stop, -1, n - 1);
  const out: number[] = [];
  for (let i = start; step > 0 ? i < stop : i > stop; i += step) out.push(x.values[i]);
  return withValues(dtype, [out.length], out);
}

/** What is known of a Const's value without expanding it (its declared shape; small integer values). */
function constFacts(node: NodeDef): TensorFacts {
  const proto = (attrOf(node, 'value')?.tensor ?? {}) as TensorProtoObject;
  const dtype = proto.dtype ?? attrType(node, 'dtype');
  const shape = shapeFromProto(proto.tensorShape);
  if (!shape || !shape.every((d) => Number.isSafeInteger(d) && d >= 0)) return { dtype, shape: null };
  const facts: TensorFacts = { dtype, shape };
  if (isInt(dtype) && elements(shape) <= MAX_KNOWN_VALUES) {
    try {
      const t = hostTensorFromProto(proto);
      facts.values = Array.from(t.values as ArrayLike<number | bigint>, Number);
    } catch {
      // A malformed constant is the engine's to refuse; nothing is known of its values.
    }
  }
  return facts;
}

function overBound(node: NodeDef, facts: TensorFacts, bytes: number, bound: LoadMemoryBound): ServingError {
  const type = facts.dtype ? tfDataTypeString(facts.dtype) : 'unknown';
  return new ServingError(
    Code.RESOURCE_EXHAUSTED,
    `OOM when allocating tensor with shape[${facts.shape!.join(',')}] and type ${type}: ${node.op} (node ${node.name}) would make a tensor of ${bytes} bytes, over this load's memory bound of ${bound.bytes} bytes (${bound.rule})`,
  );
}

function liveOverBound(node: NodeDef, bytes: number, bound: LoadMemoryBound): ServingError {
  return new ServingError(
    Code.RESOURCE_EXHAUSTED,
    `the tensors alive when ${node.op} (node ${node.name}) runs would take ${bytes} bytes, over this load's memory bound of ${bound.bytes} bytes (${bound.rule})`,
  );
}

/** A feed's facts: its dtype, its shape (-1 for open dims), and for small integer feeds their values. */
export type Feeds = ReadonlyMap<string, TensorFacts>;

/**
 * Refuses `nodes` (dependency order) when a tensor's known size, or the known sizes of the
 * tensors alive at one time, exceed `bound` (RESOURCE_EXHAUSTED naming the op and node).
 * `feeds` gives each placeholder's facts (its own attrs otherwise).
 */
export function checkTensorSizes(nodes: readonly NodeDef[], feeds: Feeds, bound: LoadMemoryBound): void {
  const facts = new Map<string, TensorFacts[]>();
  const lastUse = new Map<string, number>();
  nodes.forEach((n, i) => {
    for (const ref of n.input ?? []) if (!ref.startsWith('^')) lastUse.set(parseTensorName(ref)[0], i);
  });
  const liveBytes = new Map<string, number>();
  let live = 0;
  nodes.forEach((node, i) => {
    let outs: TensorFacts[];
    if (node.op === 'Const') outs = [constFacts(node)];
    else if (node.op === 'Placeholder') {
      const fed = feeds.get(node.name);
      outs = [fed ?? { dtype: attrType(node, 'dtype'), shape: shapeFromProto(attrOf(node, 'shape')?.shape) }];
    } else if (node.op === 'PlaceholderWithDefault' && feeds.has(node.name)) outs = [feeds.get(node.name)!];
    else {
      const inputs = (node.input ?? [])
        .filter((r) => !r.startsWith('^'))
        .map((r) => {
          const [src, k] = parseTensorName(r);
          return facts.get(src)?.[k] ?? UNKNOWN;
        });
      outs = node.op === 'PlaceholderWithDefault' ? [inputs[0] ?? UNKNOWN] : inferOutputs(node, inputs);
    }
    facts.set(node.name, outs);
    let made = 0;
    for (const f of outs) {
      const bytes = tensorBytes(f);
      if (bytes === undefined) continue;
      if (bytes > bound.bytes) throw overBound(node, f, bytes, bound);
      made += bytes;
    }
    // Constants and feeds are held anyway (the version's weights, the request): count what runs make.
    if (node.op !== 'Const' && node.op !== 'Placeholder' && made > 0) {
      live += made;
      liveBytes.set(node.name, made);
      if (live > bound.bytes) throw liveOverBound(node, live, bound);
    }
    for (const ref of node.input ?? []) {
      const src = parseTensorName(ref.replace(/^\^/, ''))[0];
      if (lastUse.get(src) === i && liveBytes.has(src)) {
        live -= liveBytes.get(src)!;
        liveBytes.delete(src);
      }
    }
  });
}

/** Refuses a constant whose declared size (a broadcast scalar may declare billions of elements) exceeds `bound`, before it is expanded. */
export function checkConstSizes(nodes: readonly NodeDef[], bound: LoadMemoryBound): void {
  for (const n of nodes) {
    if (n.op !== 'Const') continue;
    const f = constFacts(n);
    const bytes = tensorBytes(f);
    if (bytes !== undefined && bytes > bound.bytes) throw overBound(n, f, bytes, bound);
  }
}

/** A signature's graph as the sizes of a run need it: constants slimmed to their dtype and shape (and small values). */
export interface SizeGraph {
  nodes: NodeDef[];
  /** Signature input key → the placeholder it feeds (null: unused). */
  inputs: Record<string, string | null>;
}

/** `nodes` without the bulk of their constants (a large Const keeps its dtype and shape only). */
export function sizeGraph(nodes: readonly NodeDef[], inputs: Record<string, string | null>): SizeGraph {
  const slim = nodes.map((n) => {
    if (n.op !== 'Const') return n;
    const proto = (n.attr?.value?.tensor ?? {}) as TensorProtoObject;
    const shape = shapeFromProto(proto.tensorShape);
    if (shape && shape.every((d) => d >= 0) && elements(shape) <= MAX_KNOWN_VALUES) return n;
    return { ...n, attr: { ...n.attr, value: { tensor: { dtype: proto.dtype, tensorShape: proto.tensorShape } } } };
  });
  return { nodes: slim, inputs };
}

/** Small integer inputs carry their values (a Fill's dims may come from a feed). */
function feedFacts(t: { dtype: string; shape: number[]; values: unknown }): TensorFacts {
  const dtype =
    t.dtype === 'float32' ? 'DT_FLOAT' : `DT_${t.dtype.toUpperCase()}`.replace('DT_FLOAT64', 'DT_DOUBLE').replace('DT_FLOAT16', 'DT_HALF');
  const n = elements(t.shape);
  if ((t.dtype === 'int32' || t.dtype === 'int64') && n <= MAX_KNOWN_VALUES) {
    return { dtype, shape: [...t.shape], values: Array.from(t.values as ArrayLike<number | bigint>, Number) };
  }
  return { dtype, shape: [...t.shape] };
}

/** The check made before each run a load makes (verification, warmup): the run's inputs against the load's bound. */
export class LoadRunCheck {
  constructor(
    private readonly graphs: ReadonlyMap<string, SizeGraph>,
    readonly bound: LoadMemoryBound,
  ) {}

  /** Refuses (RESOURCE_EXHAUSTED, naming the op and node) a run of `key` on `inputs` over the bound. */
  check(key: string, inputs: Record<string, { dtype: string; shape: number[]; values: unknown }>): void {
    const g = this.graphs.get(key);
    if (!g) return;
    const feeds = new Map<string, TensorFacts>();
    for (const [k, placeholder] of Object.entries(g.inputs)) {
      const t = inputs[k];
      if (placeholder && t) feeds.set(placeholder, feedFacts(t));
    }
    try {
      checkTensorSizes(g.nodes, feeds, this.bound);
    } catch (e) {
      if (e instanceof ServingError) throw new ServingError(e.code, `signature '${key}': ${e.message}`);
      throw e;
    }
  }
}
