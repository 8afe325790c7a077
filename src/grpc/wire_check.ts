// Checks that bytes parse as a protobuf message of a given type, by its schema (protobufjs
// reflection), without building anything: what the request deserializers need for the parts
// they leave in the message (tf.Examples, MultiInference tasks), so that bytes that are no
// request are still refused when the message arrives, as protobufjs' decoding refused them.
// A field sent with another wire type than its own is skipped as an unknown one, as
// protobuf's C++ parser does; nested messages are checked as their own types.
import protobuf from 'protobufjs';
import { WIRE_LENGTH_DELIMITED, WireReader, countVarints, WireError } from './wire.js';

/** Bytes per value of the fixed-width scalar types a packed field may hold. */
const FIXED: Readonly<Record<string, number>> = { double: 8, fixed64: 8, sfixed64: 8, float: 4, fixed32: 4, sfixed32: 4 };
const VARINT = new Set(['int32', 'uint32', 'sint32', 'int64', 'uint64', 'sint64', 'bool']);

function checkPacked(type: string, bytes: Uint8Array, start: number, end: number): void {
  const width = FIXED[type];
  if (width !== undefined) {
    if ((end - start) % width !== 0) throw new WireError(`packed ${type} values of ${end - start} bytes`);
  } else if (VARINT.has(type)) {
    countVarints(bytes, start, end);
  }
}

/** Throws WireError when `bytes[start, end)` is no `type` message. */
export function checkMessage(type: protobuf.Type, bytes: Uint8Array, start: number, end: number): void {
  const r = new WireReader(bytes, start, end);
  while (!r.done) {
    const tag = r.uint32();
    const wire = tag & 7;
    const field = type.fieldsById[tag >>> 3];
    if (!field || wire !== WIRE_LENGTH_DELIMITED) {
      // Unknown, or a scalar value on its own (its wire type is all there is to check).
      r.skip(wire);
      continue;
    }
    const length = r.skipLengthDelimited();
    const s = r.pos - length;
    if (field instanceof protobuf.MapField) {
      checkMapEntry(field, bytes, s, r.pos);
    } else if (field.resolvedType instanceof protobuf.Type) {
      checkMessage(field.resolvedType, bytes, s, r.pos);
    } else if (field.repeated) {
      // A packed run of scalars (enums are varints; strings and bytes are one value each).
      checkPacked(field.resolvedType instanceof protobuf.Enum ? 'int32' : field.type, bytes, s, r.pos);
    }
  }
}

function checkMapEntry(field: protobuf.MapField, bytes: Uint8Array, start: number, end: number): void {
  const r = new WireReader(bytes, start, end);
  while (!r.done) {
    const tag = r.uint32();
    if (tag >>> 3 === 2 && (tag & 7) === WIRE_LENGTH_DELIMITED && field.resolvedType instanceof protobuf.Type) {
      const length = r.skipLengthDelimited();
      checkMessage(field.resolvedType, bytes, r.pos - length, r.pos);
    } else {
      r.skip(tag & 7);
    }
  }
}
