// The TensorFlow ops tfgate implements for tfjs-converter's graph executor (beside
// ParseExample): ops the converter lacks or ignores (the string ops and Bucketize among them),
// Einsum, for which the WASM backend has no kernel, and the lookup that table lookups become
// at load. Each comes with its load-time check, so that a node it cannot compute is refused
// when the model loads, naming the op and the node.
import { registerCustomOp } from '../tfjs_ops.js';
import { einsumNodeProblem, einsumOp } from './einsum.js';
import { FAKE_QUANT_OPS, fakeQuantExecutor, fakeQuantNodeProblem } from './fake_quant.js';
import { reverseSequenceNodeProblem, reverseSequenceOp } from './reverse_sequence.js';
import { FUSED_BATCH_NORM_OPS, fusedBatchNormNodeProblem, fusedBatchNormOp } from './fused_batch_norm.js';
import { batchMatMulOp } from './batch_mat_mul.js';
import { divOp } from './div.js';
import { STRING_HASH_OPS, stringHashExecutor, stringHashNodeProblem } from './string_hash.js';
import { STRING_CASE_OPS, stringCaseExecutor, stringCaseNodeProblem } from './string_case.js';
import { stringStripOp } from './string_strip.js';
import { stringSplitV2Op } from './string_split.js';
import { bucketizeNodeProblem, bucketizeOp } from './bucketize.js';
import { boostedTreesBucketizeOp } from './boosted_trees_bucketize.js';
import { asStringNodeProblem, asStringOp } from './as_string.js';
import { staticRegexReplaceNodeProblem, staticRegexReplaceOp } from './static_regex_replace.js';
import { lookupTableFindOp } from './lookup_table_find.js';
import { raggedGatherOp, raggedRangeOp, raggedTensorToTensorOp } from './ragged.js';
import { TFGATE_LOOKUP_OP } from '../../../savedmodel/graph/lookup_tables/lookup_rewrite.js';
import { SPARSE_SEGMENT_OPS, sparseSegmentExecutor, sparseSegmentNodeProblem } from './sparse_segment_reduction.js';
import { sparseToDenseOp } from './sparse_to_dense.js';
import { sparseTensorDenseMatMulOp } from './sparse_tensor_dense_matmul.js';
import { floatOnlyProblem } from './float_only.js';
import { simpleMLInferenceNodeProblem, simpleMLInferenceOp } from './decision_forests/simple_ml_inference_op.js';
import { TFGATE_FOREST_INFERENCE_OP } from '../../../savedmodel/graph/decision_forests/forest_ops.js';

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
  // Keras preprocessing (Hashing, StringLookup, TextVectorization, Discretization) and
  // Estimator feature columns: byte-exact string ops and Bucketize.
  for (const op of STRING_HASH_OPS) registerCustomOp(op, stringHashExecutor(op), stringHashNodeProblem);
  for (const op of STRING_CASE_OPS) registerCustomOp(op, stringCaseExecutor(op), stringCaseNodeProblem);
  registerCustomOp('StringStrip', stringStripOp);
  registerCustomOp('StaticRegexReplace', staticRegexReplaceOp, staticRegexReplaceNodeProblem);
  registerCustomOp('StringSplitV2', stringSplitV2Op);
  registerCustomOp('Bucketize', bucketizeOp, bucketizeNodeProblem);
  registerCustomOp('BoostedTreesBucketize', boostedTreesBucketizeOp);
  registerCustomOp('AsString', asStringOp, asStringNodeProblem);
  registerCustomOp(TFGATE_LOOKUP_OP, lookupTableFindOp);
  // Ragged ops TF.js has kernels for but never maps (ragged.ts).
  registerCustomOp('RaggedTensorToTensor', raggedTensorToTensorOp);
  registerCustomOp('RaggedGather', raggedGatherOp);
  registerCustomOp('RaggedRange', raggedRangeOp);
  // Estimator sparse features (ParseExample's sparse outputs): TF's segment combiners and
  // SparseToDense with its index validation replace TF.js's; SparseReshape,
  // SparseFillEmptyRows and Unique stay TF.js's (they match TF: test/runtimes/embedded_sparse_ops).
  for (const op of SPARSE_SEGMENT_OPS) registerCustomOp(op, sparseSegmentExecutor(op), sparseSegmentNodeProblem);
  registerCustomOp('SparseToDense', sparseToDenseOp);
  registerCustomOp('SparseTensorDenseMatMul', sparseTensorDenseMatMulOp, floatOnlyProblem);
  // TF Decision Forests: SimpleMLInferenceOp(WithHandle) on Yggdrasil's WASM engine (decision_forests/).
  registerCustomOp(TFGATE_FOREST_INFERENCE_OP, simpleMLInferenceOp, simpleMLInferenceNodeProblem);
}
