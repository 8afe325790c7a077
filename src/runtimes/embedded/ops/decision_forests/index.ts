// The `decision_forests` op family: TF Decision Forests' inference (SimpleMLInferenceOp…, which
// tfgate's load rewrites to one op) on Yggdrasil's WASM engine.
import type { TfjsOpTable } from '../../../shared/tfjs_op_table.js';
import { TFGATE_FOREST_INFERENCE_OP } from '../../../../savedmodel/graph/decision_forests/forest_ops.js';
import { simpleMLInferenceNodeProblem, simpleMLInferenceOp } from './simple_ml_inference_op.js';

export const DECISION_FOREST_OPS: TfjsOpTable = {
  [TFGATE_FOREST_INFERENCE_OP]: { execute: simpleMLInferenceOp, check: simpleMLInferenceNodeProblem },
};
