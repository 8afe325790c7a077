// TensorFlow's StringLength (tf.strings.length; core/kernels/string_length_op.cc): each
// string's length in bytes (unit BYTE) or in UTF-8 characters (UTF8_CHAR: the bytes that are
// not continuation bytes 10xxxxxx, TF's UTF8StrLen, whether the string is valid UTF-8 or not).
import tf from '../../../tfjs_packages/tfjs_core.cjs';
import type * as tfconv from '@tensorflow/tfjs-converter';
import { bytesAttr, stringElements } from './string_tensors.js';

function utf8Length(s: Uint8Array): number {
  let n = 0;
  for (const b of s) if ((b & 0xc0) !== 0x80) n++;
  return n;
}

export const stringLengthOp: tfconv.OpExecutor = (node) => {
  const x = node.inputs[0];
  const unitUtf8 = new TextDecoder().decode(bytesAttr(node, 'unit')) === 'UTF8_CHAR';
  const lengths = stringElements(x, 'input').map((s) => (unitUtf8 ? utf8Length(s) : s.length));
  return [tf.tensor(Int32Array.from(lengths), x.shape, 'int32')];
};
