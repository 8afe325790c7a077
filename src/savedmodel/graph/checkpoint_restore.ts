// Where each variable and checkpointed table of a SavedModel gets its value, found by the
// mechanism TF's loader uses for that kind of SavedModel (load.py: a meta graph with an
// object_graph_def is restored object by object, any other through its saver):
//   - TF2 exports: a handle → the object its functions' call sites bind it to
//     (captured_objects.ts) → that object's tensors in the checkpoint's own object graph
//     (checkpoint_object_graph.ts). A checkpoint without an object graph is restored by
//     variable name, SavedVariable.name (checkpoint.py, NameBasedSaverStatus).
//   - TF1 graphs: the variables the saver's restore op assigns (variable_restore_map.ts).
// Neither guesses a key from an op name: a variable neither mechanism restores is refused,
// as TF would fail reading it uninitialised.
import { Code, ServingError } from '../../errors/status.js';
import type { HostTensor } from '../../tensor/host_tensor.js';
import type { MetaGraphObject, SavedObjectObject } from '../saved_model_reader.js';
import {
  bindCheckpointObjects,
  objectPaths,
  OBJECT_GRAPH_KEY,
  readCheckpointObjectGraph,
  type CheckpointedObject,
} from './checkpoint_object_graph.js';
import { capturedObjects, CONFLICTING_CAPTURES, type CapturedObjects } from './captured_objects.js';
import { localName } from './control_flow_functions.js';
import { GraphFlattener } from './graph_flattener.js';
import { resourceIdentity, variableRestoreMap } from './variable_restore_map.js';
import type { FunctionDef, NodeDef, OpDef, VariableReader } from './types.js';

/** The attribute a variable saves its value under (trackable/base.py VARIABLE_VALUE_KEY). */
const VARIABLE_VALUE = 'VARIABLE_VALUE';
/** The tensors a table saves (lookup_ops.py: `_serialize_to_tensors` → "-keys", "-values"). */
const TABLE_KEYS = '-keys';
const TABLE_VALUES = '-values';

/** The checkpoint tensors a table was saved as, found through its object. */
export interface TableCheckpoint {
  keys: HostTensor;
  values: HostTensor;
  /** For messages: the object and keys. */
  by: string;
}

const kindOf = (o: SavedObjectObject | undefined): string =>
  !o ? 'nothing' : o.variable ? 'a variable' : o.resource ? 'a resource' : o.asset ? 'an asset' : o.constant ? 'a constant' : 'an object';

/** TF2: handles are objects of the SavedObjectGraph, their values named by the checkpoint's object graph. */
class ObjectGraphRestore {
  private readonly captured: CapturedObjects;
  private readonly checkpointed: ReadonlyMap<number, CheckpointedObject> | null;
  private readonly paths: ReadonlyMap<number, string>;

  constructor(
    private readonly mg: MetaGraphObject,
    private readonly variables: VariableReader | null,
  ) {
    const saved = mg.objectGraphDef ?? {};
    this.captured = capturedObjects(saved, mg.graphDef?.node ?? []);
    const checkpoint = variables ? readCheckpointObjectGraph(variables) : null;
    this.checkpointed = checkpoint ? bindCheckpointObjects(saved, checkpoint) : null;
    this.paths = objectPaths(saved);
  }

  private objectOf(handle: NodeDef, what: string): { id: number; object: SavedObjectObject | undefined; shown: string } {
    const id = this.captured.get(resourceIdentity(handle));
    const name = `${what} '${localName(handle.name)}'`;
    if (id === undefined) {
      throw new ServingError(
        Code.FAILED_PRECONDITION,
        `${name} is no object of the SavedModel's object graph (no function call passes it as a captured input), so TF's loader restores no value for it`,
      );
    }
    if (id === CONFLICTING_CAPTURES)
      throw new ServingError(
        Code.INVALID_ARGUMENT,
        `${name} is passed to functions as two different objects of the SavedModel's object graph`,
      );
    return { id, object: this.mg.objectGraphDef?.nodes?.[id], shown: `${name} (object ${this.paths.get(id) ?? `#${id}`})` };
  }

  variableKey(handle: NodeDef): string {
    const { id, object, shown } = this.objectOf(handle, 'variable');
    if (!object?.variable)
      throw new ServingError(Code.FAILED_PRECONDITION, `${shown} is ${kindOf(object)} of the object graph, not a variable`);
    // No object graph in the checkpoint: TF restores by name.
    if (!this.checkpointed) return object.variable.name ?? '';
    const attribute = this.checkpointedOf(id, shown).attributes.find((a) => a.name === VARIABLE_VALUE);
    if (!attribute) throw new ServingError(Code.NOT_FOUND, `${shown}: the checkpoint's object saved no ${VARIABLE_VALUE}`);
    return attribute.checkpointKey;
  }

  /** The table's checkpoint keys, or undefined when its object saved nothing (a table its init op fills). */
  tableKeys(table: NodeDef): { keys: string; values: string; shown: string } | undefined {
    if (!this.checkpointed || !this.variables) return undefined;
    const id = this.captured.get(resourceIdentity(table));
    if (id === undefined || id === CONFLICTING_CAPTURES) return undefined;
    const attributes = this.checkpointed.get(id)?.attributes ?? [];
    if (!attributes.length) return undefined;
    const shown = `table '${localName(table.name)}' (object ${this.paths.get(id) ?? `#${id}`})`;
    // `_serialize_to_tensors` names "-keys" / "-values" as attributes of their own; a legacy
    // saveable (named "table") saves them under its key plus those suffixes.
    const direct = (suffix: string) => attributes.find((a) => a.name.endsWith(suffix))?.checkpointKey;
    const legacy = attributes.find((a) => this.variables!.has(`${a.checkpointKey}${TABLE_KEYS}`))?.checkpointKey;
    const keys = direct(TABLE_KEYS) ?? (legacy && `${legacy}${TABLE_KEYS}`);
    const values = direct(TABLE_VALUES) ?? (legacy && `${legacy}${TABLE_VALUES}`);
    if (!keys || !values)
      throw new ServingError(
        Code.NOT_FOUND,
        `${shown}: the checkpoint holds no ${TABLE_KEYS} / ${TABLE_VALUES} tensors for it (attributes: ${attributes.map((a) => a.checkpointKey).join(', ')})`,
      );
    return { keys, values, shown };
  }

  private checkpointedOf(id: number, shown: string): CheckpointedObject {
    const found = this.checkpointed?.get(id);
    if (!found)
      throw new ServingError(
        Code.NOT_FOUND,
        `${shown} has no value in the checkpoint: its object graph (${OBJECT_GRAPH_KEY}) does not reach that object`,
      );
    if (found.registeredSaver)
      throw new ServingError(
        Code.UNIMPLEMENTED,
        `${shown} was saved by the registered saver '${found.registeredSaver}', which tfgate cannot read`,
      );
    return found;
  }
}

/** TF1: what the saver's restore op assigns. */
class RestoreOpRestore {
  private keys?: Map<string, string>;

