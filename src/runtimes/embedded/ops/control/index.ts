// The `control` op family: TensorLists with TF's semantics (tensor_list.ts) in place of
// tfjs-converter's own, for Keras RNNs and while_v2 loops. The loops themselves are
// tfjs-converter's; its executor is patched for them (tfjs_patches/graph_executor_patch.ts).
import type { TfjsOpTable } from '../../../shared/tfjs_op_table.js';
import { TENSOR_LIST_OPS } from './tensor_list_ops.js';

export const CONTROL_OPS: TfjsOpTable = Object.fromEntries(Object.entries(TENSOR_LIST_OPS).map(([op, execute]) => [op, { execute }]));
