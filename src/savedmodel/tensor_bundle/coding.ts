// Byte-level encoding shared by the table and bundle code: LevelDB-style varints and
// little-endian fixed-width integers (tensorflow/core/lib/core/coding.h).

/** A malformed byte sequence; callers turn it into DATA_LOSS naming the file. */
export class FormatError extends Error {}

/** Growable byte buffer for writers. */
export class ByteSink {
  private buf: Uint8Array;
  length = 0;

  constructor(initialCapacity = 256) {
    this.buf = new Uint8Array(Math.max(16, initialCapacity));
  }

  private reserve(n: number): void {
    if (this.length + n <= this.buf.length) return;
    let cap = this.buf.length * 2;
    while (cap < this.length + n) cap *= 2;
    const next = new Uint8Array(cap);
    next.set(this.buf.subarray(0, this.length));
    this.buf = next;
  }

  byte(b: number): this {
    this.reserve(1);
    this.buf[this.length++] = b & 0xff;
    return this;
  }

  bytes(b: Uint8Array): this {
    this.reserve(b.length);
    this.buf.set(b, this.length);
    this.length += b.length;
    return this;
  }

  /** Unsigned varint of a non-negative safe integer (varint32 and varint64 share the encoding). */
  varint(v: number): this {
    if (!Number.isSafeInteger(v) || v < 0) throw new RangeError(`varint value ${v} is not a non-negative safe integer`);
    while (v >= 0x80) {
      this.byte((v % 0x80) | 0x80);
      v = Math.floor(v / 0x80);
    }
    return this.byte(v);
  }

  fixed32(v: number): this {
    this.reserve(4);
    new DataView(this.buf.buffer, this.buf.byteOffset + this.length, 4).setUint32(0, v >>> 0, true);
    this.length += 4;
    return this;
  }

  fixed64(v: bigint): this {
    this.reserve(8);
    new DataView(this.buf.buffer, this.buf.byteOffset + this.length, 8).setBigUint64(0, v, true);
    this.length += 8;
    return this;
  }

  /** A copy of the bytes written so far. */
  finish(): Uint8Array {
    return this.buf.slice(0, this.length);
  }
}

/** Sequential reader over a byte range; every overrun is a FormatError. */
export class ByteReader {
  pos: number;

  constructor(
    readonly bytes: Uint8Array,
    start = 0,
    readonly limit = bytes.length,
  ) {
    this.pos = start;
  }

  get remaining(): number {
    return this.limit - this.pos;
  }

  /** Varint of at most `maxBytes` bytes (5 for varint32, 10 for varint64); must fit a safe integer. */
  varint(maxBytes = 10): number {
    let result = 0;
    let scale = 1;
    for (let n = 0; n < maxBytes; n++) {
      if (this.pos >= this.limit) throw new FormatError('truncated varint');
      const b = this.bytes[this.pos++];
      result += (b & 0x7f) * scale;
      if (!(b & 0x80)) {
        if (!Number.isSafeInteger(result)) throw new FormatError('varint exceeds 2^53');
        if (maxBytes === 5 && result > 0xffffffff) throw new FormatError('varint32 exceeds 32 bits');
        return result;
      }
      scale *= 128;
    }
    throw new FormatError('varint too long');
  }

  varint32(): number {
    return this.varint(5);
  }

  fixed32(): number {
    if (this.remaining < 4) throw new FormatError('truncated fixed32');
    const v = new DataView(this.bytes.buffer, this.bytes.byteOffset + this.pos, 4).getUint32(0, true);
    this.pos += 4;
    return v;
  }

  take(n: number): Uint8Array {
    if (n > this.remaining) throw new FormatError(`needs ${n} bytes, ${this.remaining} left`);
    const out = this.bytes.subarray(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }
}

export function readFixed32(bytes: Uint8Array, offset: number): number {
  return new DataView(bytes.buffer, bytes.byteOffset + offset, 4).getUint32(0, true);
}

/** Bytewise comparison, as LevelDB's default comparator (memcmp, then length). */
export function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i] - b[i];
  return a.length - b.length;
}
