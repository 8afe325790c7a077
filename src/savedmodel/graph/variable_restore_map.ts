// Which checkpoint key holds each variable's value. Rather than guessing from names (TF1
// uses the variable name, TF2 an object-graph path such as `a/.ATTRIBUTES/VARIABLE_VALUE`,
// Keras 3 `variables/3`), tfgate reads the answer from the restore graph that every
// SavedModel carries: saver_def.restore_op_name runs Assign / AssignVariableOp nodes whose
// value is `RestoreV2:i` and whose `tensor_names` constant gives key i.
import type { GraphFlattener } from './graph_flattener.js';
import { parseTensorName } from './graph_flattener.js';
import { utf8, type NodeDef } from './types.js';

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
 * Global variable node name (VariableV2 / VarHandleOp, as named in the flattened graph)
 * → checkpoint key. `restoreFlattener` must keep control inputs.
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
    if (key !== undefined) keys.set(target.node.name, key);
  }
  return keys;
}

/** The key a variable would have without a restore graph: TF1 name or resource shared_name. */
export function fallbackKey(node: NodeDef): string {
  if (node.op === 'VarHandleOp') {
    const shared = node.attr?.shared_name?.s;
    if (shared?.length) return utf8.decode(shared);
  }
  return node.name;
}
