// What parsing a JSON body will hold on the heap, counted from its text before anything is
// built: the REST handlers charge it to --max_inflight_request_bytes first, so a body that
// does not fit is refused before its parse makes any garbage (four parallel 20 MB bodies of
// 5 Mi one-value rows: each counts 660 MB; one is parsed, three are answered 503 at once,
// where they used to be parsed side by side until the budget stopped them, leaving hundreds
// of megabytes of half-built arrays for the GC). The parser (json_parse.ts) reports the same
// estimate as it goes (JsonLimits.onGrowth), for what the count did not foresee.
//
// The estimate of each thing built is at or above what was measured (Node 20, 1 Mi items
// after a full GC):
//   a value: its slot with its growth slack and a boxed double    1.5 in a long array: 30 B
//   an array or object                                            [1] of a row: 70 B with its two slots; [] 45 B
//   an object member, besides its value and key string            {"k<i>": 1}, a distinct key each: 210 B in all
//   a non-empty string: a slice of the body from 13 characters    64 B with its slot
//     on, else (and with an escape) a copy of its characters      "abcdefgh": 45 B
//
// The tensor reader (json_tensor_reader.ts) builds no JSON: it holds its tensors' storage,
// allocated once at the size its first pass counted, and a little state of its own (the walk,
// the plan, each tensor's state and HostTensor: counted as 1 KiB and 512 B a tensor);
// tensorReadBytes counts it, and the reader reports the same figure as it allocates.
import type { DType } from '../tensor/dtype.js';
import { decodedTensorBytes } from '../tensor/tensor_cost.js';

const VALUE_BYTES = 32;
const CONTAINER_BYTES = 64;
const MEMBER_BYTES = 48;
const STRING_BYTES = 40;
const SHORT_STRING_CHARS = 13;
const READER_BYTES = 1024;
const READER_TENSOR_BYTES = 512;

/** What a parse builds, counted. */
export interface JsonCounts {
  /** List items and object members. */
  elements: number;
  /** Arrays and objects. */
  containers: number;
  members: number;
  /** Estimated bytes of the strings (stringBytes of each). */
  stringBytes: number;
}

/** The heap a parse building `c` holds. */
export function parsedJsonBytes(c: JsonCounts): number {
  return c.elements * VALUE_BYTES + c.containers * CONTAINER_BYTES + c.members * MEMBER_BYTES + c.stringBytes;
}

/** One string of `length` characters: a slice of the body, or (`copied`: it had an escape) a new string. */
export function stringBytes(length: number, copied: boolean): number {
  if (length === 0) return 0;
  if (copied) return STRING_BYTES + 2 * length;
  return STRING_BYTES + (length < SHORT_STRING_CHARS ? length : 0);
}

/**
 * What the tensor reader holds for these tensors (each its dtype, element count and, for
 * strings, the bound of their bytes): their storage (tensor_cost.ts) and its own state.
 */
export function tensorReadBytes(tensors: ReadonlyArray<{ dtype: DType; size: number; stringBytes: number }>): number {
  let bytes = READER_BYTES;
  for (const t of tensors) bytes += READER_TENSOR_BYTES + decodedTensorBytes(t.dtype, t.size, t.stringBytes);
  return bytes;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN = [0x5b, 0x7b];
const CLOSE = [0x5d, 0x7d];

/** Characters counted per event-loop turn (a few milliseconds). */
const SLICE_CHARS = 1 << 20;

/**
 * parsedJsonBytes of what parsing `text` would build, from one pass over its characters that
 * builds nothing; the count ends with the first complete value (as the parser stops there) or
 * a NUL. Text that is no JSON is counted all the same; the parser refuses it after.
 */
export async function jsonFootprint(text: string, sliceChars = SLICE_CHARS): Promise<number> {
  const counts: JsonCounts = { elements: 0, containers: 0, members: 0, stringBytes: 0 };
  let depth = 0;
  let commas = 0;
  let filled = 0;
  let i = 0;
  const end = text.length;
  while (i < end) {
    const sliceEnd = Math.min(end, i + sliceChars);
    for (; i < sliceEnd; i++) {
      const c = text.charCodeAt(i);
      if (c === QUOTE) {
        let j = i + 1;
        let copied = false;
        for (; j < end; j++) {
          const d = text.charCodeAt(j);
          if (d === QUOTE) break;
          if (d === BACKSLASH) {
            copied = true;
            j++;
          }
        }
        counts.stringBytes += stringBytes(j - i - 1, copied);
        i = j;
        if (depth === 0) return parsedJsonBytes(counts);
      } else if (c === COMMA) {
        commas++;
      } else if (c === COLON) {
        counts.members++;
      } else if (c === OPEN[0] || c === OPEN[1]) {
        counts.containers++;
        depth++;
        // A container holding anything: its items are its commas + 1.
        let k = i + 1;
        while (
          k < end &&
          (text.charCodeAt(k) === 0x20 || text.charCodeAt(k) === 0x0a || text.charCodeAt(k) === 0x0d || text.charCodeAt(k) === 0x09)
        )
          k++;
        const next = text.charCodeAt(k);
        if (next !== CLOSE[0] && next !== CLOSE[1]) filled++;
      } else if (c === CLOSE[0] || c === CLOSE[1]) {
        if (--depth === 0) {
          counts.elements = commas + filled;
          return parsedJsonBytes(counts);
        }
      } else if (c === 0) {
        break;
      }
    }
    if (i < end && text.charCodeAt(i) === 0) break;
    if (i < end) await new Promise<void>((resolve) => setImmediate(resolve));
  }
  counts.elements = commas + filled;
  return parsedJsonBytes(counts);
}

/**
 * Charges `text`'s footprint before it is parsed; returns the parser's onGrowth, which then
 * charges only what the parse builds past it.
 */
export async function chargeJsonParse(text: string, charge: (bytes: number) => void): Promise<(bytes: number) => void> {
  let prepaid = await jsonFootprint(text);
  charge(prepaid);
  return (bytes) => {
    prepaid -= bytes;
    if (prepaid < 0) {
      charge(-prepaid);
      prepaid = 0;
    }
  };
}
