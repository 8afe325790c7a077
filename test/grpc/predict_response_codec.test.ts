// The PredictResponse serializer writes float and double outputs straight from their typed
// arrays: its bytes must be exactly protobufjs' for every dtype, and decode to the same values.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { outputTensorProto, serializePredictResponse } from '../../src/grpc/predict_response_codec.js';
import { serviceDefinition } from '../../src/grpc/service_definitions.js';
import { hostTensorFromProto, hostTensorToProtoFields } from '../../src/savedmodel/tensor_proto.js';
import type { HostTensor } from '../../src/tensor/host_tensor.js';

const generic = serviceDefinition('tensorflow.serving.PredictionService').Predict;
const modelSpec = { name: 'm', version: { value: '7' }, signatureName: 'serving_default' };

const outputs: Record<string, HostTensor> = {
  scores: { dtype: 'float32', shape: [2, 3], values: Float32Array.of(0.5, -0, NaN, Infinity, -Infinity, 1.4e-45) },
  wide: { dtype: 'float64', shape: [2], values: Float64Array.of(Math.PI, -1e308) },
  // A view into a larger buffer, as a sliced batch row can be.
  row: { dtype: 'float32', shape: [2], values: new Float32Array(Float32Array.of(9, 1, 2, 9).buffer, 4, 2) },
  none: { dtype: 'float32', shape: [0, 4], values: new Float32Array(0) },
  // Sizes of two-byte varints.
  long: { dtype: 'float32', shape: [1, 300], values: Float32Array.from({ length: 300 }, (_, i) => i / 7) },
  scalar: { dtype: 'float64', shape: [], values: Float64Array.of(2.5) },
  ids: { dtype: 'int32', shape: [3], values: Int32Array.of(-1, 0, 2 ** 31 - 1) },
  big: { dtype: 'int64', shape: [1], values: BigInt64Array.of(-(2n ** 62n)) },
  names: { dtype: 'string', shape: [2], values: [Uint8Array.of(104, 105), new Uint8Array(0)] },
  flags: { dtype: 'bool', shape: [2], values: Uint8Array.of(1, 0) },
  halves: { dtype: 'float16', shape: [1], values: Uint16Array.of(0x3c00) },
};

describe('PredictResponse serializer', () => {
  it('writes the bytes protobufjs writes, for every dtype, with and without a model spec', () => {
    const plain = Object.fromEntries(Object.entries(outputs).map(([k, t]) => [k, hostTensorToProtoFields(t)]));
    const packed = Object.fromEntries(Object.entries(outputs).map(([k, t]) => [k, outputTensorProto(t)]));
    assert.ok(
      packed.scores.floatVal instanceof Float32Array && packed.wide.doubleVal instanceof Float64Array,
      'float and double stay typed arrays',
    );
    assert.deepEqual(serializePredictResponse({ modelSpec, outputs: packed }), generic.responseSerialize({ modelSpec, outputs: plain }));
    assert.deepEqual(serializePredictResponse({ outputs: packed }), generic.responseSerialize({ outputs: plain }));
    assert.deepEqual(serializePredictResponse({ modelSpec }), generic.responseSerialize({ modelSpec }));
  });

  it("writes protobufjs' bytes for answers of float and double outputs only, as Predict gives them (numeric version)", () => {
    const floats = Object.fromEntries(Object.entries(outputs).filter(([, t]) => t.dtype === 'float32' || t.dtype === 'float64'));
    const plain = Object.fromEntries(Object.entries(floats).map(([k, t]) => [k, hostTensorToProtoFields(t)]));
    const packed = Object.fromEntries(Object.entries(floats).map(([k, t]) => [k, outputTensorProto(t)]));
    const specs = [
      { name: 'half_plus_two', version: { value: 123 }, signatureName: 'serving_default' },
      { name: '', version: { value: 0 }, signatureName: '' },
      { name: 'm', version: { value: 2 ** 40 + 3 }, signatureName: 'x' },
      { name: 'modèle', version: { value: 1 }, signatureName: 'serving_default' },
    ];
    for (const spec of specs) {
      assert.deepEqual(
        serializePredictResponse({ modelSpec: spec, outputs: packed }),
        generic.responseSerialize({ modelSpec: spec, outputs: plain }),
      );
      assert.deepEqual(serializePredictResponse({ modelSpec: spec }), generic.responseSerialize({ modelSpec: spec }));
    }
    assert.deepEqual(serializePredictResponse({ outputs: packed }), generic.responseSerialize({ outputs: plain }));
    const one = { y: outputTensorProto({ dtype: 'float32', shape: [3, 1], values: Float32Array.of(2.5, 3, 4.5) }) };
    const onePlain = { y: hostTensorToProtoFields({ dtype: 'float32', shape: [3, 1], values: Float32Array.of(2.5, 3, 4.5) }) };
    assert.deepEqual(
      serializePredictResponse({ modelSpec: specs[0], outputs: one }),
      generic.responseSerialize({ modelSpec: specs[0], outputs: onePlain }),
    );
    assert.deepEqual(serializePredictResponse({ outputs: {} }), generic.responseSerialize({ outputs: {} }));
  });

  it('decodes to the outputs it was given', () => {
    const bytes = serializePredictResponse({
      modelSpec,
      outputs: Object.fromEntries(Object.entries(outputs).map(([k, t]) => [k, outputTensorProto(t)])),
    });
    const decoded = generic.responseDeserialize(bytes) as { outputs: Record<string, object>; modelSpec: unknown };
    assert.deepEqual(decoded.modelSpec, { name: 'm', version: { value: '7' }, versionChoice: 'version', signatureName: 'serving_default' });
    for (const [k, t] of Object.entries(outputs)) {
      const back = hostTensorFromProto(decoded.outputs[k]);
      assert.deepEqual({ dtype: back.dtype, shape: back.shape }, { dtype: t.dtype, shape: t.shape }, k);
      // Strings decode as Buffers: compare their bytes.
      const plain = (v: HostTensor['values']) => Array.from(v as ArrayLike<unknown>, (x) => (x instanceof Uint8Array ? Array.from(x) : x));
      assert.deepEqual(plain(back.values), plain(t.values), k);
    }
  });
});
