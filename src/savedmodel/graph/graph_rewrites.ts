// Rewrites shared by a signature's graph and the functions its loops call: Identity
// bypassing and pruning to the tensors that are needed.
import { parseTensorName } from './graph_flattener.js';
import type { NodeDef } from './types.js';

const IDENTITY_OPS = new Set(['Identity', 'Snapshot', 'StopGradient']);

/** The tensor an Identity chain starting at `tensor` forwards, stopping at nodes in `keep`. */
export function identityTarget(out: Map<string, NodeDef>, tensor: string, keep: ReadonlySet<string> = new Set()): string {
  for (let hops = 0; hops < 10000; hops++) {
    const [name, index] = parseTensorName(tensor);
    const node = out.get(name);
    if (!node || index !== 0 || keep.has(name) || !IDENTITY_OPS.has(node.op) || !node.input?.[0]) return tensor;
    tensor = node.input[0].includes(':') ? node.input[0] : `${node.input[0]}:0`;
  }
  return tensor;
}

/**
 * Rewires consumers of Identity nodes to the Identity's input (grappler does the same).
 * Worth it: TF1 variables are read through `<var>/read` Identities, and the WASM backend's
 * Identity copies its input, so every request would copy every weight.
 */
export function bypassIdentities(out: Map<string, NodeDef>, keep: ReadonlySet<string>): void {
  for (const [name, node] of out) {
    if (!node.input?.some((i) => !i.startsWith('^'))) continue;
    out.set(name, { ...node, input: node.input.map((i) => (i.startsWith('^') ? i : identityTarget(out, i, keep))) });
  }
}

/** Nodes reachable from `roots` over data edges, in dependency order. */
export function pruneTo(roots: string[], nodes: Map<string, NodeDef>): NodeDef[] {
  const order: NodeDef[] = [];
  const state = new Map<string, 1 | 2>();
  const stack: Array<[string, boolean]> = roots.map((t) => [parseTensorName(t)[0], false]);
  while (stack.length) {
    const [name, expanded] = stack.pop()!;
    const node = nodes.get(name);
    if (!node) continue;
    if (expanded) {
      if (state.get(name) !== 2) {
        state.set(name, 2);
        order.push(node);
      }
      continue;
    }
    if (state.has(name)) continue;
    state.set(name, 1);
    stack.push([name, true]);
    for (const input of node.input ?? []) {
      if (!input.startsWith('^')) stack.push([parseTensorName(input)[0], false]);
    }
  }
  return order;
}
