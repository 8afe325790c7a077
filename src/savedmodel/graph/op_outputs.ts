// Maps a FunctionDef body reference `node:out_arg:index` to the flat output index that
// GraphDef-style references (`node:k`) use. That needs the op's output argument list.
// Sources, in order: the MetaGraph's stripped_op_list, the function library's signatures
// (a node whose op is a function name), and the table below for multi-output ops that
// TF 2.0–2.3 exports leave out of stripped_op_list.
import { invalidArgument } from '../../errors/status.js';
import type { ArgDef, AttrValue, NodeDef, OpDef } from './types.js';

/** Output argument names of common ops with more than one output argument. */
const MULTI_OUTPUT_ARGS: Record<string, string[]> = {
  FusedBatchNorm: ['y', 'batch_mean', 'batch_variance', 'reserve_space_1', 'reserve_space_2'],
  FusedBatchNormV2: ['y', 'batch_mean', 'batch_variance', 'reserve_space_1', 'reserve_space_2'],
  FusedBatchNormV3: ['y', 'batch_mean', 'batch_variance', 'reserve_space_1', 'reserve_space_2', 'reserve_space_3'],
  TopKV2: ['values', 'indices'],
  Unique: ['y', 'idx'],
  UniqueV2: ['y', 'idx'],
  Switch: ['output_false', 'output_true'],
  RefSwitch: ['output_false', 'output_true'],
  Merge: ['output', 'value_index'],
  BroadcastGradientArgs: ['r0', 'r1'],
  ListDiff: ['out', 'idx'],
  NonMaxSuppressionV4: ['selected_indices', 'valid_outputs'],
  NonMaxSuppressionV5: ['selected_indices', 'selected_scores', 'valid_outputs'],
  MaxPoolWithArgmax: ['output', 'argmax'],
  StringSplit: ['indices', 'values', 'shape'],
  StringSplitV2: ['indices', 'values', 'shape'],
  SparseFillEmptyRows: ['output_indices', 'output_values', 'empty_row_indicator', 'reverse_index_map'],
  SparseReshape: ['output_indices', 'output_shape'],
  StringNGrams: ['ngrams', 'ngrams_splits'],
  RaggedGather: ['output_nested_splits', 'output_dense_values'],
  RaggedRange: ['rt_nested_splits', 'rt_dense_values'],
  // list_ops.cc: loop bodies read these as e.g. `TensorListPopBack:tensor:0`.
  TensorListPopBack: ['output_handle', 'tensor'],
  TensorListConcat: ['tensor', 'lengths'],
  TensorListConcatV2: ['tensor', 'lengths'],
};

/** List-valued output args whose length comes from an attr (number_attr / type_list_attr). */
const LIST_OUTPUT_ATTRS: Record<string, Record<string, { number?: string; typeList?: string }>> = {
  Split: { output: { number: 'num_split' } },
  SplitV: { output: { number: 'num_split' } },
  Unpack: { output: { number: 'num' } },
  IdentityN: { output: { typeList: 'T' } },
  ShapeN: { output: { number: 'N' } },
  PartitionedCall: { output: { typeList: 'Tout' } },
  StatefulPartitionedCall: { output: { typeList: 'Tout' } },
  If: { output: { typeList: 'Tout' } },
  StatelessIf: { output: { typeList: 'Tout' } },
  While: { output: { typeList: 'T' } },
  StatelessWhile: { output: { typeList: 'T' } },
  RestoreV2: { tensors: { typeList: 'dtypes' } },
};

function argLength(arg: ArgDef, attrs: Record<string, AttrValue>): number {
  if (arg.numberAttr) return Number(attrs[arg.numberAttr]?.i ?? 0);
  if (arg.typeListAttr) return attrs[arg.typeListAttr]?.list?.type?.length ?? 0;
  return 1;
}

export class OpOutputIndex {
  constructor(private readonly opDefs: Map<string, OpDef>) {}

  /** Flat output index of `outArg:index` on `node`. */
  flatIndex(node: NodeDef, outArg: string, index: number): number {
    const attrs = node.attr ?? {};
    const def = this.opDefs.get(node.op);
    if (def?.outputArg?.length) {
      let base = 0;
      for (const arg of def.outputArg) {
        if (arg.name === outArg) return base + index;
        base += argLength(arg, attrs);
      }
      throw invalidArgument(`op ${node.op} (node ${node.name}) has no output argument '${outArg}'`);
    }
    const listed = MULTI_OUTPUT_ARGS[node.op];
    if (listed) {
      const pos = listed.indexOf(outArg);
      if (pos < 0) throw invalidArgument(`op ${node.op} (node ${node.name}) has no output argument '${outArg}'`);
      return pos + index;
    }
    // Single output argument (the common case), possibly a list: index is already flat.
    if (LIST_OUTPUT_ATTRS[node.op] && !LIST_OUTPUT_ATTRS[node.op][outArg]) {
      throw invalidArgument(`op ${node.op} (node ${node.name}) has no output argument '${outArg}'`);
    }
    return index;
  }
}

/**
 * The TF dtype (DT_…) of output `index` of `node`, from its OpDef's output arguments (a fixed
 * type, a type attr, or one entry of a type-list attr); undefined when the OpDef is unknown.
 */
export function outputType(node: NodeDef, index: number, opDefs: ReadonlyMap<string, OpDef>): string | undefined {
  const attrs = node.attr ?? {};
  let base = 0;
  for (const arg of opDefs.get(node.op)?.outputArg ?? []) {
    const n = argLength(arg, attrs);
    if (index < base + n) {
      if (arg.typeListAttr) return attrs[arg.typeListAttr]?.list?.type?.[index - base];
      return arg.type ?? (arg.typeAttr ? attrs[arg.typeAttr]?.type : undefined);
    }
    base += n;
  }
  return undefined;
}
