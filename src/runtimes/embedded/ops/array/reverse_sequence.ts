// TensorFlow's ReverseSequence for TF.js, which has no such op: along `batch_dim`, slice i has
// its first seq_lengths[i] elements along `seq_dim` reversed and the rest copied through
// (tf.reverse_sequence's documented example: seq_lengths [7, 2, 3, 5] over rows of 8 turn
// [1, 2, 3, 4, 5, 0, 0, 0] into [0, 0, 5, 4, 3, 2, 1, 0]). Computed as one gather with
// per-batch indices; checks and messages are TF's (core/kernels/reverse_sequence_op.cc).
import tf from '../../../tfjs_packages/tfjs_core.cjs';
import type * as tfconv from '@tensorflow/tfjs-converter';
import { invalidArgument } from '../../../../errors/status.js';
import type { NodeDef } from '../../../../savedmodel/graph/types.js';

function reverseSequence(x: tf.Tensor, seqLengths: tf.Tensor, seqDim: number, batchDim: number): tf.Tensor {
  if (seqLengths.rank !== 1) throw invalidArgument(`seq_lengths must be 1-dim, not ${seqLengths.rank}`);
  if (batchDim === seqDim) throw invalidArgument(`batch_dim == seq_dim == ${seqDim}`);
  if (seqDim >= x.rank) throw invalidArgument(`seq_dim must be < input rank ( ${seqDim} vs. ${x.rank})`);
  if (batchDim >= x.rank) throw invalidArgument(`batch_dim must be < input rank ( ${batchDim} vs. ${x.rank})`);
  const batch = x.shape[batchDim];
  const steps = x.shape[seqDim];
  if (seqLengths.size !== batch)
    throw invalidArgument(`Length of seq_lengths != input.dims(${batchDim}), (${seqLengths.size} vs. ${batch})`);
  const lengths = seqLengths.dataSync();
  const indices = new Int32Array(batch * steps);
  for (let b = 0; b < batch; b++) {
    const len = Number(lengths[b]);
    if (len < 0) throw invalidArgument(`seq_lens(${b}) < 0`);
    if (len > steps) throw invalidArgument(`seq_lens(${b}) > input.dims(${seqDim})`);
    for (let i = 0; i < steps; i++) indices[b * steps + i] = i < len ? len - 1 - i : i;
  }
  if (x.rank < 2 || x.rank > 5) throw invalidArgument(`ReverseSequenceOp : Unhandled input dimensions: ${x.rank}`);
  return tf.tidy(() => {
    // [batch, seq, the rest…] so that one batched gather along axis 1 does it.
    const rest = x.shape.map((_, i) => i).filter((i) => i !== batchDim && i !== seqDim);
    const perm = [batchDim, seqDim, ...rest];
    const moved = tf.transpose(x, perm);
    const gathered = tf.gather(moved, tf.tensor2d(indices, [batch, steps], 'int32'), 1, 1);
    const inverse = perm.map((_, i) => perm.indexOf(i));
    return tf.transpose(gathered, inverse);
  });
}

const dims = (node: { seq_dim?: number; batch_dim?: number }) => ({ seqDim: Number(node.seq_dim), batchDim: Number(node.batch_dim ?? 0) });

export const reverseSequenceOp: tfconv.OpExecutor = (node) => {
  const { seqDim, batchDim } = dims(node.attrs as { seq_dim?: number; batch_dim?: number });
  return [reverseSequence(node.inputs[0], node.inputs[1], seqDim, batchDim)];
};

/** Load-time check with TF's kernel-construction messages. */
export function reverseSequenceNodeProblem(node: NodeDef): string | null {
  const batchDim = Number(node.attr?.batch_dim?.i ?? 0);
  const seqDim = Number(node.attr?.seq_dim?.i);
  if (!(batchDim >= 0)) return `Invalid batch_dim ${batchDim}`;
  if (!(seqDim >= 0)) return `Invalid seq_dim ${node.attr?.seq_dim?.i}`;
  return null;
}
