// What TensorFlow checks when it builds a graph to run, done on a signature's prepared graph
// (and the functions its loops call) before any engine sees it, with TF's words and codes:
// - every node's attrs against the op's registration (op_def_util.cc ValidateAttrValue: the
//   kind of value, allowed values, minimums; attr_value_util.cc: valid DataType enums), and
//   its number of inputs (node_def_util.cc ValidateNodeDef);
// - every edge: the output it names exists, and its dtype is the one the consumer's
//   registration expects (graph_constructor.cc MakeEdge);
// - no cycle but the loops of TF1 control flow (graph/validate.cc ValidateGraphHasNoCycle);
// - a signature's outputs name outputs that exist (graph/subgraph.cc FetchOutputs).
// The op's registration is TF's (op_registry.ts) where tfgate lists it, else the one the
// model's stripped_op_list carries; an op known to neither is checked for its DataType
// enums, its edges' existence and cycles only.
// Everything here walks the graph iteratively: a chain of 100 000 nodes is a valid graph.
import { invalidArgument } from '../../errors/status.js';
import { stripRef, tfDataTypeString } from '../../tensor/dtype.js';
import { parseTensorName } from './graph_flattener.js';
import { registeredOpDef, summarizeOpDef } from './op_registry.js';
import type { ArgDef, AttrValue, NodeDef, OpDef } from './types.js';

/** DataType enum names (types.proto), refs included (DT_FLOAT_REF = 101 …). */
const DATA_TYPES: ReadonlySet<string> = new Set(
  [
    'DT_FLOAT',
    'DT_DOUBLE',
    'DT_INT32',
    'DT_UINT8',
    'DT_INT16',
    'DT_INT8',
    'DT_STRING',
    'DT_COMPLEX64',
    'DT_INT64',
    'DT_BOOL',
    'DT_QINT8',
    'DT_QUINT8',
    'DT_QINT32',
    'DT_BFLOAT16',
    'DT_QINT16',
    'DT_QUINT16',
    'DT_UINT16',
    'DT_COMPLEX128',
    'DT_HALF',
    'DT_RESOURCE',
    'DT_VARIANT',
    'DT_UINT32',
    'DT_UINT64',
    'DT_FLOAT8_E5M2',
    'DT_FLOAT8_E4M3FN',
    'DT_INT4',
    'DT_UINT4',
  ].flatMap((t) => [t, `${t}_REF`]),
);

/** Whether `t` (a decoded DataType field: a name, or the number of an enum value unknown to the proto) is a DataType TF knows. */
export function isDataType(t: unknown): t is string {
  return typeof t === 'string' && DATA_TYPES.has(t);
}

/** A DataType field as TF prints an invalid one: its number. */
const enumValue = (t: unknown): string => (typeof t === 'number' ? String(t) : String(t ?? 0));

const nodeRef = (n: NodeDef) => `{{node ${n.name}}}`;

/** The OpDef a node is checked against: TF's registration, else the model's. */
export type OpDefLookup = (op: string) => OpDef | undefined;

export function opDefLookup(modelOpDefs: ReadonlyMap<string, OpDef>): OpDefLookup {
  return (op) => registeredOpDef(op) ?? modelOpDefs.get(op);
}

const KINDS = ['s', 'i', 'f', 'b', 'type', 'shape', 'tensor', 'func'] as const;
const KIND_NAMES: Record<(typeof KINDS)[number], string> = {
  s: 'string',
  i: 'int',
  f: 'float',
  b: 'bool',
  type: 'type',
  shape: 'shape',
  tensor: 'tensor',
  func: 'func',
};

