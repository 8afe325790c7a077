// One signature → one self-contained graph a graph executor can run:
//   feeds cut the graph (a client may feed `x:0`, an Identity behind ParseExample),
//   function calls are inlined, variables frozen into constants, and everything the
//   signature's outputs do not need is dropped (save/restore, init ops, training paths).
//   Loops and conditionals (While, If) keep calling functions; those are prepared the same
//   way and shipped beside the graph (control_flow_functions.ts).
import { Code, ServingError, invalidArgument, failedPrecondition } from '../../errors/status.js';
import * as MSG from '../../errors/messages.js';
import type { HostTensor } from '../../tensor/host_tensor.js';
import { dtypeToTf, stripRef } from '../../tensor/dtype.js';
import type { SignatureSpec, TensorSpec } from '../signature_spec.js';
import type { MetaGraphObject } from '../saved_model_reader.js';
import { signatureSpec } from '../signature_spec.js';
import { hostTensorToProto } from '../tensor_proto.js';
import { GraphFlattener, parseTensorName } from './graph_flattener.js';
import type { AttrValue, FunctionDef, NodeDef, OpDef, VariableReader } from './types.js';
import { sourceOf } from './variable_restore_map.js';
import { CheckpointRestore } from './checkpoint_restore.js';
import { defaultAttrTable, withDefaultAttrs } from './default_attrs.js';
import { bypassIdentities, pruneTo } from './graph_rewrites.js';
import { ControlFlowFunctions, FUNCTIONAL_OPS, localName, type PreparedFunction } from './control_flow_functions.js';
import { variableWriteInFunctions } from './function_side_effects.js';
import { exampleFeaturesOf } from './example_features.js';
import type { LookupTables } from './lookup_tables/resolve_lookup_tables.js';
import { rewriteLookups } from './lookup_tables/lookup_rewrite.js';
import { TABLE_STATE_OPS } from './lookup_tables/table_ops.js';
import { checkKernelAttrs } from './kernel_attr_checks.js';
import { checkConstSizes, checkTensorSizes, type TensorFacts } from './tensor_sizes.js';
import type { LoadMemoryBound } from '../load_bounds.js';
import { tensorProtoFootprint } from '../tensor_proto.js';
import { checkFetchable, isDataType, opDefLookup, validateGraph, type OpDefLookup } from './graph_validation.js';
import { rewriteForestInference, type ForestBindings } from './decision_forests/forest_rewrite.js';

export type { VariableReader };

export interface PreparedGraph {
  signature: SignatureSpec;
  /** Flat, call-free, variable-free nodes: inputs before consumers. */
  nodes: NodeDef[];
  /** Signature input key → placeholder node fed with it; null when the outputs do not need it. */
  inputs: Record<string, { placeholder: string | null; spec: TensorSpec }>;
  /** Signature output key → tensor ('node:idx') of the prepared graph. */
  outputs: Record<string, string>;
  /** The functions its While / If nodes call (and theirs); absent or empty without control flow. */
  functions?: PreparedFunction[];
}

export interface PrepareOptions {
  /** Ops the executor can run; anything else makes preparation fail, naming the ops. */
  isSupportedOp: (op: string) => boolean;
  /** The model's lookup tables as its init ops fill them; without, every lookup is refused. */
  tables?: LookupTables;
  /** The load's memory bound: a graph whose known tensor sizes exceed it is refused (tensor_sizes.ts). */
  memoryBound?: LoadMemoryBound;
  /** The TF-DF models the runtime loaded; without, TF-DF's ops stay in the graph (for the engine to refuse). */
  forests?: ForestBindings;
}

const FEED_PREFIX = '__tfgate_feed/';
const STATEFUL_VARIABLE_OPS = new Set([
  'Assign',
  'AssignAdd',
  'AssignSub',
  'AssignVariableOp',
  'AssignAddVariableOp',
  'AssignSubVariableOp',
  'ResourceApplyGradientDescent',
  'ApplyGradientDescent',
  'ResourceApplyAdam',
  'ApplyAdam',
  'ScatterUpdate',
  'ResourceScatterUpdate',
  'ResourceScatterAdd',
]);

