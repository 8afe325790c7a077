// Load-time check that the active TF.js backend can compute every node of a prepared graph
// exactly. tfjs-converter's op list says which TF ops the converter maps (prepare_signature_graph
// refuses the others); it does not say whether the backend has the kernels behind them — Einsum
// maps to tf.einsum, which has no WASM kernel, and failed only at predict — nor which ops and
// attributes the converter ignores. A node refused here fails its signature at load, naming
// the op, the node and why; it never becomes a version that is AVAILABLE and then answers 500.
import tf from '../tfjs_packages/tfjs_core.cjs';
import { Code, ServingError } from '../../errors/status.js';
import { attrString, type NodeDef } from '../../savedmodel/graph/types.js';
import type { SignatureSpec } from '../../savedmodel/signature_spec.js';
import { embeddedOp } from './ops/index.js';
import type { ConstantInput } from '../shared/tfjs_op_table.js';
import { parseTensorName } from '../../savedmodel/graph/graph_flattener.js';
import { hostTensorFromProto } from '../../savedmodel/tensor_proto.js';

const isEmbeddedOp = (op: string) => embeddedOp(op) !== undefined;
const embeddedOpProblem = (node: NodeDef, constant: ConstantInput) => embeddedOp(node.op)?.check?.(node, constant) ?? null;
const noConstants: ConstantInput = () => undefined;

/** The constant value of a node input, read from the graph's Const nodes (on demand). */
function constantsOf(nodes: readonly NodeDef[]): ConstantInput {
  const consts = new Map(nodes.filter((n) => n.op === 'Const').map((n) => [n.name, n]));
  return (ref) => {
    const [name, index] = parseTensorName(ref);
    const n = index === 0 ? consts.get(name) : undefined;
    return n ? hostTensorFromProto(n.attr?.value?.tensor ?? {}, `constant ${n.name}`) : undefined;
  };
}

export interface NodeProblem {
  op: string;
  node: string;
  reason: string;
}

/**
 * tfjs kernels a converter-mapped TF op needs, where they are not (only) the kernel named like
 * the op, read from tfjs-converter's executors and the tfjs-core ops they call. Every other op
 * needs the kernel of its own name if TF.js has one (FFT, Einsum, RaggedRange …), else none of
 * its own (Identity, control flow, ops composed of other ops in JS).
 */
const KERNELS_OF_OP: Readonly<Record<string, readonly string[]>> = {
  RFFT: ['Complex', 'FFT', 'Real', 'Imag'], // tf.rfft (tfgate computes RFFT itself: embedded/ops/spectral/)
  IRFFT: ['Complex', 'IFFT', 'Real', 'Imag'], // tf.irfft
  ComplexAbs: ['ComplexAbs'], // tf.abs of a complex tensor
  Einsum: ['Einsum'],
};

/** Ops tfjs-converter maps to something other than what TF computes. */
const CONVERTER_IGNORED_OPS: Readonly<Record<string, string>> = {
  FakeQuantWithMinMaxVars: 'tfjs-converter runs it as Identity ("This op is currently ignored")',
};

interface AttrRule {
  ops: readonly string[];
  /** Null when the node's attribute is one the converter/backend computes right, else why not. */
  problem: (node: NodeDef, backend: string) => string | null;
}

/** The node's data_format; TF's default (channels last) when absent. */
const dataFormat = (node: NodeDef, fallback = 'NHWC') => attrString(node.attr?.data_format) || fallback;
const channelsLast = (expected: string) => (node: NodeDef) =>
  dataFormat(node, expected) === expected
    ? null
    : `data_format ${dataFormat(node)}: tfjs-converter ignores the attribute and computes ${expected}`;

/**
 * Attributes the converter reads as "notSupported" (its op_list) or the backend ignores, where a
 * value other than the assumed one would silently change the result.
 */
