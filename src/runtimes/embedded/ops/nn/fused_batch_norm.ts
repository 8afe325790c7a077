// TensorFlow's FusedBatchNorm / V2 / V3 for TF.js, both modes and both layouts.
// tfjs-converter maps them to tf.batchNorm with the mean and variance inputs, ignoring
// `is_training` and `data_format`. Keras 2's LayerNormalization relies on exactly those: it
// reshapes its input to [1, rows, features, 1] and calls fused_batch_norm with NCHW and
// is_training=True (empty mean/variance), so every row is normalized by its own statistics.
// The converter instead broadcast empty tensors over the last axis: NaN answers with status 200
// from any Keras transformer.
//
// Semantics (core/kernels/fused_batch_norm_op.cc, CPU functors): channels are the last axis
// after moving NCHW/NCDHW to channels-last;
//   is_training: mean = Σx · (1/n), var = Σ(x - mean)² · (1/n) over all but the channel axis
//   otherwise:   mean, var = the given estimates
//   y = (x - mean) · (rsqrt(var + epsilon) · scale) + offset   (inference: tf.batchNorm's
//       kernel, which the converter used and computes the same formula)
// Outputs 1 and 2 are the running estimates: in training, mean and var · n/(n-1) (Bessel),
// mixed with the inputs as (1 - f)·old + f·new when exponential_avg_factor f ≠ 1; otherwise
// the given estimates. Outputs 3 and 4 are the batch mean and (biased) variance, output 5 an
// empty reserve space.
import tf from '../../../tfjs_packages/tfjs_core.cjs';
import type * as tfconv from '@tensorflow/tfjs-converter';
import { invalidArgument } from '../../../../errors/status.js';
import { attrString, type NodeDef } from '../../../../savedmodel/graph/types.js';

export const FUSED_BATCH_NORM_OPS = ['FusedBatchNorm', 'FusedBatchNormV2', 'FusedBatchNormV3'] as const;
const FORMATS = ['NHWC', 'NCHW', 'NDHWC', 'NCDHW'];

interface FusedBatchNormAttrs {
  epsilon: number;
  exponentialAvgFactor: number;
  dataFormat: string;
  isTraining: boolean;
}

function fusedBatchNorm(
  x: tf.Tensor,
  scale: tf.Tensor,
  offset: tf.Tensor,
  mean: tf.Tensor,
  variance: tf.Tensor,
  a: FusedBatchNormAttrs,
): tf.Tensor[] {
  const rank = a.dataFormat.length;
  if (x.rank !== rank) throw invalidArgument(`input must be ${rank}-dimensional${x.shape.length ? `, got shape [${x.shape}]` : ''}`);
  const channelsFirst = a.dataFormat[1] === 'C';
  // NCHW → NHWC and back (NCDHW likewise).
  const toLast = channelsFirst ? [0, ...Array.from({ length: rank - 2 }, (_, i) => i + 2), 1] : null;
  const toFirst = channelsFirst ? [0, rank - 1, ...Array.from({ length: rank - 2 }, (_, i) => i + 1)] : null;
  return tf.tidy(() => {
    const xl = toLast ? tf.transpose(x, toLast) : x;
    const depth = xl.shape[rank - 1];
    for (const [name, t] of [
      ['scale', scale],
      ['offset', offset],
    ] as const) {
      if (t.size !== depth)
        throw invalidArgument(`${name} must have the same number of elements as the channels of x, got ${t.size} and ${depth}`);
    }
    const n = xl.size / depth;
    const axes = Array.from({ length: rank - 1 }, (_, i) => i);
    if (!a.isTraining) {
      for (const [name, t] of [
        ['mean', mean],
        ['variance', variance],
      ] as const) {
        if (t.size !== depth)
          throw invalidArgument(`${name} must have the same number of elements as the channels of x, got ${t.size} and ${depth}`);
      }
      // Inference: TF.js's own batchNorm kernel, as the converter ran it (one kernel per call).
      const [m, v] = [tf.reshape(mean, [depth]), tf.reshape(variance, [depth])];
      const yl = tf.batchNorm(xl, m, v, tf.reshape(offset, [depth]), tf.reshape(scale, [depth]), a.epsilon);
      return [toFirst ? tf.transpose(yl, toFirst) : yl, m, v, tf.clone(m), tf.clone(v), tf.zeros([0])];
    }
    const inv = Math.fround(1 / n);
    const batchMean = tf.mul(tf.sum(xl, axes), inv);
    const centered = tf.sub(xl, batchMean);
    const batchVar = tf.mul(tf.sum(tf.square(centered), axes), inv);
    const factor = tf.mul(tf.rsqrt(tf.add(batchVar, a.epsilon)), tf.reshape(scale, [depth]));
    const yl = tf.add(tf.mul(centered, factor), tf.reshape(offset, [depth]));
    const y = toFirst ? tf.transpose(yl, toFirst) : yl;
    const bessel = Math.fround(Math.fround(n) / Math.fround(n > 1 ? n - 1 : 1));
    let runningMean = batchMean;
    let runningVar = tf.mul(batchVar, bessel);
    if (a.exponentialAvgFactor !== 1) {
      const f = a.exponentialAvgFactor;
      runningMean = tf.add(tf.mul(tf.reshape(mean, [depth]), 1 - f), tf.mul(batchMean, f));
      runningVar = tf.add(tf.mul(tf.reshape(variance, [depth]), 1 - f), tf.mul(batchVar, f * bessel));
    }
    // Distinct tensors per output: the graph executor disposes each output on its own.
    return [y, runningMean === batchMean ? tf.clone(batchMean) : runningMean, runningVar, batchMean, batchVar, tf.zeros([0])];
  });
}

export const fusedBatchNormOp: tfconv.OpExecutor = (node) => {
  const a = node.attrs as { epsilon?: number; exponential_avg_factor?: number; data_format?: string; is_training?: boolean };
  const [x, scale, offset, mean, variance] = node.inputs;
  return fusedBatchNorm(x, scale, offset, mean, variance, {
    epsilon: a.epsilon ?? 0.0001,
    exponentialAvgFactor: a.exponential_avg_factor ?? 1,
    // The converter lower-cases string attributes of custom ops.
    dataFormat: (a.data_format ?? 'NHWC').toUpperCase(),
    isTraining: a.is_training ?? true,
  });
};

export function fusedBatchNormNodeProblem(node: NodeDef): string | null {
  const format = attrString(node.attr?.data_format) || 'NHWC';
  return FORMATS.includes(format) ? null : `data_format ${format} is not one of ${FORMATS.join(', ')}`;
}
