// The `sparse` op family: what Estimator categorical and embedding columns do with
// ParseExample's sparse outputs. TF's segment combiners and SparseToDense with its index
// validation replace TF.js's; TF.js's own SparseReshape, SparseFillEmptyRows and Unique match
// TF and are kept (their op cases say so). The crosses of crossed feature columns (SparseCross,
// SparseCrossHashed, SparseCrossV2) are tfgate's.
import type { TfjsOpTable } from '../../../shared/tfjs_op_table.js';
import { SPARSE_SEGMENT_OPS, sparseSegmentExecutor, sparseSegmentNodeProblem } from './sparse_segment_reduction.js';
import { sparseToDenseOp } from './sparse_to_dense.js';
import { sparseTensorDenseMatMulOp } from './sparse_tensor_dense_matmul.js';
import { floatOnlyProblem } from './float_only.js';
import { SPARSE_CROSS_OPS, sparseCrossExecutor, sparseCrossNodeProblem } from './sparse_cross.js';

export const SPARSE_OPS: TfjsOpTable = {
  ...Object.fromEntries(SPARSE_SEGMENT_OPS.map((op) => [op, { execute: sparseSegmentExecutor(op), check: sparseSegmentNodeProblem }])),
  SparseToDense: { execute: sparseToDenseOp },
  SparseTensorDenseMatMul: { execute: sparseTensorDenseMatMulOp, check: floatOnlyProblem },
  ...Object.fromEntries(SPARSE_CROSS_OPS.map((op) => [op, { execute: sparseCrossExecutor(op), check: sparseCrossNodeProblem }])),
};
