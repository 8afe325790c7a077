// A prepared signature graph (flat, call-free, variables frozen: prepare_signature_graph.ts)
// → an ONNX model in memory. Nodes are converted in dependency order by the op converters of
// ops/*.ts; every op that cannot be expressed exactly is collected, so one refusal names all
// of them (op and node), and the signature then runs on another engine instead.
import type { NodeDef } from '../../savedmodel/graph/types.js';
import { parseTensorName } from '../../savedmodel/graph/graph_flattener.js';
import { hostTensorFromProto } from '../../savedmodel/tensor_proto.js';
import type { DType } from '../../tensor/dtype.js';
import { dtypeFromTf } from '../../tensor/dtype.js';
import { OpContext, UnsupportedOp, type OpConverter, type TfValue } from './convert_context.js';
import { OnnxGraph, type GraphValue, type RunGuard } from './onnx_graph.js';
import { propagateKnown } from './known_elements.js';
import { ARRAY_OPS } from './ops/array.js';
import { ELEMENTWISE_OPS } from './ops/elementwise.js';
import { IMAGE_OPS } from './ops/image.js';
import { MATMUL_OPS } from './ops/matmul.js';
import { NN_OPS } from './ops/nn.js';
import { REDUCE_OPS } from './ops/reduce.js';
import { FAKE_QUANT_OPS } from './ops/fake_quant.js';
import { TOP_K_OPS } from './ops/top_k.js';
import { estimateRunCost } from './run_cost_estimate.js';
import type { RunCost } from '../run_cost.js';

const OPS: ReadonlyMap<string, OpConverter> = new Map(
  Object.entries({
    ...ELEMENTWISE_OPS,
    ...NN_OPS,
    ...MATMUL_OPS,
    ...ARRAY_OPS,
    ...REDUCE_OPS,
    ...IMAGE_OPS,
    ...FAKE_QUANT_OPS,
    ...TOP_K_OPS,
  }),
);

/** The TF ops with an ONNX converter (README's list of them is checked against this). */
export const ONNX_CONVERTED_OPS: readonly string[] = [...OPS.keys()];

export interface OnnxProblem {
  op: string;
  node: string;
  reason: string;
}

/** The graph cannot run on ONNX Runtime exactly; `problems` names every op and node at fault. */
export class OnnxConversionRefused extends Error {
  constructor(readonly problems: OnnxProblem[]) {
    super(describeProblems(problems));
  }
}

function describeProblems(problems: OnnxProblem[]): string {
  const byOp = new Map<string, OnnxProblem>();
  for (const p of problems) if (!byOp.has(p.op)) byOp.set(p.op, p);
  return [...byOp.values()].map((p) => `${p.op} (node ${p.node}: ${p.reason})`).join(', ');
}

/**
 * The longest chain of ops converted for ONNX Runtime. Its session build (graph resolution,
 * before any optimisation) grows with the square of a chain's length — measured here: 1 000
 * Neg ops in 2 s, 2 000 in 10 s, 4 000 in 37 s, 8 000 in 133 s — and runs in native code
 * that nothing can interrupt. A deeper graph runs on the fallback engine instead.
 */
const MAX_ONNX_DEPTH = 2500;

/** The longest path through `nodes` (dependency order), and the node it ends at. */
function deepest(nodes: readonly NodeDef[]): { depth: number; node: string } {
  const depth = new Map<string, number>();
  let best = { depth: 0, node: '' };
  for (const n of nodes) {
    let d = 1;
    for (const ref of n.input ?? []) if (!ref.startsWith('^')) d = Math.max(d, (depth.get(parseTensorName(ref)[0]) ?? 0) + 1);
    depth.set(n.name, d);
    if (d > best.depth) best = { depth: d, node: n.name };
  }
  return best;
}

export interface FeedSpec {
  dtype: DType;
  /** -1 for unknown dims; null for unknown rank. */
  shape: number[] | null;
}

export interface OnnxModel {
  bytes: Uint8Array;
  /** Placeholder node name → the ONNX graph input fed with it. */
  inputs: Map<string, GraphValue>;
  /** Requested TF tensor ('node:idx') → the ONNX graph output holding it. */
  outputs: Map<string, GraphValue>;
  /** Checks every run makes after ONNX Runtime answers (their values are graph outputs too). */
  guards: RunGuard[];
  nodeCount: number;
  /** What a run holds at its peak and in its outputs, from the shapes propagated (run_cost_estimate.ts). */
  runCost: RunCost;
}

