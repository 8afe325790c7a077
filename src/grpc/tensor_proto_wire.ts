// A request's TensorProto read from its bytes in two steps, so that a request is checked and
// charged to the memory budget before any of its elements exist:
//
//   summarizeTensorProto  one walk over the fields, allocating nothing per element: the dtype,
//                         the shape, where tensor_content is, how many values each *_val field
//                         holds and, for string_val, their total length;
//   decodeTensorProto     the values of the dtype's own field, into a HostTensor.
//
// protobufjs, by contrast, makes one object per string_val element (16 M empty strings in a
// 32 MB message: gigabytes, before anything could look at the dtype).
//
// Semantics are Tensor::FromProto's (tensor.cc), as hostTensorFromProto has them for
// SavedModel constants: tensor_content when non-empty (not for strings), else the dtype's
// *_val field, where fewer values than elements repeats the last one and more are ignored;
// the small integer types share int_val, float16 / bfloat16 keep their bits in half_val.
// Of a field sent twice the last counts (tensor_content, dtype, tensor_shape: protobufjs'
// reading, which tfgate has always used); repeated values accumulate across occurrences,
// packed or not.
import { bytesPerElement, dtypeFromTf, type DType } from '../tensor/dtype.js';
import { numElements, TYPED_ARRAY, type HostTensor, type TensorValues } from '../tensor/host_tensor.js';
import { decodedTensorBytes } from '../tensor/tensor_cost.js';
import { protoRoot } from '../proto/index.js';
import { countVarints, WIRE_FIXED32, WIRE_FIXED64, WIRE_LENGTH_DELIMITED, WIRE_VARINT, WireError, WireReader } from './wire.js';

// tensorflow/core/framework/tensor.proto and tensor_shape.proto.
const TENSOR_DTYPE = 1;
const TENSOR_SHAPE = 2;
const TENSOR_CONTENT = 4;
const SHAPE_DIM = 2;
const DIM_SIZE = 1;
/** The highest *_val field number (uint64_val = 17; float8_val = 18 is raw bytes, unused here). */
const LAST_VAL_FIELD = 17;
/** TensorShape::MaxDimensions(): a proto with more dims is not a valid shape. */
const MAX_DIMS = 254;

/** How a *_val field's elements are written: its wire type when not packed, and how one is read. */
type ValKind = 'float' | 'double' | 'int32' | 'uint32' | 'int64' | 'uint64' | 'bool' | 'bytes';

const FIELD_KIND: Readonly<Record<number, ValKind>> = {
  5: 'float',
  6: 'double',
  7: 'int32',
  8: 'bytes',
  9: 'float', // scomplex_val
  10: 'int64',
  11: 'bool',
  12: 'double', // dcomplex_val
  13: 'int32', // half_val
  16: 'uint32',
  17: 'uint64',
};

/** Which field holds a dtype's values when tensor_content is not used (Tensor::AsProtoField). */
const VAL_FIELD: Readonly<Record<DType, number>> = {
  float32: 5,
  float64: 6,
  int32: 7,
  int16: 7,
  int8: 7,
  uint8: 7,
  uint16: 7,
  int64: 10,
  uint32: 16,
  uint64: 17,
  bool: 11,
  float16: 13,
  bfloat16: 13,
  string: 8,
};

function singleWire(kind: ValKind): number {
  if (kind === 'float') return WIRE_FIXED32;
  if (kind === 'double') return WIRE_FIXED64;
  if (kind === 'bytes') return WIRE_LENGTH_DELIMITED;
  return WIRE_VARINT;
}

/** A TensorProto as counted from its bytes (see summarizeTensorProto). */
export interface TensorProtoSummary {
  /** DT_FLOAT …; undefined for a DataType number the enum does not have. */
  dtype: string | undefined;
  /** Dimension sizes; undefined when the TensorShapeProto is not a valid shape (a size below 0, more than 254 dims, an int64 overflow). */
  shape: number[] | undefined;
  /** The last non-empty tensor_content's [start, end), if any. */
  content?: [number, number];
  /** Values each *_val field holds, by field number. */
  counts: number[];
  /** Total length of the string_val elements. */
  stringBytes: number;
}

let dataTypeNames: Record<number, string> | undefined;

function dataTypeName(n: number): string | undefined {
  dataTypeNames ??= protoRoot().lookupEnum('tensorflow.DataType').valuesById;
  return dataTypeNames[n];
}

