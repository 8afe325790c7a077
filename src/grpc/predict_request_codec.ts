// The gRPC PredictRequest deserializer. protobufjs reads a packed float_val one element at a
// time into a plain array: 36–54 ms of the event loop here for a 224×224×3 float input sent
// as float_val (as Java and Go clients build it), where tensor_content takes well under a
// millisecond. A packed float_val / double_val is the values' little-endian bytes, so here each
// input TensorProto's packed float_val and double_val are copied straight into a Float32Array /
// Float64Array and the rest of the message is decoded by protobufjs as before. Anything
// unusual in those two fields (values written one by one, a length that is not a whole number
// of values) leaves the whole tensor to protobufjs, which reads it or fails as it did.
import protobuf from 'protobufjs';
import { protoRoot, TO_OBJECT } from '../proto/index.js';
import { setOwn } from '../core/own_property.js';

// Field numbers and wire types (tensorflow_serving/apis/predict.proto, tensorflow/core/framework/tensor.proto).
const WIRE_LENGTH_DELIMITED = 2;
const REQUEST_INPUTS = 2;
const MAP_KEY = 1;
const MAP_VALUE = 2;
const TENSOR_FLOAT_VAL = 5;
const TENSOR_DOUBLE_VAL = 6;

const LITTLE_ENDIAN = new Uint8Array(Float32Array.of(1).buffer)[3] === 0x3f;
/** As the generic codec decodes requests (service_definitions.ts): int64 as decimal strings. */
const OPTIONS: protobuf.IConversionOptions = { ...TO_OBJECT, longs: String };

let types: { request: protobuf.Type; tensor: protobuf.Type } | undefined;

function messageTypes() {
  return (types ??= {
    request: protoRoot().lookupType('tensorflow.serving.PredictRequest'),
    tensor: protoRoot().lookupType('tensorflow.TensorProto'),
  });
}

/** The bytes of `parts` (views into one message) as one new, aligned buffer. */
function concatBytes(parts: Uint8Array[], total: number): ArrayBuffer {
  const out = new Uint8Array(total);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out.buffer;
}

/** One TensorProto: packed float_val / double_val as typed arrays, the rest via protobufjs. */
function decodeTensor(bytes: Uint8Array): object {
  const { tensor } = messageTypes();
  const r = protobuf.Reader.create(bytes);
  const rest: Uint8Array[] = [];
  const floats: Uint8Array[] = [];
  const doubles: Uint8Array[] = [];
  let floatBytes = 0;
  let doubleBytes = 0;
  while (r.pos < r.len) {
    const start = r.pos;
    const tag = r.uint32();
    const field = tag >>> 3;
    const wire = tag & 7;
    if ((field === TENSOR_FLOAT_VAL || field === TENSOR_DOUBLE_VAL) && wire === WIRE_LENGTH_DELIMITED) {
      const values = r.bytes();
      if (field === TENSOR_FLOAT_VAL) {
        floats.push(values);
        floatBytes += values.length;
      } else {
        doubles.push(values);
        doubleBytes += values.length;
      }
      continue;
    }
    // float_val / double_val written value by value (legal, unusual): protobufjs reads it all.
    if (field === TENSOR_FLOAT_VAL || field === TENSOR_DOUBLE_VAL) return tensor.toObject(tensor.decode(bytes), OPTIONS);
    r.skipType(wire);
    rest.push(bytes.subarray(start, r.pos));
  }
  if (floatBytes % 4 !== 0 || doubleBytes % 8 !== 0) return tensor.toObject(tensor.decode(bytes), OPTIONS);
  const decoded = tensor.toObject(tensor.decode(Buffer.concat(rest)), OPTIONS);
  if (floats.length) decoded.floatVal = new Float32Array(concatBytes(floats, floatBytes));
  if (doubles.length) decoded.doubleVal = new Float64Array(concatBytes(doubles, doubleBytes));
  return decoded;
}

/** PredictRequest bytes → the plain object the generic codec gives, float_val / double_val typed. */
export function deserializePredictRequest(bytes: Buffer): object {
  const { request } = messageTypes();
  if (!LITTLE_ENDIAN) return request.toObject(request.decode(bytes), OPTIONS);
  const r = protobuf.Reader.create(bytes);
  // Every field but the inputs map goes to protobufjs: those fields alone are a PredictRequest.
  const rest: Uint8Array[] = [];
  const inputs: Record<string, object> = {};
  while (r.pos < r.len) {
    const start = r.pos;
    const tag = r.uint32();
    if (tag >>> 3 !== REQUEST_INPUTS || (tag & 7) !== WIRE_LENGTH_DELIMITED) {
      r.skipType(tag & 7);
      rest.push(bytes.subarray(start, r.pos));
      continue;
    }
    // A map entry {key = 1, value = 2}: a missing key is "", a missing value an empty tensor
    // (proto3's defaults), and of two entries with one key the last counts.
    const end = r.uint32() + r.pos;
    let key = '';
    let value: object | undefined;
    while (r.pos < end) {
      const entryTag = r.uint32();
      if (entryTag >>> 3 === MAP_KEY && (entryTag & 7) === WIRE_LENGTH_DELIMITED) key = r.string();
      else if (entryTag >>> 3 === MAP_VALUE && (entryTag & 7) === WIRE_LENGTH_DELIMITED) value = decodeTensor(r.bytes());
      else r.skipType(entryTag & 7);
    }
    setOwn(inputs, key, value ?? decodeTensor(new Uint8Array(0)));
  }
  const decoded = request.toObject(request.decode(Buffer.concat(rest)), OPTIONS);
  decoded.inputs = inputs;
  return decoded;
}