/**
 * Converts `nodes` (dependency order) to ONNX. `feeds` gives each placeholder's dtype and
 * shape as the signature declares them; `fetch` the TF tensors to output.
 */
export function convertToOnnx(
  nodes: readonly NodeDef[],
  feeds: ReadonlyMap<string, FeedSpec>,
  fetch: readonly string[],
  graphName = 'tfgate',
  /** Leave out fetched tensors the graph does not compute (tracing every node) instead of refusing. */
  options: { skipMissingFetches?: boolean } = {},
): OnnxModel {
  const chain = deepest(nodes);
  if (chain.depth > MAX_ONNX_DEPTH) {
    throw new OnnxConversionRefused([
      {
        op: '(graph)',
        node: chain.node,
        reason: `a chain of ${chain.depth} ops, over the ${MAX_ONNX_DEPTH} whose ONNX Runtime session builds in reasonable time`,
      },
    ]);
  }
  const graph = new OnnxGraph();
  const values = new Map<string, TfValue>();
  const problems: OnnxProblem[] = [];
  const inputs = new Map<string, GraphValue>();
  const blocked = new Set<string>();

  for (const node of nodes) {
    if (node.op === 'Placeholder') {
      const spec = feeds.get(node.name);
      const dtype = spec?.dtype ?? dtypeFromTf(node.attr?.dtype?.type ?? '');
      if (!dtype || dtype === 'string') {
        problems.push({ op: 'Placeholder', node: node.name, reason: `a ${dtype ?? node.attr?.dtype?.type} input` });
        blocked.add(node.name);
        continue;
      }
      const input: GraphValue = { name: graph.reserve(node.name), dtype, shape: spec?.shape ?? null };
      graph.addInput(input);
      inputs.set(node.name, input);
      values.set(`${node.name}:0`, { ...input });
      continue;
    }
    if (node.op === 'Const') {
      const value = hostTensorFromProto(node.attr?.value?.tensor ?? {}, `constant ${node.name}`);
      values.set(`${node.name}:0`, { dtype: value.dtype, shape: [...value.shape], value });
      continue;
    }
    const refs = (node.input ?? []).filter((i) => !i.startsWith('^')).map(parseTensorName);
    if (refs.some(([name]) => blocked.has(name))) {
      blocked.add(node.name);
      continue;
    }
    const convert = OPS.get(node.op);
    if (!convert) {
      problems.push({ op: node.op, node: node.name, reason: 'no ONNX converter' });
      blocked.add(node.name);
      continue;
    }
    try {
      const args = refs.map(([name, index]) => {
        const v = values.get(`${name}:${index}`);
        if (!v) throw new UnsupportedOp(`input ${name}:${index} is not computed`);
        return v;
      });
      const ctx = new OpContext(node, args, graph);
      const results = convert(ctx);
      const known = results[0] && !results[0].value ? propagateKnown(node, args) : null;
      if (known) results[0] = { ...results[0], known };
      results.forEach((v, i) => values.set(`${node.name}:${i}`, v));
    } catch (e) {
      if (!(e instanceof UnsupportedOp)) throw e;
      problems.push({ op: node.op, node: node.name, reason: e.reason });
      blocked.add(node.name);
    }
  }
  if (problems.length) throw new OnnxConversionRefused(problems);

  const outputs = new Map<string, GraphValue>();
  for (const tensor of new Set(fetch)) {
    const [name, index] = parseTensorName(tensor);
    const v = values.get(`${name}:${index}`);
    if (!v || v.unavailable) {
      if (options.skipMissingFetches) continue;
      throw new OnnxConversionRefused([{ op: '(output)', node: tensor, reason: v?.unavailable ?? 'not computed' }]);
    }
    // Outputs get their own values: an initializer or a graph input cannot be one.
    const source = v.name ?? graph.addInitializer(`${name}/value`, v.value!);
    const out = graph.unique(`${tensor}/output`);
    graph.addNode('Identity', [source], [out]);
    const gv: GraphValue = { name: out, dtype: v.dtype, shape: v.shape };
    graph.addOutput(gv);
    outputs.set(tensor, gv);
  }
  const guards = graph.guards.map((g) => {
    const out = graph.unique(`${g.value}/guard`);
    graph.addNode('Identity', [g.value], [out]);
    graph.addOutput({ name: out, dtype: 'int64', shape: [-1] });
    return { ...g, value: out };
  });
  return {
    bytes: graph.encode(graphName),
    inputs,
    outputs,
    guards,
    nodeCount: graph.nodeCount,
    runCost: estimateRunCost(nodes, values, [...outputs.keys()]),
  };
}
