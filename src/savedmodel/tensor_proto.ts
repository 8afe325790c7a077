// TensorProto (as decoded by protobufjs with TO_OBJECT) ↔ HostTensor.
// TF fills a tensor either from tensor_content (raw little-endian bytes) or from the typed
// *_val fields, where fewer values than elements means "repeat the last one" (a Const of
import { decodedTensorBytes } from '../tensor/tensor_cost.js';
// shape [1000] with float_val [0] is 1000 zeros).
import { bytesPerElement, dtypeFromTf, dtypeToTf, type DType } from '../tensor/dtype.js';
import { allocValues, numElements, TYPED_ARRAY, type HostTensor, type TensorValues } from '../tensor/host_tensor.js';
import { invalidArgument } from '../errors/status.js';

export interface TensorShapeObject {
  dim?: Array<{ size?: number | string; name?: string }>;
  unknownRank?: boolean;
}

export interface TensorProtoObject {
  dtype?: string;
  tensorShape?: TensorShapeObject;
  tensorContent?: Uint8Array;
  halfVal?: number[];
  /** Typed arrays in gRPC Predict's own codecs (src/grpc/predict_request_codec.ts, predict_response_codec.ts). */
  floatVal?: number[] | Float32Array;
  doubleVal?: number[] | Float64Array;
  intVal?: number[];
  stringVal?: Uint8Array[];
  int64Val?: Array<number | string>;
  boolVal?: boolean[];
  uint32Val?: number[];
  uint64Val?: Array<number | string>;
}

/** The typed repeated fields of a TensorProto (float_val, int_val, …). */
type ValField = 'floatVal' | 'doubleVal' | 'intVal' | 'halfVal' | 'uint32Val' | 'int64Val' | 'uint64Val' | 'boolVal' | 'stringVal';

/**
 * Where each dtype's values go when tensor_content is not used, as TF's Tensor::AsProtoField
 * and Tensor::FromProto have it: the small integer types share int_val, and float16 /
 * bfloat16 keep their 16 bits in half_val. The one table for every reader and writer of *_val.
 */
const VAL_FIELD: Readonly<Record<DType, ValField>> = {
  float32: 'floatVal',
  float64: 'doubleVal',
  int32: 'intVal',
  int16: 'intVal',
  int8: 'intVal',
  uint8: 'intVal',
  uint16: 'intVal',
  int64: 'int64Val',
  uint32: 'uint32Val',
  uint64: 'uint64Val',
  bool: 'boolVal',
  float16: 'halfVal',
  bfloat16: 'halfVal',
  string: 'stringVal',
};

function valField(proto: TensorProtoObject, dtype: DType): ArrayLike<unknown> | undefined {
  return (proto as Record<ValField, ArrayLike<unknown> | undefined>)[VAL_FIELD[dtype]];
}

/** Sets `dtype`'s *_val field of a TensorProto object (or protobufjs init object). */
export function setValField(proto: object, dtype: DType, elements: unknown[]): void {
  (proto as Record<ValField, unknown[]>)[VAL_FIELD[dtype]] = elements;
}

/**
 * Values as their *_val field holds them: int64 / uint64 as decimal strings (all 64 bits
 * survive protobufjs), bool as booleans, strings as the same byte arrays, the rest as numbers.
 */
export function toValField(dtype: DType, values: TensorValues): unknown[] {
  switch (dtype) {
    case 'string':
      return values as Uint8Array[];
    case 'int64':
    case 'uint64':
      return Array.from(values as BigInt64Array | BigUint64Array, (x) => x.toString());
    case 'bool':
      return Array.from(values as Uint8Array, (x) => x !== 0);
    default:
      return Array.from(values as Exclude<TensorValues, Uint8Array[] | BigInt64Array | BigUint64Array>);
  }
}

/** A *_val field's elements as typed storage takes them: int64 / uint64 as bigints, bool as 1 / 0. */
function fromValField(dtype: DType, field: ArrayLike<unknown>): ArrayLike<unknown> {
  switch (dtype) {
    case 'int64':
    case 'uint64':
      return Array.from(field, (v) => BigInt(v as number | string));
    case 'bool':
      return Array.from(field, (b) => (b ? 1 : 0));
    default:
      return field;
  }
}

/** Shape of a TensorShapeProto; null for unknown rank. */
export function shapeFromProto(shape: TensorShapeObject | undefined | null): number[] | null {
  if (!shape) return [];
  if (shape.unknownRank) return null;
  return (shape.dim ?? []).map((d) => Number(d.size ?? 0));
}

function shapeToProto(shape: readonly number[] | null): TensorShapeObject {
  if (shape === null) return { unknownRank: true };
  return { dim: shape.map((size) => ({ size })) };
}

