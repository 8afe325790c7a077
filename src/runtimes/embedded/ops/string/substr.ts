// TensorFlow's Substr (tf.strings.substr; core/kernels/substr_op.cc). `pos` and `len` count
// bytes (unit BYTE) or UTF-8 characters (UTF8_CHAR: a character starts at every byte that is
// not a continuation byte 10xxxxxx, as TF's string_util.h counts, valid UTF-8 or not). A
// negative pos counts from the end; the length is clipped at the end of the string; a pos
// past either end fails the request with TF's message. pos and len have one shape: a scalar
// or the input's shape apply element-wise, another shape is broadcast with the input (as TF,
// up to two dimensions).
import type * as tf from '@tensorflow/tfjs-core';
import type * as tfconv from '@tensorflow/tfjs-converter';
import { invalidArgument, unimplemented } from '../../../../errors/status.js';
import { bytesAttr, intElements, shapeString, stringElements, stringTensor } from './string_tensors.js';

const isTrailByte = (b: number) => (b & 0xc0) === 0x80;
const utf8 = new TextDecoder();

/** The byte position `n` characters after `pos`, and whether there were n characters. */
function forward(s: Uint8Array, n: number, pos: number): [number, boolean] {
  let counted = 0;
  while (counted < n && pos < s.length) {
    do pos++;
    while (pos < s.length && isTrailByte(s[pos]));
    counted++;
  }
  return [pos, counted === n];
}

/** The byte position `n` characters before `pos`, and whether there were n characters. */
function back(s: Uint8Array, n: number, pos: number): [number, boolean] {
  let counted = 0;
  while (counted < n && pos > 0) {
    do pos--;
    while (pos > 0 && isTrailByte(s[pos]));
    counted++;
  }
  return [pos, counted === n];
}

/** [start, end) in bytes of the UTF-8 substring, or null when pos is out of range. */
function utf8Range(s: Uint8Array, pos: number, len: number): [number, number] | null {
  if (pos >= 0) {
    const [start, ok] = forward(s, pos, 0);
    if (!ok) return null;
    return [start, forward(s, len, start)[0]];
  }
  const skip = Math.max(0, -pos - len);
  const [end, okEnd] = back(s, skip, s.length);
  if (!okEnd) return null;
  const [start, ok] = back(s, -pos - skip, end);
  return ok ? [start, end] : null;
}

/** [start, end) in bytes, or null when pos is out of range. A negative len reads to the end (TF's size_t). */
function byteRange(s: Uint8Array, pos: number, len: number): [number, number] | null {
  const start = pos < 0 ? s.length + pos : pos;
  if (start < 0 || start > s.length) return null;
  return [start, len < 0 ? s.length : Math.min(s.length, start + len)];
}

interface Element {
  s: Uint8Array;
  pos: number;
  len: number;
  /** Where TF's message says the string is. */
  at: string;
}

function substr(e: Element, unitUtf8: boolean): Uint8Array {
  const range = unitUtf8 ? utf8Range(e.s, e.pos, e.len) : byteRange(e.s, e.pos, e.len);
  if (!range) {
    throw invalidArgument(
      unitUtf8
        ? `pos ${e.pos} out of range for string at index ${e.at}`
        : `pos ${e.pos} out of range for string b'${utf8.decode(e.s)}' at index ${e.at}`,
    );
  }
  return e.s.slice(range[0], range[1]);
}

const sameShape = (a: readonly number[], b: readonly number[]) => a.length === b.length && a.every((d, i) => d === b[i]);

/** Numpy broadcasting of two shapes (TF's BCast), or null when they are incompatible. */
function broadcastShape(a: readonly number[], b: readonly number[]): number[] | null {
  const rank = Math.max(a.length, b.length);
  const out: number[] = [];
  for (let i = 0; i < rank; i++) {
    const x = a[a.length - rank + i] ?? 1;
    const y = b[b.length - rank + i] ?? 1;
    if (x !== y && x !== 1 && y !== 1) return null;
    out.push(x === 1 ? y : x);
  }
  return out;
}

/** The flat index into a tensor of `shape` (right-aligned, size-1 dims broadcast) of output coordinates `coords`. */
function broadcastIndex(shape: readonly number[], coords: readonly number[]): number {
  let index = 0;
  const offset = coords.length - shape.length;
  shape.forEach((d, i) => {
    index = index * d + (d === 1 ? 0 : coords[offset + i]);
  });
  return index;
}

export const substrOp: tfconv.OpExecutor = (node) => {
  const [input, posT, lenT] = node.inputs as tf.Tensor[];
  const unitUtf8 = new TextDecoder().decode(bytesAttr(node, 'unit')) === 'UTF8_CHAR';
  if (!sameShape(posT.shape, lenT.shape))
    throw invalidArgument(`pos and len should have the same shape, got: ${shapeString(posT.shape)} vs. ${shapeString(lenT.shape)}`);
  if (posT.size === 0)
    throw invalidArgument(`received empty tensor pos_tensor: Tensor<type: ${posT.dtype} shape: ${shapeString(posT.shape)} values: >`);
  const strings = stringElements(input, 'input');
  const pos = intElements(posT);
  const len = intElements(lenT);
  if (posT.rank === 0 || sameShape(input.shape, posT.shape)) {
    const scalar = posT.rank === 0;
    const out = strings.map((s, i) => substr({ s, pos: pos[scalar ? 0 : i], len: len[scalar ? 0 : i], at: String(i) }, unitUtf8));
    return [stringTensor(out, input.shape)];
  }
  const shape = broadcastShape(input.shape, posT.shape);
  if (!shape) throw invalidArgument(`Incompatible shapes: ${shapeString(input.shape)} vs. ${shapeString(posT.shape)}`);
  if (shape.length > 2) throw unimplemented(`Substr broadcast not implemented for ${shape.length} dimensions`);
  const out: Uint8Array[] = [];
  const [rows, cols] = shape.length === 1 ? [shape[0], 1] : [shape[0], shape[1]];
  for (let i = 0; i < rows; i++) {
    for (let j = 0; j < cols; j++) {
      const coords = shape.length === 1 ? [i] : [i, j];
      const p = broadcastIndex(posT.shape, coords);
      const at = shape.length === 2 && !unitUtf8 ? `(${i}, ${j})` : String(i);
      out.push(substr({ s: strings[broadcastIndex(input.shape, coords)], pos: pos[p], len: len[p], at }, unitUtf8));
    }
  }
  return [stringTensor(out, shape)];
};
