// TensorFlow's CTC decoders (core/kernels/ctc_decoder_ops.cc): inputs [max_time, batch,
// num_classes] of log probabilities (logits), sequence_length [batch] →
//   decoded_indices [n, 2] (batch, time), decoded_values [n], decoded_shape [2] = [batch,
//   longest decoded], int64: a SparseTensor per path (top_paths of them for the beam search);
//   log_probability [batch, paths] float.
// CTCGreedyDecoder takes each step's arg max (the first on ties), drops blanks (blank_index,
// default the last class) and, with merge_repeated, a class equal to the previous step's; its
// log probability is minus the sum of the maxima, accumulated in float. CTCBeamSearchDecoder
// runs TF's beam search (ctc_beam_search.ts). Checks and messages are TF's, in TF's order;
// TF's FailedPrecondition ones keep that code.
import tf from '../../../tfjs_packages/tfjs_core.cjs';
import type * as tfconv from '@tensorflow/tfjs-converter';
import { failedPrecondition, invalidArgument } from '../../../../errors/status.js';
import type { NodeDef } from '../../../../savedmodel/graph/types.js';
import { checkOutputElements, checkWorkBound } from '../output_bound.js';
import { CtcBeamSearch } from './ctc_beam_search.js';

/** Beam entries one batch entry's search may create (T × beam_width × (num_classes − 1)); each is a small object. */
const MAX_BEAM_ENTRIES = 2 ** 22;

interface CtcInputs {
  maxTime: number;
  batch: number;
  classes: number;
  logits: Float32Array;
  seqLen: Int32Array;
}

/** CTCDecodeHelper::ValidateInputsGenerateOutputs. */
function validate(inputs: tf.Tensor, sequenceLength: tf.Tensor): CtcInputs {
  if (inputs.rank !== 3) throw invalidArgument('inputs is not a 3-Tensor');
  if (inputs.size === 0) throw invalidArgument('inputs must not be empty');
  const [maxTime, batch, classes] = inputs.shape;
  if (sequenceLength.rank !== 1) throw invalidArgument('sequence_length is not a vector');
  if (batch !== sequenceLength.shape[0]) {
    throw failedPrecondition(`len(sequence_length) != batch_size.  len(sequence_length):  ${sequenceLength.shape[0]} batch_size: ${batch}`);
  }
  const seqLen = Int32Array.from(sequenceLength.dataSync());
  for (let b = 0; b < batch; b++) if (!(seqLen[b] <= maxTime)) throw failedPrecondition(`sequence_length(${b}) <= ${maxTime}`);
  return { maxTime, batch, classes, logits: inputs.dataSync() as Float32Array, seqLen };
}

/** CTCDecodeHelper::StoreAllDecodedSequences: one SparseTensor (indices, values, shape) per path. */
function sparseOutputs(sequences: number[][][], paths: number): { indices: tf.Tensor[]; values: tf.Tensor[]; shapes: tf.Tensor[] } {
  const out = { indices: [] as tf.Tensor[], values: [] as tf.Tensor[], shapes: [] as tf.Tensor[] };
  for (let p = 0; p < paths; p++) {
    const total = sequences.reduce((n, s) => n + s[p].length, 0);
    const indices = new Int32Array(2 * total);
    const values = new Int32Array(total);
    let at = 0;
    let longest = 0;
    sequences.forEach((s, b) => {
      longest = Math.max(longest, s[p].length);
      s[p].forEach((label, t) => {
        indices[2 * at] = b;
        indices[2 * at + 1] = t;
        values[at++] = label;
      });
    });
    // int64 in TF; the embedded runtime holds int32 and serves the signature's int64.
    out.indices.push(tf.tensor(indices, [total, 2], 'int32'));
    out.values.push(tf.tensor(values, [total], 'int32'));
    out.shapes.push(tf.tensor([sequences.length, longest], [2], 'int32'));
  }
  return out;
}

