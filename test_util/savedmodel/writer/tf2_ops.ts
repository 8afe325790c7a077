// Op helpers for TF2-style graphs, usable on any OpEmitter (a GraphDef or a function body):
// each adds one node with the attrs TF 2.15's Python op wrappers set, e.g. a While with
// `T`, `cond`, `body`, `output_shapes` and `parallel_iterations` as while_v2 writes it.
import { dtypeToTf, type DType } from '../../../src/tensor/dtype.js';
import type { HostTensor } from '../../../src/tensor/host_tensor.js';
import { makeTensorProto } from './tensor_value.js';
import { emit, shapeInit, type FunctionSignature, type OpEmitter, type Value } from './function_library.js';
import type { AttrValueInit } from './graph_builder.js';

const type = (t: string): AttrValueInit => ({ type: t });
const types = (ts: readonly string[]): AttrValueInit => ({ list: ts.length ? { type: [...ts] } : {} });
const func = (f: FunctionSignature): AttrValueInit => ({ func: { name: f.name, attr: {} } });
const shapes = (vs: readonly Value[]): AttrValueInit => ({ list: vs.length ? { shape: vs.map((v) => shapeInit(v.shape)) } : {} });
export const tfType = (d: DType): string => dtypeToTf(d);

export function constant(e: OpEmitter, name: string, value: HostTensor): Value {
  const t = tfType(value.dtype);
  return emit(e, 'Const', name, [], { dtype: type(t), value: { tensor: makeTensorProto(value) } })[0].withShape([...value.shape]);
}

export const scalarF32 = (e: OpEmitter, name: string, x: number): Value =>
  constant(e, name, { dtype: 'float32', shape: [], values: Float32Array.of(x) });
export const scalarI32 = (e: OpEmitter, name: string, x: number): Value =>
  constant(e, name, { dtype: 'int32', shape: [], values: Int32Array.of(x) });
const vectorI32 = (e: OpEmitter, name: string, xs: readonly number[]): Value =>
  constant(e, name, { dtype: 'int32', shape: [xs.length], values: Int32Array.from(xs) });

export const identity = (e: OpEmitter, name: string, x: Value, control?: readonly string[]): Value =>
  emit(e, 'Identity', name, [x], { T: type(x.type) }, { control })[0].withShape(x.shape);

export type BinaryOp = 'AddV2' | 'Sub' | 'Mul' | 'Less' | 'Greater';
export const binary = (e: OpEmitter, op: BinaryOp, name: string, x: Value, y: Value): Value =>
  emit(e, op, name, [x, y], { T: type(x.type) })[0];

export type UnaryOp = 'Tanh' | 'Sigmoid' | 'Relu' | 'Lgamma';
export const unary = (e: OpEmitter, op: UnaryOp, name: string, x: Value): Value =>
  emit(e, op, name, [x], { T: type(x.type) })[0].withShape(x.shape);

export const matMul = (e: OpEmitter, name: string, a: Value, b: Value): Value =>
  emit(e, 'MatMul', name, [a, b], { transpose_a: { b: false }, transpose_b: { b: false }, T: type(a.type) })[0];

export const biasAdd = (e: OpEmitter, name: string, x: Value, bias: Value): Value =>
  emit(e, 'BiasAdd', name, [x, bias], { T: type(x.type), data_format: { s: new TextEncoder().encode('NHWC') } })[0];

/** `tf.split(x, num, axis)` with a constant axis. */
export const split = (e: OpEmitter, name: string, x: Value, num: number, axis: number): Value[] =>
  emit(e, 'Split', name, [scalarI32(e, `${name}/split_dim`, axis), x], { num_split: { i: num }, T: type(x.type) });

export const transpose = (e: OpEmitter, name: string, x: Value, perm: readonly number[]): Value =>
  emit(e, 'Transpose', name, [x, vectorI32(e, `${name}/perm`, perm)], { T: type(x.type), Tperm: type('DT_INT32') })[0];

/** `tf.shape(x)[axis]` as Keras writes it: Shape, then a StridedSlice with shrink_axis_mask 1. */
export function dim(e: OpEmitter, name: string, x: Value, axis: number): Value {
  const shape = emit(e, 'Shape', `${name}/Shape`, [x], { T: type(x.type), out_type: type('DT_INT32') })[0];
  const begin = vectorI32(e, `${name}/stack`, [axis]);
  const end = vectorI32(e, `${name}/stack_1`, [axis + 1]);
  const strides = vectorI32(e, `${name}/stack_2`, [1]);
  return emit(e, 'StridedSlice', name, [shape, begin, end, strides], {
    T: type('DT_INT32'),
    Index: type('DT_INT32'),
    begin_mask: { i: 0 },
    end_mask: { i: 0 },
    ellipsis_mask: { i: 0 },
    new_axis_mask: { i: 0 },
    shrink_axis_mask: { i: 1 },
  })[0].withShape([]);
}

/** `tf.zeros([rows, cols])` with a dynamic row count, as Keras builds an RNN's initial state. */
export function zeros(e: OpEmitter, name: string, rows: Value, cols: number): Value {
  const packed = emit(e, 'Pack', `${name}/packed`, [rows, scalarI32(e, `${name}/packed/1`, cols)], {
    N: { i: 2 },
    T: type('DT_INT32'),
    axis: { i: 0 },
  })[0];
  return emit(e, 'Fill', name, [packed, scalarF32(e, `${name}/Const`, 0)], {
    T: type('DT_FLOAT'),
    index_type: type('DT_INT32'),
  })[0].withShape([-1, cols]);
}

// TensorLists (list_ops.cc); element shapes are int32 constants, -1 for unknown dims, the
// scalar -1 (null here) for an unknown rank.
const elementShapeConst = (e: OpEmitter, name: string, shape: readonly number[] | null): Value =>
  shape === null ? scalarI32(e, name, -1) : vectorI32(e, name, shape);

