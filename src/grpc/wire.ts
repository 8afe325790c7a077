// The protobuf wire format read by hand where protobufjs would build one object per element
// (predict_request_codec.ts, tensor_proto_wire.ts): tags, varints and length-delimited
// fields over a byte array, without allocating. protobufjs' Reader does the same job about
// 3× slower (16 M two-byte string_val entries: ~750 ms against ~200 ms here), and this walk
// runs on the event loop.
//
// A message that does not parse (a varint past the end or longer than 10 bytes, a length
// past its message, an end of group without its start, wire types 6 and 7) throws WireError.

export const WIRE_VARINT = 0;
export const WIRE_FIXED64 = 1;
export const WIRE_LENGTH_DELIMITED = 2;
const WIRE_START_GROUP = 3;
const WIRE_END_GROUP = 4;
export const WIRE_FIXED32 = 5;

export class WireError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WireError';
  }
}

const TWO_32 = 2 ** 32;

/** A cursor over `bytes[pos, end)`. Fields are read in order; nothing is copied. */
export class WireReader {
  pos: number;

  /** Where the message ends; a reader may be moved to another message of the same bytes. */
  end: number;

  constructor(
    readonly bytes: Uint8Array,
    start = 0,
    end = bytes.length,
  ) {
    this.pos = start;
    this.end = end;
  }

  get done(): boolean {
    return this.pos >= this.end;
  }

  /** A varint's low 32 bits as an unsigned number (tags, lengths, enums, int32 / uint32 values). */
  uint32(): number {
    const b = this.bytes;
    let pos = this.pos;
    if (pos >= this.end) throw new WireError('varint past the end of its message');
    let byte = b[pos++];
    let value = byte & 0x7f;
    if (byte > 0x7f) {
      let shift = 7;
      do {
        if (pos >= this.end) throw new WireError('varint past the end of its message');
        byte = b[pos++];
        // Bits past 32 are dropped, as protobuf's uint32 reading does; up to 10 bytes in all.
        if (shift < 32) value += (byte & 0x7f) * 2 ** shift;
        shift += 7;
        if (shift > 70) throw new WireError('varint longer than 10 bytes');
      } while (byte > 0x7f);
      value %= TWO_32;
    }
    this.pos = pos;
    return value;
  }

  /** A varint as a 64-bit unsigned bigint (int64 / uint64 values: the caller reinterprets). */
  uint64(): bigint {
    const b = this.bytes;
    let pos = this.pos;
    let value = 0n;
    let shift = 0n;
    for (;;) {
      if (pos >= this.end) throw new WireError('varint past the end of its message');
      const byte = b[pos++];
      value |= BigInt(byte & 0x7f) << shift;
      if (byte < 0x80) break;
      shift += 7n;
      if (shift >= 70n) throw new WireError('varint longer than 10 bytes');
    }
    this.pos = pos;
    return BigInt.asUintN(64, value);
  }

  /** Skips one varint; returns false for a zero value (what a bool needs to know). */
  skipVarint(): boolean {
    const b = this.bytes;
    let pos = this.pos;
    let nonZero = false;
    for (let n = 0; ; n++) {
      if (pos >= this.end) throw new WireError('varint past the end of its message');
      if (n === 10) throw new WireError('varint longer than 10 bytes');
      const byte = b[pos++];
      if (byte & 0x7f) nonZero = true;
      if (byte < 0x80) break;
    }
    this.pos = pos;
    return nonZero;
  }

  /** A length-delimited field's extent: [start, end) of its bytes, the cursor after them. */
  lengthDelimited(): [number, number] {
    const length = this.uint32();
    const start = this.pos;
    if (length > this.end - start) throw new WireError('length-delimited field past the end of its message');
    this.pos = start + length;
    return [start, this.pos];
  }

  /** Skips a length-delimited field's bytes; returns their length. */
  skipLengthDelimited(): number {
    const length = this.uint32();
    if (length > this.end - this.pos) throw new WireError('length-delimited field past the end of its message');
    this.pos += length;
    return length;
  }

  /** Skips `n` bytes of a fixed-width value. */
  skipBytes(n: number): void {
    if (n > this.end - this.pos) throw new WireError('fixed-width value past the end of its message');
    this.pos += n;
  }

  /** Skips the value of a field of this wire type. */
  skip(wire: number): void {
    switch (wire) {
      case WIRE_VARINT:
        this.skipVarint();
        return;
      case WIRE_FIXED64:
        this.skipBytes(8);
        return;
      case WIRE_LENGTH_DELIMITED:
        this.skipLengthDelimited();
        return;
      case WIRE_FIXED32:
        this.skipBytes(4);
        return;
      case WIRE_START_GROUP: {
        // A (deprecated) group in an unknown field: skipped to its end, nested ones too.
        for (let depth = 1; depth > 0;) {
          const w = this.uint32() & 7;
          if (w === WIRE_START_GROUP) depth++;
          else if (w === WIRE_END_GROUP) depth--;
          else this.skip(w);
        }
        return;
      }
      default:
        // An end of group with no start, or wire types 6 and 7, which do not exist.
        throw new WireError(`wire type ${wire} where it cannot be`);
    }
  }
}

/** Varints in `bytes[start, end)` (a packed field of varints); throws when one is cut short or too long. */
export function countVarints(bytes: Uint8Array, start: number, end: number): number {
  let n = 0;
  let run = 0;
  for (let i = start; i < end; i++) {
    if (bytes[i] < 0x80) {
      n++;
      run = 0;
    } else if (++run === 10) {
      throw new WireError('varint longer than 10 bytes');
    }
  }
  if (run > 0) throw new WireError('packed varint cut short');
  return n;
}
