// Restores attrs that TF stripped because they held their default value
// (MetaInfoDef.stripped_default_attrs). TF.js reads e.g. Conv2D `dilations` without a
// default of its own, so a stripped attr must be put back before execution. Defaults come
// from the MetaGraph's stripped_op_list; TF 2.0–2.3 exports leave function-body ops out of
// that list, so the common ones are also listed here (values from TF's op registry).
import type { AttrValue, NodeDef, OpDef } from './types.js';

const enc = new TextEncoder();
const s = (v: string): AttrValue => ({ s: enc.encode(v) });
const ints = (...i: number[]): AttrValue => ({ list: { i } });
const CONV = { data_format: s('NHWC'), dilations: ints(1, 1, 1, 1), explicit_paddings: ints(), use_cudnn_on_gpu: { b: true } };
const POOL = { data_format: s('NHWC'), explicit_paddings: ints() };

const KNOWN_DEFAULTS: Record<string, Record<string, AttrValue>> = {
  Conv2D: CONV,
  DepthwiseConv2dNative: { data_format: s('NHWC'), dilations: ints(1, 1, 1, 1), explicit_paddings: ints() },
  Conv2DBackpropInput: CONV,
  MaxPool: POOL,
  AvgPool: { data_format: s('NHWC') },
  BiasAdd: { data_format: s('NHWC') },
  MatMul: { transpose_a: { b: false }, transpose_b: { b: false } },
  BatchMatMulV2: { adj_x: { b: false }, adj_y: { b: false } },
  FusedBatchNormV3: { epsilon: { f: 0.0001 }, exponential_avg_factor: { f: 1 }, data_format: s('NHWC'), is_training: { b: true } },
  ResizeBilinear: { align_corners: { b: false }, half_pixel_centers: { b: false } },
  ResizeNearestNeighbor: { align_corners: { b: false }, half_pixel_centers: { b: false } },
  StridedSlice: { begin_mask: { i: 0 }, end_mask: { i: 0 }, ellipsis_mask: { i: 0 }, new_axis_mask: { i: 0 }, shrink_axis_mask: { i: 0 } },
  Squeeze: { squeeze_dims: ints() },
  Mean: { keep_dims: { b: false } },
  Sum: { keep_dims: { b: false } },
  Max: { keep_dims: { b: false } },
  Min: { keep_dims: { b: false } },
  Prod: { keep_dims: { b: false } },
  GatherV2: { batch_dims: { i: 0 } },
  Cast: { Truncate: { b: false } },
  LeakyRelu: { alpha: { f: 0.2 } },
};

export function defaultAttrTable(opDefs: Map<string, OpDef>): Map<string, Record<string, AttrValue>> {
  const table = new Map<string, Record<string, AttrValue>>(Object.entries(KNOWN_DEFAULTS));
  for (const [op, def] of opDefs) {
    const defaults: Record<string, AttrValue> = { ...(table.get(op) ?? {}) };
    for (const a of def.attr ?? []) if (a.defaultValue) defaults[a.name] = a.defaultValue;
    table.set(op, defaults);
  }
  return table;
}

export function withDefaultAttrs(node: NodeDef, table: Map<string, Record<string, AttrValue>>): NodeDef {
  const defaults = table.get(node.op);
  if (!defaults) return node;
  const attr = node.attr ?? {};
  const missing = Object.keys(defaults).filter((k) => !(k in attr));
  if (!missing.length) return node;
  return { ...node, attr: { ...attr, ...Object.fromEntries(missing.map((k) => [k, defaults[k]])) } };
}
