// OpDefs of the TF2 ops the writer emits for function libraries, control flow, TensorLists
// and resource variables, as TF 2.15's registry declares them (stripped: docs removed,
// defaults and allowed values kept). Sources: tensorflow/core/ops/functional_ops.cc
// (PartitionedCall, StatefulPartitionedCall, While, StatelessWhile, If, StatelessIf),
// list_ops.cc (TensorList*; TensorListSetItem's resize_if_index_out_of_bounds is in the
// 2.13+ registry and tf.raw_ops docs), resource_variable_ops.cc (VarHandleOp,
// ReadVariableOp, AssignVariableOp, AssignAddVariableOp), array_ops.cc (Shape,
// StridedSlice, Pack, Fill, Transpose, Split, Size), math_ops.cc (Less, Greater, Lgamma, Cast,
// Range, NotEqual, SelectV2) and string_ops.cc (StringJoin).
// Checked against the stripped_op_list of real TF 2.6 / 2.12 Keras exports where those
// hold the op. Appended to the writer's table by op_defs.ts.
import type { ArgDefInit, AttrDefInit, OpDefInit } from './op_defs.js';

const arg = (name: string, typeAttr = 'T'): ArgDefInit => ({ name, typeAttr });
const fixed = (name: string, type: string): ArgDefInit => ({ name, type });
const typeList = (name: string, typeListAttr: string): ArgDefInit => ({ name, typeListAttr });
const types = (...t: string[]) => ({ list: { type: t.map((x) => `DT_${x}`) } });
const typeAttr = (name: string, allowed?: string[], dflt?: string): AttrDefInit => ({
  name,
  type: 'type',
  ...(dflt ? { defaultValue: { type: `DT_${dflt}` } } : {}),
  ...(allowed ? { allowedValues: types(...allowed) } : {}),
});
/** `list(type) >= 0`: TF records has_minimum with the minimum 0 left out. */
const typeListAttr = (name: string): AttrDefInit => ({ name, type: 'list(type)', hasMinimum: true });
const funcAttr = (name: string): AttrDefInit => ({ name, type: 'func' });
const emptyString = (name: string): AttrDefInit => ({ name, type: 'string', defaultValue: { s: new Uint8Array(0) } });
const outputShapes: AttrDefInit = { name: 'output_shapes', type: 'list(shape)', defaultValue: { list: {} } };
const shapeType = typeAttr('shape_type', ['INT32', 'INT64']);
const intAttr = (name: string, dflt: number): AttrDefInit => ({ name, type: 'int', defaultValue: { i: dflt } });
const REAL_NUMBER = ['FLOAT', 'DOUBLE', 'INT32', 'UINT8', 'INT16', 'INT8', 'INT64', 'BFLOAT16', 'UINT16', 'HALF', 'UINT32', 'UINT64'];

const call = (name: string, stateful: boolean): OpDefInit => ({
  name,
  inputArg: [typeList('args', 'Tin')],
  outputArg: [typeList('output', 'Tout')],
  attr: [
    typeListAttr('Tin'),
    typeListAttr('Tout'),
    funcAttr('f'),
    emptyString('config'),
    emptyString('config_proto'),
    emptyString('executor_type'),
  ],
  // StatefulPartitionedCall may run collectives; TF marks it (op_def.proto is_distributed_communication).
  ...(stateful ? { isStateful: true, isDistributedCommunication: true } : {}),
});
const whileOp = (name: string, stateful: boolean): OpDefInit => ({
  name,
  inputArg: [typeList('input', 'T')],
  outputArg: [typeList('output', 'T')],
  attr: [typeListAttr('T'), funcAttr('cond'), funcAttr('body'), outputShapes, intAttr('parallel_iterations', 10)],
  ...(stateful ? { isStateful: true } : {}),
});
const ifOp = (name: string, stateful: boolean): OpDefInit => ({
  name,
  inputArg: [arg('cond', 'Tcond'), typeList('input', 'Tin')],
  outputArg: [typeList('output', 'Tout')],
  attr: [typeAttr('Tcond'), typeListAttr('Tin'), typeListAttr('Tout'), funcAttr('then_branch'), funcAttr('else_branch'), outputShapes],
  ...(stateful ? { isStateful: true } : {}),
});
const comparison = (name: string): OpDefInit => ({
  name,
  inputArg: [arg('x'), arg('y')],
  outputArg: [fixed('z', 'DT_BOOL')],
  attr: [typeAttr('T', REAL_NUMBER)],
});

