// TensorFlow's ReduceJoin (tf.strings.reduce_join; core/kernels/reduce_join_op.cc): joins the
// strings along the reduced dimensions with `separator`. The strings of one output element
// are taken with the LAST listed reduction dimension outermost (TF reverses the list before
// indexing), so reduction_indices [1, 0] — what tf.strings.reduce_join(axis=None) writes —
// joins a matrix in row-major order. Negative dimensions count from the end.
import type * as tfconv from '@tensorflow/tfjs-converter';
import { Code, ServingError, invalidArgument } from '../../../../errors/status.js';
import { bytesAttr, checkOutputBytes, intElements, stringElements, stringTensor } from './string_tensors.js';

function strides(shape: readonly number[]): number[] {
  const out = new Array<number>(shape.length);
  let product = 1;
  for (let i = shape.length - 1; i >= 0; i--) {
    out[i] = product;
    product *= shape[i];
  }
  return out;
}

/** TF's LinearSubIndexToFullIndex: `dims` ordered outermost first. */
function fullIndex(index: number, dims: readonly number[], shape: readonly number[], stride: readonly number[]): number {
  let result = 0;
  let quotient = index;
  for (let i = dims.length - 1; i >= 0; i--) {
    const d = dims[i];
    result += stride[d] * (quotient % shape[d]);
    quotient = Math.floor(quotient / shape[d]);
  }
  return result;
}

export const reduceJoinOp: tfconv.OpExecutor = (node) => {
  const [input, indicesT] = node.inputs;
  const separator = bytesAttr(node, 'separator');
  const keepDims = Boolean((node.attrs as { keep_dims?: boolean }).keep_dims);
  const shape = input.shape;
  const rank = shape.length;
  const given = Array.from(intElements(indicesT));
  const reduced = new Array<boolean>(rank).fill(false);
  for (const d of given) {
    if (d < -rank || d >= rank)
      throw new ServingError(Code.OUT_OF_RANGE, `Invalid reduction dimension ${d} for input with ${rank} dimension(s)`);
    const true_ = d < 0 ? d + rank : d;
    if (reduced[true_]) throw invalidArgument(`Duplicate reduction dimension ${d}`);
    reduced[true_] = true;
  }
  const reducedDims = given.reverse().map((d) => (d < 0 ? d + rank : d));
  const keptDims = shape.flatMap((_, i) => (reduced[i] ? [] : [i]));
  const outShape = shape.flatMap((d, i) => (reduced[i] ? (keepDims ? [1] : []) : [d]));
  const stride = strides(shape);
  const strings = stringElements(input, 'inputs');
  const perOutput = reducedDims.reduce((n, d) => n * shape[d], 1);
  const outCount = outShape.reduce((a, b) => a * b, 1);
  checkOutputBytes(
    'ReduceJoin',
    strings.reduce((n, s) => n + s.length, 0) + outCount * Math.max(0, perOutput - 1) * separator.length,
    outCount,
  );
  const out: Uint8Array[] = [];
  for (let o = 0; o < outCount; o++) {
    const base = fullIndex(o, keptDims, shape, stride);
    const parts: Uint8Array[] = [];
    for (let r = 0; r < perOutput; r++) parts.push(strings[base + fullIndex(r, reducedDims, shape, stride)]);
    out.push(Buffer.concat(parts.flatMap((p, i) => (i === 0 ? [p] : [separator, p]))));
  }
  return [
    stringTensor(
      out.map((b) => new Uint8Array(b.buffer, b.byteOffset, b.length)),
      outShape,
    ),
  ];
};
