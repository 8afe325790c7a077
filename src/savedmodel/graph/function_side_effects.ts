// Variable writes inside the functions a signature's loops and conditionals call. The
// embedded runtime freezes every variable, so a loop body that updates one (a step counter,
// a stateful RNN's state) would silently compute with stale values: such signatures are
// refused, naming the op, its node and function, and — when it writes a loop variable — the
// While (or If) that carries it and the variable behind it.
import { FUNCTIONAL_OPS } from './control_flow_functions.js';
import { sourceOf } from './variable_restore_map.js';
import type { AttrValue, FunctionDef, NodeDef } from './types.js';

function calledFunctions(node: NodeDef, library: Map<string, FunctionDef>): Array<{ attr: string; name: string }> {
  const called: Array<{ attr: string; name: string }> = [];
  if (library.has(node.op)) called.push({ attr: 'op', name: node.op });
  for (const [attr, v] of Object.entries(node.attr ?? {}) as Array<[string, AttrValue]>) {
    if (v.func?.name) called.push({ attr, name: v.func.name });
    for (const f of v.list?.func ?? []) if (f.name) called.push({ attr, name: f.name });
  }
  return called;
}

/**
 * Describes the first op of `writes` found in a function that a node of `graph` calls
 * (directly or through further calls), or returns undefined. `graph` is the signature's
 * flattened graph (with control inputs), used to name the variable behind a loop variable.
 */
export function variableWriteInFunctions(
  graph: Map<string, NodeDef>,
  library: Map<string, FunctionDef>,
  writes: ReadonlySet<string>,
): string | undefined {
  const visited = new Set<string>();
  const visit = (fname: string, role: string, caller: NodeDef | undefined): string | undefined => {
    if (visited.has(fname)) return undefined;
    visited.add(fname);
    const fdef = library.get(fname);
    for (const n of fdef?.nodeDef ?? []) {
      if (writes.has(n.op)) return `${n.op} at node '${n.name}' in function '${fname}', ${role}${loopVariable(fdef!, n, caller)}`;
      for (const c of calledFunctions(n, library)) {
        const found = visit(c.name, `called by node '${n.name}' of function '${fname}'`, undefined);
        if (found) return found;
      }
    }
    return undefined;
  };
  const loopVariable = (fdef: FunctionDef, write: NodeDef, caller: NodeDef | undefined): string => {
    const kind = caller && FUNCTIONAL_OPS[caller.op];
    const k = (fdef.signature.inputArg ?? []).findIndex((a) => a.name === write.input?.[0]);
    if (!kind || k < 0) return '';
    const input = (caller!.input ?? []).filter((i) => !i.startsWith('^'))[kind.argStart + k];
    const src = input ? sourceOf(graph, input) : undefined;
    const variable = src?.node.op === 'VarHandleOp' ? ` (resource variable '${src.node.name}')` : '';
    return `, writing its ${kind.loop ? 'loop variable' : 'input'} ${k}${variable}`;
  };
  for (const node of graph.values()) {
    for (const c of calledFunctions(node, library)) {
      const found = visit(c.name, `the ${c.attr} of ${node.op} '${node.name}'`, node);
      if (found) return found;
    }
  }
  return undefined;
}
