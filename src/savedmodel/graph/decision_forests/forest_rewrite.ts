// TF-DF inference in a signature's (flattened, frozen) graph becomes tfgate's op over a model
// the runtime loaded at load time: SimpleMLInferenceOp(WithHandle) keeps its six feature
// inputs and dense_output_dim, loses its resource handle and gains the loaded model's key;
// the SimpleMLCreateModelResource it read is pruned with everything else nothing needs. An
// inference whose model nothing loads, or whose files tfgate could not find, refuses the
// signature naming the op: running a model that is not there is TF's "not found" error.
import { Code, ServingError } from '../../../errors/status.js';
import { localName } from '../control_flow_functions.js';
import { sourceOf } from '../variable_restore_map.js';
import type { NodeDef } from '../types.js';
import type { ForestModels } from './resolve_forest_models.js';
import {
  CREATE_MODEL_RESOURCE,
  INFERENCE_OPS,
  INFERENCE_WITH_HANDLE,
  LEAF_INDEX_WITH_HANDLE,
  TFGATE_FOREST_INFERENCE_OP,
  modelIdentifierIdentity,
  modelResourceIdentity,
} from './forest_ops.js';

/** The SavedModel's models and the keys its runtime loaded them under. */
export interface ForestBindings {
  models: ForestModels;
  /** Resource identity (forest_ops.ts) → the runtime's key of the loaded model. */
  keys: ReadonlyMap<string, string>;
}

/** The handle input of the WithHandle ops, after the six feature tensors. */
const HANDLE_INPUT = 6;

/** Rewrites the graph's TF-DF inference ops; without bindings (an engine with no forest op) they stay, for that engine to refuse by name. */
export function rewriteForestInference(graph: Map<string, NodeDef>, forests: ForestBindings | undefined, signatureKey: string): void {
  if (!forests) return;
  for (const node of [...graph.values()]) {
    if (!INFERENCE_OPS.has(node.op)) continue;
    const where = `signature '${signatureKey}': ${node.op} (node ${localName(node.name)})`;
    if (node.op === LEAF_INDEX_WITH_HANDLE) {
      throw new ServingError(
        Code.UNIMPLEMENTED,
        `${where} returns each tree's active leaf, which Yggdrasil's WASM engine (the one tfgate runs) cannot compute`,
      );
    }
    let identity: string;
    if (node.op === INFERENCE_WITH_HANDLE) {
      const resource = sourceOf(graph, node.input?.[HANDLE_INPUT] ?? '')?.node;
      if (resource?.op !== CREATE_MODEL_RESOURCE) {
        throw new ServingError(
          Code.UNIMPLEMENTED,
          `${where} reads its model from ${resource ? `${resource.op} '${localName(resource.name)}'` : 'an unknown tensor'}, which tfgate cannot resolve`,
        );
      }
      identity = modelResourceIdentity(resource);
    } else identity = modelIdentifierIdentity(node);
    const resolution = forests.models.of(identity);
    if (!resolution) {
      throw new ServingError(
        Code.FAILED_PRECONDITION,
        `${where} runs a model that nothing in the SavedModel loads (its init op has no SimpleMLLoadModelFromPath(WithHandle) for it); TF would not find the model resource`,
      );
    }
    if ('unresolved' in resolution)
      throw new ServingError(Code.UNIMPLEMENTED, `${where} runs a model tfgate cannot find at load: ${resolution.unresolved}`);
    const key = forests.keys.get(identity);
    if (key === undefined)
      throw new ServingError(
        Code.FAILED_PRECONDITION,
        `${where}: the model ${resolution.files.loadedBy} loads was not loaded by this runtime`,
      );
    graph.set(node.name, {
      name: node.name,
      op: TFGATE_FOREST_INFERENCE_OP,
      input: (node.input ?? []).slice(0, HANDLE_INPUT),
      attr: { dense_output_dim: node.attr?.dense_output_dim ?? {}, model_key: { s: new TextEncoder().encode(key) } },
    });
  }
}
