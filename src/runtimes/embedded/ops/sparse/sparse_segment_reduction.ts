// TensorFlow's SparseSegmentSum / Mean / SqrtN and their WithNumSegments variants (the combiners
// of Estimator embedding columns: tf.nn.embedding_lookup_sparse / safe_embedding_lookup_sparse).
// Output row s reduces data[indices[i]] over the i with segment_ids[i] == s; rows no id names are
// 0. The arithmetic is TF's CPU kernel's in float32 (core/kernels/segment_reduction_ops_impl.h,
// SparseSegmentReductionOpBase::ReduceImpl): up to 9 rows summed left to right and multiplied by
// float(1 / n) (Mean) or float(1 / sqrt(n)) (SqrtN), longer segments summed in groups of 8 and
// divided by n or sqrt(n) — TF.js's SparseSegmentMean divides every sum, which differs in the last
// bit, and names segment ids `segmentIds` in its message; messages here are TF's.
import tf from '../../../tfjs_packages/tfjs_core.cjs';
import type * as tfconv from '@tensorflow/tfjs-converter';
import { invalidArgument } from '../../../../errors/status.js';
import type { NodeDef } from '../../../../savedmodel/graph/types.js';

export const SPARSE_SEGMENT_OPS = [
  'SparseSegmentSum',
  'SparseSegmentMean',
  'SparseSegmentSqrtN',
  'SparseSegmentSumWithNumSegments',
  'SparseSegmentMeanWithNumSegments',
  'SparseSegmentSqrtNWithNumSegments',
] as const;
export type SparseSegmentOp = (typeof SPARSE_SEGMENT_OPS)[number];
type Combiner = 'sum' | 'mean' | 'sqrtn';

const f32 = Math.fround;
const shapeText = (shape: readonly number[]) => `[${shape.join(',')}]`;

/** The combiner's scaling of a segment of n rows: TF's get_scaling_factor (n < 10) or divisor (n >= 10). */
function scale(sum: Float32Array | Int32Array, n: number, combiner: Combiner): void {
  if (combiner === 'sum' || n === 1) return;
  const m = combiner === 'mean' ? f32(n) : f32(Math.sqrt(n));
  if (n < 10) {
    const factor = f32(1 / m);
    for (let j = 0; j < sum.length; j++) sum[j] = f32(sum[j] * factor);
  } else {
    for (let j = 0; j < sum.length; j++) sum[j] = f32(sum[j] / m);
  }
}

/** Rows start..start+n of `indices` reduced into `out` as TF's ReduceImpl does; the bad offset or -1. */
function reduceSegment(
  data: ArrayLike<number>,
  rows: number,
  cols: number,
  indices: ArrayLike<number>,
  start: number,
  n: number,
  out: Float32Array | Int32Array,
  combiner: Combiner,
): number {
  // float32 rounds every partial sum; int32 (SparseSegmentSum only) wraps as TF's int does.
  const round = out instanceof Float32Array ? f32 : (x: number) => x | 0;
  for (let i = 0; i < n; i++) {
    const index = indices[start + i];
    if (!(index >= 0 && index < rows)) return i;
  }
  const row = (i: number) => indices[start + i] * cols;
  // The first block: n itself when n == 1; else n mod 8 rows (8 when that is 0, 9 when it is 1).
  let first = n === 1 ? 1 : n & 7;
  if (n !== 1 && first === 0) first = 8;
  else if (n !== 1 && first === 1) first = 9;
  for (let j = 0; j < cols; j++) {
    let acc = data[row(0) + j];
    for (let i = 1; i < first; i++) acc = round(acc + data[row(i) + j]);
    out[j] = acc;
  }
  if (n === 1) return -1;
  if (n < 10) {
    scale(out, n, combiner);
    return -1;
  }
  for (let r = first; r < n; r += 8) {
    for (let j = 0; j < cols; j++) {
      let block = data[row(r) + j];
      for (let i = 1; i < 8; i++) block = round(block + data[row(r + i) + j]);
      out[j] = round(out[j] + block);
    }
  }
  scale(out, n, combiner);
  return -1;
}

