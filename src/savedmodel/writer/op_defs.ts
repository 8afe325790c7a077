// OpDefs for MetaInfoDef.stripped_op_list of writer-made graphs: the argument and attr
// declarations of TF's op registry (tensorflow/core/ops/*.cc) for the ops the writer emits.
type Arg = { name: string; typeAttr?: string; type?: string; numberAttr?: string; typeListAttr?: string; isRef?: boolean };
type AttrDef = { name: string; type: string };
const T = (name: string): Arg => ({ name, typeAttr: 'T' });
const tAttr: AttrDef = { name: 'T', type: 'type' };

const OPS: Record<string, { inputArg: Arg[]; outputArg: Arg[]; attr: AttrDef[]; isStateful?: boolean }> = {
  Const: { inputArg: [], outputArg: [{ name: 'output', typeAttr: 'dtype' }], attr: [{ name: 'value', type: 'tensor' }, { name: 'dtype', type: 'type' }] },
  Placeholder: { inputArg: [], outputArg: [{ name: 'output', typeAttr: 'dtype' }], attr: [{ name: 'dtype', type: 'type' }, { name: 'shape', type: 'shape' }] },
  VariableV2: { inputArg: [], outputArg: [{ name: 'ref', typeAttr: 'dtype', isRef: true }], attr: [{ name: 'shape', type: 'shape' }, { name: 'dtype', type: 'type' }, { name: 'container', type: 'string' }, { name: 'shared_name', type: 'string' }], isStateful: true },
  Assign: { inputArg: [{ name: 'ref', typeAttr: 'T', isRef: true }, T('value')], outputArg: [{ name: 'output_ref', typeAttr: 'T', isRef: true }], attr: [tAttr, { name: 'validate_shape', type: 'bool' }, { name: 'use_locking', type: 'bool' }] },
  Mul: { inputArg: [T('x'), T('y')], outputArg: [T('z')], attr: [tAttr] },
  Add: { inputArg: [T('x'), T('y')], outputArg: [T('z')], attr: [tAttr] },
  Identity: { inputArg: [T('input')], outputArg: [T('output')], attr: [tAttr] },
  MatMul: { inputArg: [T('a'), T('b')], outputArg: [T('product')], attr: [{ name: 'transpose_a', type: 'bool' }, { name: 'transpose_b', type: 'bool' }, tAttr] },
  BiasAdd: { inputArg: [T('value'), T('bias')], outputArg: [T('output')], attr: [tAttr, { name: 'data_format', type: 'string' }] },
  Relu: { inputArg: [T('features')], outputArg: [T('activations')], attr: [tAttr] },
  Tanh: { inputArg: [T('x')], outputArg: [T('y')], attr: [tAttr] },
  Sigmoid: { inputArg: [T('x')], outputArg: [T('y')], attr: [tAttr] },
  Softmax: { inputArg: [T('logits')], outputArg: [T('softmax')], attr: [tAttr] },
  Conv2D: { inputArg: [T('input'), T('filter')], outputArg: [T('output')], attr: [tAttr, { name: 'strides', type: 'list(int)' }, { name: 'use_cudnn_on_gpu', type: 'bool' }, { name: 'padding', type: 'string' }, { name: 'explicit_paddings', type: 'list(int)' }, { name: 'data_format', type: 'string' }, { name: 'dilations', type: 'list(int)' }] },
  MaxPool: { inputArg: [T('input')], outputArg: [T('output')], attr: [tAttr, { name: 'ksize', type: 'list(int)' }, { name: 'strides', type: 'list(int)' }, { name: 'padding', type: 'string' }, { name: 'explicit_paddings', type: 'list(int)' }, { name: 'data_format', type: 'string' }] },
  Reshape: { inputArg: [T('tensor'), { name: 'shape', typeAttr: 'Tshape' }], outputArg: [T('output')], attr: [tAttr, { name: 'Tshape', type: 'type' }] },
  NoOp: { inputArg: [], outputArg: [], attr: [] },
  StringJoin: { inputArg: [{ name: 'inputs', type: 'DT_STRING', numberAttr: 'N' }], outputArg: [{ name: 'output', type: 'DT_STRING' }], attr: [{ name: 'N', type: 'int' }, { name: 'separator', type: 'string' }] },
  ShardedFilename: { inputArg: [{ name: 'basename', type: 'DT_STRING' }, { name: 'shard', type: 'DT_INT32' }, { name: 'num_shards', type: 'DT_INT32' }], outputArg: [{ name: 'filename', type: 'DT_STRING' }], attr: [] },
  SaveV2: { inputArg: [{ name: 'prefix', type: 'DT_STRING' }, { name: 'tensor_names', type: 'DT_STRING' }, { name: 'shape_and_slices', type: 'DT_STRING' }, { name: 'tensors', typeListAttr: 'dtypes' }], outputArg: [], attr: [{ name: 'dtypes', type: 'list(type)' }], isStateful: true },
  RestoreV2: { inputArg: [{ name: 'prefix', type: 'DT_STRING' }, { name: 'tensor_names', type: 'DT_STRING' }, { name: 'shape_and_slices', type: 'DT_STRING' }], outputArg: [{ name: 'tensors', typeListAttr: 'dtypes' }], attr: [{ name: 'dtypes', type: 'list(type)' }], isStateful: true },
  Pack: { inputArg: [{ name: 'values', typeAttr: 'T', numberAttr: 'N' }], outputArg: [T('output')], attr: [{ name: 'N', type: 'int' }, tAttr, { name: 'axis', type: 'int' }] },
  MergeV2Checkpoints: { inputArg: [{ name: 'checkpoint_prefixes', type: 'DT_STRING' }, { name: 'destination_prefix', type: 'DT_STRING' }], outputArg: [], attr: [{ name: 'delete_old_dirs', type: 'bool' }], isStateful: true },
};

export function strippedOpList(ops: Iterable<string>) {
  return { op: [...new Set(ops)].sort().map((name) => ({ name, ...(OPS[name] ?? { inputArg: [], outputArg: [], attr: [] }) })) };
}
