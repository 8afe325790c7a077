// The functions that functional control flow calls: While / StatelessWhile (`cond`, `body`)
// and If / StatelessIf (`then_branch`, `else_branch`). The flattener inlines plain calls
// but must keep these ops (a loop body runs a data-dependent number of times); tfjs-converter
// runs them through function executors built from modelTopology.library. Each function a
// signature reaches is prepared the way the signature's own graph is:
//
// * calls inside it inlined (GraphFlattener over a one-call graph), nested loops prepared
//   recursively;
// * its nodes renamed `__tfgate_fn/<function>/<node>` and its inputs
//   `__tfgate_arg/<function>/<arg>`: tfjs-converter looks a function's constants up by node
//   name in the model's single weight map, so names must be unique across the model;
// * Identity chains bypassed, pruned to its outputs, default attrs restored.
//
// Resource variables passed into a loop as loop variables (Keras SimpleRNN hands its kernel
// handles to the While and reads them in the body) are frozen like any other: the loop
// variable carries the variable's value instead (T[i] DT_RESOURCE → its dtype), ReadVariableOp
// of it becomes an Identity, and the function is prepared for that as `<name>__frozen_<i>`.
// That is exact only if the body hands the variable on unchanged, which is checked; writes
// to variables inside functions are refused before this runs (function_side_effects.ts).
import { Code, ServingError, invalidArgument } from '../../errors/status.js';
import { GraphFlattener, parseTensorName } from './graph_flattener.js';
import { bypassIdentities, identityTarget, pruneTo } from './graph_rewrites.js';
import { withDefaultAttrs } from './default_attrs.js';
import { sourceOf } from './variable_restore_map.js';
import type { AttrValue, FunctionDef, NodeDef, OpDef } from './types.js';

export interface PreparedFunction {
  /** Name in the shipped library. */
  name: string;
  /** FunctionDef name in the SavedModel. */
  source: string;
  /** How the signature reaches it, e.g. "the body of While 'rnn/while'". */
  role: string;
  inputs: Array<{ name: string; type: string }>;
  outputs: Array<{ name: string; type: string }>;
  /** Flat, call-free nodes, inputs before consumers. */
  nodes: NodeDef[];
  /** Tensor ('node:k', or an input name with ':0') computing each output. */
  ret: string[];
}

interface FunctionalOp {
  /** Index of the first input passed to the functions (If's input 0 is the condition). */
  argStart: number;
  /** List-of-types attr describing those inputs. */
  typesAttr: string;
  funcs: Array<{ attr: string; role: string }>;
  loop: boolean;
}

const WHILE: FunctionalOp = {
  argStart: 0,
  typesAttr: 'T',
  funcs: [
    { attr: 'cond', role: 'cond' },
    { attr: 'body', role: 'body' },
  ],
  loop: true,
};
const IF: FunctionalOp = {
  argStart: 1,
  typesAttr: 'Tin',
  funcs: [
    { attr: 'then_branch', role: 'then branch' },
    { attr: 'else_branch', role: 'else branch' },
  ],
  loop: false,
};
export const FUNCTIONAL_OPS: Record<string, FunctionalOp> = { While: WHILE, StatelessWhile: WHILE, If: IF, StatelessIf: IF };

/**
 * tfjs-converter 4.22 runs If and StatelessIf alike, but its list of control-flow ops spells
 * If as 'if': a graph whose only control flow is an If is taken for a static one, run on the
 * sync path, and the If's branch, started as a promise there, is abandoned (a leaked tensor
 * and a failed request before the async retry). Side effects in branches are refused
 * beforehand, so running an If as StatelessIf is exact.
 */
const tfjsOp = (op: string): string => (op === 'If' ? 'StatelessIf' : op);

const FN_PREFIX = '__tfgate_fn/';
const ARG_PREFIX = '__tfgate_arg/';

/** A node's name as its SavedModel function calls it: `__tfgate_fn/f/while/add` → `while/add`. */
export function localName(nodeName: string): string {
  return nodeName.startsWith(FN_PREFIX) ? nodeName.slice(nodeName.indexOf('/', FN_PREFIX.length) + 1) : nodeName;
}

const typeList = (a: AttrValue | undefined): string[] => [...(a?.list?.type ?? [])];

export interface FunctionPreparation {
  library: Map<string, FunctionDef>;
  opDefs: Map<string, OpDef>;
  defaults: Map<string, Record<string, AttrValue>>;
  /** Const node with the value of a top-level VarHandleOp (read from the checkpoint). */
  frozenVariable: (varHandle: NodeDef) => NodeDef;
  signatureKey: string;
}

export class ControlFlowFunctions {
  private readonly prepared = new Map<string, PreparedFunction>();
  private readonly inProgress = new Set<string>();
  private readonly usedNames = new Set<string>();

  constructor(private readonly p: FunctionPreparation) {}