export const TF2_OP_DEFS: OpDefInit[] = [
  // functional_ops.cc
  call('PartitionedCall', false),
  call('StatefulPartitionedCall', true),
  whileOp('While', true),
  whileOp('StatelessWhile', false),
  ifOp('If', true),
  ifOp('StatelessIf', false),
  // list_ops.cc
  {
    name: 'TensorListReserve',
    inputArg: [arg('element_shape', 'shape_type'), fixed('num_elements', 'DT_INT32')],
    outputArg: [fixed('handle', 'DT_VARIANT')],
    attr: [typeAttr('element_dtype'), shapeType],
  },
  {
    name: 'TensorListFromTensor',
    inputArg: [arg('tensor', 'element_dtype'), arg('element_shape', 'shape_type')],
    outputArg: [fixed('output_handle', 'DT_VARIANT')],
    attr: [typeAttr('element_dtype'), shapeType],
  },
  {
    name: 'TensorListGetItem',
    inputArg: [fixed('input_handle', 'DT_VARIANT'), fixed('index', 'DT_INT32'), fixed('element_shape', 'DT_INT32')],
    outputArg: [arg('item', 'element_dtype')],
    attr: [typeAttr('element_dtype')],
  },
  {
    name: 'TensorListSetItem',
    inputArg: [fixed('input_handle', 'DT_VARIANT'), fixed('index', 'DT_INT32'), arg('item', 'element_dtype')],
    outputArg: [fixed('output_handle', 'DT_VARIANT')],
    attr: [typeAttr('element_dtype'), { name: 'resize_if_index_out_of_bounds', type: 'bool', defaultValue: { b: false } }],
  },
  {
    name: 'TensorListStack',
    inputArg: [fixed('input_handle', 'DT_VARIANT'), fixed('element_shape', 'DT_INT32')],
    outputArg: [arg('tensor', 'element_dtype')],
    attr: [typeAttr('element_dtype'), intAttr('num_elements', -1)],
  },
  { name: 'TensorListLength', inputArg: [fixed('input_handle', 'DT_VARIANT')], outputArg: [fixed('length', 'DT_INT32')] },
  {
    name: 'TensorListElementShape',
    inputArg: [fixed('input_handle', 'DT_VARIANT')],
    outputArg: [arg('element_shape', 'shape_type')],
    attr: [shapeType],
  },
  // resource_variable_ops.cc
  {
    name: 'VarHandleOp',
    outputArg: [fixed('resource', 'DT_RESOURCE')],
    attr: [
      emptyString('container'),
      emptyString('shared_name'),
      typeAttr('dtype'),
      { name: 'shape', type: 'shape' },
      { name: 'allowed_devices', type: 'list(string)', defaultValue: { list: {} } },
    ],
    isStateful: true,
  },
  {
    name: 'ReadVariableOp',
    inputArg: [fixed('resource', 'DT_RESOURCE')],
    outputArg: [arg('value', 'dtype')],
    attr: [typeAttr('dtype')],
    isStateful: true,
  },
  {
    name: 'AssignVariableOp',
    inputArg: [fixed('resource', 'DT_RESOURCE'), arg('value', 'dtype')],
    attr: [typeAttr('dtype'), { name: 'validate_shape', type: 'bool', defaultValue: { b: false } }],
    isStateful: true,
  },
  {
    name: 'AssignAddVariableOp',
    inputArg: [fixed('resource', 'DT_RESOURCE'), arg('value', 'dtype')],
    attr: [typeAttr('dtype')],
    isStateful: true,
  },
  // array_ops.cc
  {
    name: 'Shape',
    inputArg: [arg('input')],
    outputArg: [arg('output', 'out_type')],
    attr: [typeAttr('T'), typeAttr('out_type', ['INT32', 'INT64'], 'INT32')],
  },
  {
    name: 'StridedSlice',
    inputArg: [arg('input'), arg('begin', 'Index'), arg('end', 'Index'), arg('strides', 'Index')],
    outputArg: [arg('output')],
    attr: [
      typeAttr('T'),
      typeAttr('Index', ['INT16', 'INT32', 'INT64']),
      intAttr('begin_mask', 0),
      intAttr('end_mask', 0),
      intAttr('ellipsis_mask', 0),
      intAttr('new_axis_mask', 0),
      intAttr('shrink_axis_mask', 0),
    ],
  },
  {
    name: 'Pack',
    inputArg: [{ name: 'values', typeAttr: 'T', numberAttr: 'N' }],
    outputArg: [arg('output')],
    attr: [{ name: 'N', type: 'int', hasMinimum: true, minimum: 1 }, typeAttr('T'), intAttr('axis', 0)],
  },
  {
    name: 'Fill',
    inputArg: [arg('dims', 'index_type'), arg('value')],
    outputArg: [arg('output')],
    attr: [typeAttr('T'), typeAttr('index_type', ['INT32', 'INT64'], 'INT32')],
  },
  {
    name: 'Transpose',
    inputArg: [arg('x'), arg('perm', 'Tperm')],
    outputArg: [arg('y')],
    attr: [typeAttr('T'), typeAttr('Tperm', ['INT32', 'INT64'], 'INT32')],
  },
  {
    name: 'Split',
    inputArg: [fixed('split_dim', 'DT_INT32'), arg('value')],
    outputArg: [{ name: 'output', typeAttr: 'T', numberAttr: 'num_split' }],
    attr: [{ name: 'num_split', type: 'int', hasMinimum: true, minimum: 1 }, typeAttr('T')],
  },
  // math_ops.cc (Sub is in op_defs.ts)
  comparison('Less'),
  comparison('Greater'),
  { name: 'Lgamma', inputArg: [arg('x')], outputArg: [arg('y')], attr: [typeAttr('T', ['BFLOAT16', 'HALF', 'FLOAT', 'DOUBLE'])] },
  // What TF1's index_table_from_tensor and IdTableWithHashBuckets emit (lookup_ops.py):
  // math_ops.cc Cast, Range, NotEqual, SelectV2; array_ops.cc Size; string_ops.cc StringJoin.
  // Equal to the stripped_op_list of test/corpus's TF 2.9 and 2.21 exports.
  {
    name: 'Cast',
    inputArg: [arg('x', 'SrcT')],
    outputArg: [arg('y', 'DstT')],
    attr: [typeAttr('SrcT'), typeAttr('DstT'), { name: 'Truncate', type: 'bool', defaultValue: { b: false } }],
  },
  {
    name: 'Size',
    inputArg: [arg('input')],
    outputArg: [arg('output', 'out_type')],
    attr: [typeAttr('T'), typeAttr('out_type', ['INT32', 'INT64'], 'INT32')],
  },
  {
    name: 'Range',
    inputArg: [arg('start', 'Tidx'), arg('limit', 'Tidx'), arg('delta', 'Tidx')],
    outputArg: [arg('output', 'Tidx')],
    attr: [typeAttr('Tidx', ['BFLOAT16', 'HALF', 'FLOAT', 'DOUBLE', 'INT8', 'INT16', 'INT32', 'INT64', 'UINT16', 'UINT32'], 'INT32')],
  },
  {
    name: 'NotEqual',
    inputArg: [arg('x'), arg('y')],
    outputArg: [fixed('z', 'DT_BOOL')],
    attr: [typeAttr('T'), { name: 'incompatible_shape_error', type: 'bool', defaultValue: { b: true } }],
    isCommutative: true,
  },
  {
    name: 'SelectV2',
    inputArg: [fixed('condition', 'DT_BOOL'), arg('t'), arg('e')],
    outputArg: [arg('output')],
    attr: [typeAttr('T')],
  },
  {
    name: 'StringJoin',
    inputArg: [{ name: 'inputs', type: 'DT_STRING', numberAttr: 'N' }],
    outputArg: [fixed('output', 'DT_STRING')],
    attr: [
      { name: 'N', type: 'int', hasMinimum: true },
      { name: 'separator', type: 'string', defaultValue: { s: new Uint8Array(0) } },
    ],
  },
];
