// TF2 function libraries for the SavedModel writer: GraphDef.library.function, as
// tf.function writes it. A FunctionDef is an OpDef-style signature (typed input and output
// args), a list of NodeDefs and a `ret` map from output arg to body tensor. Inside a body,
// tensors are named differently from a GraphDef:
//
//   an input arg            `x`                  (its name)
//   output k of arg `z`      `add:z:0`            (node, the op's output arg, index in that arg)
//
// e.g. `while:output:2` is the third loop variable out of a While. Ops are added through
// the OpEmitter interface, which GraphDef builders (GraphEmitter) and function bodies
// (FunctionBuilder) both implement, so the same op helpers (tf2_ops.ts) build either.
import { OP_DEFS, type ArgDefInit, type OpDefInit } from './op_defs.js';
import { validateGraph, type AttrValueInit, type GraphBuilder, type NodeInit } from './graph_builder.js';

/** A tensor being built: how a NodeDef input names it, its TF type (DT_*) and known shape. */
export class Value {
  constructor(
    /** The form NodeDef.input uses in the graph or function body being built. */
    readonly ref: string,
    /** TF DataType name, e.g. DT_FLOAT, DT_VARIANT, DT_RESOURCE. */
    readonly type: string,
    /** -1 for unknown dims; null for unknown rank. */
    readonly shape: number[] | null = null,
    /** `node:index` of a top-level tensor (what TensorInfo and feeds name); '' inside bodies. */
    readonly tensorName = '',
  ) {}

  withShape(shape: number[] | null): Value {
    return new Value(this.ref, this.type, shape, this.tensorName);
  }
}

/** Where ops go: a GraphDef or a function body. */
export interface OpEmitter {
  /** Adds one node, its name made unique; returns that name. */
  addNode(
    op: string,
    name: string,
    inputs: readonly Value[],
    attrs: Record<string, AttrValueInit>,
    options?: { control?: readonly string[] },
  ): string;
  /** The outputs of node `node` (an `op` with `attrs`), flattened in OpDef order. */
  outputs(node: string, op: string, attrs: Record<string, AttrValueInit>): Value[];
}

/** Adds one node and returns its outputs. */
export function emit(
  e: OpEmitter,
  op: string,
  name: string,
  inputs: readonly Value[],
  attrs: Record<string, AttrValueInit>,
  options?: { control?: readonly string[] },
): Value[] {
  return e.outputs(e.addNode(op, name, inputs, attrs, options), op, attrs);
}

interface OutputSlot {
  arg: string;
  index: number;
  type: string;
}

function opDefOf(op: string): OpDefInit {
  const def = OP_DEFS.get(op);
  if (!def) throw new Error(`the SavedModel writer has no OpDef for op ${op}`);
  return def;
}

function listAttrTypes(attrs: Record<string, AttrValueInit>, name: string): string[] {
  return ((attrs[name]?.list as { type?: string[] } | undefined)?.type ?? []) as string[];
}

/** The outputs of `op` with `attrs`: one slot per flat output, with its arg, index and type. */
function outputSlots(op: string, attrs: Record<string, AttrValueInit>): OutputSlot[] {
  const slots: OutputSlot[] = [];
  for (const a of opDefOf(op).outputArg ?? []) slots.push(...argSlots(a, attrs));
  return slots;
}

function argSlots(a: ArgDefInit, attrs: Record<string, AttrValueInit>): OutputSlot[] {
  if (a.typeListAttr) return listAttrTypes(attrs, a.typeListAttr).map((type, index) => ({ arg: a.name, index, type }));
  const type = a.type ?? String(attrs[a.typeAttr ?? '']?.type ?? '');
  const count = a.numberAttr ? Number(attrs[a.numberAttr]?.i ?? 0) : 1;
  return Array.from({ length: count }, (_, index) => ({ arg: a.name, index, type }));
}

