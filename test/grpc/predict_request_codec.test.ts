// The PredictRequest deserializer keeps the inputs and the output_filter in the message and
// the Predict handler reads them from it (summary, checks, then decode): every request must
// give the tensors protobufjs' decoding gives (hostTensorFromProto of its TensorProto), for
// every *_val field, packed or not, split, repeated, with duplicates and tensor_content, and
// bytes that are no PredictRequest must still be refused by the deserializer.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import protobuf from 'protobufjs';
import { deserializePredictRequest, readInputEntries, readOutputFilter } from '../../src/grpc/predict_request_codec.js';
import { checkTensorProto, decodeTensorProto, summarizeTensorProto } from '../../src/grpc/tensor_proto_wire.js';
import { serviceDefinition } from '../../src/grpc/service_definitions.js';
import { hostTensorFromProto, type TensorProtoObject } from '../../src/savedmodel/tensor_proto.js';
import type { HostTensor } from '../../src/tensor/host_tensor.js';

const generic = serviceDefinition('tensorflow.serving.PredictionService').Predict;

/** Our reading of every input of a serialized request, as HostTensors (or the refusal). */
function ours(bytes: Buffer): Record<string, HostTensor | string> {
  const request = deserializePredictRequest(bytes);
  const out: Record<string, HostTensor | string> = {};
  for (const [alias, [start, end]] of readInputEntries(request)) {
    const summary = summarizeTensorProto(request.bytes, start, end);
    const check = checkTensorProto(summary);
    out[alias] = check.refusal ?? decodeTensorProto(request.bytes, start, end, summary, check.dtype!);
  }
  return out;
}

/** protobufjs' reading, through hostTensorFromProto. */
function theirs(bytes: Buffer): Record<string, HostTensor | string> {
  const inputs = (generic.requestDeserialize(bytes) as { inputs: Record<string, TensorProtoObject> }).inputs;
  const out: Record<string, HostTensor | string> = {};
  for (const [alias, proto] of Object.entries(inputs)) {
    try {
      out[alias] = hostTensorFromProto(proto);
    } catch {
      out[alias] = 'refused';
    }
  }
  return out;
}

const plain = (r: Record<string, HostTensor | string>) =>
  Object.fromEntries(
    Object.entries(r).map(([k, v]) => [
      k,
      typeof v === 'string'
        ? 'refused'
        : {
            dtype: v.dtype,
            shape: v.shape,
            values: Array.from(v.values as ArrayLike<unknown>, (x) => (x instanceof Uint8Array ? Array.from(x) : x)),
          },
    ]),
  );

const dims = (...sizes: number[]) => ({ dim: sizes.map((size) => ({ size })) });

const request = {
  modelSpec: { name: 'm', version: { value: 3 }, signatureName: 'serving_default' },
  inputs: {
    images: { dtype: 'DT_FLOAT', tensorShape: dims(2, 3), floatVal: [0.5, -0, NaN, Infinity, -1.5e-45, 3.4028234663852886e38] },
    wide: { dtype: 'DT_DOUBLE', tensorShape: dims(2), doubleVal: [Math.PI, -1e308] },
    repeated: { dtype: 'DT_FLOAT', tensorShape: dims(4), floatVal: [7] },
    extra: { dtype: 'DT_FLOAT', tensorShape: dims(2), floatVal: [1, 2, 3, 4] },
    ids: { dtype: 'DT_INT64', tensorShape: dims(3), int64Val: ['-9223372036854775808', '5'] },
    unsigned: { dtype: 'DT_UINT64', tensorShape: dims(2), uint64Val: ['18446744073709551615', '1'] },
    u32: { dtype: 'DT_UINT32', tensorShape: dims(2), uint32Val: [4294967295, 0] },
    ints: { dtype: 'DT_INT32', tensorShape: dims(3), intVal: [-1, 2147483647, -2147483648] },
    bytes8: { dtype: 'DT_INT8', tensorShape: dims(3), intVal: [-1, 127, 300] },
    u8: { dtype: 'DT_UINT8', tensorShape: dims(2), intVal: [255, -1] },
    flags: { dtype: 'DT_BOOL', tensorShape: dims(3), boolVal: [true, false, true] },
    halves: { dtype: 'DT_HALF', tensorShape: dims(2), halfVal: [15360, 48128] },
    raw: { dtype: 'DT_FLOAT', tensorShape: dims(1), tensorContent: new Uint8Array(Float32Array.of(2.5).buffer) },
    rawInts: { dtype: 'DT_INT64', tensorShape: dims(2), tensorContent: new Uint8Array(BigInt64Array.of(-2n, 9n).buffer) },
    words: { dtype: 'DT_STRING', tensorShape: dims(3), stringVal: [Uint8Array.of(104, 105), Uint8Array.of()] },
    noWords: { dtype: 'DT_STRING', tensorShape: dims(2) },
    scalar: { dtype: 'DT_FLOAT', floatVal: [9] },
    none: { dtype: 'DT_FLOAT', tensorShape: dims(0) },
    zeros: { dtype: 'DT_INT32', tensorShape: dims(2) },
    wrongContent: { dtype: 'DT_FLOAT', tensorShape: dims(2), tensorContent: new Uint8Array(4) },
    noDtype: { tensorShape: dims(1), floatVal: [1] },
    complex: { dtype: 'DT_COMPLEX64', tensorShape: dims(1), scomplexVal: [1, 2] },
    negative: { dtype: 'DT_FLOAT', tensorShape: dims(-1, -1), floatVal: [1] },
  },
  outputFilter: ['y', 'z'],
};

