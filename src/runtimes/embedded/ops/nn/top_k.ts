// TensorFlow's TopKV2 along the last axis, as core/kernels/topk_op.cc answers on CPU: the k
// largest of each row, equal values in index order (k = 1 takes the first maximum, k = n
// sorts the whole row, both whatever `sorted` says); with sorted=false and 1 < k < n the
// order is the one gtl::TopN's heap leaves (libstdc++'s make_heap / push_heap / pop_heap,
// libstdcxx_algorithms.ts), as topk_op_test.py's testTop3Unsorted states it. NaN follows
// TF's current kernel (topk_op_test.py testTopKNanEdgeCases): +NaN above +inf, −NaN below
// −inf; TF releases before it ordered NaN differently on each of its three paths.
import tf from '../../../tfjs_packages/tfjs_core.cjs';
import type * as tfconv from '@tensorflow/tfjs-converter';
import { invalidArgument } from '../../../../errors/status.js';
import { makeHeap, popHeap, pushHeap, type Less } from '../libstdcxx_algorithms.js';

const INT_MAX = 2147483647;
const shapeText = (shape: readonly number[]) => `[${shape.join(',')}]`;

/** TF's "greater" over the indices of one row: +NaN, numbers descending, −NaN; ties by index. */
function greaterOf(values: ArrayLike<number>, bits: Uint32Array | null, base: number): Less<number> {
  // 0: +NaN, 1: a number, 2: −NaN.
  const group = (i: number) => (Number.isNaN(values[base + i]) ? (bits![base + i] >>> 31 ? 2 : 0) : 1);
  return (a, b) => {
    const ga = group(a);
    const gb = group(b);
    if (ga !== gb) return ga < gb;
    if (ga === 1) {
      const va = values[base + a];
      const vb = values[base + b];
      if (va > vb) return true;
      if (va < vb) return false;
    }
    return a < b;
  };
}

/** The k indices of one row in TF's output order. */
function topKRow(n: number, k: number, sorted: boolean, greater: Less<number>): number[] {
  if (k === 1) {
    let best = 0;
    for (let c = 1; c < n; c++) if (greater(c, best)) best = c;
    return [best];
  }
  if (k === n || sorted) {
    const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => (greater(a, b) ? -1 : greater(b, a) ? 1 : 0));
    return order.slice(0, k);
  }
  // gtl::TopN<int32, stable_comp>: unordered until k + 1 elements, then a heap whose front is
  // the smallest kept; its first k elements are the unsorted output.
  const kept: number[] = [];
  for (let c = 0; c < n; c++) {
    if (kept.length <= k) {
      kept.push(c);
      if (kept.length === k + 1) {
        makeHeap(kept, 0, k + 1, greater);
        popHeap(kept, 0, k + 1, greater);
      }
    } else if (greater(c, kept[0])) {
      kept[k] = c;
      pushHeap(kept, 0, k + 1, greater);
      popHeap(kept, 0, k + 1, greater);
    }
  }
  return kept.slice(0, k);
}

export const topKV2Op: tfconv.OpExecutor = (node) => {
  const [input, kT] = node.inputs;
  if (kT.rank !== 0) throw invalidArgument(`k must be scalar, got shape ${shapeText(kT.shape)}`);
  const k = kT.dataSync()[0];
  if (!(k >= 0)) throw invalidArgument(`Need k >= 0, got ${k}`);
  if (input.rank < 1) throw invalidArgument(`input must be >= 1-D, got shape ${shapeText(input.shape)}`);
  const n = input.shape[input.rank - 1];
  if (n < k) throw invalidArgument(`input must have at least k columns. Had ${n}, needed ${k}`);
  const rows = n === 0 ? 0 : input.size / n;
  if (rows > INT_MAX) throw invalidArgument(`First dimension of flattened input must be <= INT_MAX, got ${rows}`);
  const outShape = [...input.shape.slice(0, -1), k];
  const values = input.dataSync();
  // Float values move as bits: a NaN keeps its sign and payload.
  const isFloat = values instanceof Float32Array;
  const bits = isFloat ? new Uint32Array(values.buffer, values.byteOffset, values.length) : null;
  const outValues = isFloat ? new Float32Array(rows * k) : new Int32Array(rows * k);
  const outBits = isFloat ? new Uint32Array(outValues.buffer) : null;
  const outIndices = new Int32Array(rows * k);
  const sorted = node.attrs.sorted !== false;
  if (k > 0) {
    for (let r = 0; r < rows; r++) {
      const base = r * n;
      const picked = topKRow(n, k, sorted, greaterOf(values as ArrayLike<number>, bits, base));
      picked.forEach((c, i) => {
        outIndices[r * k + i] = c;
        if (outBits) outBits[r * k + i] = bits![base + c];
        else outValues[r * k + i] = (values as Int32Array)[base + c];
      });
    }
  }
  return [tf.tensor(outValues, outShape, input.dtype), tf.tensor(outIndices, outShape, 'int32')];
};
