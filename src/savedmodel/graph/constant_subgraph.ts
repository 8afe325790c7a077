// What an init graph computes from constants, cut out so an engine can run it once at load.
// TF fills a table from whatever its initializer's inputs compute: `index_table_from_tensor`
// casts `Range(Size(vocabulary))` to int64 for the values, an integer vocabulary is `Cast`
// from int32 consts, keys may be joined or sliced strings. Rather than recognising such
// patterns, the tensor's producers are collected back to their leaves — constants, asset
// paths, restored variables, checkpoint reads, whose values the host knows — the leaves
// become Const nodes, and the rest runs on the engine of the runtime loading the model.
import { Code, ServingError } from '../../errors/status.js';
import { dtypeToTf } from '../../tensor/dtype.js';
import type { HostTensor } from '../../tensor/host_tensor.js';
import { hostTensorToProto } from '../tensor_proto.js';
import { localName } from './control_flow_functions.js';
import { withDefaultAttrs } from './default_attrs.js';
import { parseTensorName } from './graph_flattener.js';
import { TABLE_STATE_OPS } from './lookup_tables/table_ops.js';
import { outputType } from './op_outputs.js';
import type { AttrValue, NodeDef, OpDef } from './types.js';

/** A closed graph (no placeholders, no functions, no state) and the tensors wanted from it, with their TF dtypes. */
export interface ConstantGraph {
  nodes: NodeDef[];
  outputs: Array<{ tensor: string; dtype: string }>;
}

/**
 * Runs a ConstantGraph once and returns its outputs as HostTensors of the dtypes asked for.
 * The runtime that loads the model provides it (its engine); it throws an Error saying why
 * when its engine cannot compute the graph exactly.
 */
export type ConstantGraphEvaluator = (graph: ConstantGraph) => Promise<HostTensor[]>;

/** Why a tensor's value cannot be had at load (its message completes "… fills it from "). */
export class Unresolvable extends Error {}

/** Ops that read or change state: evaluating them apart from the init graph's order would not be what TF computes. */
const STATEFUL_OPS = new Set([
  ...TABLE_STATE_OPS,
  'VarHandleOp',
  'VariableV2',
  'Variable',
  'AssignVariableOp',
  'Assign',
  'AssignAdd',
  'AssignSub',
  'AssignAddVariableOp',
  'AssignSubVariableOp',
]);

const dataInputs = (n: NodeDef) => (n.input ?? []).filter((i) => !i.startsWith('^'));

function constNode(name: string, value: HostTensor): NodeDef {
  return { name, op: 'Const', input: [], attr: { dtype: { type: dtypeToTf(value.dtype) }, value: { tensor: hostTensorToProto(value) } } };
}

export interface SubgraphSources {
  out: ReadonlyMap<string, NodeDef>;
  opDefs: ReadonlyMap<string, OpDef>;
  /** defaultAttrTable of the meta graph's ops. */
  defaults: Map<string, Record<string, AttrValue>>;
  /** Whether the host knows the value of this node's outputs itself (a constant, an asset path, a restored variable …). */
  isLeaf(node: NodeDef, tensor: string): boolean;
  /** The value the host knows for a leaf's tensor (throws Unresolvable). */
  leafValue(tensor: string): HostTensor;
}

/** The ConstantGraph computing `tensor` ('node:index' of the flattened init graph). */
export function constantSubgraph(tensor: string, sources: SubgraphSources): ConstantGraph {
  const nodes = new Map<string, NodeDef>();
  const leafConsts = new Map<string, string>();

  const visit = (ref: string, depth: number): string => {
    const [name, index] = parseTensorName(ref);
    const node = sources.out.get(name);
    if (!node) throw new Unresolvable(`tensor '${ref}', which is not in the graph`);
    const canonical = `${name}:${index}`;
    if (sources.isLeaf(node, canonical)) {
      let constName = leafConsts.get(canonical);
      if (!constName) {
        constName = `__tfgate_init_value/${name}/${index}`;
        nodes.set(constName, constNode(constName, sources.leafValue(canonical)));
        leafConsts.set(canonical, constName);
      }
      return `${constName}:0`;
    }
    const shown = `${node.op} '${localName(node.name)}'`;
    if (STATEFUL_OPS.has(node.op)) throw new Unresolvable(`${shown}, a stateful op tfgate does not run at load`);
    if (Object.values(node.attr ?? {}).some((a) => a.func || a.list?.func?.length))
      throw new Unresolvable(`${shown}, which runs a function (tfgate computes only plain ops at load)`);
    if (depth > 10_000) throw new Unresolvable(`${shown}, deeper than tfgate follows`);
    if (!nodes.has(name)) {
      nodes.set(name, node); // placeholder entry: a cycle finds it and stops
      nodes.set(name, { ...withDefaultAttrs(node, sources.defaults), input: dataInputs(node).map((i) => visit(i, depth + 1)) });
    }
    return canonical;
  };

  const [name, index] = parseTensorName(tensor);
  const root = visit(tensor, 0);
  const node = sources.out.get(name)!;
  // Without the OpDef (TF 2.0–2.3 leave function-body ops out of stripped_op_list), the attr that types a single output.
  const a = node.attr ?? {};
  const dtype = outputType(node, index, sources.opDefs) ?? (a.dtype ?? a.DstT ?? a.out_type ?? a.Tidx ?? a.T)?.type;
  if (!dtype)
    throw new Unresolvable(
      `${node.op} '${localName(node.name)}', whose output type tfgate cannot tell (its op is not in the meta graph's op list)`,
    );
  return { nodes: [...nodes.values()], outputs: [{ tensor: root, dtype }] };
}

/**
 * Runs `graph` on `evaluate`: the one place load-time computation passes through, where a
 * bound on what it may compute belongs. The engine's failure becomes Unresolvable, naming the ops.
 */
export async function evaluateConstantSubgraph(graph: ConstantGraph, evaluate: ConstantGraphEvaluator): Promise<HostTensor[]> {
  const ops = [...new Set(graph.nodes.filter((n) => !n.name.startsWith('__tfgate_init_value/') && n.op !== 'Const').map((n) => n.op))].join(
    ', ',
  );
  try {
    return await evaluate(graph);
  } catch (e) {
    if (e instanceof ServingError && e.code !== Code.INVALID_ARGUMENT && e.code !== Code.UNIMPLEMENTED) throw e;
    throw new Unresolvable(`ops ${ops} computed at load, which the engine could not run: ${(e as Error).message}`);
  }
}
