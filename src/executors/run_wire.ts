// The run line's messages packed flat: the requests of one message (or the replies to them)
// as a layout of numbers, a table of the strings it names and one buffer holding the bytes
// of every numeric tensor (moved, not copied, from MIN_MOVED_BYTES on). Structured clone
// walks each request's object graph (signature, inputs, shape, typed array) on the main
// thread: measured with a thread that answers at once, posting 9 requests of 3 floats took
// 10–22 µs per request cloned against 3–10 µs packed, 32 requests 4–18 against 2–4 µs; one
// request alone costs about the same either way. Through the executor pool (half_plus_two,
// 9 requests a turn) the main thread spent 20–26 µs per request against 25–35 before.
//
// The layout, the strings and the bytes go in one ArrayBuffer, posted bare when nothing travels
// beside it: structured clone then copies (or moves) one buffer instead of walking an object of
// typed arrays and arrays. Measured with a thread that echoes each message: a round trip of one
// 3-float request took the process 38–46 µs as one buffer against 59–75 µs as the object of a
// Float64Array layout, a string array and a bytes buffer.
//
// Tensors that cannot or should not be packed travel as they are, beside the buffer: string
// tensors, and the request-owned buffers the caller moves (request_owned.ts).
import type { StatusData } from '../errors/status.js';
import type { DType } from '../tensor/dtype.js';
import type { HostTensor, TensorValues } from '../tensor/host_tensor.js';
import type { PackedTensors, RunLineRequest, RunReply, RunRequest } from './protocol.js';
import { markReplyAlone, MIN_MOVED_BYTES } from '../tensor/request_owned.js';

/** Storage classes packed (any other, e.g. a Buffer, goes as it is: structured clone decides). */
const ARRAY_KINDS: Array<new (buffer: ArrayBuffer, byteOffset: number, length: number) => Exclude<TensorValues, Uint8Array[]>> = [
  Float32Array,
  Float64Array,
  Int32Array,
  BigInt64Array,
  BigUint64Array,
  Uint32Array,
  Int16Array,
  Uint16Array,
  Int8Array,
  Uint8Array,
];

const ALIGN = 8;
const aligned = (n: number) => (n + ALIGN - 1) & ~(ALIGN - 1);

/**
 * The buffer: a header of HEADER_NUMBERS float64s (layout length, string count, string bytes,
 * where the tensors' bytes start), the layout, the strings' UTF-8 lengths (uint32), the
 * strings' UTF-8 bytes, then the tensors' bytes, each on an 8-byte boundary.
 */
const HEADER_NUMBERS = 4;
const utf8 = new TextEncoder();
const fromUtf8 = new TextDecoder();

/** `s`, of `length` UTF-8 bytes, into `into` at `at`. */
function writeString(s: string, length: number, into: Uint8Array, at: number): void {
  if (length !== s.length) {
    utf8.encodeInto(s, into.subarray(at, at + length));
    return;
  }
  // ASCII (tensor names, dtypes and signature keys nearly always): a loop beats the encoder's call.
  for (let i = 0; i < length; i++) into[at + i] = s.charCodeAt(i);
}

/**
 * ASCII strings read lately (signature keys, tensor names, dtypes come again in every
 * message): the same string back instead of a new one, already hashed and internalized where
 * it was used as a key, so looking it up costs no rehash.
 */
const recentStrings: string[] = [];
const RECENT_STRINGS = 32;

function recentString(from: Uint8Array, at: number, length: number): string | undefined {
  for (let k = 0; k < recentStrings.length; k++) {
    const s = recentStrings[k];
    if (s.length !== length) continue;
    let i = 0;
    while (i < length && s.charCodeAt(i) === from[at + i]) i++;
    if (i === length) return s;
  }
  return undefined;
}

