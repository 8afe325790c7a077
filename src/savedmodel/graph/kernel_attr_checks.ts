// What TensorFlow's kernels refuse when they are built, or on every run whatever the input,
// checked at load for the ops tfgate's engines run: a node TF would never run is refused
// with TF's message and code, instead of being handed to an engine that may run it anyway
// (ONNX Runtime refuses a zero-size pooling window, WASM then runs it and returns memory it
// never wrote). The op's registration (allowed types and strings, attr minimums) is checked
// by graph_validation.ts; these are the checks in the kernels' code, by family:
//   pooling  MaxPool, AvgPool (pooling_ops_common.h, avgpooling_op.cc), MaxPool3D, AvgPool3D
//            (pooling_ops_3d.cc): window and stride lengths, positive windows and strides, no
//            pooling over the batch;
//   conv     Conv2D, Conv2DBackpropInput (conv_ops.cc InitConv2DParameters, padding.cc
//            CheckValidPadding), DepthwiseConv2dNative (depthwise_conv_op.cc), Conv3D
//            (conv_ops_3d.cc): stride and dilation lengths and signs, batch and depth strides,
//            explicit paddings;
//   resize   ResizeBilinear, ResizeNearestNeighbor, ResizeBicubic (image_resizer_state.h):
//            half_pixel_centers with align_corners;
//   slicing  StridedSlice (strided_slice_op.cc ValidateStridedSliceOp): one ellipsis at most;
//   LRN      (lrn_op.cc): depth_radius within int;
//   and, for constant inputs (every run sees the same value): Reshape's shape
//   (reshape_op.h), Fill's dims, Pad's paddings (pad_op.cc), Range's delta and bounds
//   (sequence_ops.cc), OneHot's depth (one_hot_op.cc).
import { Code, ServingError, invalidArgument } from '../../errors/status.js';
import { hostTensorFromProto } from '../tensor_proto.js';
import { parseTensorName } from './graph_flattener.js';
import type { NodeDef } from './types.js';

const ints = (n: NodeDef, name: string): number[] | undefined => n.attr?.[name]?.list?.i?.map(Number);
const str = (n: NodeDef, name: string, dflt: string): string => {
  const s = n.attr?.[name]?.s;
  return s ? new TextDecoder().decode(s) : dflt;
};
const unimplemented = (m: string) => new ServingError(Code.UNIMPLEMENTED, m);

/** Index of dimension `dim` ('N', 'H', 'W', 'C', '0'…) in a 4-D or 5-D attr list of `format`. */
function dimIndex(format: string, dim: string, rank: number): number {
  const channelsFirst = format.startsWith('NC');
  if (dim === 'N') return 0;
  if (dim === 'C') return channelsFirst ? 1 : rank - 1;
  const spatial = rank === 5 ? { '0': 0, '1': 1, '2': 2 }[dim] : { H: 0, W: 1 }[dim as 'H' | 'W'];
  return (channelsFirst ? 2 : 1) + (spatial ?? 0);
}

/** padding.cc CheckValidPadding. */
function checkPadding(node: NodeDef, rank: number, format: string): void {
  const padding = str(node, 'padding', '');
  const explicit = ints(node, 'explicit_paddings') ?? [];
  if (padding === 'EXPLICIT') {
    if (explicit.length !== 2 * rank)
      throw invalidArgument(`explicit_paddings attribute must contain ${2 * rank} values, but got: ${explicit.length}`);
    if (explicit.some((p) => p < 0)) throw invalidArgument('All elements of explicit_paddings must be nonnegative');
    const b = dimIndex(format, 'N', rank);
    const c = dimIndex(format, 'C', rank);
    if (explicit[2 * b] || explicit[2 * b + 1] || explicit[2 * c] || explicit[2 * c + 1])
      throw invalidArgument('Nonzero explicit padding in the batch or depth dimensions is not supported');
  } else if (explicit.length) {
    throw invalidArgument('explicit_paddings attribute must be empty if the padding attribute is not EXPLICIT');
  }
}

