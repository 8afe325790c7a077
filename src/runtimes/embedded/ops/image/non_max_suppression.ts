// TensorFlow's NonMaxSuppression, V2, V3, V4 (padded, valid_outputs), V5 (soft-NMS with
// selected_scores) and NonMaxSuppressionWithOverlaps, as core/kernels/image/
// non_max_suppression_op.cc computes them: candidates above score_threshold in a priority
// queue by score, ties to the lower box index; each candidate compared with the boxes
// already selected, newest first, skipping those it was compared with before; IoU in float
// arithmetic with each box's corners in either order; soft-NMS weights exp(-0.5·iou²/σ) in
// T (expf as glibc computes it: glibc_expf.ts), a soft-suppressed candidate going back into
// the queue with its new score. T is float or
// half (scores, thresholds and weights then round to half as Eigen::half does). The messages
// are TF's, checked in TF's order.
import tf from '../../../tfjs_packages/tfjs_core.cjs';
import type * as tfconv from '@tensorflow/tfjs-converter';
import { invalidArgument } from '../../../../errors/status.js';
import { PriorityQueue } from '../libstdcxx_algorithms.js';
import { glibcExpf } from './glibc_expf.js';
import { checkRequestedOutput, cmax, cmin, f32, isHalfAttr, shapeText, toHalf } from './kernel_support.js';

/** T's arithmetic: every result rounded to T, and numeric_limits<T>::lowest(). */
interface Arith {
  round: (x: number) => number;
  lowest: number;
}
const FLOAT: Arith = { round: f32, lowest: -3.4028234663852886e38 };
const HALF: Arith = { round: toHalf, lowest: -65504 };

/**
 * TF's IOU(boxes, i, j) over a flat [n, 4] float array, i and j offsets of a box's first
 * coordinate: corners in either order, 0 when either box has no area.
 */
export function iou(b: ArrayLike<number>, i: number, j: number): number {
  const yminI = cmin(b[i], b[i + 2]);
  const xminI = cmin(b[i + 1], b[i + 3]);
  const ymaxI = cmax(b[i], b[i + 2]);
  const xmaxI = cmax(b[i + 1], b[i + 3]);
  const yminJ = cmin(b[j], b[j + 2]);
  const xminJ = cmin(b[j + 1], b[j + 3]);
  const ymaxJ = cmax(b[j], b[j + 2]);
  const xmaxJ = cmax(b[j + 1], b[j + 3]);
  const areaI = f32(f32(ymaxI - yminI) * f32(xmaxI - xminI));
  const areaJ = f32(f32(ymaxJ - yminJ) * f32(xmaxJ - xminJ));
  if (areaI <= 0 || areaJ <= 0) return 0;
  const top = cmax(yminI, yminJ);
  const left = cmax(xminI, xminJ);
  const bottom = cmin(ymaxI, ymaxJ);
  const right = cmin(xmaxI, xmaxJ);
  const intersection = f32(cmax(f32(bottom - top), 0) * cmax(f32(right - left), 0));
  return f32(intersection / f32(f32(areaI + areaJ) - intersection));
}

interface Candidate {
  box: number;
  score: number;
  suppressBegin: number;
}

/** The queue's order: higher score first, then the lower box index. */
const below = (a: Candidate, b: Candidate) => (a.score === b.score && a.box > b.box) || a.score < b.score;

interface NmsProblem {
  scores: ArrayLike<number>;
  maxOutputSize: number;
  /** In T. */
  similarityThreshold: number;
  scoreThreshold: number;
  softNmsSigma: number;
  /** The similarity of boxes i and j, a float (IoU, or the overlaps input). */
  similarity: (i: number, j: number) => number;
  t: Arith;
  pad: boolean;
  /** Whether selected_scores is an output (V5): only then is it allocated, padded. */
  withScores: boolean;
  op: string;
}

interface NmsResult {
  selected: Int32Array;
  selectedScores: Float32Array | null;
  validOutputs: number;
}

