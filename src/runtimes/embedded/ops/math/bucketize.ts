// TensorFlow's Bucketize (what Keras Discretization and Estimators' bucketized_column compile
// to): each element's bucket is the index of the first boundary greater than it, i.e.
// std::upper_bound over the sorted float `boundaries` (core/kernels/bucketize_op.cc).
// tf.raw_ops.Bucketize's documented example: boundaries [0, 10, 100] put
// [[-5, 10000], [150, 10], [5, 100]] in [[0, 3], [3, 2], [1, 3]].
// TF compares `input < boundary` in C++: an integer input is converted to float first
// (Math.fround here). A float64 input reaches TF.js already rounded to float32, so a double
// within float32 rounding of a boundary can land one bucket off; all else is exact.
import tf from '../../../tfjs_packages/tfjs_core.cjs';
import type * as tfconv from '@tensorflow/tfjs-converter';
import type { NodeDef } from '../../../../savedmodel/graph/types.js';

/** upper_bound: the number of boundaries b with !(x < b) before the first b > x. */
function bucketOf(x: number, boundaries: ArrayLike<number>): number {
  let lo = 0;
  let hi = boundaries.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (x < boundaries[mid]) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

function bucketize(x: tf.Tensor, boundaries: readonly number[]): tf.Tensor {
  const bounds = Float32Array.from(boundaries);
  const values = x.dataSync();
  const toFloat = x.dtype === 'int32' ? Math.fround : (v: number) => v;
  const out = new Int32Array(values.length);
  for (let i = 0; i < values.length; i++) out[i] = bucketOf(toFloat(Number(values[i])), bounds);
  return tf.tensor(out, x.shape, 'int32');
}

export const bucketizeOp: tfconv.OpExecutor = (node) => [bucketize(node.inputs[0], (node.attrs.boundaries as number[] | undefined) ?? [])];

/** Load-time check with TF's kernel-construction message. */
export function bucketizeNodeProblem(node: NodeDef): string | null {
  const b = (node.attr?.boundaries?.list?.f ?? []).map(Number);
  for (let i = 1; i < b.length; i++) if (b[i] < b[i - 1]) return 'Expected sorted boundaries';
  return null;
}