export function tensorListReserve(
  e: OpEmitter,
  name: string,
  elementShape: readonly number[] | null,
  numElements: Value,
  elementType: string,
): Value {
  const shape = elementShapeConst(e, `${name}/element_shape`, elementShape);
  return emit(e, 'TensorListReserve', name, [shape, numElements], { element_dtype: type(elementType), shape_type: type('DT_INT32') })[0];
}

export function tensorListFromTensor(e: OpEmitter, name: string, tensor: Value, elementShape: readonly number[]): Value {
  const shape = vectorI32(e, `${name}/element_shape`, elementShape);
  return emit(e, 'TensorListFromTensor', name, [tensor, shape], { element_dtype: type(tensor.type), shape_type: type('DT_INT32') })[0];
}

export function tensorListGetItem(
  e: OpEmitter,
  name: string,
  list: Value,
  index: Value,
  elementShape: readonly number[] | null,
  elementType: string,
): Value {
  const shape = elementShapeConst(e, `${name}/element_shape`, elementShape);
  return emit(e, 'TensorListGetItem', name, [list, index, shape], { element_dtype: type(elementType) })[0];
}

export const tensorListSetItem = (e: OpEmitter, name: string, list: Value, index: Value, item: Value): Value =>
  emit(e, 'TensorListSetItem', name, [list, index, item], { element_dtype: type(item.type) })[0];

export function tensorListStack(
  e: OpEmitter,
  name: string,
  list: Value,
  elementShape: readonly number[] | null,
  elementType: string,
  numElements = -1,
): Value {
  const shape = elementShapeConst(e, `${name}/element_shape`, elementShape);
  return emit(e, 'TensorListStack', name, [list, shape], { element_dtype: type(elementType), num_elements: { i: numElements } })[0];
}

export const tensorListLength = (e: OpEmitter, name: string, list: Value): Value => emit(e, 'TensorListLength', name, [list], {})[0];

export const tensorListElementShape = (e: OpEmitter, name: string, list: Value): Value =>
  emit(e, 'TensorListElementShape', name, [list], { shape_type: type('DT_INT32') })[0];

// Function calls and functional control flow (functional_ops.cc).
function checkArgs(what: string, f: FunctionSignature, inputs: readonly Value[]): void {
  const got = inputs.map((v) => v.type);
  if (got.length !== f.inputTypes.length || got.some((t, i) => t !== f.inputTypes[i])) {
    throw new Error(`${what}: passes [${got}] to ${f.name}, which takes [${f.inputTypes}]`);
  }
}

/** `(Stateful)PartitionedCall` of `f`. */
export function call(
  e: OpEmitter,
  name: string,
  f: FunctionSignature,
  inputs: readonly Value[],
  options: { stateful?: boolean } = {},
): Value[] {
  checkArgs(name, f, inputs);
  const op = options.stateful === false ? 'PartitionedCall' : 'StatefulPartitionedCall';
  return emit(e, op, name, inputs, {
    Tin: types(f.inputTypes),
    Tout: types(f.outputTypes),
    f: func(f),
    config: { s: new Uint8Array(0) },
    config_proto: { s: new Uint8Array(0) },
    executor_type: { s: new Uint8Array(0) },
  });
}

/** while_v2's `While` / `StatelessWhile`: loop variables in, final loop variables out. */
export function whileLoop(
  e: OpEmitter,
  name: string,
  loopVars: readonly Value[],
  cond: FunctionSignature,
  body: FunctionSignature,
  options: { stateless?: boolean } = {},
): Value[] {
  checkArgs(`${name} cond`, cond, loopVars);
  checkArgs(`${name} body`, body, loopVars);
  const op = options.stateless === false ? 'While' : 'StatelessWhile';
  const outs = emit(e, op, name, loopVars, {
    T: types(loopVars.map((v) => v.type)),
    cond: func(cond),
    body: func(body),
    output_shapes: shapes(loopVars),
    parallel_iterations: { i: 10 },
    _lower_using_switch_merge: { b: true },
    _num_original_outputs: { i: loopVars.length },
  });
  return outs.map((v, i) => v.withShape(loopVars[i].shape));
}

/** cond_v2's `If` / `StatelessIf`: `then_branch(inputs)` when `cond` holds, else `else_branch(inputs)`. */
export function ifThenElse(
  e: OpEmitter,
  name: string,
  cond: Value,
  inputs: readonly Value[],
  thenBranch: FunctionSignature,
  elseBranch: FunctionSignature,
  options: { stateless?: boolean } = {},
): Value[] {
  checkArgs(`${name} then_branch`, thenBranch, inputs);
  checkArgs(`${name} else_branch`, elseBranch, inputs);
  const op = options.stateless === false ? 'If' : 'StatelessIf';
  return emit(e, op, name, [cond, ...inputs], {
    Tcond: type(cond.type),
    Tin: types(inputs.map((v) => v.type)),
    Tout: types(thenBranch.outputTypes),
    then_branch: func(thenBranch),
    else_branch: func(elseBranch),
    output_shapes: { list: {} },
    _lower_using_switch_merge: { b: true },
  });
}

// Resource variables (resource_variable_ops.cc).
export const readVariable = (e: OpEmitter, name: string, handle: Value, valueType: string): Value =>
  emit(e, 'ReadVariableOp', name, [handle], { dtype: type(valueType) })[0];

/** Returns the node's name (the op has no outputs). */
export const assignAddVariable = (e: OpEmitter, name: string, handle: Value, value: Value): string =>
  e.addNode('AssignAddVariableOp', name, [handle, value], { dtype: type(value.type) });
