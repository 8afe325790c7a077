// TF's Div on integers truncates toward zero (C division, core/kernels/cwise_ops: safe_div,
// which fails with "Integer division by zero"); tfjs-converter maps Div to tf.div, which
// floors int32 operands: Div(-7, 2) is -3 in TensorFlow and -4 in TF.js. Floating-point Div
// is tf.div as before.
import tf from '../../../tfjs_packages/tfjs_core.cjs';
import type * as tfconv from '@tensorflow/tfjs-converter';
import { invalidArgument } from '../../../../errors/status.js';

function tfDiv(x: tf.Tensor, y: tf.Tensor): tf.Tensor {
  if (x.dtype !== 'int32' || y.dtype !== 'int32') return tf.div(x, y);
  if ((y.dataSync() as Int32Array).some((v) => v === 0)) throw invalidArgument('Integer division by zero');
  return tf.tidy(() => {
    // floor(x / y) + 1 where the remainder is not 0 and the signs differ.
    const q = tf.floorDiv(x, y);
    const inexact = tf.notEqual(tf.sub(x, tf.mul(q, y)), 0);
    const signsDiffer = tf.notEqual(tf.less(x, 0), tf.less(y, 0));
    return tf.add(q, tf.cast(tf.logicalAnd(inexact, signsDiffer), 'int32'));
  });
}

export const divOp: tfconv.OpExecutor = (node) => [tfDiv(node.inputs[0], node.inputs[1])];
