// Row (first-dimension) operations on HostTensors, for batching: concatenate requests,
// pad a batch, slice results back out.
import { invalidArgument } from '../errors/status.js';
import { allocValues, numElements, type HostTensor, type TensorValues } from './host_tensor.js';

const rowSize = (t: HostTensor) => numElements(t.shape.slice(1));

function copyRows(src: HostTensor, srcRow: number, dst: TensorValues, dstRow: number, rows: number, width: number): void {
  if (Array.isArray(src.values)) {
    const d = dst as Uint8Array[];
    for (let i = 0; i < rows * width; i++) d[dstRow * width + i] = (src.values as Uint8Array[])[srcRow * width + i];
    return;
  }
  const s = src.values as Float32Array;
  (dst as Float32Array).set(s.subarray(srcRow * width, (srcRow + rows) * width), dstRow * width);
}

/** Stacks tensors along dimension 0; all must share dtype and the other dimensions. */
export function concatRows(parts: readonly HostTensor[]): HostTensor {
  const first = parts[0];
  const inner = first.shape.slice(1);
  const width = rowSize(first);
  let rows = 0;
  for (const p of parts) {
    if (p.dtype !== first.dtype || p.shape.length !== first.shape.length || p.shape.slice(1).some((d, i) => d !== inner[i])) {
      throw invalidArgument(`cannot batch tensors of shapes [${first.shape}] and [${p.shape}]`);
    }
    rows += p.shape[0];
  }
  const values = allocValues(first.dtype, rows * width);
  let at = 0;
  for (const p of parts) {
    copyRows(p, 0, values, at, p.shape[0], width);
    at += p.shape[0];
  }
  return { dtype: first.dtype, shape: [rows, ...inner], values };
}

/** Rows [start, start + count) of t. */
export function sliceRows(t: HostTensor, start: number, count: number): HostTensor {
  const width = rowSize(t);
  const values = allocValues(t.dtype, count * width);
  copyRows(t, start, values, 0, count, width);
  return { dtype: t.dtype, shape: [count, ...t.shape.slice(1)], values };
}

/** t grown to `rows` rows by repeating row `padRow` (TF Serving pads with the first row of the last task). */
export function padRows(t: HostTensor, rows: number, padRow: number): HostTensor {
  const have = t.shape[0];
  if (rows <= have) return t;
  const width = rowSize(t);
  const values = allocValues(t.dtype, rows * width);
  copyRows(t, 0, values, 0, have, width);
  for (let r = have; r < rows; r++) copyRows(t, padRow, values, r, 1, width);
  return { dtype: t.dtype, shape: [rows, ...t.shape.slice(1)], values };
}

/** t zero-padded (empty strings for strings) at the end of each dimension up to `shape`. */
export function padDims(t: HostTensor, shape: number[]): HostTensor {
  const values = allocValues(t.dtype, numElements(shape));
  const size = numElements(t.shape);
  const index = new Array(t.shape.length).fill(0);
  for (let i = 0; i < size; i++) {
    // Row-major offset of the same index in the padded shape.
    let off = 0;
    for (let d = 0; d < shape.length; d++) off = off * shape[d] + index[d];
    (values as unknown[])[off] = (t.values as unknown as unknown[])[i];
    for (let d = t.shape.length - 1; d >= 0; d--) {
      if (++index[d] < t.shape[d]) break;
      index[d] = 0;
    }
  }
  return { dtype: t.dtype, shape, values };
}