export function functionLibrary(mg: MetaGraphObject): Map<string, FunctionDef> {
  return new Map((mg.graphDef?.library?.function ?? []).map((f) => [f.signature.name, f]));
}

function opDefs(mg: MetaGraphObject): Map<string, OpDef> {
  return new Map((mg.metaInfoDef?.strippedOpList?.op ?? []).map((o) => [o.name, o]));
}

function placeholderNode(name: string, spec: TensorSpec): NodeDef {
  return { name, op: 'Placeholder', input: [], attr: { dtype: { type: spec.dtype }, shape: { shape: { unknownRank: true } } } };
}

function constNode(name: string, value: HostTensor): NodeDef {
  return { name, op: 'Const', input: [], attr: { dtype: { type: dtypeToTf(value.dtype) }, value: { tensor: hostTensorToProto(value) } } };
}

/** The values the signature's variables freeze to, each checkpoint tensor read once per preparation. */
class VariableValues {
  private readonly restore: CheckpointRestore;
  private readonly cache = new Map<string, HostTensor>();
  constructor(mg: MetaGraphObject, variables: VariableReader | null) {
    this.restore = CheckpointRestore.of(mg, variables);
  }

  value(node: NodeDef): HostTensor {
    const key = this.restore.variableKey(node);
    let value = this.cache.get(key);
    if (!value) this.cache.set(key, (value = this.restore.read(key)));
    return value;
  }
}

function freezeNode(node: NodeDef, out: Map<string, NodeDef>, vars: VariableValues, extra: NodeDef[]): NodeDef {
  switch (node.op) {
    case 'VariableV2':
    case 'Variable':
      return constNode(node.name, vars.value(node));
    case 'ReadVariableOp': {
      const src = sourceOf(out, node.input?.[0] ?? '');
      if (src?.node.op !== 'VarHandleOp') return node;
      return constNode(node.name, vars.value(src.node));
    }
    case 'ResourceGather': {
      // Embedding lookup on a resource variable: a GatherV2 on the frozen value.
      const src = sourceOf(out, node.input?.[0] ?? '');
      if (src?.node.op !== 'VarHandleOp') return node;
      const params = constNode(`${node.name}/frozen_params`, vars.value(src.node));
      const axis = constNode(`${node.name}/frozen_axis`, { dtype: 'int32', shape: [], values: new Int32Array([0]) });
      extra.push(params, axis);
      const attrs = node.attr ?? {};
      return {
        name: node.name,
        op: 'GatherV2',
        input: [`${params.name}:0`, node.input?.[1] ?? '', `${axis.name}:0`],
        attr: {
          Tparams: attrs.dtype ?? {},
          Tindices: attrs.Tindices ?? {},
          Taxis: { type: 'DT_INT32' },
          batch_dims: attrs.batch_dims ?? { i: 0 },
        },
      };
    }
    default:
      return node;
  }
}

/**
 * A signature output that is a constant or a fed input would be handed back as that very
 * tensor (a model weight or the caller's input); an Identity in front gives a fresh tensor
 * the runtime can dispose after the request. A While or If output may be one too (a loop
 * variable the body passes on, a branch returning its input).
 */
function guardOutputs(outputs: Record<string, string>, out: Map<string, NodeDef>): void {
  for (const [key, tensor] of Object.entries(outputs)) {
    const [nodeName, index] = parseTensorName(tensor);
    const node = out.get(nodeName);
    if (!node) continue;
    let type: AttrValue | undefined;
    if (['Const', 'Placeholder', 'PlaceholderWithDefault'].includes(node.op)) type = node.attr?.dtype;
    else if (FUNCTIONAL_OPS[node.op]) type = { type: node.attr?.[node.op.endsWith('While') ? 'T' : 'Tout']?.list?.type?.[index] };
    else continue;
    const name = `__tfgate_output/${key}`;
    out.set(name, { name, op: 'Identity', input: [tensor], attr: { T: type?.type ? type : { type: 'DT_FLOAT' } } });
    outputs[key] = `${name}:0`;
  }
}