/** attr_value_util.cc AttrValueHasType, for the value kinds and DataType enums. */
function attrValueProblem(value: AttrValue, type: string): string | null {
  const list = value.list;
  let set = 0;
  for (const k of KINDS) {
    if (list && (list as Record<string, unknown[] | undefined>)[k]?.length) {
      if (type !== `list(${KIND_NAMES[k]})`) return `AttrValue had value with type 'list(${KIND_NAMES[k]})' when '${type}' expected`;
      set++;
    } else if ((value as Record<string, unknown>)[k] !== undefined) {
      if (type !== KIND_NAMES[k]) return `AttrValue had value with type '${KIND_NAMES[k]}' when '${type}' expected`;
      set++;
    }
  }
  if (value.placeholder !== undefined) return "AttrValue had value with unexpected type 'placeholder'";
  if (set === 0 && !type.startsWith('list(')) return `AttrValue missing value with expected type '${type}'`;
  if (type === 'type') {
    if (!isDataType(value.type) && value.type !== 'DT_INVALID') return `AttrValue has invalid DataType enum: ${enumValue(value.type)}`;
    if (value.type === 'DT_INVALID') return 'AttrValue has invalid DataType';
    if (value.type.endsWith('_REF')) return `AttrValue must not have reference type value of ${tfDataTypeString(value.type)}`;
  } else if (type === 'list(type)') {
    for (const t of list?.type ?? []) {
      if (!isDataType(t) && t !== 'DT_INVALID') return `AttrValue has invalid DataType enum: ${enumValue(t)}`;
      if (t === 'DT_INVALID') return 'AttrValue contains invalid DataType';
    }
  }
  return null;
}

const utf8 = new TextDecoder();

/** op_def_util.cc ValidateAttrValue for one attr of a node. */
function validateAttr(node: NodeDef, def: OpDef, attr: NonNullable<OpDef['attr']>[number], value: AttrValue): void {
  const context = `; NodeDef: ${nodeRef(node)}; ${summarizeOpDef(def.name)}`;
  const kindProblem = attrValueProblem(value, attr.type ?? '');
  if (kindProblem) throw invalidArgument(`${kindProblem} for attr '${attr.name}'${context}`);
  if (attr.hasMinimum) {
    const min = attr.minimum ?? 0;
    if (attr.type === 'int') {
      if (Number(value.i ?? 0) < min)
        throw invalidArgument(`Value for attr '${attr.name}' of ${Number(value.i ?? 0)} must be at least minimum ${min}${context}`);
    } else {
      const l = value.list as Record<string, unknown[] | undefined> | undefined;
      const kind = /^list\((\w+)\)$/.exec(attr.type ?? '')?.[1];
      const key = kind ? (Object.entries(KIND_NAMES).find(([, n]) => n === kind)?.[0] ?? kind) : '';
      const length = l?.[key]?.length ?? 0;
      if (length < min) throw invalidArgument(`Length for attr '${attr.name}' of ${length} must be at least minimum ${min}${context}`);
    }
  }
  const allowed = attr.allowedValues?.list;
  if (!allowed) return;
  if (attr.type === 'type' || attr.type === 'list(type)') {
    const types = attr.type === 'type' ? [value.type] : (value.list?.type ?? []);
    for (const t of types) {
      if (!allowed.type?.includes(t as string)) {
        throw invalidArgument(
          `Value for attr '${attr.name}' of ${tfDataTypeString(String(t))} is not in the list of allowed values: ${(allowed.type ?? []).map(tfDataTypeString).join(', ')}${context}`,
        );
      }
    }
  } else if (attr.type === 'string' || attr.type === 'list(string)') {
    const options = (allowed.s ?? []).map((s) => utf8.decode(s));
    const strings = attr.type === 'string' ? [value.s ?? new Uint8Array()] : (value.list?.s ?? []);
    for (const s of strings) {
      const text = utf8.decode(s);
      if (!options.includes(text))
        throw invalidArgument(
          `Value for attr '${attr.name}' of "${text}" is not in the list of allowed values: ${options.map((o) => `"${o}"`).join(', ')}${context}`,
        );
    }
  }
}

/**
 * Most tensors one arg may stand for. A NodeDef of more inputs could not be written in a
 * 2 GiB GraphDef with any sense, and a number attr past it (Ndense 1e9) would make the list
 * of expected dtypes itself exhaust the heap before any count could be compared.
 */
const MAX_ARG_TENSORS = 1 << 20;