function readString(from: Uint8Array, at: number, length: number): string {
  if (length > 64) return fromUtf8.decode(from.subarray(at, at + length));
  const seen = recentString(from, at, length);
  if (seen !== undefined) return seen;
  let s = '';
  for (let i = 0; i < length; i++) {
    const c = from[at + i];
    if (c >= 0x80) return fromUtf8.decode(from.subarray(at, at + length));
    s += String.fromCharCode(c);
  }
  if (recentStrings.length === RECENT_STRINGS) recentStrings.shift();
  recentStrings.push(s);
  return s;
}

/** UTF-8 length of `s`: its length when ASCII (names nearly always are), else Buffer's count. */
function utf8Length(s: string): number {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) >= 0x80) return Buffer.byteLength(s);
  return s.length;
}

/**
 * Written with plain loops, arrays searched linearly and one view of each kind over the
 * result: a lone request after the thread sat idle runs this code cold, where each builtin
 * and helper it reaches costs cache misses (Map, findIndex, spread, TypedArray.prototype.set
 * from an array, Buffer.byteLength measured 70 µs for one request of 3 floats after 200 ms idle).
 */
class Packer {
  private readonly layout: number[] = [];
  private readonly strings: string[] = [];
  private readonly parts: Array<Exclude<TensorValues, Uint8Array[]>> = [];
  private size = 0;
  private readonly whole: HostTensor[] = [];
  private readonly errors: StatusData[] = [];

  num(n: number): void {
    this.layout.push(n);
  }

  str(s: string): void {
    let i = this.strings.indexOf(s);
    if (i < 0) i = this.strings.push(s) - 1;
    this.layout.push(i);
  }

  error(e: StatusData): void {
    this.layout.push(this.errors.push(e) - 1);
  }

  /** A tensor: its bytes packed, or itself beside the layout when `asIs` (or a string tensor). */
  tensor(name: string, t: HostTensor, asIs: boolean): void {
    this.str(name);
    const v = t.values;
    // The storage class as sent (not derived from the dtype): what arrives is what was sent.
    let kind = -1;
    if (!asIs && !Array.isArray(v)) for (let k = 0; k < ARRAY_KINDS.length && kind < 0; k++) if (v.constructor === ARRAY_KINDS[k]) kind = k;
    if (kind < 0) {
      // -1 - index: a tensor of `whole`.
      this.layout.push(-1 - (this.whole.push(t) - 1));
      return;
    }
    const values = v as Exclude<TensorValues, Uint8Array[]>;
    const layout = this.layout;
    layout.push(kind);
    this.str(t.dtype);
    layout.push(t.shape.length);
    for (let d = 0; d < t.shape.length; d++) layout.push(t.shape[d]);
    layout.push(this.size, values.length);
    this.parts.push(values);
    this.size += aligned(values.byteLength);
  }

  finish(): { packed: PackedTensors; transfer: ArrayBuffer[] } {
    const { layout, strings } = this;
    const layoutAt = HEADER_NUMBERS * 8;
    const lengthsAt = layoutAt + layout.length * 8;
    const stringsAt = lengthsAt + 4 * strings.length;
    const sizes: number[] = [];
    let at = stringsAt;
    for (let i = 0; i < strings.length; i++) at += sizes[i] = utf8Length(strings[i]);
    const tensorsAt = aligned(at);
    const flat = new ArrayBuffer(tensorsAt + this.size);
    const numbers = new Float64Array(flat, 0, HEADER_NUMBERS + layout.length);
    numbers[0] = layout.length;
    numbers[1] = strings.length;
    numbers[2] = at - stringsAt;
    numbers[3] = tensorsAt;
    for (let i = 0; i < layout.length; i++) numbers[HEADER_NUMBERS + i] = layout[i];
    const lengths = new Uint32Array(flat, lengthsAt, strings.length);
    const bytes = new Uint8Array(flat);
    at = stringsAt;
    for (let i = 0; i < strings.length; i++) {
      lengths[i] = sizes[i];
      writeString(strings[i], sizes[i], bytes, at);
      at += sizes[i];
    }
    at = tensorsAt;
    for (const v of this.parts) {
      copyBytes(v, bytes, at);
      at += aligned(v.byteLength);
    }
    const packed = this.whole.length || this.errors.length ? { flat, whole: this.whole, errors: this.errors } : flat;
    // Moving a small buffer costs more than copying it (request_owned.ts).
    return { packed, transfer: flat.byteLength >= MIN_MOVED_BYTES ? [flat] : [] };
  }
}

