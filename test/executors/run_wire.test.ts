// The run line's packed messages: what arrives on the other thread (through structured clone,
// as postMessage does it) is what was sent, value for value and storage class for storage
// class, whatever the dtypes, shapes and byte lengths; buffers the caller moves arrive whole.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { packReplies, packRequests, unpackReplies, unpackRequests } from '../../src/executors/run_wire.js';
import type { RunReply, RunRequest } from '../../src/executors/protocol.js';
import type { HostTensor } from '../../src/tensor/host_tensor.js';
import { Code } from '../../src/errors/status.js';

/** What the receiving thread gets: a structured clone with the transfer list moved. */
const post = <T>(message: T, transfer: ArrayBuffer[]): T => structuredClone(message, { transfer });

const tensors = (): Record<string, HostTensor> => ({
  f: { dtype: 'float32', shape: [2, 1], values: Float32Array.of(0.1, -3.5e38) },
  // 3 bytes: the next tensor's bytes must still start aligned for its 8-byte elements.
  b: { dtype: 'bool', shape: [3], values: Uint8Array.of(1, 0, 1) },
  big: { dtype: 'int64', shape: [2], values: BigInt64Array.of(2n ** 62n + 1n, -(2n ** 53n) - 1n) },
  h: { dtype: 'float16', shape: [1], values: Uint16Array.of(0x3c00) },
  d: { dtype: 'float64', shape: [], values: Float64Array.of(Math.PI) },
  empty: { dtype: 'int32', shape: [0, 4], values: new Int32Array(0) },
  s: { dtype: 'string', shape: [2], values: [Uint8Array.of(104, 105), new Uint8Array(0)] },
});

describe('run line wire', () => {
  it("requests arrive as sent; a small message's numeric tensors are views into its buffer", () => {
    const requests: RunRequest[] = [
      { signature: 'serving_default', inputs: tensors(), outputKeys: ['y', 'z'] },
      { signature: 'other', inputs: { f: { dtype: 'float32', shape: [1], values: Float32Array.of(7) } }, outputKeys: [] },
    ];
    const expected = structuredClone(requests);
    const { packed, transfer } = packRequests(7, requests, []);
    const arrived = post(packed, transfer);
    const { id, requests: got } = unpackRequests(arrived);
    assert.equal(id, 7);
    assert.deepEqual(got, expected);
    const message = arrived instanceof ArrayBuffer ? arrived : arrived.flat;
    for (const t of [...Object.values(got[0].inputs), ...Object.values(got[1].inputs)]) {
      if (Array.isArray(t.values)) continue;
      assert.equal(t.values.buffer, message, `${t.dtype}: a view into the message, no buffer of its own`);
    }
  });

  it("a large message's numeric tensors arrive in buffers of their own", () => {
    // Copied, not moved (no transfer list): packed into the message beside a small tensor.
    const large = new Float32Array(20_000).map((_, i) => i / 7);
    const requests: RunRequest[] = [
      { signature: 's', inputs: { large: { dtype: 'float32', shape: [20_000], values: large }, small: tensors().f }, outputKeys: [] },
    ];
    const expected = structuredClone(requests);
    const { packed, transfer } = packRequests(1, requests, []);
    const { requests: got } = unpackRequests(post(packed, transfer));
    assert.deepEqual(got, expected);
    for (const t of Object.values(got[0].inputs)) {
      if (Array.isArray(t.values)) continue;
      assert.equal(t.values.byteLength, t.values.buffer.byteLength, `${t.dtype}: a whole buffer, not a view pinning the message`);
    }
  });

  it('numeric tensors alone travel as one bare buffer; names outside ASCII arrive as sent', () => {
    const requests: RunRequest[] = [
      {
        signature: 'señal_😀',
        inputs: { entrée: { dtype: 'float32', shape: [3], values: Float32Array.of(1, 2, 5) }, x: tensors().big },
        outputKeys: ['y', 'sortie_ß', '\ud800'],
      },
    ];
    const expected = structuredClone(requests);
    expected[0].outputKeys[2] = '\ufffd';
    const { packed, transfer } = packRequests(2 ** 31, requests, []);
    assert.ok(packed instanceof ArrayBuffer);
    assert.deepEqual(unpackRequests(post(packed, transfer)), { id: 2 ** 31, requests: expected });
    const replies: RunReply[] = [{ ok: true, kind: 'run', outputs: { ÿ: tensors().h }, computeMs: 1.5, startedAt: 3, endedAt: 4.5 }];
    const packedReplies = packReplies(replies);
    assert.ok(packedReplies.packed instanceof ArrayBuffer);
    assert.deepEqual(unpackReplies(post(packedReplies.packed, packedReplies.transfer)), structuredClone(replies));
  });

  it('a buffer the caller moves travels whole and leaves this side detached', () => {
    const moved = new Float32Array(300).fill(2.5);
    const requests: RunRequest[] = [{ signature: 's', inputs: { x: { dtype: 'float32', shape: [300], values: moved } }, outputKeys: [] }];
    const { packed, transfer } = packRequests(1, requests, [moved.buffer]);
    const { requests: got } = unpackRequests(post(packed, transfer));
    assert.equal(moved.byteLength, 0);
    assert.deepEqual(Array.from(got[0].inputs.x.values as Float32Array), new Array(300).fill(2.5));
  });

  it('a view into a larger buffer sends its own elements only', () => {
    const all = Float32Array.of(1, 2, 3, 4, 5);
    const requests: RunRequest[] = [
      { signature: 's', inputs: { x: { dtype: 'float32', shape: [2], values: all.subarray(1, 3) } }, outputKeys: [] },
    ];
    const { packed, transfer } = packRequests(1, requests, []);
    assert.deepEqual(Array.from(unpackRequests(post(packed, transfer)).requests[0].inputs.x.values as Float32Array), [2, 3]);
    assert.deepEqual(Array.from(all), [1, 2, 3, 4, 5], 'the sender keeps its buffer');
  });

  it('replies arrive as sent: outputs, times and errors, in order', () => {
    const replies: RunReply[] = [
      { ok: true, kind: 'run', outputs: tensors(), computeMs: 0.125, startedAt: 1_764_000_000_123.456, endedAt: 1_764_000_000_124.5 },
      { ok: false, error: { code: Code.INVALID_ARGUMENT, message: 'bad input' } },
      { ok: true, kind: 'run', outputs: {}, computeMs: 0, startedAt: 1, endedAt: 2 },
    ];
    const expected = structuredClone(replies);
    const { packed, transfer } = packReplies(replies);
    assert.deepEqual(unpackReplies(post(packed, transfer)), expected);
    assert.deepEqual(
      Array.from((replies[0] as { outputs: Record<string, HostTensor> }).outputs.f.values as Float32Array),
      [Math.fround(0.1), Math.fround(-3.5e38)],
      "the thread's outputs stay usable",
    );
  });
});
