// The object graph tf.saved_model.save writes twice (tensorflow/python/saved_model/save.py,
// checkpoint/save_util.py):
//
//   MetaGraphDef.object_graph_def   SavedObjectGraph { nodes [root, …], concrete_functions {
//                                     fn → bound_inputs: the objects each function captures } }
//   variables/ `_CHECKPOINTABLE_OBJECT_GRAPH`   TrackableObjectGraph { nodes: the same objects,
//                                     children by local name, and `attributes` naming the
//                                     checkpoint key each saved tensor went to }
//
// A checkpoint key is the object's first path from the root in breadth-first order, its
// local names escaped (trackable_utils.escape_local_name: "/" → ".S", "." → ".."), plus
// `/.ATTRIBUTES/<attribute>`: VARIABLE_VALUE for a variable, "table" for a MutableHashTable
// (whose tensors are `<key>-keys` and `<key>-values`). So a Keras 3 kernel reachable as
// root._all_variables[0] and root._layers[0].kernel is saved once, under
// `_all_variables/0/.ATTRIBUTES/VARIABLE_VALUE` when `_all_variables` is tracked first.
import type { HostTensor } from '../../../src/tensor/host_tensor.js';
import type { NodeInit } from './graph_builder.js';
import type { FunctionSignature, Value } from './function_library.js';
import { shapeInit } from './function_library.js';
import { tfType } from './tf2_ops.js';

const VARIABLE_VALUE = 'VARIABLE_VALUE';
const TABLE = 'table';

type Kind =
  | { userObject: { identifier: string } }
  | { variable: { dtype: string; shape: Record<string, unknown>; trainable: boolean; name: string } }
  | { resource: Record<string, never> };

interface ObjectNode {
  children: Array<{ nodeId: number; localName: string }>;
  kind: Kind;
  /** The graph handle this object is (variables and resources). */
  handle?: Value;
}

export interface CheckpointGraphOptions {
  /**
   * Node ids in the checkpoint's graph: the saved ids (TF writes both from one traversal),
   * or the root then the rest reversed, as a checkpoint written by another program version
   * would number them: restoring must match objects by path, not by id.
   */
  ids?: 'as saved' | 'reversed';
  /** Objects the checkpoint's graph leaves out (its parents do not name them as children). */
  omit?: number[];
}

