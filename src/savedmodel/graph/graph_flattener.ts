// Flattens a GraphDef plus its function library into one call-free graph, emitting only
// what the requested tensors need. TF2 exports hide everything behind
// (Stateful)PartitionedCall nodes (nested several deep in Keras models); TF.js executes
// plain graphs, so each call is inlined: its body nodes are copied under the prefix
// `<call node name>/`, its arguments bound to the call's inputs and its outputs to the
// body tensors named by `ret`. Work is lazy: a body node nobody needs is never copied.
import { invalidArgument } from '../../errors/status.js';
import { OpOutputIndex } from './op_outputs.js';
import type { AttrValue, FunctionDef, NodeDef, OpDef } from './types.js';

/** A node that must be emitted before a reference to it can be resolved. */
interface Need {
  need: { scope: Scope; node: NodeDef };
}

/** A tensor name, or the node to emit first. */
type Step = string | Need;

/** A function argument or call output: resolved once, on first use. */
interface Slot {
  value?: string;
  resolve: () => Step;
}

interface Scope {
  /** Prefix of global names for nodes of this scope: '' at top level, 'Call/Inner/' inside. */
  prefix: string;
  nodes: Map<string, NodeDef>;
  /** Function arguments (null at top level) → global tensor, resolved on first use. */
  args: Map<string, Slot> | null;
  /** Inlined call nodes of this scope → their body scope and one slot per flat output. */
  calls: Map<string, { body: Scope; outs: Slot[] }>;
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

const isNeed = (s: Step | undefined): s is Need => typeof s === 'object';

function trySlot(slot: Slot): Step {
  if (slot.value !== undefined) return slot.value;
  const step = slot.resolve();
  if (!isNeed(step)) slot.value = step;
  return step;
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
    return this.drive(() => this.tryResolve(this.top, ref)) as string;
  }

  /** Emits a top-level node and everything it depends on (its control inputs too when kept). */
  require(nodeName: string): void {
    this.drive(() => this.tryResolveControl(this.top, nodeName));
  }

  private isCall(node: NodeDef): boolean {
    return CALL_OPS.has(node.op) || this.library.has(node.op);
  }

  /**
   * Emits what `attempt` needs until it resolves. Work goes on an explicit stack, so a chain
   * of any length costs no JS stack; only nested function calls nest here.
   */
  private drive(attempt: () => Step | undefined): string | undefined {
    for (;;) {
      const step = attempt();
      if (!isNeed(step)) return step;
      this.emit(step.need.scope, step.need.node);
    }
  }

  /** `ref` in `scope` as a global tensor name, or the node to emit first. */
  private tryResolve(scope: Scope, ref: string): Step {
    if (scope.args) {
      const parts = ref.split(':');
      if (parts.length === 1) {
        const arg = scope.args.get(ref);
        if (!arg) throw invalidArgument(`function input '${ref}' is not defined (in ${scope.prefix || 'graph'})`);
        return trySlot(arg);
      }
      if (parts.length === 3) {
        const node = this.localNode(scope, parts[0]);
        return this.tryTensorOf(scope, node, this.opIndex.flatIndex(node, parts[1], Number(parts[2])));
      }
    }
    const [name, index] = parseTensorName(ref);
    if (scope === this.top) {
      const alias = this.options.aliases?.get(`${name}:${index}`);
      if (alias) return alias;
    }
    return this.tryTensorOf(scope, this.localNode(scope, name), index);
  }

  private localNode(scope: Scope, name: string): NodeDef {
    const node = scope.nodes.get(name);
    if (!node) throw invalidArgument(`node '${scope.prefix}${name}' is referenced but not defined`);
    return node;
  }

  /** A node being emitted counts as emitted: a reference back to it is a cycle, which graph validation reports. */
  private emitted(scope: Scope, node: NodeDef): boolean {
    const global = scope.prefix + node.name;
    return this.out.has(global) || this.emitting.has(global);
  }

  private tryTensorOf(scope: Scope, node: NodeDef, index: number): Step {
    if (this.isCall(node)) {
      const outs = this.inline(scope, node);
      const out = outs[index];
      if (!out) throw invalidArgument(`call node '${scope.prefix}${node.name}' has no output ${index}`);
      return trySlot(out);
    }
    if (!this.emitted(scope, node)) return { need: { scope, node } };
    return `${scope.prefix}${node.name}:${index}`;
  }

