// A GraphBuilder for TF2-style SavedModels: a function library (GraphDef.library) beside the
// graph, and resource variables (VarHandleOp) whose values the checkpoint holds under TF2's
// object-graph keys (`<path>/.ATTRIBUTES/VARIABLE_VALUE`), restored by the functions
// resource_saver.ts adds. Ops go in through `top` (this graph) or a FunctionBuilder (a body).
import type { HostTensor } from '../../../src/tensor/host_tensor.js';
import { GraphBuilder } from './graph_builder.js';
import { emit, FunctionLibrary, GraphEmitter, shapeInit, type Value } from './function_library.js';
import { tfType } from './tf2_ops.js';
import { ObjectGraphBuilder } from './object_graph.js';

export interface ResourceVariableRecord {
  /** The VarHandleOp's output. */
  handle: Value;
  /** Checkpoint key (with an object graph: its object's, set when the model is built). */
  key: string;
  value: HostTensor;
}

/** A MutableHashTableV2 whose contents the checkpoint holds (Keras' adapted StringLookup). */
export interface CheckpointedTableRecord {
  handle: Value;
  /** Checkpoint keys `<path>/.ATTRIBUTES/table-keys` and `…/table-values` (with an object graph: its object's). */
  keysKey: string;
  valuesKey: string;
  keys: HostTensor;
  values: HostTensor;
}

export class Tf2GraphBuilder extends GraphBuilder {
  readonly library = new FunctionLibrary();
  readonly resourceVariables: ResourceVariableRecord[] = [];
  readonly checkpointedTables: CheckpointedTableRecord[] = [];
  readonly top = new GraphEmitter(this);
  private objectGraph?: ObjectGraphBuilder;

  /** The SavedObjectGraph tf.saved_model.save writes (made on first use; without it, none is written). */
  get objects(): ObjectGraphBuilder {
    return (this.objectGraph ??= new ObjectGraphBuilder());
  }

  get hasObjectGraph(): boolean {
    return this.objectGraph !== undefined;
  }

  /**
   * Keys every variable and table that is an object of the object graph by its object's
   * path, as TF saves them; `byName`: variables by their SavedVariable.name instead, as a
   * checkpoint without an object graph (a tf.compat.v1 Saver's) holds them.
   */
  keyByObjects(byName = false): void {
    if (!this.objectGraph) return;
    for (const v of this.resourceVariables) {
      const id = this.objectGraph.objectOf(v.handle);
      if (id !== undefined) v.key = byName ? this.objectGraph.variableName(id) : this.objectGraph.checkpointKey(id);
    }
    for (const t of this.checkpointedTables) {
      const id = this.objectGraph.objectOf(t.handle);
      if (id === undefined) continue;
      const key = this.objectGraph.checkpointKey(id);
      t.keysKey = `${key}-keys`;
      t.valuesKey = `${key}-values`;
    }
  }

  /**
   * `tf.Variable(value)` in TF2: a VarHandleOp named `name` (its shared_name too, as Keras
   * writes them), holding `value` in the checkpoint under `checkpointKey`.
   */
  resourceVariable(name: string, value: HostTensor, options: { checkpointKey?: string } = {}): Value {
    const handle = emit(this.top, 'VarHandleOp', name, [], {
      container: { s: new Uint8Array(0) },
      shared_name: { s: new TextEncoder().encode(name) },
      dtype: { type: tfType(value.dtype) },
      shape: { shape: shapeInit(value.shape) },
      allowed_devices: { list: {} },
    })[0].withShape([]);
    const key = options.checkpointKey ?? `${handle.ref}/.ATTRIBUTES/VARIABLE_VALUE`;
    if (this.resourceVariables.some((v) => v.key === key)) throw new Error(`checkpoint key ${key} is used twice`);
    this.resourceVariables.push({ handle, key, value });
    return handle;
  }

  /**
   * A MutableHashTableV2 named `name` holding `keys` → `values` in the checkpoint under
   * `<checkpointPath>/.ATTRIBUTES/table-keys` / `table-values`, as TF2 saves a tracked table;
   * the restore function fills it with LookupTableImportV2.
   */
  checkpointedTable(name: string, keys: HostTensor, values: HostTensor, checkpointPath = name): Value {
    const handle = emit(this.top, 'MutableHashTableV2', name, [], {
      container: { s: new Uint8Array(0) },
      shared_name: { s: new TextEncoder().encode(`table_${name}`) },
      use_node_name_sharing: { b: false },
      key_dtype: { type: tfType(keys.dtype) },
      value_dtype: { type: tfType(values.dtype) },
    })[0].withShape([]);
    const base = `${checkpointPath}/.ATTRIBUTES`;
    this.checkpointedTables.push({ handle, keysKey: `${base}/table-keys`, valuesKey: `${base}/table-values`, keys, values });
    return handle;
  }
}
