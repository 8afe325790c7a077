// The PredictRequest deserializer reads packed float_val / double_val straight into typed
// arrays: every request must decode to what protobufjs gives (values equal, the two fields as
// typed arrays), including the unusual encodings it leaves to protobufjs.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import protobuf from 'protobufjs';
import { deserializePredictRequest } from '../../src/grpc/predict_request_codec.js';
import { serviceDefinition } from '../../src/grpc/service_definitions.js';
import { hostTensorFromProto, type TensorProtoObject } from '../../src/savedmodel/tensor_proto.js';

const generic = serviceDefinition('tensorflow.serving.PredictionService').Predict;

/** The object with typed arrays made plain, for comparing with protobufjs' own. */
function plain(value: unknown): unknown {
  if (ArrayBuffer.isView(value) && !(value instanceof Uint8Array)) return Array.from(value as Float32Array);
  if (value instanceof Uint8Array) return value;
  if (Array.isArray(value)) return value.map(plain);
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, plain(v)]));
  return value;
}

const request = {
  modelSpec: { name: 'm', version: { value: 3 }, signatureName: 'serving_default' },
  inputs: {
    images: { dtype: 'DT_FLOAT', tensorShape: { dim: [{ size: 2 }, { size: 3 }] }, floatVal: [0.5, -0, NaN, Infinity, -1.5e-45, 3.4028234663852886e38] },
    wide: { dtype: 'DT_DOUBLE', tensorShape: { dim: [{ size: 2 }] }, doubleVal: [Math.PI, -1e308] },
    repeated: { dtype: 'DT_FLOAT', tensorShape: { dim: [{ size: 4 }] }, floatVal: [7] },
    ids: { dtype: 'DT_INT64', tensorShape: { dim: [{ size: 2 }] }, int64Val: ['-9223372036854775808', '5'] },
    raw: { dtype: 'DT_FLOAT', tensorShape: { dim: [{ size: 1 }] }, tensorContent: new Uint8Array(Float32Array.of(2.5).buffer) },
    words: { dtype: 'DT_STRING', tensorShape: { dim: [{ size: 1 }] }, stringVal: [Uint8Array.of(104, 105)] },
    none: { dtype: 'DT_FLOAT', tensorShape: { dim: [{ size: 0 }] } },
  },
  outputFilter: ['y', 'z'],
};

describe('PredictRequest deserializer', () => {
  it('decodes every field as protobufjs does, float_val and double_val as typed arrays', () => {
    const bytes = generic.requestSerialize(request);
    const ours = deserializePredictRequest(bytes) as { inputs: Record<string, TensorProtoObject> };
    assert.ok(ours.inputs.images.floatVal instanceof Float32Array && ours.inputs.wide.doubleVal instanceof Float64Array);
    assert.deepEqual(plain(ours), plain(generic.requestDeserialize(bytes)));
    // The tensors made from them are the same.
    for (const name of Object.keys(request.inputs)) {
      const a = hostTensorFromProto(ours.inputs[name]);
      const b = hostTensorFromProto((generic.requestDeserialize(bytes) as { inputs: Record<string, TensorProtoObject> }).inputs[name]);
      assert.deepEqual(a, b, name);
    }
  });

  it('a packed field in two pieces, a value written on its own, a duplicate key and a bad length decode as protobufjs decodes them', () => {
    const tensor = (fields: (w: protobuf.Writer) => void) => {
      const w = protobuf.Writer.create();
      w.uint32(8).int32(1); // dtype DT_FLOAT
      fields(w);
      return w.finish();
    };
    const entry = (w: protobuf.Writer, key: string, value: Uint8Array) => w.uint32(18).fork().uint32(10).string(key).uint32(18).bytes(value).ldelim();
    const packed = (w: protobuf.Writer, values: number[]) => w.uint32(42).bytes(new Uint8Array(Float32Array.from(values).buffer));
    const w = protobuf.Writer.create();
    entry(w, 'split', tensor((t) => (packed(t, [1, 2]), packed(t, [3]))));
    entry(w, 'unpacked', tensor((t) => t.uint32(45).float(4).uint32(45).float(5)));
    entry(w, 'dup', tensor((t) => packed(t, [6])));
    entry(w, 'dup', tensor((t) => packed(t, [7])));
    w.uint32(10).fork().uint32(10).string('m').ldelim();
    const bytes = Buffer.from(w.finish());
    const ours = deserializePredictRequest(bytes) as { inputs: Record<string, TensorProtoObject> };
    assert.deepEqual(plain(ours), plain(generic.requestDeserialize(bytes)));
    assert.deepEqual(Array.from(ours.inputs.split.floatVal!), [1, 2, 3]);
    assert.deepEqual(Array.from(ours.inputs.dup.floatVal!), [7]);

    const ragged = protobuf.Writer.create();
    entry(ragged, 'x', tensor((t) => t.uint32(42).bytes(Uint8Array.of(0, 0, 128))));
    const raggedBytes = Buffer.from(ragged.finish());
    assert.throws(() => generic.requestDeserialize(raggedBytes));
    assert.throws(() => deserializePredictRequest(raggedBytes));
  });
});
