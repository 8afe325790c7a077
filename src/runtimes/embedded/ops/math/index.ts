// The `math` op family: ops TF.js lacks (Bucketize, BoostedTreesBucketize; Einsum, which the
// WASM backend has no kernel for) or answers differently from TF (BatchMatMul batch
// broadcasting, integer Div truncating toward zero, Select/SelectV2 on strings and TF1
// Select's row condition).
import type { TfjsOpTable } from '../../../shared/tfjs_op_table.js';
import { batchMatMulOp } from './batch_mat_mul.js';
import { divOp } from './div.js';
import { einsumNodeProblem, einsumOp } from './einsum.js';
import { bucketizeNodeProblem, bucketizeOp } from './bucketize.js';
import { boostedTreesBucketizeOp } from './boosted_trees_bucketize.js';
import { selectOp, selectV2Op } from './select.js';

export const MATH_OPS: TfjsOpTable = {
  BatchMatMul: { execute: batchMatMulOp },
  BatchMatMulV2: { execute: batchMatMulOp },
  Div: { execute: divOp },
  Einsum: { execute: einsumOp, check: einsumNodeProblem },
  Bucketize: { execute: bucketizeOp, check: bucketizeNodeProblem },
  BoostedTreesBucketize: { execute: boostedTreesBucketizeOp },
  Select: { execute: selectOp },
  SelectV2: { execute: selectV2Op },
};