/** Reads little-endian raw bytes (tensor_content or a bundle entry) into typed storage. */
function valuesFromBytes(dtype: DType, bytes: Uint8Array, size: number): TensorValues {
  const width = bytesPerElement(dtype);
  if (dtype === 'string') throw invalidArgument('string tensors have no raw byte layout');
  if (bytes.byteLength !== width * size) {
    throw invalidArgument(`tensor of ${size} ${dtype} elements needs ${width * size} bytes, got ${bytes.byteLength}`);
  }
  // Copy so the result is aligned and owns its buffer (the source may be a view into a
  // larger Buffer; Buffer#slice would share it, new Uint8Array(view) copies).
  return new TYPED_ARRAY[dtype](new Uint8Array(bytes).buffer);
}

function fillRepeated<T>(target: { length: number; [i: number]: T }, source: ArrayLike<T>): void {
  if (source.length === 0) return;
  // A packed float_val / double_val decoded as a typed array of the tensor's own type (predict_request_codec.ts).
  if (
    ArrayBuffer.isView(source) &&
    ArrayBuffer.isView(target) &&
    source.length === target.length &&
    source.constructor === target.constructor
  ) {
    return (target as unknown as Float32Array).set(source as unknown as Float32Array);
  }
  for (let i = 0; i < target.length; i++) target[i] = source[Math.min(i, source.length - 1)];
}

/**
 * What decoding a TensorProto would allocate, from its dtype and shape alone (before anything
 * is decoded or copied): a tiny proto may declare a shape of billions of elements that the
 * *_val fields' "repeat the last value" rule would fill. A shape that does not make sense
 * counts as empty (decoding refuses it).
 */
export function tensorProtoFootprint(proto: TensorProtoObject): { elements: number; bytes: number } {
  const dtype = dtypeFromTf(proto.dtype ?? 'DT_INVALID');
  const shape = shapeFromProto(proto.tensorShape) ?? [];
  const n = numElements(shape);
  const elements = Number.isFinite(n) && n > 0 ? n : 0;
  if (!dtype) return { elements, bytes: 0 };
  let stringBytes = 0;
  if (dtype === 'string') for (const v of proto.stringVal ?? []) stringBytes += v.length;
  return { elements, bytes: decodedTensorBytes(dtype, elements, stringBytes) };
}

export function hostTensorFromProto(proto: TensorProtoObject, what = 'tensor'): HostTensor {
  const tfType = proto.dtype ?? 'DT_INVALID';
  const dtype = dtypeFromTf(tfType);
  if (!dtype) throw invalidArgument(`${what}: unsupported dtype ${tfType}`);
  const shape = shapeFromProto(proto.tensorShape) ?? [];
  // TensorShape::IsValid: a stored shape has no unknown or negative dimension.
  const bad = shape.find((d) => !Number.isSafeInteger(d) || d < 0);
  if (bad !== undefined) throw invalidArgument(`${what}: Dimension ${bad} must be >= 0`);
  const size = numElements(shape);
  if (!Number.isSafeInteger(size)) throw invalidArgument(`${what}: shape [${shape.join(',')}] has too many elements`);
  if (proto.tensorContent && proto.tensorContent.length > 0 && dtype !== 'string') {
    return { dtype, shape, values: valuesFromBytes(dtype, proto.tensorContent, size) };
  }
  const values = allocValues(dtype, size);
  fillRepeated(values as { length: number; [i: number]: unknown }, fromValField(dtype, valField(proto, dtype) ?? []));
  return { dtype, shape, values };
}

/** A TensorProto's dtype and shape for `t`, without its values. */
export function tensorProtoHead(t: HostTensor): TensorProtoObject {
  return { dtype: dtypeToTf(t.dtype), tensorShape: shapeToProto(t.shape) };
}

/** HostTensor → TensorProto object using tensor_content for numbers and string_val for strings. */
export function hostTensorToProto(t: HostTensor): TensorProtoObject {
  const proto = tensorProtoHead(t);
  if (t.dtype === 'string') {
    proto.stringVal = t.values as Uint8Array[];
  } else {
    const v = t.values as Exclude<TensorValues, Uint8Array[]>;
    proto.tensorContent = new Uint8Array(v.buffer, v.byteOffset, v.byteLength).slice();
  }
  return proto;
}

/**
 * HostTensor → TensorProto with the typed *_val fields, as TF's Tensor::AsProtoField writes
 * them (what TF Serving answers gRPC Predict with unless --enable_serialization_as_tensor_content).
 */
export function hostTensorToProtoFields(t: HostTensor): TensorProtoObject {
  const proto = tensorProtoHead(t);
  setValField(proto, t.dtype, toValField(t.dtype, t.values));
  return proto;
}