/** Emits into a top-level GraphDef. */
export class GraphEmitter implements OpEmitter {
  constructor(readonly graph: GraphBuilder) {}

  addNode(
    op: string,
    name: string,
    inputs: readonly Value[],
    attrs: Record<string, AttrValueInit>,
    options: { control?: readonly string[] } = {},
  ): string {
    return this.graph.addNode(
      op,
      name,
      inputs.map((v) => v.ref),
      attrs,
      { control: options.control },
    );
  }

  outputs(node: string, op: string, attrs: Record<string, AttrValueInit>): Value[] {
    return outputSlots(op, attrs).map((s, k) => new Value(k === 0 ? node : `${node}:${k}`, s.type, null, `${node}:${k}`));
  }

  /** `tf.compat.v1.placeholder`; -1 for unknown dims, null for unknown rank. */
  placeholder(name: string, type: string, shape: number[] | null): Value {
    return emit(this, 'Placeholder', name, [], { dtype: { type }, shape: { shape: shapeInit(shape) } })[0].withShape(shape);
  }
}

export function shapeInit(shape: readonly number[] | null): Record<string, unknown> {
  return shape === null ? { unknownRank: true } : { dim: shape.map((size) => (size === 0 ? {} : { size })) };
}

/** protobufjs-ready FunctionDef. */
export interface FunctionDefInit {
  signature: { name: string; inputArg: ArgDefInit[]; outputArg: ArgDefInit[]; isStateful?: boolean };
  nodeDef: NodeInit[];
  ret: Record<string, string>;
  attr: Record<string, AttrValueInit>;
}

/** What callers need to know of a function: its name and argument types. */
export interface FunctionSignature {
  name: string;
  inputTypes: string[];
  outputTypes: string[];
}

/** Builds one function body. */
export class FunctionBuilder implements OpEmitter {
  private readonly inputArgs: ArgDefInit[] = [];
  private readonly nodes: NodeInit[] = [];
  private readonly used = new Set<string>();

  constructor(readonly name: string) {}

  /** Declares the next input arg. */
  arg(name: string, type: string): Value {
    if (this.used.has(name)) throw new Error(`function ${this.name}: name ${name} is taken`);
    this.used.add(name);
    this.inputArgs.push({ name, type });
    return new Value(name, type);
  }

  private unique(name: string): string {
    let candidate = name;
    for (let i = 1; this.used.has(candidate); i++) candidate = `${name}_${i}`;
    this.used.add(candidate);
    return candidate;
  }

  addNode(
    op: string,
    name: string,
    inputs: readonly Value[],
    attrs: Record<string, AttrValueInit>,
    options: { control?: readonly string[] } = {},
  ): string {
    const node = this.unique(name);
    const input = [...inputs.map((v) => v.ref), ...(options.control ?? []).map((c) => `^${c}`)];
    this.nodes.push({ name: node, op, input, attr: { ...attrs } });
    return node;
  }

  outputs(node: string, op: string, attrs: Record<string, AttrValueInit>): Value[] {
    return outputSlots(op, attrs).map((s) => new Value(`${node}:${s.arg}:${s.index}`, s.type));
  }

  build(outputs: Record<string, Value>): FunctionDefInit {
    const outputArg = Object.entries(outputs).map(([name, v]) => ({ name, type: v.type }));
    const stateful = this.nodes.some((n) => OP_DEFS.get(n.op)?.isStateful);
    return {
      signature: { name: this.name, inputArg: [...this.inputArgs], outputArg, ...(stateful ? { isStateful: true } : {}) },
      nodeDef: [...this.nodes],
      ret: Object.fromEntries(Object.entries(outputs).map(([name, v]) => [name, v.ref])),
      attr: {},
    };
  }
}

/** Ops whose func-valued attrs call library functions, with how their types line up. */
const CALLERS: Record<
  string,
  { funcs: string[]; args: (attrs: Record<string, AttrValueInit>) => string[]; results: (attrs: Record<string, AttrValueInit>) => string[] }