/** Bytes per value of a packed fixed-width kind; 0 for varints. */
const FIXED_WIDTH: Readonly<Partial<Record<ValKind, number>>> = { float: 4, double: 8 };

/**
 * Elements of one packed occurrence of a *_val field (its bytes at [start, end)). Fixed-width
 * values must fill it exactly, varints must end in it.
 */
function countPacked(bytes: Uint8Array, kind: ValKind, start: number, end: number): number {
  const width = FIXED_WIDTH[kind];
  if (width === undefined) return countVarints(bytes, start, end);
  if ((end - start) % width !== 0) throw new WireError(`packed ${kind} values of ${end - start} bytes`);
  return (end - start) / width;
}

/**
 * A TensorShapeProto's dims (`keep`), or undefined when they are no valid TensorShape
 * (TensorShape::IsValid: a size below 0, more than 254 dims, more than 2^63 - 1 elements).
 * Without `keep` it only checks the bytes parse.
 */
function readShape(bytes: Uint8Array, start: number, end: number, keep: boolean): number[] | undefined {
  const dims: number[] = [];
  let valid = keep;
  let elements = 1n;
  const r = new WireReader(bytes, start, end);
  const dim = new WireReader(bytes, 0, 0);
  while (!r.done) {
    const tag = r.uint32();
    if (tag >>> 3 !== SHAPE_DIM || (tag & 7) !== WIRE_LENGTH_DELIMITED) {
      r.skip(tag & 7);
      continue;
    }
    const length = r.skipLengthDelimited();
    dim.pos = r.pos - length;
    dim.end = r.pos;
    let size = 0n;
    while (!dim.done) {
      const t = dim.uint32();
      if (t >>> 3 !== DIM_SIZE || (t & 7) !== WIRE_VARINT) dim.skip(t & 7);
      else if (valid) size = BigInt.asIntN(64, dim.uint64());
      else dim.skipVarint();
    }
    if (!valid) continue;
    elements *= size;
    if (size < 0n || dims.length === MAX_DIMS || elements > INT64_MAX) valid = false;
    else dims.push(Number(size));
  }
  return valid ? dims : undefined;
}

const INT64_MAX = 2n ** 63n - 1n;

const STRING_VAL = 8;
const STRING_VAL_TAG = (STRING_VAL << 3) | WIRE_LENGTH_DELIMITED;
/** What skipStringRun last skipped: elements and their total length (results without an object per call). */
let runCount = 0;
let runBytes = 0;

/**
 * Skips string_val elements from `pos` (just after a string_val tag) while the next tag is
 * string_val again; returns where it stopped. A plain function over plain numbers: 16 M empty
 * elements take ~0.2 s here, ~1.3 s field by field through WireReader (whose property
 * accesses made V8 deoptimize this loop).
 */
function skipStringRun(b: Uint8Array, pos: number, end: number): number {
  const tag = STRING_VAL_TAG; // a local: a module binding in the loop costs a check per element
  let n = 0;
  let total = 0;
  for (;;) {
    if (pos >= end) throw new WireError('string_val length past the end of its message');
    let length = b[pos++];
    if (length > 0x7f) {
      // A longer length varint (lengths past 2^28 cannot fit a message anyway).
      length &= 0x7f;
      for (let shift = 7; ; shift += 7) {
        if (pos >= end || shift > 28) throw new WireError('string_val length past the end of its message');
        const byte = b[pos++];
        length += (byte & 0x7f) * 2 ** shift;
        if (byte < 0x80) break;
      }
    }
    if (length > end - pos) throw new WireError('length-delimited field past the end of its message');
    pos += length;
    total += length;
    n++;
    if (pos < end && b[pos] === tag) pos++;
    else break;
  }
  runCount = n;
  runBytes = total;
  return pos;
}

/**
 * One walk over a TensorProto's fields: what it declares and how many values it holds. Throws
 * WireError when the bytes are no TensorProto. Nothing is allocated per element.
 */
export function summarizeTensorProto(bytes: Uint8Array, start: number, end: number): TensorProtoSummary {
  return walkTensorProto(bytes, start, end, new Array<number>(LAST_VAL_FIELD + 1).fill(0))!;
}

/** Throws WireError when the bytes are no TensorProto; allocates nothing (the deserializer's check). */
export function checkTensorProtoWire(bytes: Uint8Array, start: number, end: number): void {
  walkTensorProto(bytes, start, end, null);
}

