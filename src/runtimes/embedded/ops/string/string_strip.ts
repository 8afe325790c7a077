// TensorFlow's StringStrip (core/kernels/string_strip_op.cc): leading and trailing ASCII
// whitespace removed from the bytes (str_util::RemoveWhitespaceContext, C isspace: space,
// \t, \n, \v, \f, \r); other bytes, U+00A0 included, stay.
import type * as tfconv from '@tensorflow/tfjs-converter';
import { stringElements, stringTensor } from './string_tensors.js';

/** C isspace in the "C" locale. */
export const isAsciiSpace = (c: number) => c === 0x20 || (c >= 0x09 && c <= 0x0d);

function stripAsciiWhitespace(s: Uint8Array): Uint8Array {
  let start = 0;
  let end = s.length;
  while (start < end && isAsciiSpace(s[start])) start++;
  while (end > start && isAsciiSpace(s[end - 1])) end--;
  return s.slice(start, end);
}

export const stringStripOp: tfconv.OpExecutor = (node) => {
  const x = node.inputs[0];
  return [stringTensor(stringElements(x, 'input').map(stripAsciiWhitespace), x.shape)];
};
