// Load-time check for tfgate ops computed in float32 only: a node whose T is another type is
// refused, naming it, rather than computed in the wrong precision.
import type { NodeDef } from '../../../../savedmodel/graph/types.js';

export function floatOnlyProblem(node: NodeDef): string | null {
  const t = node.attr?.T?.type;
  return t === undefined || t === 'DT_FLOAT' ? null : `data type ${t}: the embedded runtime computes ${node.op} in float32 only`;
}
