// The load-time steps the embedded runtime applies to a signature's graph, applied to the
// functions its loops and conditionals call too: the backend op check (an op, kernel or
// attribute the backend cannot compute inside a loop body refuses the signature at load,
// naming the op, its node, the function and the While or If that runs it) and the rewrites
// for tfjs-converter (Einsum equations, FakeQuant folding).
import { Code, ServingError } from '../../errors/status.js';
import type { PreparedGraph } from '../../savedmodel/graph/prepare_signature_graph.js';
import { localName } from '../../savedmodel/graph/control_flow_functions.js';
import { graphProblems } from './backend_op_check.js';
import { rewriteForTfjs } from './tfjs_graph_rewrites.js';

/** Throws UNIMPLEMENTED naming every op (first node of each) of the graph's functions the backend cannot compute. */
export function checkFunctionsCanRun(graph: PreparedGraph, backend: string, signatureKey: string): void {
  const seen = new Set<string>();
  const problems: string[] = [];
  for (const f of graph.functions ?? []) {
    for (const p of graphProblems(f.nodes, { backend })) {
      if (seen.has(`${p.op}:${p.reason}`)) continue;
      seen.add(`${p.op}:${p.reason}`);
      problems.push(`${p.op} (node ${localName(p.node)} in function '${f.source}', ${f.role}: ${p.reason})`);
    }
  }
  if (problems.length) {
    throw new ServingError(
      Code.UNIMPLEMENTED,
      `signature '${signatureKey}' uses ops the embedded runtime cannot compute on the ${backend} backend: ${problems.join(', ')}`,
    );
  }
}

/** The graph with rewriteForTfjs applied to each function's body as well (outputs: its returns). */
export function rewriteFunctionsForTfjs(graph: PreparedGraph): PreparedGraph {
  if (!graph.functions?.length) return graph;
  const functions = graph.functions.map((f) => {
    const outputs = Object.fromEntries(f.ret.map((t, j) => [String(j), t]));
    const body = rewriteForTfjs({ signature: graph.signature, nodes: f.nodes, inputs: {}, outputs });
    return body.nodes === f.nodes ? f : { ...f, nodes: body.nodes };
  });
  return { ...graph, functions };
}