function walkTensorProto(bytes: Uint8Array, start: number, end: number, counts: number[] | null): TensorProtoSummary | undefined {
  let dtype = 0;
  let shapeStart = -1;
  let shapeEnd = -1;
  let content: [number, number] | undefined;
  let stringBytes = 0;
  const r = new WireReader(bytes, start, end);
  while (!r.done) {
    const tag = r.uint32();
    if (tag === STRING_VAL_TAG) {
      // The bulk of a string tensor: a run of string_val entries, read in one tight loop.
      r.pos = skipStringRun(bytes, r.pos, r.end);
      if (counts) counts[STRING_VAL] += runCount;
      stringBytes += runBytes;
      continue;
    }
    const field = tag >>> 3;
    const wire = tag & 7;
    const kind = FIELD_KIND[field];
    if (kind !== undefined) {
      // A value on its own, a packed run, or (another wire type) an unknown field to protobuf's C++ parser.
      let n = 0;
      if (wire === singleWire(kind)) {
        if (kind === 'bytes') stringBytes += r.skipLengthDelimited();
        else r.skip(wire);
        n = 1;
      } else if (wire === WIRE_LENGTH_DELIMITED) {
        const length = r.uint32();
        if (length > r.end - r.pos) throw new WireError('length-delimited field past the end of its message');
        n = countPacked(bytes, kind, r.pos, r.pos + length);
        r.pos += length;
      } else {
        r.skip(wire);
      }
      if (counts) counts[field] += n;
    } else if (field === TENSOR_DTYPE && wire === WIRE_VARINT) {
      dtype = r.uint32();
    } else if (field === TENSOR_SHAPE && wire === WIRE_LENGTH_DELIMITED) {
      const length = r.skipLengthDelimited();
      shapeStart = r.pos - length;
      shapeEnd = r.pos;
      if (!counts) readShape(bytes, shapeStart, shapeEnd, false);
    } else if (field === TENSOR_CONTENT && wire === WIRE_LENGTH_DELIMITED) {
      // The last one counts, and an empty one means "the *_val field" (as hostTensorFromProto reads it).
      const length = r.skipLengthDelimited();
      content = length > 0 ? [r.pos - length, r.pos] : undefined;
    } else {
      r.skip(wire);
    }
  }
  if (!counts) return undefined;
  const shape = shapeStart >= 0 ? readShape(bytes, shapeStart, shapeEnd, true) : [];
  return { dtype: dataTypeName(dtype), shape, content, counts, stringBytes };
}

/** The checks of a summary a valid request passes, in the order they are made. */
export interface TensorProtoCheck {
  /** tfgate's element type; undefined when tfgate cannot hold the dtype. */
  dtype: DType | undefined;
  /** Elements the shape declares (0 for an invalid shape). */
  elements: number;
  /** Why Tensor::FromProto would refuse it; undefined when it would not. */
  refusal?: string;
  /** What decoding it will hold (decodedTensorBytes). */
  bytes: number;
}

export function checkTensorProto(s: TensorProtoSummary): TensorProtoCheck {
  const dtype = s.dtype === undefined ? undefined : dtypeFromTf(s.dtype);
  const elements = s.shape ? numElements(s.shape) : 0;
  if (!dtype) return { dtype, elements, refusal: `unsupported dtype ${s.dtype ?? 'number'}`, bytes: 0 };
  if (!s.shape) return { dtype, elements, refusal: 'invalid shape', bytes: 0 };
  if (s.content && dtype !== 'string' && s.content[1] - s.content[0] !== elements * bytesPerElement(dtype)) {
    return {
      dtype,
      elements,
      refusal: `tensor_content of ${s.content[1] - s.content[0]} bytes for ${elements} ${dtype} elements`,
      bytes: 0,
    };
  }
  return { dtype, elements, bytes: decodedTensorBytes(dtype, elements, dtype === 'string' ? s.stringBytes : 0) };
}

