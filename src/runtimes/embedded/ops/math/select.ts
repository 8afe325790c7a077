// TensorFlow's Select (TF1's tf.where) and SelectV2 (tf.where in TF2), which TF registers for
// every dtype (core/kernels/cwise_op_select.cc: TF_CALL_ALL_TYPES) — strings included: a
// BigQuery ML export routes its string class labels through one. tfjs-converter maps both to
// tf.where, which takes numbers only and broadcasts where TF1's Select picks rows.
//   SelectV2: condition, then and else broadcast together, as numpy does.
//   Select:   a scalar condition picks all of `then` or all of `else`; a vector condition on
//             higher-rank values picks rows (its length = their first dim); otherwise the
//             three have one shape. `then` and `else` always have the same shape.
// Numbers still run tf.where (on the backend's kernels); strings are picked here, as bytes.
import tf from '../../../tfjs_packages/tfjs_core.cjs';
import type * as tfconv from '@tensorflow/tfjs-converter';
import { invalidArgument } from '../../../../errors/status.js';
import { stringElements, stringTensor } from '../string/string_tensors.js';

/** TensorShape::DebugString. */
const shapeString = (shape: readonly number[]) => `[${shape.join(',')}]`;
const sameShape = (a: readonly number[], b: readonly number[]) => a.length === b.length && a.every((d, i) => d === b[i]);

/** numpy broadcasting of several shapes, or null when they do not broadcast. */
function broadcastShapes(shapes: ReadonlyArray<readonly number[]>): number[] | null {
  const rank = Math.max(...shapes.map((s) => s.length));
  const out: number[] = [];
  for (let k = 0; k < rank; k++) {
    let d = 1;
    for (const s of shapes) {
      const dim = s[s.length - rank + k] ?? 1;
      if (dim === 1) continue;
      if (d !== 1 && d !== dim) return null;
      d = dim;
    }
    out.push(d);
  }
  return out;
}

/** For each element of `outShape`, the flat index of the element of `shape` broadcast to it. */
function broadcastIndex(shape: readonly number[], outShape: readonly number[]): Int32Array {
  const size = outShape.reduce((a, b) => a * b, 1);
  const rank = outShape.length;
  const strides = new Array<number>(rank).fill(0);
  let stride = 1;
  for (let k = rank - 1, j = shape.length - 1; k >= 0; k--, j--) {
    const dim = j >= 0 ? shape[j] : 1;
    strides[k] = dim === 1 ? 0 : stride;
    stride *= dim;
  }
  const index = new Int32Array(size);
  for (let i = 0; i < size; i++) {
    let rest = i;
    let at = 0;
    for (let k = rank - 1; k >= 0; k--) {
      at += (rest % outShape[k]) * strides[k];
      rest = Math.floor(rest / outShape[k]);
    }
    index[i] = at;
  }
  return index;
}

/** Picks element by element, the three broadcast to `outShape`. */
function pick(cond: tf.Tensor, t: tf.Tensor, e: tf.Tensor, outShape: number[]): tf.Tensor {
  if (t.dtype !== 'string') return tf.where(tf.broadcastTo(cond, outShape), tf.broadcastTo(t, outShape), tf.broadcastTo(e, outShape));
  const c = cond.dataSync() as Uint8Array;
  const [tv, ev] = [stringElements(t, 'then'), stringElements(e, 'else')];
  const [ci, ti, ei] = [cond, t, e].map((x) => broadcastIndex(x.shape, outShape));
  return stringTensor(
    Array.from(ci, (k, i) => (c[k] ? tv[ti[i]] : ev[ei[i]])),
    outShape,
  );
}

function selectV2(cond: tf.Tensor, t: tf.Tensor, e: tf.Tensor): tf.Tensor {
  const outShape = broadcastShapes([cond.shape, t.shape, e.shape]);
  if (!outShape)
    throw invalidArgument(
      `condition ${shapeString(cond.shape)}, then ${shapeString(t.shape)}, and else ${shapeString(e.shape)} must be broadcastable`,
    );
  return pick(cond, t, e, outShape);
}

function select(cond: tf.Tensor, t: tf.Tensor, e: tf.Tensor, nodeName: string): tf.Tensor {
  const differ = () =>
    invalidArgument(`'then' and 'else' must have the same size.  but received: ${shapeString(t.shape)} vs. ${shapeString(e.shape)}`);
  if (cond.rank === 0) {
    if (!sameShape(t.shape, e.shape)) throw differ();
    return tf.clone((cond.dataSync() as Uint8Array)[0] ? t : e);
  }
  if (cond.rank === 1 && t.rank !== 1) {
    if (t.rank === 0) throw invalidArgument(`'then' must be at least a vector, but saw shape: ${shapeString(t.shape)}`);
    if (t.shape[0] !== cond.size)
      throw invalidArgument(`Number of batches of 'then' must match size of 'cond', but saw: ${t.shape[0]} vs. ${cond.size}`);
    if (!sameShape(t.shape, e.shape)) throw differ();
    // Each condition element picks one row: as a [n, 1, …] condition broadcast over the row.
    const rows = tf.reshape(cond, [cond.size, ...t.shape.slice(1).map(() => 1)]);
    try {
      return pick(rows, t, e, t.shape);
    } finally {
      rows.dispose();
    }
  }
  for (const [i, x] of [t, e].entries()) {
    if (!sameShape(cond.shape, x.shape)) {
      throw invalidArgument(
        `Inputs to operation ${nodeName} of type Select must have the same size and shape.  Input 0: ${shapeString(cond.shape)} != input ${i + 1}: ${shapeString(x.shape)}`,
      );
    }
  }
  return pick(cond, t, e, t.shape);
}

/** The executing node's name (tfjs-converter passes its graph node along with the inputs). */
const nameOf = (node: tfconv.GraphNode) => (node as unknown as { node?: { name?: string } }).node?.name ?? 'Select';

export const selectOp: tfconv.OpExecutor = (node) => {
  const [cond, t, e] = node.inputs;
  return [tf.tidy(() => select(cond, t, e, nameOf(node)))];
};

export const selectV2Op: tfconv.OpExecutor = (node) => {
  const [cond, t, e] = node.inputs;
  return [tf.tidy(() => selectV2(cond, t, e))];
};
