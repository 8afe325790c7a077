// The few FlatBuffers accessors TF Text's fast tokenizer models need, as `flatc` generates them
// (a root table, its scalar, string and vector fields), read with Google's `flatbuffers`
// runtime. The runtime trusts its offsets (flatc's JavaScript has no verifier, and TF Text's
// C++ kernels do not verify either); a model is a tensor the request may feed, so every offset
// is checked against the buffer here and a bad one fails with `ModelFormatError`.
import { ByteBuffer } from 'flatbuffers';

export class ModelFormatError extends Error {}

const SIZEOF_UOFFSET = 4;

export class FlatTable {
  private constructor(
    private readonly bb: ByteBuffer,
    private readonly pos: number,
  ) {}

  /** The root table of a finished buffer (flatc's `getRootAs…`). */
  static root(bytes: Uint8Array): FlatTable {
    const bb = new ByteBuffer(bytes);
    const t = new FlatTable(bb, 0);
    t.need(0, SIZEOF_UOFFSET, 'the root offset');
    const pos = bb.readUint32(0);
    const table = new FlatTable(bb, pos);
    table.need(pos, SIZEOF_UOFFSET, 'the root table');
    const vtable = pos - bb.readInt32(pos);
    table.need(vtable, 4, 'the root vtable');
    table.need(vtable, bb.readUint16(vtable), 'the root vtable');
    return table;
  }

  private need(at: number, length: number, what: string): void {
    if (!Number.isInteger(at) || at < 0 || length < 0 || at + length > this.bb.capacity()) {
      throw new ModelFormatError(`${what} lies outside the buffer`);
    }
  }

  /** The field's position in the buffer, or 0 when absent (flatc's `__offset`). */
  private field(slot: number, size: number, name: string): number {
    const o = this.bb.__offset(this.pos, 4 + 2 * slot);
    if (o !== 0) this.need(this.pos + o, size, name);
    return o === 0 ? 0 : this.pos + o;
  }

  uint32(slot: number, name: string, fallback = 0): number {
    const at = this.field(slot, 4, name);
    return at ? this.bb.readUint32(at) : fallback;
  }

  int32(slot: number, name: string, fallback = 0): number {
    const at = this.field(slot, 4, name);
    return at ? this.bb.readInt32(at) : fallback;
  }

  bool(slot: number, name: string): boolean {
    const at = this.field(slot, 1, name);
    return at ? this.bb.readUint8(at) !== 0 : false;
  }

  /** A vector field's element start and length, or null when absent. */
  private vector(slot: number, elementSize: number, name: string): { start: number; length: number } | null {
    const at = this.field(slot, SIZEOF_UOFFSET, name);
    if (!at) return null;
    const header = this.bb.__indirect(at);
    this.need(header, SIZEOF_UOFFSET, name);
    const length = this.bb.__vector_len(at);
    const start = this.bb.__vector(at);
    this.need(start, length * elementSize, name);
    return { start, length };
  }

  /** A [uint32] / [int] / struct-of-uint32 vector as 32-bit words (little-endian, as FlatBuffers stores them). */
  words(slot: number, name: string, wordsPerElement = 1): Uint32Array | null {
    const v = this.vector(slot, 4 * wordsPerElement, name);
    if (!v) return null;
    const out = new Uint32Array(v.length * wordsPerElement);
    for (let i = 0; i < out.length; i++) out[i] = this.bb.readUint32(v.start + 4 * i);
    return out;
  }

  /** A [ubyte] / [bool] vector's bytes. */
  bytes(slot: number, name: string): Uint8Array | null {
    const v = this.vector(slot, 1, name);
    return v && this.bb.bytes().subarray(v.start, v.start + v.length);
  }

  /** A string field's bytes (not decoded: TF Text treats them as bytes). */
  string(slot: number, name: string): Uint8Array | null {
    const at = this.field(slot, SIZEOF_UOFFSET, name);
    return at ? this.stringAt(at, name) : null;
  }

  /** A [string] vector's strings. */
  strings(slot: number, name: string): Uint8Array[] | null {
    const v = this.vector(slot, SIZEOF_UOFFSET, name);
    if (!v) return null;
    return Array.from({ length: v.length }, (_, i) => this.stringAt(v.start + SIZEOF_UOFFSET * i, name));
  }

  private stringAt(at: number, name: string): Uint8Array {
    const s = this.bb.__indirect(at);
    this.need(s, SIZEOF_UOFFSET, name);
    const length = this.bb.readUint32(s);
    this.need(s + SIZEOF_UOFFSET, length, name);
    return this.bb.bytes().subarray(s + SIZEOF_UOFFSET, s + SIZEOF_UOFFSET + length);
  }
}