  private tryResolveControl(scope: Scope, name: string): Step | undefined {
    if (scope.args?.has(name)) return undefined;
    const node = this.localNode(scope, name);
    if (this.isCall(node)) {
      // A control edge on a call means "all of its side effects": copy its whole body.
      this.inline(scope, node, true);
      return undefined;
    }
    if (!this.emitted(scope, node)) return { need: { scope, node } };
    return `^${scope.prefix}${name}`;
  }

  /** Emits `node` after everything it needs, depth first on an explicit stack. */
  private emit(scope: Scope, node: NodeDef): void {
    interface Frame {
      scope: Scope;
      node: NodeDef;
      global: string;
      inputs: string[];
      next: number;
    }
    const open = (sc: Scope, n: NodeDef): Frame => {
      const global = sc.prefix + n.name;
      this.emitting.add(global);
      return { scope: sc, node: n, global, inputs: [], next: 0 };
    };
    if (this.emitted(scope, node)) return;
    const stack: Frame[] = [open(scope, node)];
    while (stack.length) {
      const f = stack[stack.length - 1];
      const refs = f.node.input ?? [];
      if (f.next < refs.length) {
        const ref = refs[f.next];
        let step: Step | undefined;
        if (ref.startsWith('^')) {
          if (!this.options.keepControlInputs) {
            f.next++;
            continue;
          }
          step = this.tryResolveControl(f.scope, ref.slice(1));
        } else {
          step = this.tryResolve(f.scope, ref);
        }
        if (isNeed(step)) {
          stack.push(open(step.need.scope, step.need.node));
          continue;
        }
        if (step !== undefined) f.inputs.push(step);
        f.next++;
        continue;
      }
      this.out.set(f.global, { name: f.global, op: f.node.op, input: f.inputs, attr: this.bindAttrs(f.scope, f.node.attr ?? {}) });
      this.emitting.delete(f.global);
      stack.pop();
    }
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

  private inline(scope: Scope, call: NodeDef, everything = false): Slot[] {
    let inlined = scope.calls.get(call.name);
    const fname = CALL_OPS.has(call.op) ? (call.attr?.f?.func?.name ?? '') : call.op;
    const fdef = this.library.get(fname);
    if (!fdef) throw invalidArgument(`node '${scope.prefix}${call.name}' calls function '${fname}', which is not in the graph's library`);
    if (!inlined) {
      inlined = this.bindCall(scope, call, fname, fdef);
      scope.calls.set(call.name, inlined);
    }
    const { body, outs } = inlined;
    if (everything && !body.everything) {
      body.everything = true;
      for (const n of fdef.nodeDef ?? []) this.drive(() => this.tryResolveControl(body, n.name));
      for (const o of outs) this.drive(() => trySlot(o));
    }
    return outs;
  }

  private bindCall(scope: Scope, call: NodeDef, fname: string, fdef: FunctionDef): { body: Scope; outs: Slot[] } {
    const prefix = `${scope.prefix}${call.name}/`;
    const callAttrs = CALL_OPS.has(call.op) ? (call.attr?.f?.func?.attr ?? {}) : (call.attr ?? {});
    const args = new Map<string, Slot>();
    const body: Scope = { prefix, nodes: new Map((fdef.nodeDef ?? []).map((n) => [n.name, n])), args, calls: new Map(), callAttrs };
    const dataInputs = (call.input ?? []).filter((i) => !i.startsWith('^'));
    const inputArgs = fdef.signature.inputArg ?? [];
    if (inputArgs.length !== dataInputs.length) {
      throw invalidArgument(
        `call '${prefix.slice(0, -1)}' passes ${dataInputs.length} inputs to '${fname}', which takes ${inputArgs.length}`,
      );
    }
    inputArgs.forEach((arg, k) => args.set(arg.name, { resolve: () => this.tryResolve(scope, dataInputs[k]) }));
    const outs = (fdef.signature.outputArg ?? []).map((arg): Slot => ({
      resolve: () => {
        const ret = fdef.ret?.[arg.name];
        if (!ret) throw invalidArgument(`function '${fname}' does not bind its output '${arg.name}'`);
        return this.tryResolve(body, ret);
      },
    }));
    return { body, outs };
  }
}
