// Flattens a GraphDef plus its function library into one call-free graph, emitting only
// what the requested tensors need. TF2 exports hide everything behind
// (Stateful)PartitionedCall nodes (nested several deep in Keras models); TF.js executes
// plain graphs, so each call is inlined: its body nodes are copied under the prefix
// `<call node name>/`, its arguments bound to the call's inputs and its outputs to the
// body tensors named by `ret`. Work is lazy: a body node nobody needs is never copied.
import { invalidArgument } from '../../errors/status.js';
import { OpOutputIndex } from './op_outputs.js';
import type { AttrValue, FunctionDef, NodeDef, OpDef } from './types.js';

type Thunk = () => string;

interface Scope {
  /** Prefix of global names for nodes of this scope: '' at top level, 'Call/Inner/' inside. */
  prefix: string;
  nodes: Map<string, NodeDef>;
  /** Function arguments (null at top level) → global tensor, resolved on first use. */
  args: Map<string, Thunk> | null;
  /** Inlined call nodes of this scope → their body scope and one thunk per flat output. */
  calls: Map<string, { body: Scope; outs: Thunk[] }>;
  /** Set once every body node has been emitted (a control edge reached this call). */
  everything?: boolean;
  /** Attr values of the instantiating call, for `placeholder` attrs in the body. */
  callAttrs: Record<string, AttrValue>;
}

export interface FlattenOptions {
  /** Keep `^control` inputs (and the nodes behind them); used to read the restore graph. */
  keepControlInputs: boolean;
  /** Top-level tensors ('name:idx') replaced by another global tensor, e.g. feeds. */
  aliases?: Map<string, string>;
}

const CALL_OPS = new Set(['PartitionedCall', 'StatefulPartitionedCall']);

function memo(f: Thunk): Thunk {
  let v: string | undefined;
  return () => (v ??= f());
}

/** 'name', 'name:1' → ['name', 1] */
export function parseTensorName(ref: string): [string, number] {
  const colon = ref.lastIndexOf(':');
  if (colon > 0 && /^\d+$/.test(ref.slice(colon + 1))) return [ref.slice(0, colon), Number(ref.slice(colon + 1))];
  return [ref, 0];
}

export class GraphFlattener {
  /** Emitted nodes by global name, in emission order (inputs before consumers, except in cycles). */
  readonly out = new Map<string, NodeDef>();
  private readonly emitting = new Set<string>();
  private readonly top: Scope;
  private readonly opIndex: OpOutputIndex;

  constructor(
    graphNodes: NodeDef[],
    private readonly library: Map<string, FunctionDef>,
    opDefs: Map<string, OpDef>,
    private readonly options: FlattenOptions,
  ) {
    const defs = new Map(opDefs);
    for (const [name, f] of library) defs.set(name, f.signature);
    this.opIndex = new OpOutputIndex(defs);
    this.top = { prefix: '', nodes: new Map(graphNodes.map((n) => [n.name, n])), args: null, calls: new Map(), callAttrs: {} };
  }

  hasTopNode(name: string): boolean {
    return this.top.nodes.has(name);
  }

  topNode(name: string): NodeDef | undefined {
    return this.top.nodes.get(name);
  }

  /** Global tensor name ('node:idx') computing top-level tensor `ref`, emitting what it needs. */
  resolveTensor(ref: string): string {
    return this.resolve(this.top, ref);
  }

  /** Emits a top-level node and everything it depends on (its control inputs too when kept). */
  require(nodeName: string): void {
    this.resolveControl(this.top, nodeName);
  }

  private isCall(node: NodeDef): boolean {
    return CALL_OPS.has(node.op) || this.library.has(node.op);
  }

  private resolve(scope: Scope, ref: string): string {
    if (scope.args) {
      const parts = ref.split(':');
      if (parts.length === 1) {
        const arg = scope.args.get(ref);
        if (!arg) throw invalidArgument(`function input '${ref}' is not defined (in ${scope.prefix || 'graph'})`);
        return arg();
      }
      if (parts.length === 3) {
        const node = this.localNode(scope, parts[0]);
        return this.tensorOf(scope, node, this.opIndex.flatIndex(node, parts[1], Number(parts[2])));
      }
    }
    const [name, index] = parseTensorName(ref);
    if (scope === this.top) {
      const alias = this.options.aliases?.get(`${name}:${index}`);
      if (alias) return alias;
    }
    return this.tensorOf(scope, this.localNode(scope, name), index);
  }

