// TFGATE_FOREST_INFERENCE_OP for TF.js: TF-DF's SimpleMLInferenceOp(WithHandle) on the model
// loaded under the node's model_key (forest_rewrite.ts names it, load_forests.ts loads it).
// Runs synchronously on the executor thread: Yggdrasil's WASM engine is plain calls.
import tf from '../../../tfjs_packages/tfjs_core.cjs';
import type * as tfconv from '@tensorflow/tfjs-converter';
import { internal, invalidArgument } from '../../../../errors/status.js';
import type { NodeDef } from '../../../../savedmodel/graph/types.js';
import { bytesAttr } from '../string/string_tensors.js';
import { forestOf } from './forest_registry.js';

const utf8 = new TextDecoder();

const matrix = <T extends Float32Array | Int32Array>(t: tf.Tensor, name: string, Type: { from(a: ArrayLike<number>): T }) => {
  if (t.dtype === 'string') throw invalidArgument(`${name} must be numeric, got a string tensor`);
  return { values: Type.from(t.dataSync() as ArrayLike<number>), shape: t.shape };
};

const vector = (t: tf.Tensor, name: string): ArrayLike<number> => {
  if (t.rank !== 1) throw invalidArgument(`${name} must be a vector, got shape [${t.shape.join(',')}]`);
  return t.dataSync() as ArrayLike<number>;
};

export const simpleMLInferenceOp: tfconv.OpExecutor = (node) => {
  const key = utf8.decode(bytesAttr(node, 'model_key'));
  const forest = forestOf(key);
  if (!forest) throw internal(`SimpleMLInferenceOp: decision forest '${key}' is not loaded in this thread`);
  const denseOutputDim = Number(node.attrs.dense_output_dim);
  const [numerical, boolean, categorical, setValues, splits1, splits2] = node.inputs;
  const out = forest.infer(
    {
      numerical: matrix(numerical, 'numerical_features', Float32Array),
      boolean: matrix(boolean, 'boolean_features', Float32Array),
      categorical: matrix(categorical, 'categorical_int_features', Int32Array),
      categoricalSetValues: vector(setValues, 'categorical_set_int_features_values'),
      rowSplitsDim1: vector(splits1, 'categorical_set_int_features_row_splits_dim_1'),
      rowSplitsDim2: vector(splits2, 'categorical_set_int_features_row_splits_dim_2'),
    },
    denseOutputDim,
  );
  return [
    tf.tensor2d(out.densePredictions, [out.batch, denseOutputDim], 'float32'),
    tf.tensor1d(out.denseColRepresentation.map((s) => new TextEncoder().encode(s)) as unknown as string[], 'string'),
  ];
};

/** Load-time check: the attribute TF requires (dense_output_dim: int >= 1). */
export function simpleMLInferenceNodeProblem(node: NodeDef): string | null {
  const dim = Number(node.attr?.dense_output_dim?.i ?? 0);
  return Number.isInteger(dim) && dim >= 1
    ? null
    : `dense_output_dim is ${node.attr?.dense_output_dim?.i ?? 'missing'}, where TF-DF requires an integer ≥ 1`;
}
