// TensorList ops for tfjs-converter with TensorFlow's semantics (tensor_list.ts), registered
// in place of tfjs-converter's own: every op that makes or reads a list, so that all lists in
// a graph are tensor_list.ts lists. Inputs follow list_ops.cc's registrations; errors use
// TF's wording. A custom op reaches the lists through the execution context that
// tfjs-converter hands it with the node (NodeValueImpl.context, shared by a While's body and
// the graph calling it).
import tf from '../../../tfjs_packages/tfjs_core.cjs';
import type { OpExecutor } from '@tensorflow/tfjs-converter';
import { partialShapeOf, isFullyDefined, mergeShapes, TensorList, TensorListError, type PartialShape } from './tensor_list.js';

type GraphNode = Parameters<OpExecutor>[0];

interface ListContext {
  addTensorList(list: TensorList): void;
  getTensorList(id: number): TensorList | undefined;
}

function contextOf(node: GraphNode): ListContext {
  const context = (node as unknown as { context?: ListContext }).context;
  if (!context?.addTensorList)
    throw new TensorListError('TensorList ops need tfjs-converter to pass its execution context (NodeValueImpl.context)');
  return context;
}

function listOf(node: GraphNode, input = 0): TensorList {
  const list = contextOf(node).getTensorList(node.inputs[input]?.id ?? -1);
  if (!list) throw new TensorListError('input is not a TensorList handle');
  return list;
}

const int = (t: tf.Tensor): number => Number(t.dataSync()[0]);
const ints = (t: tf.Tensor): number[] => Array.from(t.dataSync() as Int32Array, Number);
const dtypeAttr = (node: GraphNode, name = 'element_dtype') => node.attrs[name] as tf.DataType;

function create(node: GraphNode, tensors: Array<tf.Tensor | undefined>, shape: PartialShape, dtype: tf.DataType, max = -1): tf.Tensor {
  const list = new TensorList(tensors, shape, dtype, max);
  contextOf(node).addTensorList(list);
  return list.idTensor;
}

function checkIndex(list: TensorList, index: number, verb: string): void {
  if (index < 0 || index >= list.size())
    throw new TensorListError(`Trying to ${verb} element ${index} in a list with ${list.size()} elements.`);
}

/** Stacks elements `indices` (unset ones as zeros) into one tensor. */
function stackElements(list: TensorList, indices: number[], opShape: PartialShape, what: string): tf.Tensor {
  const shape = list.knownShape(opShape, true);
  if (indices.length === 0) {
    if (!isFullyDefined(shape))
      throw new TensorListError(`Tried to stack elements of an empty list with non-fully-defined element_shape: ${JSON.stringify(shape)}`);
    return tf.zeros([0, ...shape], list.elementDtype);
  }
  for (const i of indices) checkIndex(list, i, 'access');
  return tf.tidy(() => tf.stack(indices.map((i) => list.read(i, shape, what))));
}

