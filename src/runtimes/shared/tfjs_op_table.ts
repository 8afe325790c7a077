// The form of an op tfgate implements for tfjs-converter's graph executor: its kernel, and the
// load-time check that refuses, naming the op and node, what the kernel cannot compute. Op
// families export tables of them (`{ TfOp: { execute, check } }`, embedded/ops/<family>/);
// an engine registers the tables it runs, and asks the same tables at load which ops it has.
import tfconv from '../tfjs_packages/tfjs_converter.cjs';
import type { NodeDef } from '../../savedmodel/graph/types.js';
import type { HostTensor } from '../../tensor/host_tensor.js';

/** The value of a node input when a Const node gives it (`ref` as NodeDef.input writes it), else undefined. */
export type ConstantInput = (ref: string) => HostTensor | undefined;

/** Why a node cannot run (checked at load, before any request), or null when it can. */
type NodeCheck = (node: NodeDef, constant: ConstantInput) => string | null;

export interface TfjsOp {
  /** What tfjs-converter's executor calls for each node of the op (it replaces the converter's own mapping). */
  execute: tfconv.OpExecutor;
  /** Refuses at load a node the kernel cannot compute exactly (an invalid attribute, an unsupported form). */
  check?: NodeCheck;
}

export type TfjsOpTable = Readonly<Record<string, TfjsOp>>;

const registered = new WeakSet<TfjsOpTable>();
const registeredChecks = new Map<string, NodeCheck>();

/** Registers every op of `table` with tfjs-converter (process-wide). Idempotent. */
export function registerTfjsOps(table: TfjsOpTable): void {
  if (registered.has(table)) return;
  registered.add(table);
  for (const [name, op] of Object.entries(table)) {
    tfconv.registerOp(name, op.execute);
    if (op.check) registeredChecks.set(name, op.check);
  }
}

/**
 * The load-time check of a registered op, for graphs run without the signature's load checks
 * (a table initializer's inputs evaluated once at load): null when it can run.
 */
export const registeredOpProblem = (node: NodeDef, constant: ConstantInput): string | null =>
  registeredChecks.get(node.op)?.(node, constant) ?? null;
