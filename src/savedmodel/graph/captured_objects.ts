// Which object of a TF2 SavedModel's object graph a resource of its graph stands for. TF's
// loader calls every concrete function with the objects its `bound_inputs` name appended to
// the caller's inputs (load.py, _setup_function_captures): a variable, a table, an asset.
// The SavedModel's graph spells the same binding out at each call site: a
// (Stateful)PartitionedCall of that function passes the captured handles as its last inputs,
// in bound_inputs' order (save.py maps each capture to the exported handle of its object).
// So the handle node behind such an input is that object, whichever function captures it
// and however deep inside that function it is read.
import type { SavedObjectGraphObject } from '../saved_model_reader.js';
import { parseTensorName } from './graph_flattener.js';
import type { NodeDef } from './types.js';
import { resourceIdentity, sourceOf } from './variable_restore_map.js';

/** Resource identity (variable_restore_map.ts) → saved object id; -1 when two call sites disagree. */
export type CapturedObjects = ReadonlyMap<string, number>;

export const CONFLICTING_CAPTURES = -1;

function calledFunction(node: NodeDef, functions: ReadonlySet<string>): string | undefined {
  const f = node.attr?.f?.func?.name;
  if (f && functions.has(f)) return f;
  return functions.has(node.op) ? node.op : undefined;
}

export function capturedObjects(saved: SavedObjectGraphObject, graphNodes: readonly NodeDef[]): CapturedObjects {
  const bound = saved.concreteFunctions ?? {};
  const functions = new Set(Object.keys(bound));
  const top = new Map(graphNodes.map((n) => [n.name, n]));
  const objects = new Map<string, number>();
  for (const node of graphNodes) {
    const fn = calledFunction(node, functions);
    const ids = fn ? (bound[fn].boundInputs ?? []) : [];
    if (!ids.length) continue;
    const data = (node.input ?? []).filter((i) => !i.startsWith('^'));
    const captured = data.slice(data.length - ids.length);
    captured.forEach((input, i) => {
      const handle = sourceOf(top, input)?.node ?? top.get(parseTensorName(input)[0]);
      if (!handle) return;
      const id = resourceIdentity(handle);
      const known = objects.get(id);
      objects.set(id, known === undefined || known === ids[i] ? ids[i] : CONFLICTING_CAPTURES);
    });
  }
  return objects;
}
