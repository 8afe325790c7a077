// Runs what a table initializer computes from constants (savedmodel/graph/constant_subgraph.ts)
// once at load, on TF.js: the subgraph is loaded as a GraphModel, as a signature's graph is,
// and executed with no feeds. TF.js holds 32-bit integers, so an int64 constant beyond them is
// refused here rather than clamped, and int64 results come back from exact int32 values.
import tf from '../tfjs_packages/tfjs_core.cjs';
import tfjsConverter from '../tfjs_packages/tfjs_converter.cjs';
import { unimplemented } from '../../errors/status.js';
import type { ConstantGraph } from '../../savedmodel/graph/constant_subgraph.js';
import type { PreparedGraph } from '../../savedmodel/graph/prepare_signature_graph.js';
import { hostTensorFromProto } from '../../savedmodel/tensor_proto.js';
import type { HostTensor } from '../../tensor/host_tensor.js';
import { fromTfTensor } from './tensor_convert.js';
import { toModelArtifacts } from './tfjs_artifacts.js';
import { registeredOpProblem, type ConstantInput } from './tfjs_op_table.js';
import { parseTensorName } from '../../savedmodel/graph/graph_flattener.js';

const INT32_MIN = -(2n ** 31n);
const INT32_MAX = 2n ** 31n - 1n;

function checkIntegersFit(graph: ConstantGraph): void {
  for (const node of graph.nodes) {
    const type = node.attr?.dtype?.type;
    if (node.op !== 'Const' || (type !== 'DT_INT64' && type !== 'DT_UINT64')) continue;
    const values = hostTensorFromProto(node.attr?.value?.tensor ?? {}, `constant ${node.name}`).values as BigInt64Array | BigUint64Array;
    const beyond = values.find((v) => v < INT32_MIN || v > INT32_MAX);
    if (beyond !== undefined) throw unimplemented(`the int64 value ${beyond} does not fit TF.js's 32-bit integers`);
  }
}

/** The registered ops' own load checks (an op's kernel may assume them: AsString of float64). */
function checkRegisteredOps(graph: ConstantGraph): void {
  const consts = new Map(graph.nodes.filter((n) => n.op === 'Const').map((n) => [n.name, n]));
  const constant: ConstantInput = (ref) => {
    const [name, index] = parseTensorName(ref);
    const n = index === 0 ? consts.get(name) : undefined;
    return n ? hostTensorFromProto(n.attr?.value?.tensor ?? {}, `constant ${n.name}`) : undefined;
  };
  for (const node of graph.nodes) {
    const problem = registeredOpProblem(node, constant);
    if (problem) throw unimplemented(`${node.op} (node ${node.name}: ${problem})`);
  }
}

/** A ConstantGraphEvaluator on TF.js's active backend (call initBackend first). */
export async function evaluateOnTfjs(graph: ConstantGraph): Promise<HostTensor[]> {
  checkIntegersFit(graph);
  checkRegisteredOps(graph);
  const names = graph.outputs.map((o) => o.tensor);
  const prepared: PreparedGraph = {
    signature: { key: '', methodName: '', inputs: {}, outputs: {}, defaults: {} },
    nodes: graph.nodes,
    inputs: {},
    outputs: Object.fromEntries(names.map((t, i) => [String(i), t])),
  };
  let model;
  try {
    model = tfjsConverter.loadGraphModelSync(toModelArtifacts(prepared));
  } catch (e) {
    throw unimplemented((e as Error).message);
  }
  let results: tf.Tensor[] = [];
  try {
    let out: tf.Tensor | tf.Tensor[];
    try {
      out = model.execute({}, names);
    } catch (e) {
      // A graph with dynamic shapes or control flow runs only through executeAsync.
      if (!/executeAsync/.test((e as Error).message)) throw e;
      out = await model.executeAsync({}, names);
    }
    results = Array.isArray(out) ? out : [out];
    return await Promise.all(results.map((t, i) => fromTfTensor(t, graph.outputs[i].dtype)));
  } catch (e) {
    throw unimplemented((e as Error).message);
  } finally {
    tf.dispose(results);
    model.dispose();
  }
}
