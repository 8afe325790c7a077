// TensorFlow's SparseToDense (tf.sparse.to_dense). TF.js's kernel ignores validate_indices and
// checks only the flattened position, so out-of-order or repeated indices pass and an index out
// of one dimension's bounds lands in another row: here, as in TF (core/kernels/
// sparse_to_dense_op.cc, SparseTensor::IndicesValid in util/sparse/sparse_tensor.cc), indices
// are checked in order (validate_indices, the default) and always against the bounds.
import tf from '../../../tfjs_packages/tfjs_core.cjs';
import type * as tfconv from '@tensorflow/tfjs-converter';
import { invalidArgument } from '../../../../errors/status.js';

const shapeText = (shape: readonly number[]) => `[${shape.join(',')}]`;

/** TF's IndicesValid: the first index out of bounds, out of row-major order, or repeated. */
function indicesProblem(ix: ArrayLike<number>, n: number, dims: number, shape: readonly number[]): string | null {
  for (let i = 0; i < n; i++) {
    let valid = true;
    let increasing = true;
    let different = i === 0;
    for (let d = 0; d < dims; d++) {
      const v = ix[i * dims + d];
      if (v < 0 || v >= shape[d]) valid = false;
      if (i > 0) {
        const diff = v - ix[(i - 1) * dims + d];
        if (diff > 0) different = true;
        if (!different && diff < 0) increasing = false;
      }
    }
    if (valid && increasing && different) continue;
    const index = `indices[${i}] = [${Array.from({ length: dims }, (_, d) => ix[i * dims + d]).join(',')}]`;
    if (!valid) return `${index} is out of bounds: need 0 <= index < ${shapeText(shape)}`;
    if (!increasing)
      return `${index} is out of order. Many sparse ops require sorted indices.\n    Use \`tf.sparse.reorder\` to create a correctly ordered copy.\n\n`;
    return `${index} is repeated`;
  }
  return null;
}

function sparseToDense(
  indices: tf.Tensor,
  outputShapeT: tf.Tensor,
  sparseValues: tf.Tensor,
  defaultValue: tf.Tensor,
  validateIndices: boolean,
): tf.Tensor {
  if (indices.rank > 2)
    throw invalidArgument(`sparse_indices should be a scalar, vector, or matrix, got shape ${shapeText(indices.shape)}`);
  const numElems = indices.rank > 0 ? indices.shape[0] : 1;
  const numDims = indices.rank > 1 ? indices.shape[1] : 1;
  if (outputShapeT.rank !== 1) throw invalidArgument(`output_shape must be rank 1, got shape ${shapeText(outputShapeT.shape)}`);
  if (outputShapeT.size !== numDims)
    throw invalidArgument(`output_shape has incorrect number of elements: ${outputShapeT.size} should be: ${numDims}`);
  const numValues = sparseValues.size;
  if (!(sparseValues.rank === 0 || (sparseValues.rank === 1 && numValues === numElems))) {
    throw invalidArgument(`sparse_values has incorrect shape ${shapeText(sparseValues.shape)}, should be [] or [${numElems}]`);
  }
  if (defaultValue.rank !== 0) throw invalidArgument('default_value should be a scalar.');
  const shape = Array.from(outputShapeT.dataSync(), Number);
  const ix = indices.dataSync();
  const problem = validateIndices ? indicesProblem(ix, numElems, numDims, shape) : null;
  if (problem) throw invalidArgument(problem);
  const size = shape.reduce((a, b) => a * b, 1);
  const isString = sparseValues.dtype === 'string';
  // Strings as raw bytes (dataSync would decode them as UTF-8).
  const read = (t: tf.Tensor) =>
    isString ? (tf.engine().readSync(t.dataId) as unknown as Uint8Array[]) : (t.dataSync() as ArrayLike<number>);
  const values = read(sparseValues);
  const fill = read(defaultValue)[0];
  const out: Array<number | Uint8Array> = new Array(size).fill(fill);
  for (let i = 0; i < numElems; i++) {
    let flat = 0;
    for (let d = 0; d < numDims; d++) {
      const v = ix[i * numDims + d];
      if (v < 0 || v >= shape[d]) throw invalidArgument(`Indices are not valid (out of bounds).  Shape: ${shapeText(shape)}`);
      flat = flat * shape[d] + v;
    }
    out[flat] = values[sparseValues.rank === 0 ? 0 : i];
  }
  return isString ? tf.tensor(out as Uint8Array[], shape, 'string') : tf.tensor(out as number[], shape, sparseValues.dtype);
}

export const sparseToDenseOp: tfconv.OpExecutor = (node) => {
  const [indices, outputShape, values, defaultValue] = node.inputs;
  return [sparseToDense(indices, outputShape, values, defaultValue, node.attrs.validate_indices !== false)];
};
