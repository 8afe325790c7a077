// TF1's way to a variable's checkpoint key (a SavedModel without an object graph): the
// loader runs the saver's restore op (saver_def.restore_op_name), whose Assign /
// AssignVariableOp nodes take `RestoreV2:i` and whose `tensor_names` constant gives key i.
// Which variable an assign fills is a resource, not a node: TF shares a variable between
// every node of the same container and shared_name (a VariableV2 without one uses its node
// name), so the map is keyed by that identity. TF2 exports go through their object graph
// instead (checkpoint_restore.ts).
import type { GraphFlattener } from './graph_flattener.js';
import { parseTensorName } from './graph_flattener.js';
import { attrString, utf8, type NodeDef } from './types.js';
import { TABLE_OPS, tableIdentity } from './lookup_tables/table_ops.js';

const ASSIGN_OPS = new Set(['Assign', 'AssignVariableOp']);
const VARIABLE_OPS = new Set(['VariableV2', 'Variable', 'VarHandleOp']);

/** Follows Identity-like ops in the flattened graph to the node producing a tensor. */
export function sourceOf(out: Map<string, NodeDef>, tensor: string): { node: NodeDef; index: number } | undefined {
  let [name, index] = parseTensorName(tensor);
  for (let hops = 0; hops < 1000; hops++) {
    const node = out.get(name);
    if (!node) return undefined;
    if ((node.op === 'Identity' || node.op === 'Snapshot') && node.input?.[0]) {
      [name, index] = parseTensorName(node.input[0]);
      continue;
    }
    return { node, index };
  }
  return undefined;
}

/** The checkpoint key of output `index` of a RestoreV2 node (from its `tensor_names` constant). */
export function restoreKey(out: Map<string, NodeDef>, restoreNode: NodeDef, index: number): string | undefined {
  const names = restoreNode.input?.[1] ? sourceOf(out, restoreNode.input[1]) : undefined;
  const tensor = names?.node.op === 'Const' ? names.node.attr?.value?.tensor : undefined;
  const raw = tensor?.stringVal;
  if (!raw?.length) return undefined;
  return utf8.decode(raw[Math.min(index, raw.length - 1)]);
}

/**
 * The resource a handle-making node opens: its container and shared_name, the node name
 * standing in for an empty shared_name (VariableV2; a table's own rule is tableIdentity).
 */
export function resourceIdentity(node: NodeDef): string {
  if (TABLE_OPS.has(node.op)) return tableIdentity(node);
  return `shared:${attrString(node.attr?.container)}/${attrString(node.attr?.shared_name) || node.name}`;
}

/**
 * Variable resource (resourceIdentity of its VariableV2 / VarHandleOp) → the checkpoint key
 * the restore op assigns it from. `restoreFlattener` must keep control inputs.
 */
export function variableRestoreMap(restoreFlattener: GraphFlattener, restoreOpName: string | undefined): Map<string, string> {
  const keys = new Map<string, string>();
  if (!restoreOpName) return keys;
  const [opName] = parseTensorName(restoreOpName);
  if (!restoreFlattener.hasTopNode(opName)) return keys;
  restoreFlattener.require(opName);
  const out = restoreFlattener.out;
  for (const node of out.values()) {
    if (!ASSIGN_OPS.has(node.op)) continue;
    const target = node.input?.[0] ? sourceOf(out, node.input[0]) : undefined;
    const value = node.input?.[1] ? sourceOf(out, node.input[1]) : undefined;
    if (!target || !value || !VARIABLE_OPS.has(target.node.op)) continue;
    if (value.node.op !== 'RestoreV2') continue;
    const key = restoreKey(out, value.node, value.index);
    if (key !== undefined) keys.set(resourceIdentity(target.node), key);
  }
  return keys;
}
