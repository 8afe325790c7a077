// Which tensors may be moved to an executor thread: only whole buffers their request
// allocated, each named once, and never a signature's defaults.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { MIN_MOVED_BYTES, markRequestOwned, takeTransferList } from '../../src/tensor/request_owned.js';
import { parsePredictRequest } from '../../src/rest/json_tensor.js';
import { parseJsonBody } from '../../src/rest/json_parse.js';
import type { HostTensor } from '../../src/tensor/host_tensor.js';
import type { SignatureSpec } from '../../src/savedmodel/signature_spec.js';

const f32 = (values: Float32Array): HostTensor => ({ dtype: 'float32', shape: [values.length], values });

describe('request-owned tensors', () => {
  it('a marked tensor is listed once, then no longer (a buffer moves once)', () => {
    const t = markRequestOwned(f32(new Float32Array(MIN_MOVED_BYTES / 4)));
    assert.deepEqual(takeTransferList([t, t]), [(t.values as Float32Array).buffer]);
    assert.deepEqual(takeTransferList([t]), []);
  });

  it('a buffer under MIN_MOVED_BYTES is copied, not moved (a move costs more)', () => {
    const small = markRequestOwned(f32(new Float32Array(MIN_MOVED_BYTES / 4 - 1)));
    assert.deepEqual(takeTransferList([small]), []);
  });

  it("a small tensor's buffer is not asked for (V8 would make one for a typed array it keeps on its heap)", () => {
    const small = new Float32Array(3);
    Object.defineProperty(small, 'buffer', { get: () => assert.fail('.buffer read') });
    assert.deepEqual(takeTransferList([f32(small)]), []);
  });

  it('unmarked tensors, views into a larger buffer, shared memory and strings are never listed', () => {
    const whole = new Float32Array(8);
    const view = markRequestOwned(f32(whole.subarray(2, 4)));
    const tail = markRequestOwned(f32(new Float32Array(whole.buffer, 16)));
    const shared = markRequestOwned(f32(new Float32Array(new SharedArrayBuffer(16))));
    const strings = markRequestOwned({ dtype: 'string', shape: [1], values: [Uint8Array.of(97)] });
    assert.deepEqual(takeTransferList([f32(Float32Array.of(1)), view, tail, shared, strings]), []);
  });

  it('REST decoding marks the tensors it builds and not the signature defaults it fills in', () => {
    const defaultK = f32(Float32Array.of(0.5));
    const signature: SignatureSpec = {
      key: 'serving_default',
      inputs: { x: { dtype: 'DT_FLOAT', name: 'x:0', shape: [-1] }, k: { dtype: 'DT_FLOAT', name: 'k:0', shape: [1] } },
      outputs: {},
      defaults: { k: defaultK },
      methodName: 'tensorflow/serving/predict',
    };
    const x = Array.from({ length: MIN_MOVED_BYTES / 4 }, (_, i) => i);
    const { inputs } = parsePredictRequest(
      parseJsonBody(JSON.stringify({ inputs: { x } }), { maxDepth: 100, maxElements: 1000 }),
      signature,
    );
    assert.equal(inputs.k, defaultK);
    assert.deepEqual(takeTransferList(Object.values(inputs)), [(inputs.x.values as Float32Array).buffer]);
  });
});