function sparseSegmentReduce(
  data: tf.Tensor,
  indicesT: tf.Tensor,
  segmentIdsT: tf.Tensor,
  combiner: Combiner,
  numSegmentsT?: tf.Tensor,
): tf.Tensor {
  let outputRows = -1;
  if (numSegmentsT) {
    if (numSegmentsT.rank !== 0) throw invalidArgument(`num_segments should be a scalar, not shape ${shapeText(numSegmentsT.shape)}`);
    outputRows = Number(numSegmentsT.dataSync()[0]);
    if (outputRows < 0) throw invalidArgument('segment ids must be >= 0');
  }
  if (indicesT.rank !== 1) throw invalidArgument('indices should be a vector.');
  if (segmentIdsT.rank !== 1) throw invalidArgument('segment_ids should be a vector.');
  const numIndices = indicesT.size;
  if (numIndices !== segmentIdsT.size) throw invalidArgument('segment_ids and indices should have same size.');
  if (data.rank < 1) throw invalidArgument('Input must be at least rank 1');
  const indices = indicesT.dataSync();
  const segmentIds = segmentIdsT.dataSync();
  const lastPlusOne = numIndices > 0 ? Number(segmentIds[numIndices - 1]) + 1 : 0;
  if (numSegmentsT) {
    if (!(outputRows >= lastPlusOne)) throw invalidArgument('segment ids must be < num_segments');
  } else {
    outputRows = lastPlusOne;
  }
  if (outputRows < 0) throw invalidArgument('segment ids must be >= 0');
  const rows = data.shape[0];
  const cols = rows > 0 ? data.size / rows : data.shape.slice(1).reduce((a, b) => a * b, 1);
  const outShape = [outputRows, ...data.shape.slice(1)];
  // Missing rows stay 0 (TF's default_value).
  const output = data.dtype === 'int32' ? new Int32Array(outputRows * cols) : new Float32Array(outputRows * cols);
  if (numIndices === 0) return tf.tensor(output, outShape, data.dtype);
  if (outputRows <= 0) throw invalidArgument('segment ids must be >= 0');
  const values = data.dataSync() as ArrayLike<number>;
  let start = 0;
  let end = 1;
  let outIndex = Number(segmentIds[0]);
  for (;;) {
    let nextIndex = 0;
    if (end < numIndices) {
      nextIndex = Number(segmentIds[end]);
      if (outIndex === nextIndex) {
        end++;
        continue;
      }
      if (!(outIndex < nextIndex)) throw invalidArgument('segment ids are not increasing');
    }
    if (!(outIndex >= 0 && outIndex < outputRows)) {
      throw invalidArgument(`Segment id ${outIndex} out of range [0, ${outputRows}), possibly because 'segment_ids' input is not sorted.`);
    }
    const bad = reduceSegment(
      values,
      rows,
      cols,
      indices,
      start,
      end - start,
      output.subarray(outIndex * cols, (outIndex + 1) * cols),
      combiner,
    );
    if (bad >= 0) throw invalidArgument(`Bad: indices[${start + bad}] == ${indices[start + bad]} out of range [0, ${rows})`);
    start = end;
    end++;
    outIndex = nextIndex;
    if (end > numIndices) break;
  }
  return tf.tensor(output, outShape, data.dtype);
}

const COMBINER: Record<SparseSegmentOp, Combiner> = {
  SparseSegmentSum: 'sum',
  SparseSegmentMean: 'mean',
  SparseSegmentSqrtN: 'sqrtn',
  SparseSegmentSumWithNumSegments: 'sum',
  SparseSegmentMeanWithNumSegments: 'mean',
  SparseSegmentSqrtNWithNumSegments: 'sqrtn',
};

/** Load-time check: TF.js holds these as float32 or int32; Mean and SqrtN are float-only in TF. */
export function sparseSegmentNodeProblem(node: NodeDef): string | null {
  const t = node.attr?.T?.type;
  if (t === undefined || t === 'DT_FLOAT') return null;
  if (t === 'DT_INT32' && node.op.startsWith('SparseSegmentSum')) return null;
  return `data type ${t}: the embedded runtime computes this op in float32 (or int32 for SparseSegmentSum) only`;
}

export function sparseSegmentExecutor(op: SparseSegmentOp): tfconv.OpExecutor {
  const withNumSegments = op.endsWith('WithNumSegments');
  return (node) => [
    sparseSegmentReduce(node.inputs[0], node.inputs[1], node.inputs[2], COMBINER[op], withNumSegments ? node.inputs[3] : undefined),
  ];
}