  /** The prepared functions that While / If nodes among `nodes` call, directly or through other functions. */
  calledBy(nodes: readonly NodeDef[]): PreparedFunction[] {
    const all = [...this.prepared.values()];
    const byName = new Map(all.map((f) => [f.name, f]));
    const reached = new Set<string>();
    const visit = (graph: readonly NodeDef[]) => {
      for (const n of graph) {
        for (const f of FUNCTIONAL_OPS[n.op]?.funcs ?? []) {
          const name = n.attr?.[f.attr]?.func?.name ?? '';
          if (reached.has(name)) continue;
          reached.add(name);
          visit(byName.get(name)?.nodes ?? []);
        }
      }
    };
    visit(nodes);
    return all.filter((f) => reached.has(f.name));
  }

  /**
   * Points every While / If of the signature's graph `graph` (flattened; edited in place)
   * at prepared functions, freezing resource variables it passes to them.
   */
  rewriteSignatureGraph(graph: Map<string, NodeDef>): void {
    this.rewrite(graph, '', new Map(), true);
  }

  /**
   * `graph` is the signature's graph (`where` '') or a function's; `frozenArgs` maps a
   * function input that now carries a frozen variable's value to that value's dtype.
   */
  private rewrite(graph: Map<string, NodeDef>, where: string, frozenArgs: Map<string, string>, topLevel: boolean): void {
    // Frozen variable values by the 'node:index' of the resource tensor standing for them:
    // a frozen function input or loop output carries the value itself, a VarHandleOp's value
    // is a Const next to it.
    const frozen = new Map<string, { tensor: string; dtype: string }>(
      [...frozenArgs].map(([arg, dtype]) => [`${arg}:0`, { tensor: `${arg}:0`, dtype }]),
    );
    const frozenValueOf = (input: string): { tensor: string; dtype: string } | undefined => {
      const src = sourceOf(graph, input);
      if (!src) return undefined;
      const key = `${src.node.name}:${src.index}`;
      const known = frozen.get(key);
      if (known || !topLevel || src.node.op !== 'VarHandleOp') return known;
      const value = this.p.frozenVariable(src.node);
      graph.set(value.name, value);
      const entry = { tensor: `${value.name}:0`, dtype: value.attr?.dtype?.type ?? '' };
      frozen.set(key, entry);
      return entry;
    };

    for (const node of [...graph.values()]) {
      const kind = FUNCTIONAL_OPS[node.op];
      if (!kind) continue;
      const shown = `${node.op} '${localName(node.name)}'${where ? ` in ${where}` : ''}`;
      const inputs = (node.input ?? []).filter((i) => !i.startsWith('^'));
      const types = typeList(node.attr?.[kind.typesAttr]);
      const frozenInputs = new Map<number, string>();
      types.forEach((type, k) => {
        if (type !== 'DT_RESOURCE') return;
        const value = frozenValueOf(inputs[kind.argStart + k] ?? '');
        if (!value) throw this.unfreezable(shown, `${kind.loop ? 'loop variable' : 'input'} ${k}`, graph, inputs[kind.argStart + k] ?? '');
        inputs[kind.argStart + k] = value.tensor;
        types[k] = value.dtype;
        frozenInputs.set(k, value.dtype);
      });
      const attr: Record<string, AttrValue> = { ...node.attr, [kind.typesAttr]: { list: { type: types } } };
      for (const f of kind.funcs) {
        const func = node.attr?.[f.attr]?.func;
        const role = `the ${f.role} of ${shown}`;
        const name = this.prepare(func?.name ?? '', func?.attr ?? {}, role, types, frozenInputs, kind.loop && f.attr === 'body');
        attr[f.attr] = { func: { name, attr: {} } };
      }
      // A loop hands a frozen variable on unchanged (prepare() checks the body does).
      if (kind.loop) for (const [k, dtype] of frozenInputs) frozen.set(`${node.name}:${k}`, { tensor: `${node.name}:${k}`, dtype });
      graph.set(node.name, { ...node, op: tfjsOp(node.op), input: inputs, attr });
    }

    // Reads of frozen values are the values themselves.
    for (const node of [...graph.values()]) {
      if (node.op !== 'ReadVariableOp') continue;
      const value = frozenValueOf(node.input?.[0] ?? '');
      if (value) graph.set(node.name, { name: node.name, op: 'Identity', input: [value.tensor], attr: { T: { type: value.dtype } } });
    }
  }

  private unfreezable(shown: string, which: string, graph: Map<string, NodeDef>, input: string): ServingError {
    const src = sourceOf(graph, input);
    const from = src ? ` from ${src.node.op} '${localName(src.node.name)}'` : '';
    return new ServingError(
      Code.UNIMPLEMENTED,
      `signature '${this.p.signatureKey}': ${shown} takes a resource as ${which}${from}, which tfgate cannot freeze into a value`,
    );
  }

