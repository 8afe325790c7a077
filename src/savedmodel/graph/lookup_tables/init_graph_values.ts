// Values of the tensors that fill lookup tables, computed at load from the flattened init or
// restore graph. The host knows its leaves: constants, the asset paths TF feeds to the
// asset_file_def tensors, string variables assigned in the same graph (TF2 keeps an asset's
// path in a variable fed by `asset_path_initializer`), variables the checkpoint restores
// (TF restores before it runs the init op), and checkpoint tensors RestoreV2 reads. Whatever
// the graph computes from them (a Cast, a Range over a Size, a StringJoin …) runs once on the
// loading runtime's engine (constant_subgraph.ts). `Unresolvable` says what could not be had.
import type { HostTensor } from '../../../tensor/host_tensor.js';
import { hostTensorFromProto } from '../../tensor_proto.js';
import { parseTensorName } from '../graph_flattener.js';
import { localName } from '../control_flow_functions.js';
import { restoreKey, sourceOf } from '../variable_restore_map.js';
import type { CheckpointRestore } from '../checkpoint_restore.js';
import { constantSubgraph, evaluateConstantSubgraph, Unresolvable, type ConstantGraphEvaluator } from '../constant_subgraph.js';
import { defaultAttrTable } from '../default_attrs.js';
import type { NodeDef, OpDef, VariableReader } from '../types.js';

const ASSIGNS: Record<string, string> = { AssignVariableOp: 'VarHandleOp', Assign: 'VariableV2' };
const FORWARDING_OPS = new Set(['Identity', 'Snapshot', 'StopGradient']);
/** Ops whose values the host reads itself (value() below); everything else is computed. */
const LEAF_OPS = new Set(['Const', 'Placeholder', 'ReadVariableOp', 'VariableV2', 'RestoreV2']);

/** Computing beyond the host's leaves: the loading runtime's engine, and what the checkpoint restores. */
export interface InitGraphEngine {
  evaluate?: ConstantGraphEvaluator;
  restore?: CheckpointRestore;
  opDefs?: Map<string, OpDef>;
}

/** The host-side leaf did not have a value because its op is a computation (an engine's job). */
class Computed extends Unresolvable {}

export class InitGraphValues {
  /** Variable node name → the tensor last assigned to it in this graph. */
  private readonly assigned = new Map<string, string>();
  private defaults?: ReturnType<typeof defaultAttrTable>;

  constructor(
    private readonly out: ReadonlyMap<string, NodeDef>,
    /** Top-level tensor ('node:index') → the asset's path on disk. */
    private readonly assetPaths: ReadonlyMap<string, string>,
    private readonly variables: VariableReader | null,
    private readonly engine: InitGraphEngine = {},
  ) {
    for (const node of out.values()) {
      const variableOp = ASSIGNS[node.op];
      if (!variableOp || !node.input?.[0] || !node.input[1]) continue;
      const target = sourceOf(out as Map<string, NodeDef>, node.input[0]);
      if (target?.node.op === variableOp) this.assigned.set(target.node.name, node.input[1]);
    }
  }

  /** The value of tensor `ref` ('node:index' of the flattened graph) as the host knows it, without an engine. */
  value(ref: string, depth = 0): HostTensor {
    if (depth > 1000) throw new Unresolvable(`a cycle at '${ref}'`);
    const [name, index] = parseTensorName(ref);
    const asset = this.assetPaths.get(`${name}:${index}`);
    if (asset !== undefined) return { dtype: 'string', shape: [], values: [new TextEncoder().encode(asset)] };
    const node = this.out.get(name);
    if (!node) throw new Unresolvable(`tensor '${ref}', which is not in the graph`);
    const shown = `${node.op} '${localName(node.name)}'`;
    switch (node.op) {
      case 'Const':
        return hostTensorFromProto(node.attr?.value?.tensor ?? {}, `constant ${node.name}`);
      case 'ReadVariableOp':
      case 'VariableV2': {
        const variable = node.op === 'VariableV2' ? node : sourceOf(this.out as Map<string, NodeDef>, node.input?.[0] ?? '')?.node;
        const value = variable && this.assigned.get(variable.name);
        if (value) return this.value(value, depth + 1);
        return this.restored(variable, shown);
      }
      case 'RestoreV2': {
        const key = restoreKey(this.out as Map<string, NodeDef>, node, index);
        if (key === undefined) throw new Unresolvable(`${shown}, whose tensor_names are not a constant`);
        if (!this.variables?.has(key)) throw new Unresolvable(`${shown}: checkpoint key '${key}' is not in variables/`);
        return this.variables.read(key);
      }
      case 'Placeholder':
        throw new Unresolvable(`${shown}, which no asset_file_def feeds`);
      default:
        if (FORWARDING_OPS.has(node.op) && node.input?.[0]) return this.value(node.input[0], depth + 1);
        throw new Computed(`${shown}, which tfgate does not compute at load`);
    }
  }

  /** The value of `ref`, running what computes it from the host's leaves on the engine when there is one. */
  async computed(ref: string): Promise<HostTensor> {
    try {
      return this.value(ref);
    } catch (e) {
      if (!(e instanceof Computed) || !this.engine.evaluate) throw e;
    }
    const opDefs = this.engine.opDefs ?? new Map<string, OpDef>();
    this.defaults ??= defaultAttrTable(opDefs);
    const graph = constantSubgraph(ref, {
      out: this.out,
      opDefs,
      defaults: this.defaults,
      isLeaf: (node, tensor) => LEAF_OPS.has(node.op) || this.assetPaths.has(tensor),
      leafValue: (tensor) => this.value(tensor),
    });
    return (await evaluateConstantSubgraph(graph, this.engine.evaluate))[0];
  }

  /** A variable read before anything in this graph assigns it: what the checkpoint restored into it. */
  private restored(variable: NodeDef | undefined, shown: string): HostTensor {
    const restore = this.engine.restore;
    if (!variable || !restore) throw new Unresolvable(`${shown}, a variable nothing in the init graph assigns`);
    try {
      return restore.read(restore.variableKey(variable));
    } catch (e) {
      throw new Unresolvable(
        `${shown}, a variable nothing in the init graph assigns and the checkpoint does not restore: ${(e as Error).message}`,
      );
    }
  }
}
