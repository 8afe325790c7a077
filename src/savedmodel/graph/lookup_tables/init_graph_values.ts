// Values of the tensors that fill lookup tables, computed at load from the flattened init or
// restore graph: constants (through Identity), the asset paths TF feeds to the
// asset_file_def tensors, string variables assigned in the same graph (TF2 keeps an asset's
// path in a variable fed by `asset_path_initializer`), and checkpoint tensors RestoreV2 reads.
// Anything else cannot be computed without running the graph: `Unresolvable` says what it was.
import type { HostTensor } from '../../../tensor/host_tensor.js';
import { hostTensorFromProto } from '../../tensor_proto.js';
import { parseTensorName } from '../graph_flattener.js';
import { localName } from '../control_flow_functions.js';
import { restoreKey, sourceOf } from '../variable_restore_map.js';
import type { NodeDef, VariableReader } from '../types.js';

export class Unresolvable extends Error {}

const ASSIGNS: Record<string, string> = { AssignVariableOp: 'VarHandleOp', Assign: 'VariableV2' };
const FORWARDING_OPS = new Set(['Identity', 'Snapshot', 'StopGradient']);

export class InitGraphValues {
  /** Variable node name → the tensor last assigned to it in this graph. */
  private readonly assigned = new Map<string, string>();

  constructor(
    private readonly out: ReadonlyMap<string, NodeDef>,
    /** Top-level tensor ('node:index') → the asset's path on disk. */
    private readonly assetPaths: ReadonlyMap<string, string>,
    private readonly variables: VariableReader | null,
  ) {
    for (const node of out.values()) {
      const variableOp = ASSIGNS[node.op];
      if (!variableOp || !node.input?.[0] || !node.input[1]) continue;
      const target = sourceOf(out as Map<string, NodeDef>, node.input[0]);
      if (target?.node.op === variableOp) this.assigned.set(target.node.name, node.input[1]);
    }
  }

  /** The value of tensor `ref` ('node:index' of the flattened graph). */
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
        if (!value) throw new Unresolvable(`${shown}, a variable nothing in the init graph assigns`);
        return this.value(value, depth + 1);
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
        throw new Unresolvable(`${shown}, which tfgate does not compute at load`);
    }
  }
}