  private uniqueName(base: string): string {
    let name = base;
    for (let i = 1; this.usedNames.has(name) || (name !== base && this.p.library.has(name)); i++) name = `${base}_${i}`;
    this.usedNames.add(name);
    return name;
  }

  /** Prepares function `fname` called with argument types `argTypes`; returns its shipped name. */
  private prepare(
    fname: string,
    funcAttrs: Record<string, AttrValue>,
    role: string,
    argTypes: string[],
    frozen: Map<number, string>,
    loopBody: boolean,
  ): string {
    const fdef = this.p.library.get(fname);
    if (!fdef) throw invalidArgument(`${role} calls function '${fname}', which is not in the graph's library`);
    const frozenKey = [...frozen].map(([k, d]) => `${k}=${d}`).join(',');
    const key = `${fname}|${frozenKey}|${Object.keys(funcAttrs).length ? JSON.stringify(funcAttrs) : ''}`;
    const done = this.prepared.get(key);
    if (done) return done.name;
    if (this.inProgress.has(key))
      throw new ServingError(Code.UNIMPLEMENTED, `signature '${this.p.signatureKey}': function '${fname}' (${role}) calls itself`);
    this.inProgress.add(key);

    const name = this.uniqueName(frozen.size ? `${fname}__frozen_${[...frozen.keys()].join('_')}` : fname);
    const inputArgs = fdef.signature.inputArg ?? [];
    const outputArgs = fdef.signature.outputArg ?? [];
    if (inputArgs.length !== argTypes.length)
      throw invalidArgument(`${role} passes ${argTypes.length} inputs to '${fname}', which takes ${inputArgs.length}`);
    const argNames = inputArgs.map((a) => `${ARG_PREFIX}${name}/${a.name}`);
    const callName = `${FN_PREFIX}${name}`;
    const outputTypes = loopBody ? argTypes : outputArgs.map((a) => a.type ?? funcAttrs[a.typeAttr ?? '']?.type ?? 'DT_INVALID');

    // The function as a graph of its arguments and one call, which the flattener inlines.
    const placeholders: NodeDef[] = argNames.map((n, k) => ({
      name: n,
      op: 'Placeholder',
      input: [],
      attr: { dtype: { type: argTypes[k] } },
    }));
    const callNode: NodeDef = {
      name: callName,
      op: 'PartitionedCall',
      input: argNames,
      attr: { f: { func: { name: fname, attr: funcAttrs } }, Tin: { list: { type: argTypes } }, Tout: { list: { type: outputTypes } } },
    };
    const flattener = new GraphFlattener([...placeholders, callNode], this.p.library, this.p.opDefs, { keepControlInputs: false });
    let ret = outputArgs.map((_, j) => flattener.resolveTensor(`${callName}:${j}`));
    const graph = flattener.out;

    const frozenArgs = new Map([...frozen].map(([k, dtype]) => [argNames[k], dtype]));
    this.rewrite(graph, `function '${fname}' (${role})`, frozenArgs, false);
    for (const [n, node] of graph) graph.set(n, withDefaultAttrs(node, this.p.defaults));
    bypassIdentities(graph, new Set());
    ret = ret.map((t) => identityTarget(graph, t));

    if (loopBody) {
      for (const k of frozen.keys()) {
        if (ret[k] !== `${argNames[k]}:0`) {
          throw new ServingError(
            Code.UNIMPLEMENTED,
            `signature '${this.p.signatureKey}': ${role} does not pass loop variable ${k} (a resource variable) on unchanged, so tfgate cannot freeze it`,
          );
        }
      }
    }

    const isArg = new Set(argNames);
    const nodes = pruneTo(ret, graph).filter((n) => !isArg.has(n.name));
    ret = distinctReturnNodes(ret, nodes, callName, outputTypes);
    this.prepared.set(key, {
      name,
      source: fname,
      role,
      inputs: argNames.map((n, k) => ({ name: n, type: argTypes[k] })),
      outputs: outputArgs.map((a, j) => ({ name: a.name, type: outputTypes[j] })),
      nodes,
      ret,
    });
    this.inProgress.delete(key);
    return name;
  }
}

/**
 * tfjs-converter records one output index per node, so two outputs read from one node (a
 * body returning `x` twice, or `split:0` and `split:1`) would both yield the last one: such
 * outputs get an Identity of their own.
 */
function distinctReturnNodes(ret: string[], nodes: NodeDef[], callName: string, types: string[]): string[] {
  const seen = new Set<string>();
  return ret.map((tensor, j) => {
    const [node] = parseTensorName(tensor);
    if (!seen.has(node)) {
      seen.add(node);
      return tensor;
    }
    const name = `${callName}/__tfgate_output_${j}`;
    nodes.push({ name, op: 'Identity', input: [tensor], attr: { T: { type: types[j] } } });
    return `${name}:0`;
  });
}
