// Layout helpers shared by the convolution and pooling converters: NHWC ↔ NCHW transposes,
// TF's SAME/VALID/EXPLICIT padding as ONNX's explicit pads, and host-side transposes of
// constant filters (done once at conversion, so the ONNX graph holds OIHW weights).
import type { HostTensor } from '../../../tensor/host_tensor.js';
import { TYPED_ARRAY } from '../../../tensor/host_tensor.js';
import type { OpContext } from '../convert_context.js';

export const TO_NCHW = [0, 3, 1, 2];
export const TO_NHWC = [0, 2, 3, 1];

/** Row-major transpose of a constant. */
export function transposeHost(t: HostTensor, perm: number[]): HostTensor {
  const shape = perm.map((p) => t.shape[p]);
  const rank = t.shape.length;
  const inStrides = new Array<number>(rank);
  for (let i = rank - 1, s = 1; i >= 0; i--) {
    inStrides[i] = s;
    s *= t.shape[i];
  }
  const size = shape.reduce((a, b) => a * b, 1);
  const src = t.values as unknown as ArrayLike<number | bigint | Uint8Array>;
  const dst: Array<number | bigint | Uint8Array> = new Array(size);
  const idx = new Array<number>(rank).fill(0);
  for (let o = 0; o < size; o++) {
    let off = 0;
    for (let k = 0; k < rank; k++) off += idx[k] * inStrides[perm[k]];
    dst[o] = src[off];
    for (let k = rank - 1; k >= 0; k--) {
      if (++idx[k] < shape[k]) break;
      idx[k] = 0;
    }
  }
  if (t.dtype === 'string') return { dtype: t.dtype, shape, values: dst as Uint8Array[] };
  const Ctor = TYPED_ARRAY[t.dtype] as unknown as { from(a: ArrayLike<unknown>): HostTensor['values'] };
  return { dtype: t.dtype, shape, values: Ctor.from(dst) };
}

/** Emits a Transpose (or transposes a constant at conversion). */
export function transposeValue(ctx: OpContext, inputIndex: number, perm: number[], hint: string): string {
  const v = ctx.input(inputIndex);
  if (v.value) return ctx.constTensor(transposeHost(v.value, perm), hint);
  return ctx.emit('Transpose', [ctx.use(inputIndex)], { perm }, hint);
}

export interface SpatialPads {
  /** ONNX pads: all begins, then all ends. */
  pads: number[];
  /** Output size per spatial dim (-1 unknown). */
  out: number[];
}

/**
 * TF's padding for each spatial dim (tensorflow/core/framework/kernel_shape_util.cc):
 *   SAME:  out = ceil(in / s); total = max((out − 1)·s + (k − 1)·d + 1 − in, 0); before = ⌊total/2⌋
 *   VALID: out = ceil((in − (k − 1)·d) / s), no padding
 *   EXPLICIT: the given pads.
 * With an unknown input size, SAME is exact only at stride 1 (total = (k − 1)·d for any size).
 */
export function spatialPads(
  ctx: OpContext,
  padding: string,
  inSizes: number[],
  kernel: number[],
  strides: number[],
  dilations: number[],
  explicit?: number[][],
): SpatialPads {
  const before: number[] = [];
  const after: number[] = [];
  const out: number[] = [];
  inSizes.forEach((n, i) => {
    const kEff = (kernel[i] - 1) * dilations[i] + 1;
    const s = strides[i];
    if (padding === 'VALID') {
      before.push(0);
      after.push(0);
      out.push(n < 0 ? -1 : Math.ceil((n - kEff + 1) / s));
    } else if (padding === 'SAME') {
      if (n < 0) {
        if (s !== 1) ctx.fail(`SAME padding with stride ${s} on a spatial size known only at run time`);
        const total = kEff - 1;
        before.push(Math.floor(total / 2));
        after.push(total - Math.floor(total / 2));
        out.push(-1);
        return;
      }
      const o = Math.ceil(n / s);
      const total = Math.max((o - 1) * s + kEff - n, 0);
      before.push(Math.floor(total / 2));
      after.push(total - Math.floor(total / 2));
      out.push(o);
    } else if (padding === 'EXPLICIT' && explicit) {
      const [b, a] = explicit[i];
      before.push(b);
      after.push(a);
      out.push(n < 0 ? -1 : Math.floor((n + b + a - kEff) / s) + 1);
    } else {
      ctx.fail(`padding ${padding}`);
    }
  });
  return { pads: [...before, ...after], out };
}

/** Spatial positions of a 4-D layout: NHWC → [1, 2], NCHW → [2, 3]. */
export function spatialAxes(ctx: OpContext, dataFormat: string): [number, number] {
  if (dataFormat === 'NHWC') return [1, 2];
  if (dataFormat === 'NCHW') return [2, 3];
  return ctx.fail(`data_format ${dataFormat}`);
}
