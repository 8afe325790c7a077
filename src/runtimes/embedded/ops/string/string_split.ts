// TensorFlow's StringSplitV2 (tf.strings.split; core/kernels/string_split_op.cc), Python's
// str.split on bytes: with a separator, every occurrence splits, so consecutive separators
// delimit empty strings and '' splits into ['']; with an empty separator, runs of ASCII
// whitespace split and leading/trailing whitespace yields no empty tokens. maxsplit > 0
// stops after that many splits, the rest (whitespace-trimmed on the left in the whitespace
// mode) becoming the last token; maxsplit = 0 keeps the whole string. The result is a
// SparseTensor: indices [N, 2] (row, position), values [N], dense shape [rows, longest row].
import tf from '../../../tfjs_packages/tfjs_core.cjs';
import type * as tfconv from '@tensorflow/tfjs-converter';
import { invalidArgument } from '../../../../errors/status.js';
import { stringElements, stringTensor } from './string_tensors.js';
import { isAsciiSpace } from './string_strip.js';

function indexOfBytes(s: Uint8Array, sep: Uint8Array, from: number): number {
  outer: for (let i = from; i + sep.length <= s.length; i++) {
    for (let j = 0; j < sep.length; j++) if (s[i + j] !== sep[j]) continue outer;
    return i;
  }
  return -1;
}

function splitOnWhitespace(s: Uint8Array, maxsplit: number): Uint8Array[] {
  const out: Uint8Array[] = [];
  let i = 0;
  const skipSpace = () => {
    while (i < s.length && isAsciiSpace(s[i])) i++;
  };
  skipSpace();
  while (i < s.length) {
    const start = i;
    while (i < s.length && !isAsciiSpace(s[i])) i++;
    out.push(s.slice(start, i));
    skipSpace();
    if (maxsplit > 0 && out.length === maxsplit) {
      out.push(s.slice(i));
      break;
    }
  }
  return out;
}

/** TF's SplitV2 of one string. */
function splitV2(s: Uint8Array, sep: Uint8Array, maxsplit: number): Uint8Array[] {
  if (maxsplit === 0) return [s.slice()];
  if (sep.length === 0) return splitOnWhitespace(s, maxsplit);
  const out: Uint8Array[] = [];
  let start = 0;
  for (let p = indexOfBytes(s, sep, 0); p >= 0; p = indexOfBytes(s, sep, start)) {
    out.push(s.slice(start, p));
    start = p + sep.length;
    if (maxsplit > 0 && out.length === maxsplit) break;
  }
  out.push(s.slice(start));
  return out;
}

const shapeString = (shape: readonly number[]) => `[${shape.join(',')}]`;

function stringSplitV2(input: tf.Tensor, sepT: tf.Tensor, maxsplit: number): tf.Tensor[] {
  if (input.rank !== 1) throw invalidArgument(`input must be a vector, got shape: ${shapeString(input.shape)}`);
  if (sepT.rank !== 0) throw invalidArgument(`sep must be a scalar, got shape: ${shapeString(sepT.shape)}`);
  const [sep] = stringElements(sepT, 'sep');
  const rows = stringElements(input, 'input').map((s) => splitV2(s, sep, maxsplit));
  const total = rows.reduce((n, r) => n + r.length, 0);
  const indices = new Int32Array(total * 2);
  const values: Uint8Array[] = [];
  let longest = 0;
  rows.forEach((tokens, row) => {
    longest = Math.max(longest, tokens.length);
    tokens.forEach((t, j) => {
      indices[2 * values.length] = row;
      indices[2 * values.length + 1] = j;
      values.push(t);
    });
  });
  return [tf.tensor2d(indices, [total, 2], 'int32'), stringTensor(values, [total]), tf.tensor1d([rows.length, longest], 'int32')];
}

export const stringSplitV2Op: tfconv.OpExecutor = (node) =>
  stringSplitV2(node.inputs[0], node.inputs[1], Number(node.attrs.maxsplit ?? -1));
