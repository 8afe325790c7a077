// The run line's messages packed flat: the requests of one message (or the replies to them)
// as a layout of numbers, a table of the strings it names and one buffer holding the bytes
// of every numeric tensor (moved, not copied, from MIN_MOVED_BYTES on). Structured clone
// walks each request's object graph (signature, inputs, shape, typed array) on the main
// thread: measured with a thread that answers at once, posting 9 requests of 3 floats took
// 10–22 µs per request cloned against 3–10 µs packed, 32 requests 4–18 against 2–4 µs; one
// request alone costs about the same either way. Through the executor pool (half_plus_two,
// 9 requests a turn) the main thread spent 20–26 µs per request against 25–35 before.
//
// Tensors that cannot or should not be packed travel as they are, beside the layout: string
// tensors, and the request-owned buffers the caller moves (request_owned.ts).
import type { StatusData } from '../errors/status.js';
import type { DType } from '../tensor/dtype.js';
import type { HostTensor, TensorValues } from '../tensor/host_tensor.js';
import type { PackedTensors, RunReply, RunRequest } from './protocol.js';
import { MIN_MOVED_BYTES } from '../tensor/request_owned.js';

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

class Packer {
  private readonly layout: number[] = [];
  private readonly stringIndex = new Map<string, number>();
  private readonly parts: ArrayBufferView[] = [];
  private size = 0;
  private readonly whole: HostTensor[] = [];
  private readonly errors: StatusData[] = [];

  num(n: number): void {
    this.layout.push(n);
  }

  str(s: string): void {
    let i = this.stringIndex.get(s);
    if (i === undefined) this.stringIndex.set(s, (i = this.stringIndex.size));
    this.layout.push(i);
  }

  error(e: StatusData): void {
    this.layout.push(this.errors.push(e) - 1);
  }

  /** A tensor: its bytes packed, or itself beside the layout when `asIs` (or a string tensor). */
  tensor(name: string, t: HostTensor, asIs: boolean): void {
    this.str(name);
    const v = t.values;
    if (asIs || Array.isArray(v)) {
      // -1 - index: a tensor of `whole`.
      this.layout.push(-1 - (this.whole.push(t) - 1));
      return;
    }
    // The storage class as sent (not derived from the dtype): what arrives is what was sent.
    const kind = ARRAY_KINDS.findIndex((K) => v.constructor === K);
    if (kind < 0) {
      this.layout.push(-1 - (this.whole.push(t) - 1));
      return;
    }
    this.layout.push(kind);
    this.str(t.dtype);
    this.layout.push(t.shape.length, ...t.shape, this.size, v.length);
    this.parts.push(v);
    this.size += aligned(v.byteLength);
  }

  finish(): { packed: PackedTensors; transfer: ArrayBuffer[] } {
    const bytes = new Uint8Array(this.size);
    let at = 0;
    for (const v of this.parts) {
      bytes.set(new Uint8Array(v.buffer, v.byteOffset, v.byteLength), at);
      at += aligned(v.byteLength);
    }
    const layout = Float64Array.from(this.layout);
    const packed = { layout, strings: [...this.stringIndex.keys()], bytes: bytes.buffer, whole: this.whole, errors: this.errors };
    // Moving a small buffer costs more than copying it (request_owned.ts).
    return { packed, transfer: bytes.byteLength >= MIN_MOVED_BYTES ? [bytes.buffer] : [] };
  }
}

class Unpacker {
  private at = 0;

  constructor(
    private readonly p: PackedTensors,
    /** Views into the packed bytes (the receiver keeps them); false: each tensor gets a buffer of its own. */
    private readonly views: boolean,
  ) {}

  num(): number {
    return this.p.layout[this.at++];
  }

  str(): string {
    return this.p.strings[this.num()];
  }

  error(): StatusData {
    return this.p.errors[this.num()];
  }

  /** [name, tensor]. */
  tensor(): [string, HostTensor] {
    const name = this.str();
    const kind = this.num();
    if (kind < 0) return [name, this.p.whole[-1 - kind]];
    const dtype = this.str() as DType;
    const rank = this.num();
    const shape: number[] = [];
    for (let d = 0; d < rank; d++) shape.push(this.num());
    const offset = this.num();
    const view = new ARRAY_KINDS[kind](this.p.bytes, offset, this.num());
    return [name, { dtype, shape, values: this.views ? view : view.slice() }];
  }
}

/**
 * The requests of one run-line message. `moved`: buffers to move to the thread (their
 * tensors go as they are, in the transfer list); every other numeric tensor is copied into
 * the packed bytes.
 */
export function packRequests(requests: RunRequest[], moved: ArrayBuffer[]): { packed: PackedTensors; transfer: ArrayBuffer[] } {
  const p = new Packer();
  const movedSet = new Set(moved);
  p.num(requests.length);
  for (const r of requests) {
    p.str(r.signature);
    const names = Object.keys(r.inputs);
    p.num(names.length);
    for (const n of names) {
      const v = r.inputs[n].values;
      p.tensor(n, r.inputs[n], !Array.isArray(v) && movedSet.has(v.buffer as ArrayBuffer));
    }
    p.num(r.outputKeys.length);
    for (const k of r.outputKeys) p.str(k);
  }
  const out = p.finish();
  out.transfer.push(...moved);
  return out;
}

/** The requests as sent; each tensor owns its buffer (the runtimes may keep or hand them on). */
export function unpackRequests(packed: PackedTensors): RunRequest[] {
  const u = new Unpacker(packed, false);
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
  return requests;
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
  return replies;
}
