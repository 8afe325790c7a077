// releaseBuffer frees a buffer now: it is detached here (its memory goes with the dropped
// message), and what it cannot move is left as it is.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { releaseBuffer } from '../../src/util/release_buffer.js';

describe('releaseBuffer', () => {
  it('detaches a buffer of its own; leaves shared memory and empty buffers alone', () => {
    const owned = new Float32Array(1024);
    releaseBuffer(owned.buffer);
    assert.equal(owned.buffer.byteLength, 0, 'detached');
    assert.equal(owned.length, 0);
    const shared = new Int32Array(new SharedArrayBuffer(64));
    releaseBuffer(shared.buffer);
    assert.equal(shared.length, 16);
    releaseBuffer(new ArrayBuffer(0));
  });
});