function checkPool(node: NodeDef, rank: 4 | 5): void {
  const ksize = ints(node, 'ksize') ?? [];
  const strides = ints(node, 'strides') ?? [];
  const format = str(node, 'data_format', rank === 4 ? 'NHWC' : 'NDHWC');
  if (ksize.length !== rank) throw invalidArgument(`Sliding window ksize field must specify ${rank} dimensions`);
  if (node.op === 'MaxPool' || rank === 5) {
    ksize.forEach((k, i) => {
      if (k <= 0) throw invalidArgument(`Sliding window ksize for dimension ${i} was zero.`);
    });
  }
  if (strides.length !== rank) throw invalidArgument(`Sliding window stride field must specify ${rank} dimensions`);
  if (ksize[0] !== 1 || strides[0] !== 1) throw unimplemented('Pooling is not yet supported on the batch dimension.');
  if (node.op === 'AvgPool') {
    for (const k of ksize) if (k <= 0) throw invalidArgument(`ksize must be a positive int32 value, got:${k}`);
  }
  // PoolParameters → GetWindowedOutputSize, on every run whatever the input.
  for (const s of strides) if (s <= 0) throw invalidArgument(`Stride must be > 0, but got ${s}`);
  if (node.op === 'MaxPool') checkPadding(node, 4, format);
}

function checkConv2D(node: NodeDef): void {
  const format = str(node, 'data_format', 'NHWC');
  const strides = ints(node, 'strides') ?? [];
  const dilations = ints(node, 'dilations') ?? [1, 1, 1, 1];
  const at = (list: number[], d: string) => list[dimIndex(format, d, 4)];
  if (node.op !== 'DepthwiseConv2dNative' && dilations.length !== 4)
    throw invalidArgument('Sliding window dilations field must specify 4 dimensions');
  if (strides.length !== 4) throw invalidArgument('Sliding window strides field must specify 4 dimensions');
  if (node.op === 'DepthwiseConv2dNative') {
    if (at(strides, 'H') !== at(strides, 'W'))
      throw invalidArgument('Current implementation only supports equal length strides in the row and column dimensions.');
    if (at(strides, 'N') !== 1 || at(strides, 'C') !== 1)
      throw invalidArgument('Current implementation does not yet support strides in the batch and depth dimensions.');
  } else {
    if (at(strides, 'N') !== 1 || at(strides, 'C') !== 1)
      throw unimplemented('Current implementation does not yet support strides in the batch and depth dimensions.');
    if (!(at(strides, 'H') > 0 && at(strides, 'W') > 0)) throw invalidArgument('Row and column strides should be larger than 0.');
    if (at(dilations, 'N') !== 1 || at(dilations, 'C') !== 1)
      throw unimplemented('Current implementation does not yet support dilations in the batch and depth dimensions.');
    if (!(at(dilations, 'H') > 0 && at(dilations, 'W') > 0)) throw invalidArgument('Dilated rates should be larger than 0.');
  }
  // GetWindowedOutputSize on every run: a stride of 0 divides by zero.
  if (!(at(strides, 'H') > 0)) throw invalidArgument(`Stride must be > 0, but got ${at(strides, 'H')}`);
  checkPadding(node, 4, format);
}

function checkConv3D(node: NodeDef): void {
  const format = str(node, 'data_format', 'NDHWC');
  const strides = ints(node, 'strides') ?? [];
  const dilations = ints(node, 'dilations') ?? [1, 1, 1, 1, 1];
  const at = (list: number[], d: string) => list[dimIndex(format, d, 5)];
  if (strides.length !== 5) throw invalidArgument('Sliding window strides field must specify 5 dimensions');
  if (at(strides, 'N') !== 1 || at(strides, 'C') !== 1)
    throw invalidArgument('Current implementation does not yet support strides in the batch and depth dimensions.');
  if (!(at(strides, '0') > 0 && at(strides, '1') > 0 && at(strides, '2') > 0))
    throw invalidArgument('Spatial strides should be larger than 0.');
  if (dilations.length !== 5) throw invalidArgument('Dilation rates field must specify 5 dimensions');
  if (at(dilations, 'N') !== 1 || at(dilations, 'C') !== 1)
    throw invalidArgument('Current implementation does not yet support dilations in the batch and depth dimensions.');
  if (!(at(dilations, '0') > 0 && at(dilations, '1') > 0 && at(dilations, '2') > 0))
    throw invalidArgument('Dilated rates should be larger than 0.');
}

const INT_MAX = 2 ** 31 - 1;

