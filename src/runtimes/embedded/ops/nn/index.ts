// The `nn` op family: FusedBatchNorm* in every mode and layout TF has (tfjs-converter ignores
// is_training and data_format) and the FakeQuant* ops of quantisation-aware-trained models
// (tfjs-converter runs FakeQuantWithMinMaxVars as Identity); TopKV2 in TF's order (TF.js sorts
// unsorted requests and has no NaN order).
import type { TfjsOpTable } from '../../../shared/tfjs_op_table.js';
import { FUSED_BATCH_NORM_OPS, fusedBatchNormNodeProblem, fusedBatchNormOp } from './fused_batch_norm.js';
import { FAKE_QUANT_OPS, fakeQuantExecutor, fakeQuantNodeProblem } from './fake_quant.js';
import { topKV2Op } from './top_k.js';

export const NN_OPS: TfjsOpTable = {
  ...Object.fromEntries(FUSED_BATCH_NORM_OPS.map((op) => [op, { execute: fusedBatchNormOp, check: fusedBatchNormNodeProblem }])),
  ...Object.fromEntries(FAKE_QUANT_OPS.map((op) => [op, { execute: fakeQuantExecutor(op), check: fakeQuantNodeProblem }])),
  TopKV2: { execute: topKV2Op },
};
