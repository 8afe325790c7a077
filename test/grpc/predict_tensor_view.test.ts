// A Predict's tensor_content read in place: when grpc-js joined the message into a buffer of
// its own (the message after its 5-byte frame header) and the values start on an element
// boundary of it, the tensor views the message and the buffer is moved to the executor
// thread with it (no copy of the values on the event loop). Every other tensor gets storage
// of its own, as before: an unaligned tensor_content, a second tensor of the same message, a
// message whose buffer holds anything else.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { deserializePredictRequest } from '../../src/grpc/predict_request_codec.js';
import { predictInputs } from '../../src/grpc/prediction_service_grpc.js';
import { protoRoot } from '../../src/proto/index.js';
import { UNLIMITED_BUDGET } from '../../src/services/memory_budget.js';
import type { SignatureSpec } from '../../src/savedmodel/signature_spec.js';
import type { HostTensor } from '../../src/tensor/host_tensor.js';
import { takeTransferList } from '../../src/tensor/request_owned.js';

const FLOATS = 4096;
/** A signature of float inputs with these names. */
const signatureOf = (names: string[]): SignatureSpec => ({
  key: 'serving_default',
  methodName: 'tensorflow/serving/predict',
  inputs: Object.fromEntries(names.map((n) => [n, { name: `${n}:0`, dtype: 'DT_FLOAT', shape: null }])),
  outputs: { y: { name: 'y:0', dtype: 'DT_FLOAT', shape: null } },
  defaults: {},
});

const valuesOf = (seed: number) => Float32Array.from({ length: FLOATS }, (_, i) => Math.sin(i * 0.37 + seed));
const tensorProto = (values: Float32Array) => ({
  dtype: 1, // DT_FLOAT
  tensorShape: { dim: [{ size: values.length }] },
  tensorContent: new Uint8Array(values.buffer),
});

/** PredictRequest bytes; the model name's length moves the tensors within the message. */
function encode(modelName: string, inputs: Record<string, Float32Array>): Uint8Array {
  const type = protoRoot().lookupType('tensorflow.serving.PredictRequest');
  const message = {
    modelSpec: { name: modelName },
    inputs: Object.fromEntries(Object.entries(inputs).map(([k, v]) => [k, tensorProto(v)])),
  };
  return type.encode(type.fromObject(message)).finish();
}

/** The message as grpc-js hands it to the deserializer: after its frame header, in a buffer of its own. */
function received(message: Uint8Array): Buffer {
  const framed = Buffer.alloc(5 + message.byteLength);
  framed.writeUInt32BE(message.byteLength, 1);
  framed.set(message, 5);
  return framed.subarray(5);
}

/** Where `values`' bytes start in the received buffer. */
function offsetIn(message: Buffer, values: Float32Array): number {
  return message.byteOffset + message.indexOf(Buffer.from(values.buffer));
}

/** A model name (1–4 characters) that puts `values` at `aligned` or not on a 4-byte boundary of its buffer. */
function modelNameFor(aligned: boolean, values: Float32Array): string {
  for (const name of ['m', 'mm', 'mmm', 'mmmm']) {
    const at = offsetIn(received(encode(name, { a: values })), values);
    if ((at % 4 === 0) === aligned) return name;
  }
  throw new Error('no such name');
}

function read(message: Buffer, names = ['a']): Record<string, HostTensor> {
  const request = deserializePredictRequest(message);
  return predictInputs(request, signatureOf(names), UNLIMITED_BUDGET.claim(), Number.MAX_SAFE_INTEGER).inputs;
}

describe('Predict tensor_content read in place', () => {
  it('aligned in a message of its own: the tensor views the message, and the message buffer is what moves', () => {
    const a = valuesOf(1);
    const message = received(encode(modelNameFor(true, a), { a }));
    const { a: t } = read(message);
    assert.deepEqual(t.values, a);
    assert.equal(t.values.buffer, message.buffer, 'a view of the message');
    assert.equal((t.values as Float32Array).byteOffset, offsetIn(message, a));
    assert.deepEqual(takeTransferList([t]), [message.buffer]);
  });

  it('unaligned: a copy of its own, which moves', () => {
    const a = valuesOf(2);
    const message = received(encode(modelNameFor(false, a), { a }));
    const { a: t } = read(message);
    assert.deepEqual(t.values, a);
    assert.notEqual(t.values.buffer, message.buffer);
    assert.equal((t.values as Float32Array).byteLength, (t.values.buffer as ArrayBuffer).byteLength);
    assert.deepEqual(takeTransferList([t]), [t.values.buffer]);
  });

  it('two tensors: one views the message, the other gets a buffer of its own; both move, the message once', () => {
    const [a, b] = [valuesOf(3), valuesOf(4)];
    // Both aligned: the second lies a whole number of floats' worth of bytes after the first.
    const name = ['m', 'mm', 'mmm', 'mmmm'].find((n) => {
      const m = received(encode(n, { a, b }));
      return offsetIn(m, a) % 4 === 0 && offsetIn(m, b) % 4 === 0;
    })!;
    const message = received(encode(name, { a, b }));
    const inputs = read(message, ['a', 'b']);
    assert.deepEqual(inputs.a.values, a);
    assert.deepEqual(inputs.b.values, b);
    const viewing = Object.values(inputs).filter((t) => (t.values as Float32Array).buffer === message.buffer);
    assert.equal(viewing.length, 1);
    const list = takeTransferList(Object.values(inputs));
    assert.equal(list.length, 2);
    assert.equal(new Set(list).size, 2);
    assert.ok(list.includes(message.buffer as ArrayBuffer));
  });

  it('a message whose buffer holds more than it and its frame header: copies, the buffer never moves', () => {
    const a = valuesOf(5);
    const framed = received(encode(modelNameFor(true, a), { a }));
    // The same bytes with something after them in the buffer (as a shared slab would have).
    const shared = Buffer.alloc(framed.byteOffset + framed.byteLength + 64);
    framed.copy(shared, framed.byteOffset);
    const message = shared.subarray(framed.byteOffset, framed.byteOffset + framed.byteLength);
    const { a: t } = read(message);
    assert.deepEqual(t.values, a);
    assert.notEqual(t.values.buffer, message.buffer);
    assert.ok(!takeTransferList([t]).includes(message.buffer as ArrayBuffer));
  });
});