/** DoNonMaxSuppressionOp. */
function doNonMaxSuppression(p: NmsProblem): NmsResult {
  const { t, similarityThreshold, scoreThreshold } = p;
  if (!(p.maxOutputSize >= 0)) throw invalidArgument('output size must be non-negative');
  if (p.pad) checkRequestedOutput(p.op, 'selected_indices', [p.maxOutputSize]);
  const queue = new PriorityQueue<Candidate>(below);
  for (let i = 0; i < p.scores.length; i++) if (p.scores[i] > scoreThreshold) queue.push({ box: i, score: p.scores[i], suppressBegin: 0 });

  const soft = p.softNmsSigma > 0;
  const scale = soft ? t.round(-0.5 / p.softNmsSigma) : 0;
  const weight = (sim: number) => {
    const w = t.round(glibcExpf(t.round(t.round(scale * sim) * sim)));
    return soft || sim <= similarityThreshold ? w : 0;
  };

  const selected: number[] = [];
  const selectedScores: number[] = [];
  while (selected.length < p.maxOutputSize && queue.size > 0) {
    const c = queue.pop();
    const original = c.score;
    // Newest selections first: overlapping boxes likely have close scores.
    let hardSuppressed = false;
    for (let j = selected.length - 1; j >= c.suppressBegin; j--) {
      const sim = t.round(p.similarity(c.box, selected[j]));
      c.score = t.round(c.score * weight(sim));
      if (!soft && sim > similarityThreshold) {
        hardSuppressed = true;
        break;
      }
      if (c.score <= scoreThreshold) break;
    }
    c.suppressBegin = selected.length;
    if (hardSuppressed) continue;
    if (c.score === original) {
      selected.push(c.box);
      selectedScores.push(c.score);
    } else if (c.score > scoreThreshold) queue.push(c);
  }
  const validOutputs = selected.length;
  const size = p.pad ? p.maxOutputSize : validOutputs;
  const out = new Int32Array(size);
  out.set(selected);
  let outScores: Float32Array | null = null;
  if (p.withScores) {
    outScores = new Float32Array(size);
    outScores.set(selectedScores);
  }
  return { selected: out, selectedScores: outScores, validOutputs };
}

const scalarValue = (t: tf.Tensor): number => t.dataSync()[0];

function requireScalar(t: tf.Tensor, message: string): void {
  if (t.rank !== 0) throw invalidArgument(message);
}

const rankNote = (t: tf.Tensor, want: number, what = 'Shape must be rank') => ` (${what} ${want} but is rank ${t.rank})`;

/** ParseAndCheckBoxSizes and CheckScoreSizes: the number of boxes. */
function checkBoxesAndScores(boxes: tf.Tensor, scores: tf.Tensor): number {
  if (boxes.rank !== 2) throw invalidArgument(`boxes must be 2-D${shapeText(boxes.shape)}${rankNote(boxes, 2)}`);
  const n = boxes.shape[0];
  if (boxes.shape[1] !== 4) throw invalidArgument(`boxes must have 4 columns (Dimension must be 4 but is ${boxes.shape[1]})`);
  checkScores(scores, n);
  return n;
}

function checkScores(scores: tf.Tensor, n: number): void {
  if (scores.rank !== 1) throw invalidArgument(`scores must be 1-D${shapeText(scores.shape)}${rankNote(scores, 1)}`);
  if (scores.shape[0] !== n)
    throw invalidArgument(`scores has incompatible shape (Dimensions must be equal, but are ${n} and ${scores.shape[0]})`);
}

function checkIouRange(v: number): void {
  if (!(v >= 0 && v <= 1)) throw invalidArgument('iou_threshold must be in [0, 1]');
}

const boxIou = (boxes: tf.Tensor) => {
  const b = boxes.dataSync() as Float32Array;
  return (i: number, j: number) => iou(b, i * 4, j * 4);
};

/** selected_indices, then selected_scores (V5), then valid_outputs (V4, V5). */
function outputs(r: NmsResult, parts: { validOutputs?: boolean; scores?: boolean }): tf.Tensor[] {
  const out: tf.Tensor[] = [tf.tensor1d(r.selected, 'int32')];
  if (parts.scores) out.push(tf.tensor1d(r.selectedScores!, 'float32'));
  if (parts.validOutputs) out.push(tf.scalar(r.validOutputs, 'int32'));
  return out;
}

/** NonMaxSuppression (v1): float boxes, iou_threshold an attribute, every score a candidate but -inf and NaN. */
export const nonMaxSuppressionV1Op: tfconv.OpExecutor = (node) => {
  const [boxes, scores, maxOutputSize] = node.inputs;
  requireScalar(maxOutputSize, `max_output_size must be 0-D, got shape ${shapeText(maxOutputSize.shape)}`);
  const iouThreshold = f32(Number(node.attrs.iou_threshold ?? 0.5));
  checkIouRange(iouThreshold);
  checkBoxesAndScores(boxes, scores);
  const r = doNonMaxSuppression({
    op: 'NonMaxSuppression',
    scores: scores.dataSync(),
    maxOutputSize: scalarValue(maxOutputSize),
    similarityThreshold: iouThreshold,
    scoreThreshold: FLOAT.lowest,
    softNmsSigma: 0,
    similarity: boxIou(boxes),
    t: FLOAT,
    pad: false,
    withScores: false,
  });
  return outputs(r, {});
};