const escapeLocalName = (name: string) => name.replace(/\./g, '..').replace(/\//g, '.S');

export class ObjectGraphBuilder {
  readonly root = 0;
  private readonly nodes: ObjectNode[] = [{ children: [], kind: { userObject: { identifier: '_generic_user_object' } } }];
  private readonly bound = new Map<string, number[]>();

  private add(parent: number, localName: string, node: ObjectNode): number {
    this.nodes.push(node);
    const id = this.nodes.length - 1;
    this.child(parent, localName, id);
    return id;
  }

  /** A tracked Python object (a layer, a list, the optimizer …). */
  userObject(parent: number, localName: string, identifier = '_generic_user_object'): number {
    return this.add(parent, localName, { children: [], kind: { userObject: { identifier } } });
  }

  /** A tf.Variable whose handle is `handle` (a VarHandleOp); `name` is SavedVariable.name (TF: the variable's name). */
  variable(parent: number, localName: string, handle: Value, value: HostTensor, name: string): number {
    return this.add(parent, localName, {
      children: [],
      handle,
      kind: { variable: { dtype: tfType(value.dtype), shape: shapeInit(value.shape), trainable: true, name } },
    });
  }

  /** A TrackableResource (a lookup table) whose handle is `handle`. */
  resource(parent: number, localName: string, handle: Value): number {
    return this.add(parent, localName, { children: [], handle, kind: { resource: {} } });
  }

  /** Another edge to an existing object (Keras tracks a variable in several lists). */
  child(parent: number, localName: string, id: number): void {
    if (!this.nodes[parent] || !this.nodes[id]) throw new Error(`object graph: no object ${this.nodes[parent] ? id : parent}`);
    if (this.nodes[parent].children.some((c) => c.localName === localName))
      throw new Error(`object graph: object ${parent} already has a child ${localName}`);
    this.nodes[parent].children.push({ nodeId: id, localName });
  }

  /** The objects concrete function `fn` captures, in the order its callers pass their handles last. */
  captures(fn: FunctionSignature | string, objects: number[]): void {
    this.bound.set(typeof fn === 'string' ? fn : fn.name, objects);
  }

  /** Object id → its first breadth-first path, escaped ('' for the root). */
  private paths(): Map<number, string> {
    const paths = new Map<number, string>([[0, '']]);
    const queue = [0];
    while (queue.length) {
      const id = queue.shift()!;
      for (const c of this.nodes[id].children) {
        if (paths.has(c.nodeId)) continue;
        const prefix = paths.get(id)!;
        paths.set(c.nodeId, prefix ? `${prefix}/${escapeLocalName(c.localName)}` : escapeLocalName(c.localName));
        queue.push(c.nodeId);
      }
    }
    return paths;
  }

  /** The object whose handle is `handle`, if any. */
  objectOf(handle: Value): number | undefined {
    const id = this.nodes.findIndex((n) => n.handle?.ref === handle.ref);
    return id < 0 ? undefined : id;
  }

  /** SavedVariable.name of a variable object. */
  variableName(id: number): string {
    const kind = this.nodes[id]?.kind;
    if (!kind || !('variable' in kind)) throw new Error(`object graph: object ${id} is not a variable`);
    return kind.variable.name;
  }

  /** Checkpoint key of a variable object's value / a table object's saveable (tensors: key + "-keys", "-values"). */
  checkpointKey(id: number): string {
    const path = this.paths().get(id);
    if (path === undefined) throw new Error(`object graph: object ${id} is not reachable from the root`);
    return `${path}/.ATTRIBUTES/${'variable' in this.nodes[id].kind ? VARIABLE_VALUE : TABLE}`;
  }

  /** protobufjs-ready tensorflow.SavedObjectGraph. */
  savedObjectGraph(): Record<string, unknown> {
    return {
      nodes: this.nodes.map((n) => ({ children: n.children, ...n.kind })),
      concreteFunctions: Object.fromEntries(
        [...this.bound].sort(([a], [b]) => (a < b ? -1 : 1)).map(([f, ids]) => [f, { boundInputs: ids }]),
      ),
    };
  }

  /** protobufjs-ready tensorflow.TrackableObjectGraph, as the checkpoint stores it. */
  trackableObjectGraph(options: CheckpointGraphOptions = {}): Record<string, unknown> {
    const omit = new Set(options.omit ?? []);
    const n = this.nodes.length;
    const idOf = (id: number) => (options.ids === 'reversed' && id !== 0 ? n - id : id);
    const out: Array<Record<string, unknown>> = new Array(n);
    this.nodes.forEach((node, id) => {
      const attributes: Array<Record<string, string>> = [];
      if (!omit.has(id) && node.handle && this.paths().has(id)) {
        const key = this.checkpointKey(id);
        const name = 'variable' in node.kind ? node.kind.variable.name : '';
        attributes.push({ name: 'variable' in node.kind ? VARIABLE_VALUE : TABLE, fullName: name, checkpointKey: key });
      }
      out[idOf(id)] = {
        children: node.children.filter((c) => !omit.has(c.nodeId)).map((c) => ({ nodeId: idOf(c.nodeId), localName: c.localName })),
        attributes,
      };
    });
    return { nodes: out };
  }

  /**
   * Problems with the graph's call sites: each call of a capturing function must pass the
   * handles of its captured objects as its last inputs, in order (what save.py writes).
   */
  problems(graphNodes: readonly NodeInit[]): string[] {
    const problems: string[] = [];
    for (const node of graphNodes) {
      const fn = (node.attr?.f as { func?: { name?: string } } | undefined)?.func?.name;
      const ids = fn ? this.bound.get(fn) : undefined;
      if (!ids) continue;
      const data = node.input.filter((i) => !i.startsWith('^'));
      const passed = data.slice(data.length - ids.length);
      ids.forEach((id, i) => {
        const handle = this.nodes[id]?.handle;
        if (!handle || handle.ref !== passed[i])
          problems.push(`${node.name} calls ${fn} with ${passed[i]} where it captures object ${id} (${handle?.ref ?? 'no handle'})`);
      });
    }
    return problems;
  }
}
