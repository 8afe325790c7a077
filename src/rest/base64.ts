// How TF Serving's JSON carries binary strings: {"b64": "…"}, decoded with absl's rules
// (util/json_tensor.cc JsonDecodeBase64Object, absl::Base64Unescape). absl is more lenient
// than strict RFC 4648 in some ways and stricter in others:
//   {"b64": "aGVsbG8="}       → "hello"
//   {"b64": "aGVs bG8"}       → "hello" (whitespace skipped, padding optional)
//   {"b64": "aGVsbG8=="}      → refused (padding present but the wrong count)
//   {"b64": "aGVsbG8", "x": 1} → refused: not a b64 value (a second member)
import { invalidArgument } from '../errors/status.js';
import * as MSG from '../errors/messages.js';
import type { JsonObject } from './json_parse.js';
import { debugJson } from './rapidjson_writer.js';

const B64_KEY = 'b64';

/** IsValBase64Object: an object whose only member is "b64" holding a string. */
export function isBase64Object(v: unknown): v is { b64: string } {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return false;
  if (typeof (v as JsonObject)[B64_KEY] !== 'string' || !Object.hasOwn(v, B64_KEY)) return false;
  let members = 0;
  for (const k in v) if (Object.hasOwn(v, k) && ++members > 1) return false;
  return true;
}

/** JsonDecodeBase64Object with absl::Base64Unescape's rules. */
export function decodeBase64Object(v: JsonObject): Uint8Array {
  if (!isBase64Object(v)) throw invalidArgument(MSG.base64FormatError(debugJson(v)));
  const bytes = base64Unescape(v.b64);
  if (bytes === undefined) throw invalidArgument(MSG.UNABLE_TO_BASE64_DECODE);
  return bytes;
}

/**
 * absl::Base64Unescape: the standard alphabet only; ASCII whitespace skipped; padding ('=' or
 * '.') optional, but when present exactly the expected count and nothing but padding or
 * whitespace after it; a lone trailing sextet is an error. undefined when invalid.
 */
export function base64Unescape(s: string): Uint8Array | undefined {
  let clean = '';
  let runStart = 0;
  let count = 0;
  let i = 0;
  const flush = (to: number) => {
    if (to > runStart) clean += s.slice(runStart, to);
  };
  for (; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if ((c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39) || c === 0x2b || c === 0x2f) {
      count++;
      continue;
    }
    flush(i);
    runStart = i + 1;
    if (c === 0x3d || c === 0x2e) break; // padding
    if (!isAsciiSpace(c)) return undefined;
  }
  if (i >= s.length) flush(s.length);
  let equals = 0;
  for (; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x3d || c === 0x2e) equals++;
    else if (!isAsciiSpace(c)) return undefined;
  }
  const rest = count % 4;
  if (rest === 1) return undefined;
  const expected = rest === 2 ? 2 : rest === 3 ? 1 : 0;
  if (equals !== 0 && equals !== expected) return undefined;
  return new Uint8Array(Buffer.from(clean, 'base64'));
}

function isAsciiSpace(c: number): boolean {
  return c === 0x20 || (c >= 0x09 && c <= 0x0d);
}

/** The sextet of each base64 character (standard alphabet), -1 for others. */
const SEXTET = new Int8Array(256).fill(-1);
for (let k = 0; k < 64; k++) SEXTET['ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'.charCodeAt(k)] = k;

/**
 * bytes[start, end) (a JSON string's body) decoded as base64Unescape decodes a string, straight
 * into the result, with no string made first; undefined when invalid.
 */
export function base64UnescapeBytes(bytes: Uint8Array, start: number, end: number): Uint8Array | undefined {
  let sextets = 0;
  let k = start;
  for (; k < end; k++) {
    const c = bytes[k];
    if (SEXTET[c] >= 0) sextets++;
    else if (c === 0x3d || c === 0x2e) break;
    else if (!isAsciiSpace(c)) return undefined;
  }
  const padStart = k;
  let equals = 0;
  for (; k < end; k++) {
    const c = bytes[k];
    if (c === 0x3d || c === 0x2e) equals++;
    else if (!isAsciiSpace(c)) return undefined;
  }
  const rest = sextets % 4;
  if (rest === 1) return undefined;
  if (equals !== 0 && equals !== (rest === 2 ? 2 : rest === 3 ? 1 : 0)) return undefined;
  const out = new Uint8Array((sextets >> 2) * 3 + (rest === 0 ? 0 : rest - 1));
  let acc = 0;
  let bits = 0;
  let o = 0;
  for (k = start; k < padStart; k++) {
    const s = SEXTET[bytes[k]];
    if (s < 0) continue;
    acc = ((acc << 6) | s) & 0xffffff;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[o++] = (acc >> bits) & 0xff;
    }
  }
  return out;
}

/** The largest number of bytes a b64 string of `length` characters decodes to. */
export function base64DecodedBound(length: number): number {
  return Math.floor((length * 3) / 4);
}