const ATTR_RULES: AttrRule[] = [
  // (FusedBatchNorm* ignore data_format and is_training too: tfgate implements them, ops/.)
  { ops: ['BiasAdd', 'AvgPool', 'MaxPool'], problem: channelsLast('NHWC') },
  { ops: ['AvgPool3D', 'MaxPool3D'], problem: channelsLast('NDHWC') },
  {
    ops: ['MaxPool', 'AvgPool'],
    problem: (n) => (attrString(n.attr?.padding) === 'EXPLICIT' ? 'padding EXPLICIT: tfjs-converter ignores explicit_paddings' : null),
  },
  {
    ops: ['Conv2DBackpropInput'],
    problem: (n) =>
      channelsLast('NHWC')(n) ??
      ((n.attr?.dilations?.list?.i ?? []).some((d) => Number(d) !== 1)
        ? 'dilations other than 1: tfjs-converter ignores the attribute'
        : null),
  },
  {
    ops: ['OneHot'],
    problem: (n) =>
      Number(n.attr?.axis?.i ?? -1) === -1 ? null : `axis ${n.attr?.axis?.i}: tfjs-converter ignores the attribute and uses -1`,
  },
  // TF.js's depthwise kernels (CPU and WASM) never read data_format: NCHW input is read as NHWC.
  { ops: ['DepthwiseConv2d', 'DepthwiseConv2dNative', 'FusedDepthwiseConv2dNative'], problem: channelsLast('NHWC') },
  {
    ops: ['Conv2D', '_FusedConv2D'],
    problem: (n, backend) =>
      backend === 'wasm' && dataFormat(n) !== 'NHWC' ? `data_format ${dataFormat(n)}: the WASM backend computes NHWC only` : null,
  },
];

const rulesByOp = new Map<string, AttrRule[]>();
for (const rule of ATTR_RULES) for (const op of rule.ops) rulesByOp.set(op, [...(rulesByOp.get(op) ?? []), rule]);

/** Whether TF.js has a kernel by this name on any backend (CPU registers the most). */
const isKernelName = (name: string) => tf.getKernel(name, 'cpu') !== undefined;

export function kernelsOf(op: string): readonly string[] {
  return KERNELS_OF_OP[op] ?? (isKernelName(op) ? [op] : []);
}

/**
 * Ops whose WASM kernels take a complex64 tensor as it is held there (tfjs_patches/
 * wasm_complex.ts): Reshape and its kin relabel the bytes, Identity shares them. Every other
 * WASM kernel reads a complex64 input as float32 or throws; tfgate's own ops (the spectral
 * family) have their own check.
 */
const COMPLEX_ON_WASM = new Set(['Identity', 'IdentityN', 'StopGradient', 'Snapshot', 'Reshape', 'ExpandDims', 'Squeeze']);

/** The node's type attributes (T, Tout, dtype, list(type) …) as DT_ names. */
function typeAttrs(node: NodeDef): string[] {
  return Object.values(node.attr ?? {}).flatMap((a) => [
    ...(a.type !== undefined ? [String(a.type)] : []),
    ...(a.list?.type ?? []).map(String),
  ]);
}

/** Why a node on complex tensors cannot run: complex128 anywhere, complex64 into a WASM kernel that cannot read it. */
function complexProblem(node: NodeDef, backend: string): string | null {
  const types = typeAttrs(node);
  if (types.includes('DT_COMPLEX128')) return 'complex128 tensors: TF.js has none';
  if (backend === 'wasm' && types.includes('DT_COMPLEX64') && !COMPLEX_ON_WASM.has(node.op))
    return `a complex64 tensor: the wasm backend's ${node.op} kernel cannot read one`;
  return null;
}

export interface OpCheckOptions {
  backend: string;
  /** Ops implemented by tfgate for the converter (their own check decides). */
  isCustomOp?: (op: string) => boolean;
  customOpProblem?: (node: NodeDef, constant: ConstantInput) => string | null;
  /** Constant inputs of the graph's nodes (a check of tfgate's own ops may read them). */
  constant?: ConstantInput;
}

/** Why `node` cannot be computed exactly on the backend, or null. */
export function nodeProblem(node: NodeDef, o: OpCheckOptions): string | null {
  const custom = o.isCustomOp ?? isEmbeddedOp;
  if (custom(node.op)) return (o.customOpProblem ?? embeddedOpProblem)(node, o.constant ?? noConstants);
  if (CONVERTER_IGNORED_OPS[node.op]) return CONVERTER_IGNORED_OPS[node.op];
  const complex = complexProblem(node, o.backend);
  if (complex) return complex;
  for (const rule of rulesByOp.get(node.op) ?? []) {
    const p = rule.problem(node, o.backend);
    if (p) return p;
  }
  const missing = kernelsOf(node.op).filter((k) => !tf.getKernel(k, o.backend));
  return missing.length ? `the ${o.backend} backend has no kernel ${missing.map((k) => `'${k}'`).join(', ')}` : null;
}