/** The dtypes an arg stands for on `node` (one per tensor), or null when an attr it needs is missing. */
function argTypes(arg: ArgDef, attrs: Record<string, AttrValue>, node: NodeDef, opName: string): Array<string | undefined> | null {
  if (arg.typeListAttr) {
    const list = attrs[arg.typeListAttr]?.list?.type;
    return list ? [...list] : attrs[arg.typeListAttr] ? [] : null;
  }
  const one = arg.type ?? (arg.typeAttr ? attrs[arg.typeAttr]?.type : undefined);
  if (!arg.numberAttr) return [one];
  const n = attrs[arg.numberAttr]?.i;
  if (n === undefined) return null;
  const count = Math.max(0, Number(n));
  if (count > MAX_ARG_TENSORS) {
    throw invalidArgument(
      `Value for attr '${arg.numberAttr}' of ${n} would make '${arg.name}' of ${opName} ${count} tensors, more than ${MAX_ARG_TENSORS} a graph can hold; NodeDef: ${nodeRef(node)}`,
    );
  }
  return new Array<string | undefined>(count).fill(one);
}

/** A node's input and output dtypes by its OpDef (undefined where not known). */
interface NodeTypes {
  inputs: Array<string | undefined> | null;
  outputs: Array<string | undefined> | null;
}

/** Checks a node's attrs against its OpDef (when one is known); returns its input and output dtypes. */
function checkNode(node: NodeDef, lookup: OpDefLookup): NodeTypes {
  const attrs = node.attr ?? {};
  // Every DataType in an attr must be one TF knows, whatever the op.
  for (const [name, value] of Object.entries(attrs)) {
    const bad = value.type !== undefined && !isDataType(value.type) ? value.type : value.list?.type?.find((t) => !isDataType(t));
    if (bad !== undefined && bad !== 'DT_INVALID')
      throw invalidArgument(`AttrValue has invalid DataType enum: ${enumValue(bad)} for attr '${name}'; NodeDef: ${nodeRef(node)}`);
  }
  const def = lookup(node.op);
  if (!def) return { inputs: null, outputs: null };
  for (const a of def.attr ?? []) {
    const value = attrs[a.name] ?? a.defaultValue;
    if (!value) throw invalidArgument(`NodeDef missing attr '${a.name}' from ${summarizeOpDef(def.name)}; NodeDef: ${nodeRef(node)}`);
    validateAttr(node, def, a, value);
  }
  const withDefaults = {
    ...Object.fromEntries((def.attr ?? []).filter((a) => a.defaultValue).map((a) => [a.name, a.defaultValue!])),
    ...attrs,
  };
  const expand = (args: ArgDef[] | undefined) => {
    const out: Array<string | undefined> = [];
    for (const arg of args ?? []) {
      const types = argTypes(arg, withDefaults, node, def.name);
      if (!types) return null;
      out.push(...types.map((t) => (t && arg.isRef ? `${stripRef(t)}_REF` : t)));
    }
    return out;
  };
  const inputs = expand(def.inputArg);
  const outputs = expand(def.outputArg);
  const given = (node.input ?? []).filter((i) => !i.startsWith('^')).length;
  if (inputs && inputs.length !== given) {
    throw invalidArgument(
      `NodeDef expected inputs '${inputs.map((t) => (t ? tfDataTypeString(t) : '?')).join(', ')}' do not match ${given} inputs specified; ${summarizeOpDef(def.name)}; NodeDef: ${nodeRef(node)}`,
    );
  }
  return { inputs, outputs };
}

/** Whether a tensor of `actual` may feed an input expecting `expected` (graph.cc TypesCompatible: a ref reads as its value). */
function compatible(expected: string, actual: string): boolean {
  return expected === actual || stripRef(expected) === stripRef(actual);
}

export interface ValidatedGraph {
  /** Node name → its outputs' dtypes (undefined where not known); absent for ops with no known OpDef. */
  outputTypes: Map<string, Array<string | undefined>>;
}

/**
 * Validates a flat graph: attrs, input counts and dtypes, edges, cycles (see the module
 * comment). `sources` are tensors fed from outside the nodes (a function's arguments) with
 * their dtypes. Throws INVALID_ARGUMENT with TF's message.
 */