  private localNode(scope: Scope, name: string): NodeDef {
    const node = scope.nodes.get(name);
    if (!node) throw invalidArgument(`node '${scope.prefix}${name}' is referenced but not defined`);
    return node;
  }

  private tensorOf(scope: Scope, node: NodeDef, index: number): string {
    if (this.isCall(node)) {
      const outs = this.inline(scope, node);
      const out = outs[index];
      if (!out) throw invalidArgument(`call node '${scope.prefix}${node.name}' has no output ${index}`);
      return out();
    }
    this.emit(scope, node);
    return `${scope.prefix}${node.name}:${index}`;
  }

  private resolveControl(scope: Scope, name: string): string | undefined {
    if (scope.args?.has(name)) return undefined;
    const node = this.localNode(scope, name);
    if (this.isCall(node)) {
      // A control edge on a call means "all of its side effects": copy its whole body.
      this.inline(scope, node, true);
      return undefined;
    }
    this.emit(scope, node);
    return `^${scope.prefix}${name}`;
  }

  private emit(scope: Scope, node: NodeDef): void {
    const global = scope.prefix + node.name;
    if (this.out.has(global) || this.emitting.has(global)) return;
    this.emitting.add(global);
    const inputs: string[] = [];
    for (const ref of node.input ?? []) {
      if (ref.startsWith('^')) {
        if (!this.options.keepControlInputs) continue;
        const ctrl = this.resolveControl(scope, ref.slice(1));
        if (ctrl) inputs.push(ctrl);
      } else {
        inputs.push(this.resolve(scope, ref));
      }
    }
    this.out.set(global, { name: global, op: node.op, input: inputs, attr: this.bindAttrs(scope, node.attr ?? {}) });
    this.emitting.delete(global);
  }

  private bindAttrs(scope: Scope, attrs: Record<string, AttrValue>): Record<string, AttrValue> {
    let bound: Record<string, AttrValue> | undefined;
    for (const [k, v] of Object.entries(attrs)) {
      if (v.placeholder !== undefined) {
        bound ??= { ...attrs };
        const value = scope.callAttrs[v.placeholder];
        if (!value) throw invalidArgument(`attr placeholder '${v.placeholder}' unbound in ${scope.prefix}`);
        bound[k] = value;
      }
    }
    return bound ?? attrs;
  }

  private inline(scope: Scope, call: NodeDef, everything = false): Thunk[] {
    let inlined = scope.calls.get(call.name);
    const fname = CALL_OPS.has(call.op) ? call.attr?.f?.func?.name ?? '' : call.op;
    const fdef = this.library.get(fname);
    if (!fdef) throw invalidArgument(`node '${scope.prefix}${call.name}' calls function '${fname}', which is not in the graph's library`);
    if (!inlined) {
      inlined = this.bindCall(scope, call, fname, fdef);
      scope.calls.set(call.name, inlined);
    }
    const { body, outs } = inlined;
    if (everything && !body.everything) {
      body.everything = true;
      for (const n of fdef.nodeDef ?? []) this.resolveControl(body, n.name);
      for (const o of outs) o();
    }
    return outs;
  }

  private bindCall(scope: Scope, call: NodeDef, fname: string, fdef: FunctionDef): { body: Scope; outs: Thunk[] } {
    const prefix = `${scope.prefix}${call.name}/`;
    const callAttrs = CALL_OPS.has(call.op) ? call.attr?.f?.func?.attr ?? {} : call.attr ?? {};
    const args = new Map<string, Thunk>();
    const body: Scope = { prefix, nodes: new Map((fdef.nodeDef ?? []).map((n) => [n.name, n])), args, calls: new Map(), callAttrs };
    const dataInputs = (call.input ?? []).filter((i) => !i.startsWith('^'));
    const inputArgs = fdef.signature.inputArg ?? [];
    if (inputArgs.length !== dataInputs.length) {
      throw invalidArgument(`call '${prefix.slice(0, -1)}' passes ${dataInputs.length} inputs to '${fname}', which takes ${inputArgs.length}`);
    }
    inputArgs.forEach((arg, k) => args.set(arg.name, memo(() => this.resolve(scope, dataInputs[k]))));
    const outs = (fdef.signature.outputArg ?? []).map((arg) =>
      memo(() => {
        const ret = fdef.ret?.[arg.name];
        if (!ret) throw invalidArgument(`function '${fname}' does not bind its output '${arg.name}'`);
        return this.resolve(body, ret);
      }),
    );
    return { body, outs };
  }
}