> = {
  PartitionedCall: { funcs: ['f'], args: (a) => listAttrTypes(a, 'Tin'), results: (a) => listAttrTypes(a, 'Tout') },
  StatefulPartitionedCall: { funcs: ['f'], args: (a) => listAttrTypes(a, 'Tin'), results: (a) => listAttrTypes(a, 'Tout') },
  If: { funcs: ['then_branch', 'else_branch'], args: (a) => listAttrTypes(a, 'Tin'), results: (a) => listAttrTypes(a, 'Tout') },
  StatelessIf: { funcs: ['then_branch', 'else_branch'], args: (a) => listAttrTypes(a, 'Tin'), results: (a) => listAttrTypes(a, 'Tout') },
  While: { funcs: ['body'], args: (a) => listAttrTypes(a, 'T'), results: (a) => listAttrTypes(a, 'T') },
  StatelessWhile: { funcs: ['body'], args: (a) => listAttrTypes(a, 'T'), results: (a) => listAttrTypes(a, 'T') },
};
const WHILE_OPS = new Set(['While', 'StatelessWhile']);

export class FunctionLibrary {
  private readonly functions = new Map<string, FunctionDefInit>();

  /** Defines function `name` with typed input args; `body` returns its outputs by name. */
  define(
    name: string,
    args: ReadonlyArray<readonly [string, string]>,
    body: (f: FunctionBuilder, args: Value[]) => Record<string, Value>,
  ): FunctionSignature {
    if (this.functions.has(name)) throw new Error(`function ${name} is already defined`);
    const f = new FunctionBuilder(name);
    const values = args.map(([n, t]) => f.arg(n, t));
    const def = f.build(body(f, values));
    this.functions.set(name, def);
    return this.signatureOf(name)!;
  }

  signatureOf(name: string): FunctionSignature | undefined {
    const def = this.functions.get(name);
    if (!def) return undefined;
    return { name, inputTypes: def.signature.inputArg.map((a) => a.type!), outputTypes: def.signature.outputArg.map((a) => a.type!) };
  }

  get size(): number {
    return this.functions.size;
  }

  /** Every op used in a function body. */
  ops(): string[] {
    return [...this.functions.values()].flatMap((f) => f.nodeDef.map((n) => n.op));
  }

  /** GraphDef.library in TF's order (by function name). */
  toProto(): { function: FunctionDefInit[] } {
    return {
      function: [...this.functions.values()].sort((a, b) =>
        a.signature.name < b.signature.name ? -1 : a.signature.name > b.signature.name ? 1 : 0,
      ),
    };
  }

  /**
   * Problems with the library and the graph nodes calling into it: each body against the
   * OpDefs (as validateGraph checks a GraphDef), body references (`node:out_arg:index` naming
   * a real output, args, rets), and every call's types against the called function's.
   */
  problems(graphNodes: readonly NodeInit[]): string[] {
    const problems: string[] = [];
    for (const n of graphNodes) problems.push(...this.callProblems(n, 'graph'));
    for (const f of this.functions.values()) {
      const where = `function ${f.signature.name}`;
      problems.push(...bodyProblems(f).map((p) => `${where}: ${p}`));
      for (const n of f.nodeDef) problems.push(...this.callProblems(n, where));
    }
    return problems;
  }