export const ctcGreedyDecoderOp: tfconv.OpExecutor = (node) => {
  const { batch, classes, logits, seqLen } = validate(node.inputs[0], node.inputs[1]);
  const mergeRepeated = node.attrs.merge_repeated === true;
  const blankAttr = Number(node.attrs.blank_index ?? -1);
  const blank = blankAttr < 0 ? classes + blankAttr : blankAttr;
  if (!(blank >= 0 && blank < classes))
    throw invalidArgument(`blank_index expected to be between ${-classes} and ${classes - 1} but was ${blankAttr}`);
  const logProb = new Float32Array(batch);
  const sequences: number[][][] = [];
  for (let b = 0; b < batch; b++) {
    const sequence: number[] = [];
    let previous = -1;
    for (let t = 0; t < seqLen[b]; t++) {
      const row = (t * batch + b) * classes;
      let best = 0;
      let max = logits[row];
      for (let c = 1; c < classes; c++) {
        if (logits[row + c] > max) {
          max = logits[row + c];
          best = c;
        }
      }
      logProb[b] = Math.fround(logProb[b] + -max);
      if (best !== blank && !(mergeRepeated && best === previous)) sequence.push(best);
      previous = best;
    }
    sequences.push([sequence]);
  }
  const { indices, values, shapes } = sparseOutputs(sequences, 1);
  return [indices[0], values[0], shapes[0], tf.tensor(logProb, [batch, 1], 'float32')];
};

export const ctcBeamSearchDecoderOp: tfconv.OpExecutor = (node) => {
  const beamWidth = Number(node.attrs.beam_width);
  const topPaths = Number(node.attrs.top_paths);
  const mergeRepeated = node.attrs.merge_repeated !== false;
  const { batch, classes, logits, seqLen } = validate(node.inputs[0], node.inputs[1]);
  checkOutputElements('CTCBeamSearchDecoder', [batch, topPaths]);
  const longest = seqLen.reduce((m, x) => Math.max(m, x), 0);
  checkWorkBound(
    'CTCBeamSearchDecoder',
    longest * beamWidth * Math.max(1, classes - 1),
    MAX_BEAM_ENTRIES,
    'the beam entries of one batch entry (max sequence_length × beam_width × (num_classes − 1))',
  );
  const search = new CtcBeamSearch(classes, beamWidth);
  const logProb = new Float32Array(batch * topPaths);
  const sequences: number[][][] = [];
  for (let b = 0; b < batch; b++) {
    for (let t = 0; t < seqLen[b]; t++) search.step(logits.subarray((t * batch + b) * classes, (t * batch + b + 1) * classes));
    const { paths, logProbs } = search.topPaths(topPaths, mergeRepeated);
    search.reset();
    sequences.push(paths);
    logProbs.forEach((p, i) => (logProb[b * topPaths + i] = p));
  }
  const { indices, values, shapes } = sparseOutputs(sequences, topPaths);
  return [...indices, ...values, ...shapes, tf.tensor(logProb, [batch, topPaths], 'float32')];
};

const isFloat = (node: NodeDef) => String(node.attr?.T?.type ?? 'DT_FLOAT') === 'DT_FLOAT';
const FLOAT_ONLY = 'T double: the embedded runtime computes float32 only (it holds float64 as float32)';

export function ctcGreedyDecoderNodeProblem(node: NodeDef): string | null {
  return isFloat(node) ? null : FLOAT_ONLY;
}

/**
 * TF checks the attrs' minimums when the graph is built; top_paths > beam_width fails every
 * request in TF ("requested more paths than the beam width."), so it is refused at load here.
 */
export function ctcBeamSearchDecoderNodeProblem(node: NodeDef): string | null {
  if (!isFloat(node)) return FLOAT_ONLY;
  const beamWidth = Number(node.attr?.beam_width?.i);
  const topPaths = Number(node.attr?.top_paths?.i);
  if (!(beamWidth >= 1)) return `Value for attr 'beam_width' of ${node.attr?.beam_width?.i} must be at least minimum 1`;
  if (!(topPaths >= 1)) return `Value for attr 'top_paths' of ${node.attr?.top_paths?.i} must be at least minimum 1`;
  if (topPaths > beamWidth)
    return `top_paths ${topPaths} > beam_width ${beamWidth}: TF fails every request with "requested more paths than the beam width."`;
  return null;
}
