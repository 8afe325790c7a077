// The TensorFlow Decision Forests ops a served SavedModel holds (tensorflow_decision_forests/
// tensorflow/ops/inference/op.cc), and which model a node stands for. TF-DF's Keras export
// creates a model resource (SimpleMLCreateModelResource), fills it in the init op from the
// Yggdrasil model files in assets/ (SimpleMLLoadModelFromPathWithHandle) and runs it in the
// serving graph (SimpleMLInferenceOpWithHandle); its first releases named the model by a
// string instead (SimpleMLLoadModelFromPath / SimpleMLInferenceOp, attr model_identifier).
import { attrString, type NodeDef } from '../types.js';

export const CREATE_MODEL_RESOURCE = 'SimpleMLCreateModelResource';
/** (model_handle, path); attrs file_prefix, output_types, allow_slow_inference. */
export const LOAD_WITH_HANDLE = 'SimpleMLLoadModelFromPathWithHandle';
/** (path); attr model_identifier. */
const LOAD_BY_IDENTIFIER = 'SimpleMLLoadModelFromPath';
/** (6 feature tensors, model_handle) → dense_predictions, dense_col_representation. */
export const INFERENCE_WITH_HANDLE = 'SimpleMLInferenceOpWithHandle';
/** (6 feature tensors) → the same; attr model_identifier. */
const INFERENCE_BY_IDENTIFIER = 'SimpleMLInferenceOp';
/** (6 feature tensors, model_handle) → the active leaf of every tree. */
export const LEAF_INDEX_WITH_HANDLE = 'SimpleMLInferenceLeafIndexOpWithHandle';

export const LOAD_OPS = new Set([LOAD_WITH_HANDLE, LOAD_BY_IDENTIFIER]);
export const INFERENCE_OPS = new Set([INFERENCE_WITH_HANDLE, INFERENCE_BY_IDENTIFIER, LEAF_INDEX_WITH_HANDLE]);

/**
 * tfgate's op for a resolved model: the six feature tensors of SimpleMLInferenceOp(WithHandle)
 * → dense_predictions, dense_col_representation; attrs dense_output_dim and model_key (the
 * runtime's key of the loaded model).
 */
export const TFGATE_FOREST_INFERENCE_OP = 'TfgateSimpleMLInference';

/**
 * The model a SimpleMLCreateModelResource node opens: with a shared_name, every node of that
 * name (in the serving and in the init function alike) opens one resource; without, the node
 * itself is the resource. A model_identifier names its own resource (a separate container).
 */
export function modelResourceIdentity(node: NodeDef): string {
  const shared = attrString(node.attr?.shared_name);
  return shared ? `shared:${attrString(node.attr?.container)}/${shared}` : `node:${node.name}`;
}

export const modelIdentifierIdentity = (node: NodeDef): string => `identifier:${attrString(node.attr?.model_identifier)}`;
