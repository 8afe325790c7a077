// TensorFlow's BoostedTreesBucketize (what tf.Transform's bucketize and TF's boosted-trees
// feature columns compile to): for feature i, each of the first dim-0 values of
// float_values[i] gets the index of the first boundary not less than it (std::lower_bound),
// clamped to the last boundary; no boundaries gives bucket 0 (core/kernels/boosted_trees/
// quantile_ops.cc, BoostedTreesBucketizeOp). Unlike Bucketize, a value equal to a boundary
// falls in that boundary's bucket, and nothing lands past the last one.
import tf from '../../../tfjs_packages/tfjs_core.cjs';
import type * as tfconv from '@tensorflow/tfjs-converter';
import { invalidArgument } from '../../../../errors/status.js';

/** std::lower_bound over `boundaries`, clamped to the last index (0 when there are none). */
function boostedTreesBucketOf(value: number, boundaries: ArrayLike<number>): number {
  if (boundaries.length === 0) return 0;
  let lo = 0;
  let hi = boundaries.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (boundaries[mid] < value) lo = mid + 1;
    else hi = mid;
  }
  return Math.min(lo, boundaries.length - 1);
}

function boostedTreesBucketize(values: tf.Tensor, boundaries: tf.Tensor): tf.Tensor {
  if (boundaries.rank !== 1) throw invalidArgument('Buckets should be flat vectors.');
  // TF allocates [dim 0] and reads that many values of the flattened input.
  const count = values.rank === 0 ? 0 : values.shape[0];
  const flat = values.dataSync();
  const bounds = boundaries.dataSync();
  const out = new Int32Array(count);
  for (let i = 0; i < count; i++) out[i] = boostedTreesBucketOf(flat[i], bounds);
  return tf.tensor1d(out, 'int32');
}

export const boostedTreesBucketizeOp: tfconv.OpExecutor = (node) => {
  const n = node.inputs.length / 2;
  const values = node.inputs.slice(0, n);
  const boundaries = node.inputs.slice(n);
  // TF checks the first boundaries tensor before any output.
  if (boundaries[0] && boundaries[0].rank !== 1) throw invalidArgument('Buckets should be flat vectors.');
  return values.map((v, i) => boostedTreesBucketize(v, boundaries[i]));
};