  private callProblems(node: NodeInit, where: string): string[] {
    const caller = CALLERS[node.op];
    if (!caller) return [];
    const problems: string[] = [];
    const args = caller.args(node.attr);
    const results = caller.results(node.attr);
    const same = (a: string[], b: string[]) => a.length === b.length && a.every((t, i) => t === b[i]);
    for (const attrName of [...caller.funcs, ...(WHILE_OPS.has(node.op) ? ['cond'] : [])]) {
      const fname = (node.attr[attrName]?.func as { name?: string } | undefined)?.name ?? '';
      const sig = this.signatureOf(fname);
      if (!sig) {
        problems.push(`${where}: ${node.name} (${node.op}) ${attrName} names function '${fname}', which is not in the library`);
        continue;
      }
      if (!same(sig.inputTypes, args))
        problems.push(`${where}: ${node.name} passes [${args}] to ${fname}, which takes [${sig.inputTypes}]`);
      const wantResults = attrName === 'cond' ? ['DT_BOOL'] : results;
      if (!same(sig.outputTypes, wantResults))
        problems.push(`${where}: ${node.name} expects [${wantResults}] from ${fname}, which returns [${sig.outputTypes}]`);
    }
    return problems;
  }
}

/**
 * Validates one body with validateGraph: args become Placeholders, body references are
 * rewritten to GraphDef form after checking their output arg names, nodes are put in
 * dependency order (a body's order is free).
 */
function bodyProblems(f: FunctionDefInit): string[] {
  const problems: string[] = [];
  const args = new Map(f.signature.inputArg.map((a) => [a.name, a]));
  const byName = new Map(f.nodeDef.map((n) => [n.name, n]));
  for (const n of f.nodeDef) if (args.has(n.name)) problems.push(`node ${n.name} has the name of an input arg`);

  const toGraphRef = (ref: string, user: string): string => {
    const control = ref.startsWith('^');
    const body = control ? ref.slice(1) : ref;
    const parts = body.split(':');
    if (parts.length === 1) {
      if (!args.has(body) && !(control && byName.has(body))) problems.push(`${user}: input ${ref} names no input arg`);
      return ref;
    }
    const node = byName.get(parts[0]);
    if (parts.length !== 3 || !node) {
      problems.push(`${user}: input ${ref} is not of the form node:out_arg:index naming a body node`);
      return ref;
    }
    const slots = OP_DEFS.has(node.op) ? outputSlots(node.op, node.attr) : [];
    const flat = slots.findIndex((s) => s.arg === parts[1] && s.index === Number(parts[2]));
    if (flat < 0) {
      problems.push(`${user}: input ${ref}: ${node.op} has no output ${parts[1]}:${parts[2]}`);
      return ref;
    }
    return flat === 0 ? parts[0] : `${parts[0]}:${flat}`;
  };

  const placeholders: NodeInit[] = f.signature.inputArg.map((a) => ({
    name: a.name,
    op: 'Placeholder',
    input: [],
    attr: { dtype: { type: a.type } },
  }));
  const rewritten = f.nodeDef.map((n) => ({ ...n, input: n.input.map((r) => toGraphRef(r, n.name)) }));
  problems.push(...validateGraph([...placeholders, ...dependencyOrder(rewritten)]));

  for (const out of f.signature.outputArg) {
    const ret = f.ret[out.name];
    if (ret === undefined) problems.push(`output ${out.name} has no ret`);
    else toGraphRef(ret, `ret ${out.name}`);
  }
  for (const name of Object.keys(f.ret))
    if (!f.signature.outputArg.some((o) => o.name === name)) problems.push(`ret ${name} is not an output arg`);
  return problems;
}

/** Nodes with their inputs first; a cycle leaves the rest in the given order (validateGraph reports it). */
function dependencyOrder(nodes: NodeInit[]): NodeInit[] {
  const byName = new Map(nodes.map((n) => [n.name, n]));
  const done = new Set<string>();
  const visiting = new Set<string>();
  const order: NodeInit[] = [];
  const visit = (n: NodeInit) => {
    if (done.has(n.name) || visiting.has(n.name)) return;
    visiting.add(n.name);
    for (const ref of n.input) {
      const dep = byName.get(ref.replace(/^\^/, '').replace(/:\d+$/, ''));
      if (dep) visit(dep);
    }
    visiting.delete(n.name);
    done.add(n.name);
    order.push(n);
  };
  nodes.forEach(visit);
  return order;
}