/** Reads one value of `kind` at the reader into `out[i]`. */
function readValue(r: WireReader, kind: ValKind, out: TensorValues, i: number, view: DataView): void {
  switch (kind) {
    case 'float':
      r.skipBytes(4);
      (out as Float32Array)[i] = view.getFloat32(r.pos - 4, true);
      return;
    case 'double':
      r.skipBytes(8);
      (out as Float64Array)[i] = view.getFloat64(r.pos - 8, true);
      return;
    case 'int32':
      // int32 on the wire: the low 32 bits, signed; narrower storage wraps (TF's static_cast).
      (out as Int32Array)[i] = r.uint32() | 0;
      return;
    case 'uint32':
      (out as Uint32Array)[i] = r.uint32();
      return;
    case 'int64':
      (out as BigInt64Array)[i] = BigInt.asIntN(64, r.uint64());
      return;
    case 'uint64':
      (out as BigUint64Array)[i] = r.uint64();
      return;
    case 'bool':
      (out as Uint8Array)[i] = r.skipVarint() ? 1 : 0;
      return;
    case 'bytes': {
      const length = r.skipLengthDelimited();
      // A copy (of a plain Uint8Array: Buffer#slice would be a view): the element outlives the
      // message and is cloned alone to the executor thread.
      (out as Uint8Array[])[i] = copyBytes(r.bytes, r.pos - length, r.pos);
    }
  }
}

const EMPTY_STRING = new Uint8Array(0);
const LITTLE_ENDIAN = new Uint8Array(Float32Array.of(1).buffer)[3] === 0x3f;

function copyBytes(bytes: Uint8Array, start: number, end: number): Uint8Array<ArrayBuffer> {
  return Uint8Array.prototype.slice.call(bytes, start, end) as Uint8Array<ArrayBuffer>;
}

/**
 * The HostTensor of a TensorProto that checkTensorProto passed, for its dtype. Values are
 * read up to the element count; fewer values than elements repeat the last one.
 * `mayView`: the values may be a view of `bytes` (tensor_content on an element boundary of
 * its buffer) instead of a copy; whether they are is
 * `values.buffer === bytes.buffer`.
 */
export function decodeTensorProto(
  bytes: Uint8Array,
  start: number,
  end: number,
  s: TensorProtoSummary,
  dtype: DType,
  mayView = false,
): HostTensor {
  const shape = s.shape!;
  const n = numElements(shape);
  if (s.content && dtype !== 'string') {
    const Values = TYPED_ARRAY[dtype];
    const at = bytes.byteOffset + s.content[0];
    if (mayView && at % Values.BYTES_PER_ELEMENT === 0) return { dtype, shape, values: new Values(bytes.buffer as ArrayBuffer, at, n) };
    // Copied, so that the values are aligned and own their buffer (they may be moved to the executor thread).
    return { dtype, shape, values: new Values(copyBytes(bytes, s.content[0], s.content[1]).buffer) };
  }
  const field = VAL_FIELD[dtype];
  const kind = FIELD_KIND[field];
  const values: TensorValues = dtype === 'string' ? new Array<Uint8Array>(n) : new TYPED_ARRAY[dtype](n);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let i = 0;
  const r = new WireReader(bytes, start, end);
  while (!r.done && i < n) {
    const tag = r.uint32();
    const wire = tag & 7;
    if (tag >>> 3 !== field) {
      r.skip(wire);
      continue;
    }
    if (wire === singleWire(kind)) {
      readValue(r, kind, values, i++, view);
      continue;
    }
    if (wire !== WIRE_LENGTH_DELIMITED) {
      r.skip(wire);
      continue;
    }
    const length = r.skipLengthDelimited();
    const width = FIXED_WIDTH[kind];
    if (width !== undefined && LITTLE_ENDIAN) {
      // Packed floats / doubles: their little-endian bytes, copied at once (224×224×3 floats
      // sent as float_val, as Java and Go clients build them, took 36–54 ms value by value).
      const m = Math.min(length / width, n - i);
      const run = copyBytes(bytes, r.pos - length, r.pos - length + m * width);
      (values as Float32Array).set(
        width === 4 ? new Float32Array(run.buffer) : (new Float64Array(run.buffer) as unknown as Float32Array),
        i,
      );
      i += m;
      continue;
    }
    const packed = new WireReader(bytes, r.pos - length, r.pos);
    while (!packed.done && i < n) readValue(packed, kind, values, i++, view);
  }
  if (dtype === 'string') {
    const strings = values as Uint8Array[];
    const last = i > 0 ? strings[i - 1] : EMPTY_STRING;
    for (let k = i; k < n; k++) strings[k] = last;
  } else if (i > 0 && i < n) {
    const typed = values as Exclude<TensorValues, Uint8Array[]>;
    (typed as Float32Array).fill((typed as Float32Array)[i - 1], i);
  }
  return { dtype, shape, values };
}