type Version = 2 | 3 | 4 | 5;
const OP_NAME: Record<Version, string> = {
  2: 'NonMaxSuppressionV2',
  3: 'NonMaxSuppressionV3',
  4: 'NonMaxSuppressionV4',
  5: 'NonMaxSuppressionV5',
};

/** NonMaxSuppressionV2 … V5. */
function nonMaxSuppressionOp(version: Version): tfconv.OpExecutor {
  return (node) => {
    const [boxes, scores, maxOutputSize, iouT, scoreT, sigmaT] = node.inputs;
    const t = isHalfAttr(node, 'T') ? HALF : FLOAT;
    // V3 states the rank in its messages, V2, V4 and V5 do not.
    const v3 = (x: tf.Tensor) => (version === 3 ? rankNote(x, 0) : '');
    requireScalar(maxOutputSize, `max_output_size must be 0-D, got shape ${shapeText(maxOutputSize.shape)}${v3(maxOutputSize)}`);
    requireScalar(iouT, `iou_threshold must be 0-D, got shape ${shapeText(iouT.shape)}${v3(iouT)}`);
    const iouThreshold = t.round(scalarValue(iouT));
    checkIouRange(iouThreshold);
    let scoreThreshold = t.lowest;
    if (version >= 3) {
      requireScalar(scoreT, `score_threshold must be 0-D, got shape ${shapeText(scoreT.shape)}`);
      scoreThreshold = t.round(scalarValue(scoreT));
    }
    let sigma = 0;
    if (version === 5) {
      requireScalar(sigmaT, `soft_nms_sigma must be 0-D, got shape ${shapeText(sigmaT.shape)}`);
      sigma = t.round(scalarValue(sigmaT));
      if (!(sigma >= 0)) throw invalidArgument('soft_nms_sigma_val must be >= 0');
    }
    checkBoxesAndScores(boxes, scores);
    const r = doNonMaxSuppression({
      op: OP_NAME[version],
      scores: scores.dataSync(),
      maxOutputSize: scalarValue(maxOutputSize),
      similarityThreshold: iouThreshold,
      scoreThreshold,
      softNmsSigma: sigma,
      similarity: boxIou(boxes),
      t,
      pad: version >= 4 && node.attrs.pad_to_max_output_size === true,
      withScores: version === 5,
    });
    return outputs(r, { validOutputs: version >= 4, scores: version === 5 });
  };
}

export const nonMaxSuppressionV2Op = nonMaxSuppressionOp(2);
export const nonMaxSuppressionV3Op = nonMaxSuppressionOp(3);
export const nonMaxSuppressionV4Op = nonMaxSuppressionOp(4);
export const nonMaxSuppressionV5Op = nonMaxSuppressionOp(5);

/** NonMaxSuppressionWithOverlaps: the similarity of boxes i and j is overlaps[i, j]; no range check on the threshold. */
export const nonMaxSuppressionWithOverlapsOp: tfconv.OpExecutor = (node) => {
  const [overlaps, scores, maxOutputSize, overlapT, scoreT] = node.inputs;
  requireScalar(maxOutputSize, `max_output_size must be 0-D, got shape ${shapeText(maxOutputSize.shape)}`);
  requireScalar(overlapT, `overlap_threshold must be 0-D, got shape ${shapeText(overlapT.shape)}`);
  requireScalar(scoreT, `score_threshold must be 0-D, got shape ${shapeText(scoreT.shape)}`);
  if (overlaps.rank !== 2) throw invalidArgument(`overlaps must be 2-D${shapeText(overlaps.shape)}`);
  const n = overlaps.shape[0];
  if (overlaps.shape[1] !== n) throw invalidArgument(`overlaps must be square${shapeText(overlaps.shape)}`);
  checkScores(scores, n);
  const o = overlaps.dataSync() as Float32Array;
  const r = doNonMaxSuppression({
    op: 'NonMaxSuppressionWithOverlaps',
    scores: scores.dataSync(),
    maxOutputSize: scalarValue(maxOutputSize),
    similarityThreshold: scalarValue(overlapT),
    scoreThreshold: scalarValue(scoreT),
    softNmsSigma: 0,
    similarity: (i, j) => o[i * n + j],
    t: FLOAT,
    pad: false,
    withScores: false,
  });
  return outputs(r, {});
};