/** Below this many bytes a tensor is copied by a loop (no view made, no builtin reached). */
const LOOP_COPY_BYTES = 64;

function copyBytes(v: Exclude<TensorValues, Uint8Array[]>, into: Uint8Array, at: number): void {
  const from = new Uint8Array(v.buffer, v.byteOffset, v.byteLength);
  if (v.byteLength >= LOOP_COPY_BYTES) into.set(from, at);
  else for (let i = 0; i < from.length; i++) into[at + i] = from[i];
}

class Unpacker {
  private at = 0;
  private readonly layout: Float64Array;
  private readonly strings: string[] = [];
  private readonly flat: ArrayBuffer;
  private readonly tensorsAt: number;
  private readonly whole: HostTensor[];
  private readonly errors: StatusData[];

  constructor(
    p: PackedTensors,
    /** Views into the packed bytes (the receiver keeps them); false: each tensor gets a buffer of its own. */
    private readonly views: boolean,
  ) {
    const beside = p instanceof ArrayBuffer ? undefined : p;
    this.flat = beside ? beside.flat : (p as ArrayBuffer);
    this.whole = beside?.whole ?? [];
    this.errors = beside?.errors ?? [];
    const header = new Float64Array(this.flat, 0, HEADER_NUMBERS);
    const layoutLength = header[0];
    const stringCount = header[1];
    const layoutAt = HEADER_NUMBERS * 8;
    this.layout = new Float64Array(this.flat, layoutAt, layoutLength);
    const lengthsAt = layoutAt + layoutLength * 8;
    const lengths = new Uint32Array(this.flat, lengthsAt, stringCount);
    const bytes = new Uint8Array(this.flat);
    let at = lengthsAt + 4 * stringCount;
    for (let i = 0; i < stringCount; i++) {
      this.strings.push(readString(bytes, at, lengths[i]));
      at += lengths[i];
    }
    this.tensorsAt = header[3];
  }

  num(): number {
    return this.layout[this.at++];
  }

  str(): string {
    return this.strings[this.num()];
  }

  error(): StatusData {
    return this.errors[this.num()];
  }

  /** [name, tensor]. */
  tensor(): [string, HostTensor] {
    const name = this.str();
    const kind = this.num();
    if (kind < 0) return [name, this.whole[-1 - kind]];
    const dtype = this.str() as DType;
    const rank = this.num();
    const shape: number[] = [];
    for (let d = 0; d < rank; d++) shape.push(this.num());
    const offset = this.num();
    const view = new ARRAY_KINDS[kind](this.flat, this.tensorsAt + offset, this.num());
    return [name, { dtype, shape, values: this.views ? view : view.slice() }];
  }
}

/**
 * The requests of one run-line message, for version `id` of the thread. `moved`: buffers to move to the thread (their
 * tensors go as they are, in the transfer list); every other numeric tensor is copied into
 * the packed bytes.
 */
export function packRequests(
  id: number,
  requests: RunRequest[],
  moved: ArrayBuffer[],
): { packed: RunLineRequest; transfer: ArrayBuffer[] } {
  const p = new Packer();
  p.num(id);
  p.num(requests.length);
  for (const r of requests) {
    p.str(r.signature);
    const names = Object.keys(r.inputs);
    p.num(names.length);
    for (const n of names) {
      const v = r.inputs[n].values;
      p.tensor(n, r.inputs[n], moved.length > 0 && !Array.isArray(v) && moved.includes(v.buffer as ArrayBuffer));
    }
    p.num(r.outputKeys.length);
    for (const k of r.outputKeys) p.str(k);
  }
  const out = p.finish();
  out.transfer.push(...moved);
  return out;
}