function checkNodeAttrs(node: NodeDef): void {
  switch (node.op) {
    case 'MaxPool':
    case 'AvgPool':
      return checkPool(node, 4);
    case 'MaxPool3D':
    case 'AvgPool3D':
      return checkPool(node, 5);
    case 'Conv2D':
    case 'Conv2DBackpropInput':
    case 'DepthwiseConv2dNative':
      return checkConv2D(node);
    case 'Conv3D':
      return checkConv3D(node);
    case 'ResizeBilinear':
    case 'ResizeNearestNeighbor':
    case 'ResizeBicubic':
      if (node.attr?.half_pixel_centers?.b && node.attr?.align_corners?.b)
        throw invalidArgument('If half_pixel_centers is True, align_corners must be False.');
      return;
    case 'StridedSlice': {
      const ellipsis = Number(node.attr?.ellipsis_mask?.i ?? 0);
      if (ellipsis & (ellipsis - 1)) throw invalidArgument('Multiple ellipses in slice spec not allowed');
      return;
    }
    case 'LRN': {
      const radius = Number(node.attr?.depth_radius?.i ?? 5);
      if (radius < 0 || radius > INT_MAX) throw invalidArgument(`depth_radius = ${radius} larger than int max`);
      return;
    }
    default:
  }
}

/** Small integer constant feeding input `i` of `node`, as numbers; undefined when not a (small) Const. */
function constInput(node: NodeDef, i: number, byName: ReadonlyMap<string, NodeDef>): number[] | undefined {
  const ref = (node.input ?? []).filter((r) => !r.startsWith('^'))[i];
  if (!ref) return undefined;
  const src = byName.get(parseTensorName(ref)[0]);
  const proto = src?.op === 'Const' ? src.attr?.value?.tensor : undefined;
  if (!proto) return undefined;
  const dims = (proto.tensorShape?.dim ?? []).map((d) => Number(d.size ?? 0));
  if (dims.reduce((a, b) => a * b, 1) > 64 || dims.some((d) => d < 0)) return undefined;
  try {
    const t = hostTensorFromProto(proto);
    if (t.dtype !== 'int32' && t.dtype !== 'int64' && t.dtype !== 'float32' && t.dtype !== 'float64') return undefined;
    return Array.from(t.values as ArrayLike<number | bigint>, Number);
  } catch {
    return undefined;
  }
}

/** Checks of constant inputs: the same value reaches the kernel on every run. */
function checkConstInputs(node: NodeDef, byName: ReadonlyMap<string, NodeDef>): void {
  switch (node.op) {
    case 'Reshape': {
      const shape = constInput(node, 1, byName);
      if (!shape) return;
      let unknown = -1;
      shape.forEach((size, d) => {
        if (size === -1) {
          if (unknown !== -1) throw invalidArgument(`Only one input size may be -1, not both ${unknown} and ${d}`);
          unknown = d;
        } else if (size < 0) throw invalidArgument(`Size ${d} must be non-negative, not ${size}`);
      });
      return;
    }
    case 'Fill': {
      const dims = constInput(node, 0, byName);
      const bad = dims?.find((d) => d < 0);
      if (bad !== undefined) throw invalidArgument(`Dimension ${bad} must be >= 0`);
      return;
    }
    case 'Pad':
    case 'PadV2':
    case 'MirrorPad': {
      const p = constInput(node, 1, byName);
      for (let i = 0; p && i + 1 < p.length; i += 2) {
        if (p[i] < 0 || p[i + 1] < 0) throw invalidArgument(`Paddings must be non-negative: ${p[i]} ${p[i + 1]}`);
      }
      return;
    }
    case 'Range': {
      const [start, limit, delta] = [0, 1, 2].map((i) => constInput(node, i, byName)?.[0]);
      if (delta === undefined) return;
      if (delta === 0) throw invalidArgument(`Requires delta != 0: ${delta}`);
      if (start === undefined || limit === undefined) return;
      if (delta > 0 && start > limit) throw invalidArgument(`Requires start <= limit when delta > 0: ${start}/${limit}`);
      if (delta < 0 && start < limit) throw invalidArgument(`Requires start >= limit when delta < 0: ${start}/${limit}`);
      return;
    }
    case 'OneHot': {
      const depth = constInput(node, 1, byName)?.[0];
      if (depth !== undefined && depth < 0) throw invalidArgument(`depth must be non-negative, got: ${depth}`);
      return;
    }
    default:
  }
}

/** Refuses the first node TF's kernel would refuse, naming it (TF's message, then the node). */
export function checkKernelAttrs(nodes: readonly NodeDef[]): void {
  const byName = new Map(nodes.map((n) => [n.name, n]));
  for (const node of nodes) {
    try {
      checkNodeAttrs(node);
      checkConstInputs(node, byName);
    } catch (e) {
      if (e instanceof ServingError) throw new ServingError(e.code, `${e.message}\n\t [[{{node ${node.name}}}]]`);
      throw e;
    }
  }
}