/** The op names tfgate's own load-time rewrites give nodes (table lookups, forests, wordpiece). */
const INTERNAL_OP_PREFIX = 'Tfgate';

/**
 * A model that names one of tfgate's internal ops itself would have it run on data the
 * rewrite never checked (a lookup without its table, a forest without its model): no TF
 * binary registers such an op, so it is refused as TF refuses an unknown op.
 */
function refuseInternalOps(mg: MetaGraphObject): void {
  const nodes = [...(mg.graphDef?.node ?? []), ...(mg.graphDef?.library?.function ?? []).flatMap((f) => f.nodeDef ?? [])];
  const internal = nodes.find((n) => n.op?.startsWith(INTERNAL_OP_PREFIX));
  if (internal) {
    throw new ServingError(
      Code.NOT_FOUND,
      `Op type not registered '${internal.op}' in binary running on tfgate. Make sure the Op and Kernel are registered in the binary running in this process.`,
    );
  }
}

export function prepareSignatureGraph(
  mg: MetaGraphObject,
  signatureKey: string,
  variables: VariableReader | null,
  options: PrepareOptions,
): PreparedGraph {
  const def = mg.signatureDef?.[signatureKey];
  if (!def) throw invalidArgument(MSG.predictSignatureNotFound(signatureKey));
  if (options.memoryBound) checkDefaultSizes(def, signatureKey, options.memoryBound);
  const signature = signatureSpec(signatureKey, def);
  const graphNodes = mg.graphDef?.node ?? [];
  refuseInternalOps(mg);
  const byName = new Map(graphNodes.map((n) => [n.name, n]));

  for (const [kind, infos] of [
    ['input', def.inputs],
    ['output', def.outputs],
  ] as const) {
    for (const [key, info] of Object.entries(infos ?? {})) {
      if (!info.name)
        throw failedPrecondition(
          `signature '${signatureKey}' ${kind} '${key}' is a sparse or composite tensor, which tfgate cannot serve yet`,
        );
      if (!isDataType(info.dtype))
        throw invalidArgument(
          `signature '${signatureKey}' ${kind} '${key}' has dtype ${String(info.dtype ?? 'DT_INVALID')}, which is not a valid DataType`,
        );
      if (!byName.has(parseTensorName(info.name)[0])) {
        throw invalidArgument(`signature '${signatureKey}' ${kind} '${key}' names tensor '${info.name}', which is not in the graph`);
      }
    }
  }

  // Feeds: keep a real Placeholder as is; any other fed tensor is replaced by a new placeholder.
  const aliases = new Map<string, string>();
  const inputs: PreparedGraph['inputs'] = {};
  const feedNodes: NodeDef[] = [];
  for (const [key, spec] of Object.entries(signature.inputs)) {
    const [nodeName, index] = parseTensorName(spec.name);
    const node = byName.get(nodeName)!;
    let placeholder = nodeName;
    if (node.op !== 'Placeholder' || index !== 0) {
      placeholder = `${FEED_PREFIX}${key}`;
      aliases.set(`${nodeName}:${index}`, `${placeholder}:0`);
    }
    // A real placeholder keeps its own dtype: half_plus_three's regress signature declares
    // DT_FLOAT for a DT_STRING placeholder, and TF runs it by the graph, not the declaration.
    const ownDtype = node.op === 'Placeholder' && index === 0 ? node.attr?.dtype?.type : undefined;
    feedNodes.push(placeholderNode(placeholder, ownDtype ? { ...spec, dtype: ownDtype } : spec));
    inputs[key] = { placeholder, spec };
    if (ownDtype && stripRef(ownDtype) !== spec.dtype) signature.inputs[key] = { ...spec, feedDtype: stripRef(ownDtype) };
  }

  const flattener = new GraphFlattener(graphNodes, functionLibrary(mg), opDefs(mg), { keepControlInputs: false, aliases });
  const lookup = opDefLookup(opDefs(mg));
  const outputs: Record<string, string> = {};
  for (const [key, spec] of Object.entries(signature.outputs)) {
    outputs[key] = flattener.resolveTensor(spec.name);
    checkFetchable(outputs[key], flattener.out.get(parseTensorName(outputs[key])[0]), lookup);
  }

  // Fed placeholders replace whatever the flattener copied (their shape check is tfgate's job).
  const out = flattener.out;
  for (const f of feedNodes) out.set(f.name, f);

  const vars = new VariableValues(mg, variables);
  const extra: NodeDef[] = [];
  const defaults = defaultAttrTable(opDefs(mg));
  for (const [name, node] of out) out.set(name, withDefaultAttrs(freezeNode(node, out, vars, extra), defaults));
  for (const n of extra) out.set(n.name, n);

  checkNoSideEffects(mg, signature, aliases, signatureKey);
  const controlFlow = new ControlFlowFunctions({
    library: functionLibrary(mg),
    opDefs: opDefs(mg),
    defaults,
    frozenVariable: (handle) => constNode(`${handle.name}/__tfgate_frozen_value`, vars.value(handle)),
    signatureKey,
  });
  controlFlow.rewriteSignatureGraph(out);
  rewriteLookups(out, options.tables, signatureKey);
  rewriteForestInference(out, options.forests, signatureKey);

  guardOutputs(outputs, out);
  bypassIdentities(out, new Set(Object.values(outputs).map((t) => parseTensorName(t)[0])));
  const nodes = pruneTo(Object.values(outputs), out);
  const kept = new Set(nodes.map((n) => n.name));
  for (const input of Object.values(inputs)) if (!kept.has(input.placeholder!)) input.placeholder = null;
  for (const [key, input] of Object.entries(inputs)) {
    const example = input.placeholder !== null ? exampleFeaturesOf(nodes, input.placeholder) : null;
    if (example) signature.inputs[key] = { ...signature.inputs[key], example };
  }
  const functions = controlFlow.calledBy(nodes);
  validatePrepared(nodes, functions, lookup, signatureKey);
  if (options.memoryBound) checkPreparedSizes(nodes, functions, inputs, signatureKey, options.memoryBound);
  checkRunnable(nodes, functions, new Set(feedNodes.map((f) => f.name)), signatureKey, options);
  return { signature, nodes, inputs, outputs, functions };
}

