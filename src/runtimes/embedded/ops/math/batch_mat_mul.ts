// BatchMatMul / V2 / V3 with broadcast batch dimensions. tfjs-converter maps them to
// tf.matMul, whose kernels (CPU and WASM, TF.js 4.22) pick operand batches as
// `i mod batchSize` over the flattened batch: right when the batch shapes are equal or one
// operand has a single batch, wrong when both broadcast — a [2,1,3,4] · b [5,4,2] should pair
// a[i,0] with b[j] for every (i, j) but does not. TF broadcasts batch dimensions numpy-style
// (BatchMatMulV2). Such operands are broadcast to the common batch shape first; the others go
// to tf.matMul unchanged.
import tf from '../../../tfjs_packages/tfjs_core.cjs';
import type * as tfconv from '@tensorflow/tfjs-converter';
import { invalidArgument } from '../../../../errors/status.js';

const size = (dims: number[]) => dims.reduce((a, b) => a * b, 1);

/** The broadcast batch shape, or null when TF.js's own indexing is already right. */
function explicitBatchShape(aBatch: number[], bBatch: number[]): number[] | null {
  if (size(aBatch) <= 1 || size(bBatch) <= 1) return null;
  const rank = Math.max(aBatch.length, bBatch.length);
  const pad = (d: number[]) => [...new Array(rank - d.length).fill(1), ...d];
  const [a, b] = [pad(aBatch), pad(bBatch)];
  if (a.every((d, i) => d === b[i])) return null;
  return a.map((d, i) => {
    if (d !== b[i] && d !== 1 && b[i] !== 1)
      throw invalidArgument(`In[0] and In[1] must have compatible batch dimensions: [${aBatch}] vs. [${bBatch}]`);
    return Math.max(d, b[i]);
  });
}

function batchMatMul(a: tf.Tensor, b: tf.Tensor, adjX: boolean, adjY: boolean): tf.Tensor {
  return tf.tidy(() => {
    const batch = a.rank > 2 || b.rank > 2 ? explicitBatchShape(a.shape.slice(0, -2), b.shape.slice(0, -2)) : null;
    if (batch) {
      a = tf.broadcastTo(a, [...batch, ...a.shape.slice(-2)]);
      b = tf.broadcastTo(b, [...batch, ...b.shape.slice(-2)]);
    }
    return tf.matMul(a, b, adjX, adjY);
  });
}

export const batchMatMulOp: tfconv.OpExecutor = (node) => {
  const { adj_x: adjX = false, adj_y: adjY = false } = node.attrs as { adj_x?: boolean; adj_y?: boolean };
  return [batchMatMul(node.inputs[0], node.inputs[1], adjX, adjY)];
};
