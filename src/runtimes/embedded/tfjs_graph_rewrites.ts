// Rewrites of a prepared graph before tfjs-converter loads it:
// * FakeQuant* nodes whose inputs are all constants (quantisation-aware-trained weights: the
//   frozen filter and its frozen per-channel min/max) are computed once, here, and become
//   constants; the request path then never quantizes weights again, and graphs that are
//   otherwise made of common ops stay eligible for CompiledGraph.
// * Einsum equations get labels a, b, c … (see lowercaseEinsumEquation): the converter
//   lower-cases string attributes of custom ops, which would merge `a` and `A`.
// Nodes nothing reads any more (a folded filter's float weights) are then dropped.
// * Parsing nodes are told which int64 features may reach TF.js saturated to int32
//   (shared/parse_example/saturated_int64.ts).
import tf from '../tfjs_packages/tfjs_core.cjs';
import type { PreparedGraph } from '../../savedmodel/graph/prepare_signature_graph.js';
import { parseTensorName } from '../../savedmodel/graph/graph_flattener.js';
import { attrString, type NodeDef } from '../../savedmodel/graph/types.js';
import { hostTensorFromProto, hostTensorToProto } from '../../savedmodel/tensor_proto.js';
import { FAKE_QUANT_OPS, fakeQuantAttrsOf, fakeQuantOp, type FakeQuantOp } from './ops/nn/fake_quant.js';
import { lowercaseEinsumEquation } from './ops/math/einsum.js';
import { toTfTensor } from '../shared/tensor_convert.js';
import { markSaturatedInt64 } from '../shared/parse_example/saturated_int64.js';
import { ServingError, toStatusData } from '../../errors/status.js';

const isFakeQuant = (op: string): op is FakeQuantOp => (FAKE_QUANT_OPS as readonly string[]).includes(op);
const dataInputs = (n: NodeDef) => (n.input ?? []).filter((i) => !i.startsWith('^'));

function foldedFakeQuant(node: NodeDef & { op: FakeQuantOp }, consts: NodeDef[]): NodeDef {
  let value: { shape: number[]; values: Float32Array };
  try {
    value = tf.tidy(() => {
      const inputs = consts.map((c) =>
        toTfTensor(hostTensorFromProto(c.attr?.value?.tensor ?? {}, `constant ${c.name}`), `constant ${c.name}`),
      );
      const out = fakeQuantOp(node.op, fakeQuantAttrsOf(node), inputs);
      return { shape: out.shape, values: out.dataSync() as Float32Array };
    });
  } catch (e) {
    const status = toStatusData(e);
    throw new ServingError(status.code, `${node.op} (node ${node.name}) on constants: ${status.message}`);
  }
  return {
    name: node.name,
    op: 'Const',
    input: [],
    attr: {
      dtype: { type: 'DT_FLOAT' },
      value: { tensor: hostTensorToProto({ dtype: 'float32', shape: value.shape, values: Float32Array.from(value.values) }) },
    },
  };
}

function withLowercaseEquation(node: NodeDef): NodeDef {
  const equation = lowercaseEinsumEquation(attrString(node.attr?.equation));
  return { ...node, attr: { ...node.attr, equation: { s: new TextEncoder().encode(equation) } } };
}

/** Drops nodes (placeholders excepted) that no output depends on; order is kept. */
function dropUnread(nodes: NodeDef[], outputs: string[]): NodeDef[] {
  const byName = new Map(nodes.map((n) => [n.name, n]));
  const needed = new Set<string>();
  const stack = outputs.map((t) => parseTensorName(t)[0]);
  while (stack.length) {
    const name = stack.pop()!;
    if (needed.has(name)) continue;
    needed.add(name);
    for (const i of dataInputs(byName.get(name) ?? { name, op: '' })) stack.push(parseTensorName(i)[0]);
  }
  return nodes.filter((n) => needed.has(n.name) || n.op === 'Placeholder');
}

/**
 * The graph with the rewrites above applied. Run it after checkBackendCanRun (it assumes valid
 * attributes and equations); TF.js's backend must be ready, since folding runs on it.
 */
export function rewriteForTfjs(graph: PreparedGraph): PreparedGraph {
  const byName = new Map<string, NodeDef>();
  let changed = false;
  const nodes = graph.nodes.map((node) => {
    let out = node;
    if (isFakeQuant(node.op)) {
      const sources = dataInputs(node).map((i) => {
        const [name, index] = parseTensorName(i);
        const src = byName.get(name);
        return src?.op === 'Const' && index === 0 ? src : undefined;
      });
      if (sources.length && sources.every((s) => s)) out = foldedFakeQuant(node as NodeDef & { op: FakeQuantOp }, sources as NodeDef[]);
    } else if (node.op === 'Einsum') {
      out = withLowercaseEquation(node);
    }
    changed ||= out !== node;
    byName.set(out.name, out);
    return out;
  });
  const outputs = Object.values(graph.outputs);
  const marked = markSaturatedInt64(changed ? dropUnread(nodes, outputs) : graph.nodes, outputs);
  return marked === graph.nodes ? graph : { ...graph, nodes: marked };
}