/** A signature default is expanded from its TensorProto like a Const: refuse one over the bound first. */
function checkDefaultSizes(def: NonNullable<MetaGraphObject['signatureDef']>[string], signatureKey: string, bound: LoadMemoryBound): void {
  for (const [key, t] of Object.entries(def.defaults ?? {})) {
    const { bytes } = tensorProtoFootprint(t);
    if (bytes > bound.bytes)
      throw new ServingError(
        Code.RESOURCE_EXHAUSTED,
        `signature '${signatureKey}': the default for input '${key}' would take ${bytes} bytes, over this load's memory bound of ${bound.bytes} bytes (${bound.rule})`,
      );
  }
}

/**
 * The sizes the smallest request would make (every open dimension 1): a graph that exceeds
 * the load's memory bound then exceeds it for every non-empty request (tensor_sizes.ts).
 */
function checkPreparedSizes(
  nodes: NodeDef[],
  functions: PreparedFunction[],
  inputs: PreparedGraph['inputs'],
  signatureKey: string,
  bound: LoadMemoryBound,
): void {
  const feeds = new Map<string, TensorFacts>();
  for (const { placeholder, spec } of Object.values(inputs)) {
    if (placeholder)
      feeds.set(placeholder, { dtype: spec.feedDtype ?? spec.dtype, shape: spec.shape?.map((d) => (d < 0 ? 1 : d)) ?? null });
  }
  try {
    checkTensorSizes(nodes, feeds, bound);
    for (const f of functions) checkConstSizes(f.nodes, bound);
  } catch (e) {
    if (e instanceof ServingError) throw new ServingError(e.code, `signature '${signatureKey}': ${e.message}`);
    throw e;
  }
}

