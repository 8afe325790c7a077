// TensorFlow's CombinedNonMaxSuppression (tf.image.combined_non_max_suppression, what TF2
// Object Detection API exports with use_combined_nms run), as core/kernels/image/
// non_max_suppression_op.cc computes it: per batch and class, hard NMS over the boxes whose
// class score passes score_threshold (boxes shared by all classes when q = 1); each class's
// selections fill its slots of one candidate list, which std::sort orders by score alone;
// the first max_total_size (or, with pad_per_class, at most max_size_per_class · classes)
// become the output, boxes clipped to [0, 1] when clip_boxes, padded with zeros. Both the
// per-class queue and the final sort compare scores alone, so equal scores come out in the
// order libstdc++'s heap and introsort leave them (libstdcxx_algorithms.ts).
import tf from '../../../tfjs_packages/tfjs_core.cjs';
import type * as tfconv from '@tensorflow/tfjs-converter';
import { invalidArgument } from '../../../../errors/status.js';
import { PriorityQueue, stdSort } from '../libstdcxx_algorithms.js';
import { checkRequestedOutput, cmax, cmin, shapeText } from './kernel_support.js';
import { iou } from './non_max_suppression.js';

interface ResultCandidate {
  box: number;
  score: number;
  classIndex: number;
  /** Offset of the box's coordinates in the boxes input; -1 for an empty slot. */
  coords: number;
}

const INT_MAX = 2147483647;
const EMPTY: ResultCandidate = { box: -1, score: -Infinity, classIndex: -1, coords: -1 };

interface Problem {
  boxes: Float32Array;
  scores: Float32Array;
  numBoxes: number;
  q: number;
  numClasses: number;
  sizePerClass: number;
  scoreThreshold: number;
  iouThreshold: number;
}

/** DoNMSPerClass: fills slots [sizePerClass · class, …) of `slots` with the class's selections. */
function nmsPerClass(p: Problem, batch: number, c: number, slots: ResultCandidate[]): void {
  const boxBase = batch * p.numBoxes * p.q * 4;
  const scoreBase = batch * p.numBoxes * p.numClasses;
  const queue = new PriorityQueue<{ box: number; score: number }>((a, b) => a.score < b.score);
  for (let i = 0; i < p.numBoxes; i++) {
    const score = p.scores[scoreBase + i * p.numClasses + c];
    if (score > p.scoreThreshold) queue.push({ box: i, score });
  }
  const classBox = p.q > 1 ? c : 0;
  const offset = (box: number) => boxBase + (box * p.q + classBox) * 4;
  const selected: number[] = [];
  while (selected.length < p.sizePerClass && queue.size > 0) {
    const next = queue.pop();
    const at = offset(next.box);
    let keep = true;
    for (let j = selected.length - 1; j >= 0; j--) {
      if (iou(p.boxes, at, offset(selected[j])) > p.iouThreshold) {
        keep = false;
        break;
      }
    }
    if (!keep) continue;
    slots[selected.length + p.sizePerClass * c] = { box: next.box, score: next.score, classIndex: c, coords: at };
    selected.push(next.box);
  }
}

const clip = (v: number) => cmax(cmin(v, 1), 0);

function checkScalar(t: tf.Tensor, what: string): number {
  if (t.rank !== 0) throw invalidArgument(`${what} must be 0-D, got shape ${shapeText(t.shape)}`);
  return t.dataSync()[0];
}

