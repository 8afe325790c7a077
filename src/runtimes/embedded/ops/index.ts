// The TensorFlow ops tfgate implements for tfjs-converter's graph executor (beside
// ParseExample): ops the converter lacks or ignores, Einsum, for which the WASM backend has
// no kernel, and the lookup that table lookups become at load. Each comes with its load-time check, so that a node it cannot compute is refused
// when the model loads, naming the op and the node.
import { registerCustomOp } from '../tfjs_ops.js';
import { einsumNodeProblem, einsumOp } from './einsum.js';
import { FAKE_QUANT_OPS, fakeQuantExecutor, fakeQuantNodeProblem } from './fake_quant.js';
import { reverseSequenceNodeProblem, reverseSequenceOp } from './reverse_sequence.js';
import { FUSED_BATCH_NORM_OPS, fusedBatchNormNodeProblem, fusedBatchNormOp } from './fused_batch_norm.js';
import { batchMatMulOp } from './batch_mat_mul.js';
import { divOp } from './div.js';
import { lookupTableFindOp } from './lookup_table_find.js';
import { TFGATE_LOOKUP_OP } from '../../../savedmodel/graph/lookup_tables/lookup_rewrite.js';

let registered = false;

export function registerTfgateOps(): void {
  if (registered) return;
  registered = true;
  registerCustomOp('Einsum', einsumOp, einsumNodeProblem);
  for (const op of FAKE_QUANT_OPS) registerCustomOp(op, fakeQuantExecutor(op), fakeQuantNodeProblem);
  registerCustomOp('ReverseSequence', reverseSequenceOp, reverseSequenceNodeProblem);
  for (const op of FUSED_BATCH_NORM_OPS) registerCustomOp(op, fusedBatchNormOp, fusedBatchNormNodeProblem);
  for (const op of ['BatchMatMul', 'BatchMatMulV2']) registerCustomOp(op, batchMatMulOp);
  registerCustomOp('Div', divOp);
  registerCustomOp(TFGATE_LOOKUP_OP, lookupTableFindOp);
}
