// Which elements of small integer vectors are known before run time. Keras computes shapes
// in the graph — Shape(x) → StridedSlice → arithmetic → Pack → Reshape/Slice/Resize — and
// the converter needs static dims (a conv's channel count, say) that flow through such
// chains. Each element is a number when known, null when it depends on run-time sizes:
// Shape of [-1, 224, 224, 3] is [null, 224, 224, 3], and Pack(0, h, w, -1) of those is
// [0, null, null, -1] — enough to know the channel dim survives a crop.
import type { NodeDef } from '../../savedmodel/graph/types.js';
import { SHAPE_ARITHMETIC } from '../../savedmodel/graph/tensor_sizes.js';
import type { TfValue } from './tf_value.js';
import { sliceLength } from './ops/slice_length.js';

export type Known = Array<number | null>;

const MAX_LENGTH = 16;

/** Elements of a value: a constant's, or what was propagated; null when nothing is known. */
export function knownElements(v: TfValue | undefined): Known | null {
  if (!v) return null;
  if (v.known) return v.known;
  const t = v.value;
  if (!t || t.shape.length > 1 || t.values.length > MAX_LENGTH) return null;
  if (t.dtype === 'int32' || t.dtype === 'int16' || t.dtype === 'int8' || t.dtype === 'uint8') return Array.from(t.values as Int32Array);
  if (t.dtype === 'int64') return Array.from(t.values as BigInt64Array, Number);
  return null;
}

const attrInt = (n: NodeDef, name: string) => Number(n.attr?.[name]?.i ?? 0);

function elementwise(a: Known, b: Known, f: (x: number, y: number) => number): Known | null {
  if (a.length !== b.length && a.length !== 1 && b.length !== 1) return null;
  const n = Math.max(a.length, b.length);
  return Array.from({ length: n }, (_, i) => {
    const x = a[a.length === 1 ? 0 : i];
    const y = b[b.length === 1 ? 0 : i];
    return x === null || y === null ? null : f(x, y);
  });
}

/** Known elements of a rank-1 StridedSlice with constant begin/end/strides (no ellipsis or new axes). */
function sliceKnown(node: NodeDef, input: Known, inputs: TfValue[]): Known | null {
  const [begin, end, strides] = [1, 2, 3].map((i) => knownElements(inputs[i]));
  if (!begin || !end || !strides || begin.length !== 1 || begin[0] === null || end[0] === null || strides[0] === null) return null;
  if (attrInt(node, 'ellipsis_mask') || attrInt(node, 'new_axis_mask')) return null;
  const n = input.length;
  const step = strides[0];
  if (attrInt(node, 'shrink_axis_mask') & 1) {
    const i = begin[0] < 0 ? begin[0] + n : begin[0];
    return i >= 0 && i < n ? [input[i]] : null;
  }
  const big = Number.POSITIVE_INFINITY;
  const start = attrInt(node, 'begin_mask') & 1 ? (step > 0 ? 0 : big) : begin[0];
  const stop = attrInt(node, 'end_mask') & 1 ? (step > 0 ? big : -big) : end[0];
  const count = sliceLength(n, start, stop, step);
  let first = start === big ? n - 1 : start < 0 ? start + n : start;
  first = step > 0 ? Math.max(0, Math.min(first, n)) : Math.max(-1, Math.min(first, n - 1));
  return Array.from({ length: count }, (_, k) => input[first + k * step]);
}

/** What is known of `node`'s first output, from its inputs; null for nothing. */
export function propagateKnown(node: NodeDef, inputs: TfValue[]): Known | null {
  const known = inputs.map(knownElements);
  switch (node.op) {
    case 'Shape': {
      const s = inputs[0]?.shape;
      return s && s.length <= MAX_LENGTH ? s.map((d) => (d < 0 ? null : d)) : null;
    }
    case 'Identity':
    case 'Cast':
      return known[0];
    case 'Pack':
      return inputs.every((v) => v.shape?.length === 0) && attrInt(node, 'axis') === 0 ? known.map((k) => (k ? k[0] : null)) : null;
    case 'ConcatV2': {
      const parts = inputs.slice(0, -1);
      if (!parts.every((v, i) => v.shape?.length === 1 && (known[i] || v.shape[0] >= 0))) return null;
      return parts.flatMap((v, i) => known[i] ?? new Array<null>(v.shape![0]).fill(null));
    }
    case 'StridedSlice':
      return known[0] && inputs[0]?.shape?.length === 1 ? sliceKnown(node, known[0], inputs) : null;
    default: {
      const f = Object.hasOwn(SHAPE_ARITHMETIC, node.op) ? SHAPE_ARITHMETIC[node.op] : undefined;
      return f && known[0] && known[1] ? elementwise(known[0], known[1], f) : null;
    }
  }
}

/** A shape read from a vector's known elements: unknown elements are -1. */
export function shapeFromKnown(k: Known): number[] {
  return k.map((d) => (d === null ? -1 : d));
}