export const combinedNonMaxSuppressionOp: tfconv.OpExecutor = (node) => {
  const [boxesT, scoresT, maxPerClassT, maxTotalT, iouT, scoreT] = node.inputs;
  if (boxesT.rank !== 4) throw invalidArgument(`boxes must be 4-D [batch, num_boxes, q, 4], got shape ${shapeText(boxesT.shape)}`);
  if (scoresT.rank !== 3)
    throw invalidArgument(`scores must be 3-D [batch, num_boxes, num_classes], got shape ${shapeText(scoresT.shape)}`);
  const [numBatches, numBoxes, q] = boxesT.shape as [number, number, number, number];
  const numClasses = scoresT.shape[2]!;
  if (q !== 1 && q !== numClasses) throw invalidArgument('third dimension of boxes must be either 1 or num classes');
  if (boxesT.shape[3] !== 4) throw invalidArgument('boxes must have 4 columns');
  if (scoresT.shape[1] !== numBoxes) throw invalidArgument('scores has incompatible shape');
  if (scoresT.shape[0] !== numBatches) throw invalidArgument('boxes and scores must have same batch size');
  const maxPerClass = checkScalar(maxPerClassT, 'max_size_per_class');
  if (!(maxPerClass > 0)) throw invalidArgument('max_size_per_class must be positive');
  const maxTotal = checkScalar(maxTotalT, 'max_total_size');
  if (!(maxTotal > 0)) throw invalidArgument('max_total_size must be > 0');
  const iouThreshold = checkScalar(iouT, 'iou_threshold');
  const scoreThreshold = checkScalar(scoreT, 'score_threshold');
  if (!(iouThreshold >= 0 && iouThreshold <= 1)) throw invalidArgument('iou_threshold must be in [0, 1]');
  const padPerClass = node.attrs.pad_per_class === true;
  const clipBoxes = node.attrs.clip_boxes !== false;

  const sizePerClass = Math.min(maxPerClass, numBoxes);
  const slotsPerBatch = sizePerClass * numClasses;
  if (slotsPerBatch > INT_MAX) throw invalidArgument('size_per_class * num_classes causes overflow');
  const maxTotalSize = Math.min(INT_MAX, maxPerClass * numClasses);
  const perBatch = padPerClass ? Math.min(maxTotal, maxTotalSize) : maxTotal;
  checkRequestedOutput('CombinedNonMaxSuppression', 'nmsed_boxes', [numBatches, perBatch, 4]);

  const p: Problem = {
    boxes: boxesT.dataSync() as Float32Array,
    scores: scoresT.dataSync() as Float32Array,
    numBoxes,
    q,
    numClasses,
    sizePerClass,
    scoreThreshold,
    iouThreshold,
  };
  const nmsedBoxes = new Float32Array(numBatches * perBatch * 4);
  const nmsedScores = new Float32Array(numBatches * perBatch);
  const nmsedClasses = new Float32Array(numBatches * perBatch);
  const valid = new Int32Array(numBatches);
  for (let b = 0; b < numBatches; b++) {
    const slots: ResultCandidate[] = new Array<ResultCandidate>(slotsPerBatch).fill(EMPTY);
    for (let c = 0; c < numClasses; c++) nmsPerClass(p, b, c, slots);
    // SelectResultPerBatch.
    stdSort(slots, (x, y) => y.score < x.score);
    const filled = slots.reduce((n, s) => n + (s.box > -1 ? 1 : 0), 0);
    const detections = padPerClass ? Math.min(perBatch, filled) : Math.min(filled, maxTotal);
    valid[b] = detections;
    for (let k = 0; k < detections; k++) {
      const s = slots[k];
      const at = (b * perBatch + k) * 4;
      for (let d = 0; d < 4; d++) {
        const v = p.boxes[s.coords + d];
        nmsedBoxes[at + d] = clipBoxes ? clip(v) : v;
      }
      nmsedScores[b * perBatch + k] = s.score;
      nmsedClasses[b * perBatch + k] = s.classIndex;
    }
  }
  return [
    tf.tensor3d(nmsedBoxes, [numBatches, perBatch, 4], 'float32'),
    tf.tensor2d(nmsedScores, [numBatches, perBatch], 'float32'),
    tf.tensor2d(nmsedClasses, [numBatches, perBatch], 'float32'),
    tf.tensor1d(valid, 'int32'),
  ];
};
