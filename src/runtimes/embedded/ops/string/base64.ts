// TensorFlow's EncodeBase64 and DecodeBase64 (core/lib/strings/base64.cc): the web-safe
// alphabet (`-` and `_`; `+` and `/` are invalid), padding only when `pad` is set; decoding
// takes padded or unpadded text, drops the bits a short tail leaves over, and refuses any
// other byte, a `=` that is not trailing padding and a length of 1 modulo 4, with TF's
// messages. (TF Serving's REST `{"b64": …}` is standard base64; this is the graph's own.)
import type * as tfconv from '@tensorflow/tfjs-converter';
import { invalidArgument } from '../../../../errors/status.js';
import { stringElements, stringTensor } from './string_tensors.js';

const ALPHABET = new TextEncoder().encode('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_');
const VALUE = new Int16Array(256).fill(-1);
ALPHABET.forEach((c, i) => (VALUE[c] = i));
const PAD = 0x3d;
const A = ALPHABET[0];

function base64Encode(src: Uint8Array, pad: boolean): Uint8Array {
  const out = new Uint8Array(Math.ceil(src.length / 3) * 4);
  let o = 0;
  let i = 0;
  for (; i + 3 <= src.length; i += 3) {
    const n = (src[i] << 16) | (src[i + 1] << 8) | src[i + 2];
    out[o++] = ALPHABET[n >> 18];
    out[o++] = ALPHABET[(n >> 12) & 63];
    out[o++] = ALPHABET[(n >> 6) & 63];
    out[o++] = ALPHABET[n & 63];
  }
  const rest = src.length - i;
  if (rest > 0) {
    const n = (src[i] << 16) | (rest === 2 ? src[i + 1] << 8 : 0);
    out[o++] = ALPHABET[n >> 18];
    out[o++] = ALPHABET[(n >> 12) & 63];
    if (rest === 2) out[o++] = ALPHABET[(n >> 6) & 63];
    if (pad) for (let k = rest; k < 3; k++) out[o++] = PAD;
  }
  return out.subarray(0, o);
}

function decodeQuad(c0: number, c1: number, c2: number, c3: number, out: Uint8Array, o: number): void {
  const v = [VALUE[c0], VALUE[c1], VALUE[c2], VALUE[c3]];
  if (v.some((x) => x < 0)) throw invalidArgument('Invalid character found in base64.');
  const n = (v[0] << 18) | (v[1] << 12) | (v[2] << 6) | v[3];
  out[o] = n >> 16;
  out[o + 1] = (n >> 8) & 255;
  out[o + 2] = n & 255;
}

function base64Decode(b: Uint8Array): Uint8Array {
  if (b.length === 0) return b;
  const out = new Uint8Array(3 * Math.floor(b.length / 4) + 3);
  let p = 0;
  let o = 0;
  let end = b.length;
  for (; end - p > 4; p += 4, o += 3) decodeQuad(b[p], b[p + 1], b[p + 2], b[p + 3], out, o);
  if (end - p === 4) {
    if (b[p + 2] === PAD && b[p + 3] === PAD) end -= 2;
    if (b[p + 2] !== PAD && b[p + 3] === PAD) end -= 1;
  }
  const remain = end - p;
  if (remain === 1) throw invalidArgument('Base64 string length cannot be 1 modulo 4.');
  const tail = [A, A, A, A];
  for (let k = 0; k < remain; k++) tail[k] = b[p + k];
  decodeQuad(tail[0], tail[1], tail[2], tail[3], out, o);
  return out.slice(0, o + remain - 1);
}

export const encodeBase64Op: tfconv.OpExecutor = (node) => {
  const x = node.inputs[0];
  const pad = (node.attrs as { pad?: boolean }).pad ?? false;
  return [
    stringTensor(
      stringElements(x, 'EncodeBase64 input').map((s) => base64Encode(s, pad)),
      x.shape,
    ),
  ];
};

export const decodeBase64Op: tfconv.OpExecutor = (node) => {
  const x = node.inputs[0];
  return [stringTensor(stringElements(x, 'DecodeBase64 input').map(base64Decode), x.shape)];
};
