// The gRPC PredictResponse serializer. protobufjs wants a repeated float as a plain array
// (the output copied into one first) and writes a packed field one element at a time, an
// operation object per value: 85–133 ms of the event loop here for a 224×224×3 float
// output, 5–6 ms when written as below. float_val and double_val are packed fixed-width
// fields: on the wire, the values' little-endian bytes. So for float and double outputs
// those bytes are written straight from the output's typed array, after the rest of the
// TensorProto as protobufjs encodes it — the same bytes protobufjs would write, since it too
// writes fields in number order and float_val / double_val come after every other field such
// a tensor sets. Other dtypes go through protobufjs as before.
import protobuf from 'protobufjs';
import { protoRoot } from '../proto/index.js';
import { hostTensorToProtoFields, tensorProtoHead, type TensorProtoObject } from '../savedmodel/tensor_proto.js';
import type { HostTensor } from '../tensor/host_tensor.js';

interface PredictResponseObject {
  modelSpec?: object;
  /** float_val / double_val may be the output's typed array (outputTensorProto). */
  outputs?: Record<string, TensorProtoObject>;
}

const LITTLE_ENDIAN = new Uint8Array(Float32Array.of(1).buffer)[3] === 0x3f;

// Field numbers and wire types (tensorflow_serving/apis/predict.proto, tensorflow/core/framework/tensor.proto).
const LENGTH_DELIMITED = 2;
const tag = (field: number) => (field << 3) | LENGTH_DELIMITED;
const RESPONSE_OUTPUTS = 1;
const RESPONSE_MODEL_SPEC = 2;
const MAP_KEY = 1;
const MAP_VALUE = 2;
const TENSOR_FLOAT_VAL = 5;
const TENSOR_DOUBLE_VAL = 6;

/** An output as TF Serving answers Predict (the typed *_val fields), float and double kept packed. */
export function outputTensorProto(t: HostTensor): TensorProtoObject {
  if (!LITTLE_ENDIAN || (t.dtype !== 'float32' && t.dtype !== 'float64')) return hostTensorToProtoFields(t);
  // dtype and shape as protobufjs takes them; the values stay where they are.
  const head = tensorProtoHead(t);
  return t.dtype === 'float32' ? { ...head, floatVal: t.values as Float32Array } : { ...head, doubleVal: t.values as Float64Array };
}

let types: { tensor: protobuf.Type; modelSpec: protobuf.Type } | undefined;

function messageTypes() {
  return (types ??= {
    tensor: protoRoot().lookupType('tensorflow.TensorProto'),
    modelSpec: protoRoot().lookupType('tensorflow.serving.ModelSpec'),
  });
}

function writeTensor(t: TensorProtoObject, w: protobuf.Writer): void {
  const { tensor } = messageTypes();
  const { floatVal, doubleVal, ...rest } = t;
  const packed =
    floatVal instanceof Float32Array
      ? { field: TENSOR_FLOAT_VAL, values: floatVal }
      : doubleVal instanceof Float64Array
        ? { field: TENSOR_DOUBLE_VAL, values: doubleVal }
        : undefined;
  if (!packed) return void tensor.encode(tensor.fromObject(t), w);
  tensor.encode(tensor.fromObject(rest), w);
  // proto3 leaves an empty packed field out.
  if (packed.values.length)
    w.uint32(tag(packed.field)).bytes(new Uint8Array(packed.values.buffer, packed.values.byteOffset, packed.values.byteLength));
}

/** PredictResponse (a PredictResponseObject) → its wire bytes. */
export function serializePredictResponse(response: object): Buffer {
  const value = response as PredictResponseObject;
  const { modelSpec } = messageTypes();
  const w = protobuf.Writer.create();
  // A map field is a repeated entry message {key = 1, value = 2}.
  for (const [key, t] of Object.entries(value.outputs ?? {})) {
    w.uint32(tag(RESPONSE_OUTPUTS)).fork().uint32(tag(MAP_KEY)).string(key);
    writeTensor(t, w.uint32(tag(MAP_VALUE)).fork());
    w.ldelim().ldelim();
  }
  if (value.modelSpec) modelSpec.encode(modelSpec.fromObject(value.modelSpec), w.uint32(tag(RESPONSE_MODEL_SPEC)).fork()).ldelim();
  const bytes = w.finish();
  // Under Node protobufjs already writes into a Buffer: no second copy.
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
