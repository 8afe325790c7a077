// TensorFlow's SparseTensorDenseMatMul (tf.sparse.sparse_dense_matmul), which TF.js lacks:
// out = op(A) · op(B) for a 2-D SparseTensor A (indices, values, shape) and a dense matrix B,
// op the transpose when adjoint_a / adjoint_b (real types: adjoint is transpose). As TF's CPU
// functor (core/kernels/sparse_tensor_dense_matmul_op.cc), every non-zero adds value · row k of
// op(B) to row m of the output, in the order of the indices, in float32; messages are TF's.
import tf from '../../../tfjs_packages/tfjs_core.cjs';
import type * as tfconv from '@tensorflow/tfjs-converter';
import { invalidArgument } from '../../../../errors/status.js';

const f32 = Math.fround;

function sparseTensorDenseMatMul(
  aIndices: tf.Tensor,
  aValues: tf.Tensor,
  aShape: tf.Tensor,
  b: tf.Tensor,
  adjointA: boolean,
  adjointB: boolean,
): tf.Tensor {
  if (aShape.rank !== 1) throw invalidArgument("Tensor 'a_shape' is not a vector");
  if (aShape.size !== 2) throw invalidArgument("Tensor 'a_shape' must have 2 elements");
  if (aValues.rank !== 1) throw invalidArgument("Tensor 'a_values' is not a vector");
  if (aIndices.rank !== 2) throw invalidArgument("Tensor 'a_indices' is not a matrix");
  const nnz = aIndices.shape[0];
  if (nnz !== aValues.size) throw invalidArgument(`Number of rows of a_indices does not match number of entries in a_values`);
  if (aIndices.shape[1] !== aShape.size) {
    throw invalidArgument(`Number of columns of a_indices does not match number of entries in a_shape`);
  }
  if (b.rank !== 2) throw invalidArgument("Tensor 'b' is not a matrix");
  const [bRows, bCols] = b.shape as [number, number];
  const [aRows, aCols] = Array.from(aShape.dataSync(), Number);
  const outerLeft = adjointA ? aCols : aRows;
  const innerLeft = adjointA ? aRows : aCols;
  const innerRight = adjointB ? bCols : bRows;
  const outerRight = adjointB ? bRows : bCols;
  if (innerLeft !== innerRight) {
    throw invalidArgument(
      `Cannot multiply A and B because inner dimension does not match: ${innerLeft} vs. ${innerRight}.  Did you forget a transpose?  ` +
        `Dimensions of A: [${aRows}, ${aCols}).  Dimensions of B: [${b.shape.join(', ')}]`,
    );
  }
  const ix = aIndices.dataSync();
  const values = aValues.dataSync();
  const bv = b.dataSync();
  const out = new Float32Array(outerLeft * outerRight);
  const [mCol, kCol] = adjointA ? [1, 0] : [0, 1];
  for (let i = 0; i < nnz; i++) {
    const m = Number(ix[i * 2 + mCol]);
    const k = Number(ix[i * 2 + kCol]);
    if (!(k >= 0 && k < innerRight)) throw invalidArgument(`k (${k}) from index[${i},${kCol}] out of bounds (>=${innerRight})`);
    if (!(m >= 0 && m < outerLeft)) throw invalidArgument(`m (${m}) from index[${i},${mCol}] out of bounds (>=${outerLeft})`);
    const v = values[i];
    for (let n = 0; n < outerRight; n++) {
      const bkn = adjointB ? bv[n * bCols + k] : bv[k * bCols + n];
      out[m * outerRight + n] = f32(out[m * outerRight + n] + f32(v * bkn));
    }
  }
  return tf.tensor(out, [outerLeft, outerRight], 'float32');
}

export const sparseTensorDenseMatMulOp: tfconv.OpExecutor = (node) => {
  const [aIndices, aValues, aShape, b] = node.inputs;
  return [sparseTensorDenseMatMul(aIndices, aValues, aShape, b, node.attrs.adjoint_a === true, node.attrs.adjoint_b === true)];
};