describe('PredictRequest deserializer and TensorProto reader', () => {
  it('give every input the tensor protobufjs and hostTensorFromProto give, and refuse what they refuse', () => {
    const bytes = generic.requestSerialize(request);
    const expected = plain(theirs(bytes));
    // TF refuses a negative dim (TensorShape::IsValid); hostTensorFromProto took [-1, -1] as 1 element.
    expected.negative = 'refused';
    assert.deepEqual(plain(ours(bytes)), expected);
    const wire = deserializePredictRequest(bytes);
    assert.deepEqual(wire.modelSpec, (generic.requestDeserialize(bytes) as { modelSpec: unknown }).modelSpec);
    assert.deepEqual(readOutputFilter(wire), ['y', 'z']);
    assert.equal(wire.inputEntries, Object.keys(request.inputs).length);
  });

  const tensor = (fields: (w: protobuf.Writer) => void, dtype = 1) => {
    const w = protobuf.Writer.create();
    w.uint32(8).int32(dtype);
    fields(w);
    return w.finish();
  };
  const entry = (w: protobuf.Writer, key: string, value: Uint8Array) =>
    w.uint32(18).fork().uint32(10).string(key).uint32(18).bytes(value).ldelim();
  const packed = (w: protobuf.Writer, values: number[]) => w.uint32(42).bytes(new Uint8Array(Float32Array.from(values).buffer));
  const shape = (w: protobuf.Writer, ...sizes: number[]) => {
    w.uint32(18).fork();
    for (const s of sizes) w.uint32(18).fork().uint32(8).int64(s).ldelim();
    w.ldelim();
  };

  it('a packed field in two pieces, values written one by one, mixed, a duplicate key: as protobufjs reads them', () => {
    const w = protobuf.Writer.create();
    entry(
      w,
      'split',
      tensor((t) => (shape(t, 3), packed(t, [1, 2]), packed(t, [3]))),
    );
    entry(
      w,
      'unpacked',
      tensor((t) => (shape(t, 2), t.uint32(45).float(4).uint32(45).float(5))),
    );
    entry(
      w,
      'mixed',
      tensor((t) => (shape(t, 4), t.uint32(45).float(4), packed(t, [5, 6]), t.uint32(45).float(7))),
    );
    entry(
      w,
      'ints',
      tensor((t) => (shape(t, 3), t.uint32(56).int32(-5), t.uint32(58).fork().int32(6).int32(-7).ldelim()), 3),
    );
    entry(
      w,
      'dup',
      tensor((t) => (shape(t, 1), packed(t, [6]))),
    );
    entry(
      w,
      'dup',
      tensor((t) => (shape(t, 1), packed(t, [7]))),
    );
    entry(
      w,
      'strings',
      tensor((t) => (shape(t, 2), t.uint32(66).bytes(Uint8Array.of(1, 2)), t.uint32(66).bytes(Uint8Array.of(3))), 7),
    );
    w.uint32(10).fork().uint32(10).string('m').ldelim();
    const bytes = Buffer.from(w.finish());
    assert.deepEqual(plain(ours(bytes)), plain(theirs(bytes)));
    assert.deepEqual(Array.from((ours(bytes).mixed as HostTensor).values as Float32Array), [4, 5, 6, 7]);
    assert.deepEqual(Array.from((ours(bytes).dup as HostTensor).values as Float32Array), [7]);
  });

  it('bytes that are no PredictRequest are refused by the deserializer, as protobufjs refused them', () => {
    const bad = [
      (t: protobuf.Writer) => t.uint32(42).bytes(Uint8Array.of(0, 0, 128)), // packed floats of 3 bytes
      (t: protobuf.Writer) => t.uint32(58).bytes(Uint8Array.of(0x80)), // a packed varint cut short
      (t: protobuf.Writer) => t.uint32(66).uint32(10), // a string_val past the end
      (t: protobuf.Writer) => t.uint32(18).bytes(Uint8Array.of(18, 5, 8)), // a dim past the end of its shape
    ];
    for (const fields of bad) {
      const w = protobuf.Writer.create();
      entry(w, 'x', tensor(fields));
      const bytes = Buffer.from(w.finish());
      assert.throws(() => generic.requestDeserialize(bytes));
      assert.throws(() => deserializePredictRequest(bytes));
    }
  });

  it('counts string_val without decoding it: elements, their bytes, and what decoding would hold', () => {
    const n = 20_000;
    const w = protobuf.Writer.create();
    w.uint32(8).int32(7);
    shape(w, n);
    for (let i = 0; i < n; i++) w.uint32(66).bytes(Uint8Array.of(i & 0xff));
    const bytes = w.finish();
    const summary = summarizeTensorProto(bytes, 0, bytes.length);
    assert.equal(summary.counts[8], n);
    assert.equal(summary.stringBytes, n);
    const check = checkTensorProto(summary);
    assert.equal(check.dtype, 'string');
    assert.equal(check.elements, n);
    // 192 bytes per element's own Uint8Array, and its byte twice (tensor_cost.ts).
    assert.equal(check.bytes, n * 192 + 2 * n);
  });

  it('a shape of more than 254 dims is refused, as TensorShape::IsValid refuses it', () => {
    const w = protobuf.Writer.create();
    w.uint32(8).int32(1);
    shape(w, ...new Array(255).fill(1));
    const bytes = w.finish();
    assert.match(checkTensorProto(summarizeTensorProto(bytes, 0, bytes.length)).refusal ?? '', /invalid shape/);
  });
});