const OPS: Record<string, OpExecutor> = {
  EmptyTensorList: (node) => create(node, [], partialShapeOf(node.inputs[0]), dtypeAttr(node), int(node.inputs[1])),

  TensorListReserve: (node) => {
    const n = int(node.inputs[1]);
    if (n < 0) throw new TensorListError(`The num_elements to reserve must be a non negative number, but got ${n}`);
    return create(node, new Array<tf.Tensor | undefined>(n), partialShapeOf(node.inputs[0]), dtypeAttr(node));
  },

  TensorListFromTensor: (node) => {
    const t = node.inputs[0];
    if (t.rank < 1) throw new TensorListError(`Tensor must be at least a vector, but saw shape: [${t.shape}]`);
    if (t.dtype !== dtypeAttr(node)) throw new TensorListError(`Invalid data types; op elements ${dtypeAttr(node)} but tensor ${t.dtype}`);
    const shape = mergeShapes(partialShapeOf(node.inputs[1]), t.shape.slice(1));
    return create(node, tf.unstack(t), shape, t.dtype);
  },

  TensorListScatterV2: (node) => scatter(node, int(node.inputs[3])),
  TensorListScatter: (node) => scatter(node, -1),

  TensorListSplit: (node) => {
    const [t, shapeTensor, lengthsTensor] = node.inputs;
    if (t.rank < 1) throw new TensorListError(`Tensor must be at least a vector, but saw shape: [${t.shape}]`);
    const lengths = ints(lengthsTensor);
    if (lengths.reduce((a, b) => a + b, 0) !== t.shape[0])
      throw new TensorListError(`Unable to split tensor of shape [${t.shape}] into pieces of lengths [${lengths}]`);
    const shape = mergeShapes(partialShapeOf(shapeTensor), [-1, ...t.shape.slice(1)]);
    return create(node, tf.split(t, lengths, 0), shape, t.dtype);
  },

  TensorListLength: (node) => tf.scalar(listOf(node).size(), 'int32'),

  TensorListElementShape: (node) => {
    const shape = listOf(node).elementShape;
    return shape === null ? tf.scalar(-1, 'int32') : tf.tensor1d(shape, 'int32');
  },

  TensorListGetItem: (node) => {
    const list = listOf(node);
    list.checkDtype(dtypeAttr(node));
    const index = int(node.inputs[1]);
    checkIndex(list, index, 'access');
    return list.read(index, partialShapeOf(node.inputs[2]), 'TensorListGetItem');
  },

  TensorListSetItem: (node) => {
    const list = listOf(node);
    const index = int(node.inputs[1]);
    if (node.attrs.resize_if_index_out_of_bounds && index >= list.size()) list.resize(index + 1);
    checkIndex(list, index, 'modify');
    list.write(index, node.inputs[2]);
    return list.idTensor;
  },

  TensorListStack: (node) => {
    const list = listOf(node);
    list.checkDtype(dtypeAttr(node));
    const expected = Number(node.attrs.num_elements ?? -1);
    if (expected !== -1 && list.size() !== expected) {
      throw new TensorListError(`Operation expected a list with ${expected} elements but got a list with ${list.size()} elements.`);
    }
    return stackElements(list, [...list.tensors.keys()], partialShapeOf(node.inputs[1]), 'TensorListStack');
  },

  TensorListGather: (node) => {
    const list = listOf(node);
    list.checkDtype(dtypeAttr(node));
    return stackElements(list, ints(node.inputs[1]), partialShapeOf(node.inputs[2]), 'TensorListGather');
  },

  TensorListConcat: (node) => concat(node, null),
  TensorListConcatV2: (node) => concat(node, partialShapeOf(node.inputs[1])),

  TensorListPushBack: (node) => {
    const list = listOf(node);
    if (list.maxNumElements !== -1 && list.size() >= list.maxNumElements)
      throw new TensorListError(`Tried to push item into a full list list size: ${list.size()}, max_num_elements: ${list.maxNumElements}`);
    list.write(list.size(), node.inputs[1]);
    return list.idTensor;
  },

  TensorListPopBack: (node) => {
    const list = listOf(node);
    list.checkDtype(dtypeAttr(node));
    if (list.size() === 0) throw new TensorListError('Trying to pop from an empty list.');
    // TF reads an unset last element from the list's and the op's shape only.
    const shape = list.knownShape(partialShapeOf(node.inputs[1]), false);
    if (!list.tensors[list.size() - 1] && !isFullyDefined(shape))
      throw new TensorListError('Trying to read an uninitialized tensor but element_shape is not fully defined.');
    // The popped element leaves the list for the executor, which disposes it when done.
    const last = list.takeLast();
    return [list.idTensor, last ?? tf.zeros(shape as number[], list.elementDtype)];
  },

  TensorListResize: (node) => {
    const list = listOf(node);
    const size = int(node.inputs[1]);
    if (size < 0) throw new TensorListError(`TensorListSlice expects size to be non-negative. Got: ${size}`);
    list.resize(size);
    return list.idTensor;
  },
};

function scatter(node: GraphNode, numElements: number): tf.Tensor {
  const [t, indicesTensor, shapeTensor] = node.inputs;
  const indices = ints(indicesTensor);
  if (t.rank < 1 || indices.length !== t.shape[0])
    throw new TensorListError(`Expected len(indices) == tensor.shape[0], but saw: ${indices.length} vs. ${t.shape[0]}`);
  const size = numElements === -1 ? Math.max(-1, ...indices) + 1 : numElements;
  const tensors = new Array<tf.Tensor | undefined>(size);
  const items = tf.unstack(t);
  indices.forEach((index, k) => {
    if (index < 0 || index >= size) throw new TensorListError(`Trying to scatter at index ${index} in list with size ${size}`);
    if (tensors[index]) throw new TensorListError(`TensorListScatter: index ${index} appears twice`);
    tensors[index] = items[k];
  });
  const shape = mergeShapes(partialShapeOf(shapeTensor), t.shape.slice(1));
  return create(node, tensors, shape, t.dtype);
}

/** Every element joined along axis 0, and each element's leading dimension. */
function concat(node: GraphNode, opShape: PartialShape): tf.Tensor[] {
  const list = listOf(node);
  list.checkDtype(dtypeAttr(node));
  const shape = list.knownShape(opShape, true);
  if (shape !== null && shape.length === 0)
    throw new TensorListError('Concat requires elements to be at least vectors, found scalars instead.');
  for (let i = 0; i < list.size(); i++) {
    if (!list.tensors[i])
      throw new TensorListError(`TensorListConcat of a list with unset elements (element ${i}) is not supported by tfgate`);
  }
  const items = list.tensors as tf.Tensor[];
  if (items.length === 0) {
    const rest = shape?.slice(1) ?? null;
    if (!isFullyDefined(rest))
      throw new TensorListError('All except the first dimension must be fully defined when concating an empty tensor list.');
    return [tf.zeros([0, ...rest], list.elementDtype), tf.tensor1d([], 'int32')];
  }
  return [
    tf.concat(items, 0),
    tf.tensor1d(
      items.map((t) => t.shape[0]),
      'int32',
    ),
  ];
}

export const TENSOR_LIST_OPS: Readonly<Record<string, OpExecutor>> = OPS;