/** TF's graph checks (graph_validation.ts) and kernel checks (kernel_attr_checks.ts) on the signature's graph and on each function its loops call. */
function validatePrepared(nodes: NodeDef[], functions: PreparedFunction[], lookup: OpDefLookup, signatureKey: string): void {
  const where = (e: unknown, fn?: PreparedFunction) => {
    if (e instanceof ServingError)
      throw new ServingError(e.code, `signature '${signatureKey}'${fn ? ` (function '${fn.source}', ${fn.role})` : ''}: ${e.message}`);
    throw e;
  };
  try {
    validateGraph(nodes, lookup);
    checkKernelAttrs(nodes);
  } catch (e) {
    where(e);
  }
  for (const f of functions) {
    try {
      validateGraph(f.nodes, lookup, new Map(f.inputs.map((i) => [i.name, i.type])));
      checkKernelAttrs(f.nodes);
    } catch (e) {
      where(e, f);
    }
  }
}

/**
 * TF runs a signature's control dependencies too (in TF2 functions, every stateful op is one).
 * Dropping them would silently skip a variable update, so look for updates along control
 * edges as well and refuse such signatures.
 */
function checkNoSideEffects(mg: MetaGraphObject, signature: SignatureSpec, aliases: Map<string, string>, signatureKey: string): void {
  const full = new GraphFlattener(mg.graphDef?.node ?? [], functionLibrary(mg), opDefs(mg), { keepControlInputs: true, aliases });
  for (const spec of Object.values(signature.outputs)) full.require(parseTensorName(spec.name)[0]);
  const updates = [...full.out.values()].filter((n) => STATEFUL_VARIABLE_OPS.has(n.op));
  const where = updates.length
    ? `${[...new Set(updates.map((n) => n.op))].join(', ')} at ${updates[0].name}`
    : variableWriteInFunctions(full.out, functionLibrary(mg), STATEFUL_VARIABLE_OPS);
  if (where) {
    throw new ServingError(
      Code.UNIMPLEMENTED,
      `signature '${signatureKey}' updates variables (${where}); the embedded runtime serves frozen, stateless graphs only`,
    );
  }
}

/** Refuses what TF.js cannot run: unsupported ops (in the graph or its functions), unfrozen variables, unfed placeholders. */
function checkRunnable(
  nodes: NodeDef[],
  functions: PreparedFunction[],
  feeds: Set<string>,
  signatureKey: string,
  options: PrepareOptions,
): void {
  const unsupported = new Map<string, string>();
  const graphs = [{ nodes, where: '' }, ...functions.map((f) => ({ nodes: f.nodes, where: ` in function '${f.source}', ${f.role}` }))];
  for (const { nodes: graphNodes, where } of graphs) {
    for (const n of graphNodes) {
      if (n.op === 'VarHandleOp') {
        const user = graphNodes.find((u) => u.input?.some((i) => parseTensorName(i.replace(/^\^/, ''))[0] === n.name));
        const usedBy = user ? `${user.op} (node ${localName(user.name)})` : 'an op';
        throw new ServingError(
          Code.UNIMPLEMENTED,
          `signature '${signatureKey}': resource variable '${localName(n.name)}'${where} is used by ${usedBy}, which tfgate cannot freeze`,
        );
      }
      if (TABLE_STATE_OPS.has(n.op)) {
        // Left by rewriteLookups (a lookup inside a loop, a table export …): TF.js would run it on an empty table.
        throw new ServingError(
          Code.UNIMPLEMENTED,
          `signature '${signatureKey}': ${n.op} (node ${localName(n.name)})${where} uses a lookup table, which tfgate serves only through LookupTableFind and LookupTableSize in the signature's own graph`,
        );
      }
      if (!options.isSupportedOp(n.op) && !unsupported.has(n.op)) unsupported.set(n.op, `node ${localName(n.name)}${where}`);
    }
  }
  if (unsupported.size) {
    const list = [...unsupported].map(([op, node]) => `${op} (${node})`).join(', ');
    throw new ServingError(Code.UNIMPLEMENTED, `signature '${signatureKey}' uses ops TF.js does not support: ${list}`);
  }
  const unfed = nodes.filter((n) => n.op === 'Placeholder' && !feeds.has(n.name));
  if (unfed.length) {
    throw invalidArgument(`signature '${signatureKey}' needs placeholder '${unfed[0].name}', which is not one of its inputs`);
  }
}