export function validateGraph(
  nodes: readonly NodeDef[],
  lookup: OpDefLookup,
  sources: ReadonlyMap<string, string> = new Map(),
): ValidatedGraph {
  const byName = new Map(nodes.map((n) => [n.name, n]));
  const types = new Map<string, NodeTypes>();
  for (const n of nodes) types.set(n.name, checkNode(n, lookup));
  const outputTypes = new Map<string, Array<string | undefined>>();
  for (const [name, t] of types) if (t.outputs) outputTypes.set(name, t.outputs);

  for (const node of nodes) {
    const expected = types.get(node.name)!.inputs;
    let k = 0;
    for (const ref of node.input ?? []) {
      if (ref.startsWith('^')) continue;
      const index = k++;
      const [src, out] = parseTensorName(ref);
      const producer = byName.get(src);
      let actual: string | undefined;
      if (!producer) {
        // The flattener resolved every reference; what is not a node here is fed from outside.
        actual = sources.get(ref) ?? sources.get(src);
      } else {
        const produced = outputTypes.get(src);
        if (produced && out >= produced.length) {
          throw invalidArgument(
            `Node '${node.name}': Connecting to invalid output ${out} of source node ${src} which has ${produced.length} outputs.`,
          );
        }
        actual = produced?.[out];
      }
      const want = expected?.[index];
      if (want && actual && !compatible(want, actual)) {
        throw invalidArgument(
          `Input ${index} of node ${node.name} was passed ${tfDataTypeString(actual)} from ${ref.includes(':') ? ref : `${ref}:0`} incompatible with expected ${tfDataTypeString(want)}.`,
        );
      }
    }
  }
  checkNoCycle(nodes, byName);
  return { outputTypes };
}

/**
 * graph/validate.cc ValidateGraphHasNoCycle: Kahn's order over data and control edges; a
 * Merge's input from a NextIteration is a TF1 loop's back edge, not a cycle.
 */
function checkNoCycle(nodes: readonly NodeDef[], byName: ReadonlyMap<string, NodeDef>): void {
  const pending = new Map<string, number>();
  const consumers = new Map<string, string[]>();
  for (const n of nodes) {
    let count = 0;
    for (const ref of n.input ?? []) {
      const src = parseTensorName(ref.replace(/^\^/, ''))[0];
      const producer = byName.get(src);
      if (!producer) continue;
      if (n.op === 'Merge' && !ref.startsWith('^') && producer.op === 'NextIteration') continue;
      count++;
      const list = consumers.get(src);
      if (list) list.push(n.name);
      else consumers.set(src, [n.name]);
    }
    pending.set(n.name, count);
  }
  const ready = nodes.filter((n) => pending.get(n.name) === 0).map((n) => n.name);
  let processed = 0;
  while (ready.length) {
    const name = ready.pop()!;
    processed++;
    for (const c of consumers.get(name) ?? []) {
      const left = pending.get(c)! - 1;
      pending.set(c, left);
      if (left === 0) ready.push(c);
    }
  }
  if (processed < nodes.length) {
    const inCycle = nodes
      .filter((n) => pending.get(n.name)! > 0)
      .slice(0, 3)
      .map((n) => n.name);
    throw invalidArgument(`Graph is invalid, contains a cycle with ${nodes.length - processed} nodes, including: ${inCycle.join(', ')}`);
  }
}

/**
 * graph/subgraph.cc FetchOutputs for a signature's outputs: `tensor` must be an output its
 * node has (when the node's op is known).
 */
export function checkFetchable(tensor: string, node: NodeDef | undefined, lookup: OpDefLookup): void {
  const [name, index] = parseTensorName(tensor);
  if (!node) throw invalidArgument(`FetchOutputs node ${tensor}: not found`);
  const { outputs } = checkNode(node, lookup);
  if (outputs && outputs.length === 0) {
    throw invalidArgument(
      `Tried to fetch data for '${tensor}', which produces no output.  To run to a node but not fetch any data, pass '${tensor}' as an argument to the 'target_node_names' argument of the Session::Run API.`,
    );
  }
  if (outputs && index >= outputs.length)
    throw invalidArgument(`FetchOutputs ${name}:${index}: output index too large, must be < ${outputs.length}`);
}