  constructor(private readonly mg: MetaGraphObject) {}

  variableKey(handle: NodeDef): string {
    const library = new Map((this.mg.graphDef?.library?.function ?? []).map((f): [string, FunctionDef] => [f.signature.name, f]));
    const opDefs = new Map((this.mg.metaInfoDef?.strippedOpList?.op ?? []).map((o): [string, OpDef] => [o.name, o]));
    this.keys ??= variableRestoreMap(
      new GraphFlattener(this.mg.graphDef?.node ?? [], library, opDefs, { keepControlInputs: true }),
      this.mg.saverDef?.restoreOpName,
    );
    const key = this.keys.get(resourceIdentity(handle));
    if (key === undefined) {
      const restoreOp = this.mg.saverDef?.restoreOpName;
      const by = restoreOp ? `the SavedModel's restore op ('${restoreOp}')` : 'anything: the SavedModel has no saver (saver_def)';
      throw new ServingError(
        Code.FAILED_PRECONDITION,
        `variable '${localName(handle.name)}' is not restored by ${by}; TF would fail reading it: Attempting to use uninitialized value ${localName(handle.name)}`,
      );
    }
    return key;
  }
}

export class CheckpointRestore {
  private readonly mechanism: ObjectGraphRestore | RestoreOpRestore;

  private constructor(
    mg: MetaGraphObject,
    private readonly variables: VariableReader | null,
  ) {
    this.mechanism = mg.objectGraphDef ? new ObjectGraphRestore(mg, variables) : new RestoreOpRestore(mg);
  }

  private static readonly byMetaGraph = new WeakMap<MetaGraphObject, { variables: VariableReader | null; restore: CheckpointRestore }>();

  /** One per meta graph and checkpoint (the maps are built once; values are read on demand, not kept). */
  static of(mg: MetaGraphObject, variables: VariableReader | null): CheckpointRestore {
    const known = CheckpointRestore.byMetaGraph.get(mg);
    if (known?.variables === variables) return known.restore;
    const restore = new CheckpointRestore(mg, variables);
    CheckpointRestore.byMetaGraph.set(mg, { variables, restore });
    return restore;
  }

  /** Whether this is a TF2 export restored through its object graph. */
  get objectBased(): boolean {
    return this.mechanism instanceof ObjectGraphRestore;
  }

  /** The checkpoint key of the variable a VarHandleOp / VariableV2 opens. */
  variableKey(handle: NodeDef): string {
    const key = this.mechanism.variableKey(handle);
    if (!this.variables) {
      throw new ServingError(
        Code.NOT_FOUND,
        `variable '${localName(handle.name)}' needs checkpoint key '${key}', but the SavedModel has no variables/ folder`,
      );
    }
    if (!this.variables.has(key)) {
      throw new ServingError(
        Code.NOT_FOUND,
        `Key ${key} not found in checkpoint (variable '${localName(handle.name)}', variables/variables.index)`,
      );
    }
    return key;
  }

  read(key: string): HostTensor {
    return this.variables!.read(key);
  }

  /** TF2: what the checkpoint restores into a table (Keras' adapted StringLookup …); undefined: nothing. */
  checkpointedTable(table: NodeDef): TableCheckpoint | undefined {
    if (!(this.mechanism instanceof ObjectGraphRestore)) return undefined;
    const found = this.mechanism.tableKeys(table);
    if (!found) return undefined;
    for (const key of [found.keys, found.values]) {
      if (!this.variables!.has(key))
        throw new ServingError(Code.NOT_FOUND, `Key ${key} not found in checkpoint (${found.shown}, variables/variables.index)`);
    }
    return {
      keys: this.read(found.keys),
      values: this.read(found.values),
      by: `${found.shown} from checkpoint keys ${found.keys}, ${found.values}`,
    };
  }
}