/**
 * Inputs where TF.js may read an int64 constant clamped to int32 without changing the answer:
 * slice bounds (INT64_MAX as "to the end" of a dimension that fits int32 anyway).
 */
const CLAMP_SAFE_INPUTS: Readonly<Record<string, readonly number[]>> = { StridedSlice: [1, 2, 3] };
const INT64_TYPES = new Set(['DT_INT64', 'DT_UINT64']);

/**
 * Nodes reading an int64 constant beyond int32 where the clamp the embedded runtime applies to
 * such constants (TF.js has no int64) would change the answer: refused rather than computed wrong.
 */
function wideInt64Problems(nodes: readonly NodeDef[]): NodeProblem[] {
  const consumers = new Map<string, Array<{ node: NodeDef; index: number }>>();
  for (const n of nodes) {
    (n.input ?? []).forEach((ref, index) => {
      if (ref.startsWith('^')) return;
      const [name, output] = parseTensorName(ref);
      if (output === 0) consumers.set(name, [...(consumers.get(name) ?? []), { node: n, index }]);
    });
  }
  const problems: NodeProblem[] = [];
  for (const c of nodes) {
    if (c.op !== 'Const' || !INT64_TYPES.has(String(c.attr?.dtype?.type))) continue;
    const values = hostTensorFromProto(c.attr?.value?.tensor ?? {}, `constant ${c.name}`).values as BigInt64Array | BigUint64Array;
    const wide = Array.from(values as Iterable<bigint>).find((v) => BigInt.asIntN(32, v) !== v);
    if (wide === undefined) continue;
    const pending = [...(consumers.get(c.name) ?? [])];
    const seen = new Set<NodeDef>();
    while (pending.length) {
      const { node, index } = pending.pop()!;
      if (seen.has(node)) continue;
      seen.add(node);
      if (node.op === 'Identity') pending.push(...(consumers.get(node.name) ?? []));
      else if (!CLAMP_SAFE_INPUTS[node.op]?.includes(index)) {
        problems.push({
          op: node.op,
          node: node.name,
          reason: `it reads the int64 constant ${c.name} (${wide}), beyond the embedded runtime's 32-bit integers`,
        });
      }
    }
  }
  return problems;
}

export function graphProblems(nodes: readonly NodeDef[], o: OpCheckOptions): NodeProblem[] {
  const withConstants = { ...o, constant: o.constant ?? constantsOf(nodes) };
  const problems = nodes.flatMap((n) => {
    const reason = nodeProblem(n, withConstants);
    return reason ? [{ op: n.op, node: n.name, reason }] : [];
  });
  return [...problems, ...wideInt64Problems(nodes)];
}

/** Throws UNIMPLEMENTED naming every op (first node of each) the backend cannot compute. */
export function checkBackendCanRun(nodes: readonly NodeDef[], backend: string, signatureKey: string): void {
  const seen = new Set<string>();
  const problems = graphProblems(nodes, { backend }).filter((p) => !seen.has(`${p.op}:${p.reason}`) && seen.add(`${p.op}:${p.reason}`));
  if (!problems.length) return;
  const list = problems.map((p) => `${p.op} (node ${p.node}: ${p.reason})`).join(', ');
  throw new ServingError(
    Code.UNIMPLEMENTED,
    `signature '${signatureKey}' uses ops the embedded runtime cannot compute on the ${backend} backend: ${list}`,
  );
}

/**
 * Complex tensors stay inside the graph: tfgate's requests and responses carry none (a
 * complex64 output would be served as its interleaved float pairs under the complex shape).
 */
export function checkSignatureDtypes(spec: SignatureSpec): void {
  for (const [side, tensors] of [
    ['input', spec.inputs],
    ['output', spec.outputs],
  ] as const) {
    for (const [alias, t] of Object.entries(tensors)) {
      if (t.dtype === 'DT_COMPLEX64' || t.dtype === 'DT_COMPLEX128') {
        throw new ServingError(
          Code.UNIMPLEMENTED,
          `signature '${spec.key}' ${side} '${alias}' is ${t.dtype}: tfgate's requests and responses carry no complex tensors (serve tf.math.real, tf.math.imag or tf.abs of it)`,
        );
      }
    }
  }
}
