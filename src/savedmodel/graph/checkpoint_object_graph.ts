// Which checkpoint tensors belong to which object of a TF2 SavedModel, found as TF's loader
// finds them (tensorflow/python/checkpoint/restore.py, CheckpointPosition). The checkpoint
// carries its own object graph: a serialized TrackableObjectGraph under the key
// `_CHECKPOINTABLE_OBJECT_GRAPH`, whose nodes name their children (`local_name`) and the
// tensors they saved (`attributes`: name → checkpoint_key). Restoring binds the SavedModel's
// root (SavedObjectGraph node 0) to the checkpoint's root and walks both graphs together,
// child by child, by local name. Node ids of the two graphs need not agree, and the names of
// variables or ops play no part: a Keras 3 kernel whose VarHandleOp is `conv2d/kernel` may be
// saved as `_all_variables/0/.ATTRIBUTES/VARIABLE_VALUE`.
import { dataLoss } from '../../errors/status.js';
import { protoType, TO_OBJECT } from '../../proto/index.js';
import type { ObjectReferenceObject, SavedObjectGraphObject } from '../saved_model_reader.js';
import type { VariableReader } from './types.js';

/** The checkpoint key of the serialized TrackableObjectGraph (trackable/base.py OBJECT_GRAPH_PROTO_KEY). */
export const OBJECT_GRAPH_KEY = '_CHECKPOINTABLE_OBJECT_GRAPH';

/** One tensor an object saved: "VARIABLE_VALUE" for a variable, e.g. "table" for a legacy table saveable. */
interface SavedAttribute {
  name: string;
  checkpointKey: string;
}

/** What the checkpoint holds for one object of the SavedObjectGraph. */
export interface CheckpointedObject {
  attributes: SavedAttribute[];
  /** Saved by a registered saver (its tensors are not plain checkpoint keys). */
  registeredSaver?: string;
}

interface TrackableObjectObject {
  children?: ObjectReferenceObject[];
  attributes?: Array<{ name?: string; fullName?: string; checkpointKey?: string }>;
  registeredSaver?: { name?: string; objectName?: string };
}

const childId = (ref: ObjectReferenceObject): number => ref.nodeId ?? 0;

/**
 * The checkpoint's object graph, or null when it has none (a TF1 checkpoint: TF then restores
 * by variable name, checkpoint.py's NameBasedSaverStatus).
 */
export function readCheckpointObjectGraph(variables: VariableReader): TrackableObjectObject[] | null {
  if (!variables.has(OBJECT_GRAPH_KEY)) return null;
  const tensor = variables.read(OBJECT_GRAPH_KEY);
  const bytes = tensor.dtype === 'string' && tensor.values.length === 1 ? (tensor.values as Uint8Array[])[0] : undefined;
  if (!bytes) throw dataLoss(`checkpoint key ${OBJECT_GRAPH_KEY} is not one string (a serialized TrackableObjectGraph)`);
  try {
    const type = protoType('tensorflow.TrackableObjectGraph');
    return (type.toObject(type.decode(bytes), TO_OBJECT) as { nodes?: TrackableObjectObject[] }).nodes ?? [];
  } catch (e) {
    throw dataLoss(`checkpoint key ${OBJECT_GRAPH_KEY} is not a TrackableObjectGraph: ${(e as Error).message}`);
  }
}

/**
 * Saved object id → what the checkpoint holds for it, for every object the walk from the
 * roots reaches. An object the checkpoint does not have (a child name it lacks) is absent,
 * as TF leaves such an object unrestored; a checkpoint node reached again through another
 * path keeps its first binding (restore.py binds each checkpoint node once).
 */
export function bindCheckpointObjects(saved: SavedObjectGraphObject, checkpoint: TrackableObjectObject[]): Map<number, CheckpointedObject> {
  const savedNodes = saved.nodes ?? [];
  const bound = new Map<number, CheckpointedObject>();
  const boundCheckpointIds = new Set<number>();
  if (!savedNodes.length || !checkpoint.length) return bound;
  const queue: Array<[number, number]> = [[0, 0]];
  const bind = (savedId: number, checkpointId: number) => {
    const node = checkpoint[checkpointId];
    bound.set(savedId, {
      attributes: (node.attributes ?? []).map((a) => ({ name: a.name ?? '', checkpointKey: a.checkpointKey ?? '' })),
      ...(node.registeredSaver?.name ? { registeredSaver: node.registeredSaver.name } : {}),
    });
    boundCheckpointIds.add(checkpointId);
  };
  bind(0, 0);
  while (queue.length) {
    const [savedId, checkpointId] = queue.shift()!;
    const savedChildren = new Map((savedNodes[savedId]?.children ?? []).map((c) => [c.localName ?? '', childId(c)]));
    for (const ref of checkpoint[checkpointId]?.children ?? []) {
      const savedChild = savedChildren.get(ref.localName ?? '');
      const checkpointChild = childId(ref);
      if (savedChild === undefined || !checkpoint[checkpointChild] || !savedNodes[savedChild]) continue;
      if (bound.has(savedChild) || boundCheckpointIds.has(checkpointChild)) continue;
      bind(savedChild, checkpointChild);
      queue.push([savedChild, checkpointChild]);
    }
  }
  return bound;
}

/** Saved object id → its first path from the root, as TF prints it: `root.layer_with_weights-0.kernel`. */
export function objectPaths(saved: SavedObjectGraphObject): Map<number, string> {
  const paths = new Map<number, string>([[0, 'root']]);
  const queue = [0];
  while (queue.length) {
    const id = queue.shift()!;
    for (const c of saved.nodes?.[id]?.children ?? []) {
      const child = childId(c);
      if (paths.has(child)) continue;
      paths.set(child, `${paths.get(id)}.${c.localName ?? ''}`);
      queue.push(child);
    }
  }
  return paths;
}
