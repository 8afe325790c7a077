// A table node's key and value types and kind, as its attrs declare them.
import { dtypeFromTf, type DType } from '../../../tensor/dtype.js';
import { shapeFromProto } from '../../tensor_proto.js';
import { localName } from '../control_flow_functions.js';
import type { NodeDef } from '../types.js';
import { Unresolvable } from '../constant_subgraph.js';
import type { TableInfo } from './table_contents.js';
import { MUTABLE_TABLE_OPS } from './table_ops.js';

export function tableInfo(node: NodeDef): TableInfo {
  const dtype = (attr: string): DType => {
    const d = dtypeFromTf(node.attr?.[attr]?.type ?? '');
    if (!d) throw new Unresolvable(`table '${localName(node.name)}' has ${attr} ${node.attr?.[attr]?.type}, which tfgate cannot hold`);
    return d;
  };
  return {
    name: localName(node.name),
    op: node.op,
    keyDtype: dtype('key_dtype'),
    valueDtype: dtype('value_dtype'),
    valueShape: shapeFromProto(node.attr?.value_shape?.shape) ?? [],
    mutable: MUTABLE_TABLE_OPS.has(node.op),
  };
}