/**
 * A message's tensors are views into its buffer below this size (they pin no more than this
 * many bytes, whatever a runtime keeps); from it on each tensor gets a buffer of its own.
 * A copy made per tensor costs more than the copy: ONNX Runtime's binding reads a typed array
 * of up to 64 bytes (V8 keeps those on its heap) only after V8 has moved it to a buffer of its
 * own. Measured on half_plus_two in one process (a [3] float feed, best of 15 rounds of 4 000
 * runs, twice): 11.6–12.4 µs per run on a view into a buffer against 14.8–16.0 on a copy.
 */
const VIEWS_BELOW_BYTES = 64 * 1024;

/** The version id and the requests as sent; numeric tensors are views into the message when it is small (VIEWS_BELOW_BYTES). */
export function unpackRequests(packed: RunLineRequest): { id: number; requests: RunRequest[] } {
  const u = new Unpacker(packed, (packed instanceof ArrayBuffer ? packed : packed.flat).byteLength < VIEWS_BELOW_BYTES);
  const id = u.num();
  const requests: RunRequest[] = [];
  for (let i = u.num(); i > 0; i--) {
    const signature = u.str();
    const inputs: Record<string, HostTensor> = {};
    for (let k = u.num(); k > 0; k--) {
      const [name, t] = u.tensor();
      inputs[name] = t;
    }
    const outputKeys: string[] = [];
    for (let k = u.num(); k > 0; k--) outputKeys.push(u.str());
    requests.push({ signature, inputs, outputKeys });
  }
  return { id, requests };
}

/** The bytes of tensors a message carries: its buffer's and those beside it. */
export function packedBytes(packed: PackedTensors): number {
  if (packed instanceof ArrayBuffer) return packed.byteLength;
  let n = packed.flat.byteLength;
  for (const t of packed.whole) if (!Array.isArray(t.values)) n += t.values.byteLength;
  return n;
}

/** The replies to one message; outputs are copied into the packed bytes (a runtime may still hold theirs). */
export function packReplies(replies: RunReply[]): { packed: PackedTensors; transfer: ArrayBuffer[] } {
  const p = new Packer();
  p.num(replies.length);
  for (const r of replies) {
    if (!r.ok) {
      p.num(0);
      p.error(r.error);
      continue;
    }
    p.num(1);
    p.num(r.computeMs);
    p.num(r.startedAt);
    p.num(r.endedAt);
    const names = Object.keys(r.outputs);
    p.num(names.length);
    for (const n of names) p.tensor(n, r.outputs[n], false);
  }
  return p.finish();
}

/** The replies as the thread gave them; their numeric outputs are views into the one packed buffer. */
export function unpackReplies(packed: PackedTensors): RunReply[] {
  const u = new Unpacker(packed, true);
  const replies: RunReply[] = [];
  for (let i = u.num(); i > 0; i--) {
    if (!u.num()) {
      replies.push({ ok: false, error: u.error() });
      continue;
    }
    const computeMs = u.num();
    const startedAt = u.num();
    const endedAt = u.num();
    const outputs: Record<string, HostTensor> = {};
    for (let k = u.num(); k > 0; k--) {
      const [name, t] = u.tensor();
      outputs[name] = t;
    }
    replies.push({ ok: true, kind: 'run', outputs, computeMs, startedAt, endedAt });
  }
  // One reply: its outputs are all that is read of the buffer (the layout has been), so the
  // answer's writer may move it (body_parser_pool.ts) instead of copying 20 MB out of it.
  if (replies.length === 1) markReplyAlone(packed instanceof ArrayBuffer ? packed : packed.flat);
  return replies;
}
