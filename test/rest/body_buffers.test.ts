// Large bodies are read into buffers used before (body_buffers.ts): a parser thread moves each
// body's buffer back once it is done with it, and the next large body is read into it. What a
// body reads as is its own bytes only, never a longer body's left in the buffer after its end.
import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import { BodyBuffers, MIN_BUFFER_BYTES } from '../../src/rest/body_buffers.js';
import { BodyParserPool } from '../../src/rest/body_parser_pool.js';
import { MemoryBudget, MemoryClaim } from '../../src/services/memory_budget.js';
import type { HostTensor } from '../../src/tensor/host_tensor.js';
import { halfPlusTwoSignatures } from '../helpers/fake_versions.js';

const LIMITS = { jsonMaxDepth: 8, jsonMaxElements: 1 << 20 };
const SIGNATURE = halfPlusTwoSignatures().serving_default;

describe('BodyBuffers', () => {
  it('lends a view of the size asked for at the start of a buffer of its own, a power of two of at least 256 KiB', () => {
    const buffers = new BodyBuffers();
    const small = buffers.take(1000);
    assert.equal(small.byteLength, 1000);
    assert.equal(small.byteOffset, 0);
    assert.equal(small.buffer.byteLength, MIN_BUFFER_BYTES);
    const large = buffers.take(3_370_991);
    assert.equal(large.buffer.byteLength, 4 * 1024 * 1024);
    assert.ok(buffers.lentBuffer(small) && buffers.lentBuffer(large));
    assert.equal(buffers.lentBuffer(new Uint8Array(1000)), false);
    assert.equal(buffers.lentBuffer(large.subarray(1)), false, 'a view past the start is not the body');
  });

  it('reads the next body into a buffer given back, the smallest that fits', () => {
    const buffers = new BodyBuffers();
    const big = new ArrayBuffer(8 * 1024 * 1024);
    const mid = new ArrayBuffer(1024 * 1024);
    buffers.give(big);
    buffers.give(mid);
    assert.deepEqual(buffers.size, { buffers: 2, bytes: 9 * 1024 * 1024 });
    assert.equal(buffers.take(600_000).buffer, mid);
    assert.equal(buffers.take(600_000).buffer, big);
    assert.notEqual(buffers.take(600_000).buffer, mid, 'none left: a new one');
    assert.deepEqual(buffers.size, { buffers: 0, bytes: 0 });
    buffers.clear();
  });

  it('keeps no buffer too small, too large or moved away, and no more than its bounds', () => {
    const buffers = new BodyBuffers();
    buffers.give(new ArrayBuffer(MIN_BUFFER_BYTES - 1));
    buffers.give(new ArrayBuffer(64 * 1024 * 1024));
    const moved = new ArrayBuffer(MIN_BUFFER_BYTES);
    structuredClone(moved, { transfer: [moved] });
    buffers.give(moved);
    assert.deepEqual(buffers.size, { buffers: 0, bytes: 0 });
    for (let i = 0; i < 20; i++) buffers.give(new ArrayBuffer(MIN_BUFFER_BYTES));
    assert.equal(buffers.size.buffers, 8);
    buffers.clear();
    for (let i = 0; i < 20; i++) buffers.give(new ArrayBuffer(16 * 1024 * 1024));
    assert.deepEqual(buffers.size, { buffers: 4, bytes: 64 * 1024 * 1024 });
    const MiB = 1024 * 1024;
    assert.ok(buffers.takes(MIN_BUFFER_BYTES) && !buffers.takes(MIN_BUFFER_BYTES - 1), 'from 256 KiB');
    assert.ok(buffers.takes(32 * MiB) && !buffers.takes(32 * MiB + 1), 'up to 32 MiB');
    buffers.clear();
    assert.deepEqual(buffers.size, { buffers: 0, bytes: 0 });
  });

  it('lets every buffer go once no large body has come for a while', async () => {
    const buffers = new BodyBuffers(20);
    buffers.give(new ArrayBuffer(MIN_BUFFER_BYTES));
    assert.equal(buffers.size.buffers, 1);
    await new Promise((r) => setTimeout(r, 200));
    assert.equal(buffers.size.buffers, 0);
  });
});

describe('a body read into a lent buffer and parsed on a parser thread', () => {
  const pool = new BodyParserPool(1, 0);
  after(() => pool.close());

  /** `text` written into a buffer lent by the pool, as the request reader does. */
  function lentBody(text: string): Uint8Array {
    const bytes = Buffer.from(text);
    const body = pool.buffers.take(bytes.length);
    body.set(bytes);
    return body;
  }

  /** Waits for the thread to move `count` buffers back (a message after the job's answer; 30 s at most, for a starved machine). */
  async function kept(count: number): Promise<void> {
    for (let i = 0; i < 3000 && pool.buffers.size.buffers < count; i++) await new Promise((r) => setTimeout(r, 10));
    assert.equal(pool.buffers.size.buffers, count);
  }

  it('moves the buffer whole to the thread, which moves it back once the tensors are built; a shorter body read into it reads as itself', async () => {
    const rows = 60_000;
    const long = lentBody(`{"instances": [${Array.from({ length: rows }, (_, i) => `[${i % 100}.5]`).join(', ')}]}`);
    const capacity = long.buffer.byteLength;
    const claim = new MemoryClaim(new MemoryBudget(1 << 30));
    const parsed = await pool.parsePredict(long, LIMITS, claim);
    assert.equal(long.byteLength, 0, 'moved, not copied');
    const x = (await parsed.tensors(SIGNATURE)).inputs.x as HostTensor;
    assert.deepEqual(x.shape, [rows, 1]);
    assert.equal((x.values as Float32Array)[rows - 1], 99.5);
    await kept(1);
    claim.release();

    // The next body goes into that buffer; the long body's bytes are still there past its end.
    const short = lentBody('{"instances": [[7.0], [8.0]]}');
    assert.equal(short.buffer.byteLength, capacity, 'the buffer given back');
    assert.equal(pool.buffers.size.buffers, 0);
    const again = await pool.parsePredict(short, LIMITS, new MemoryClaim(new MemoryBudget(1 << 30)));
    const y = (await again.tensors(SIGNATURE)).inputs.x as HostTensor;
    assert.deepEqual(
      [y.shape, Array.from(y.values as Float32Array)],
      [
        [2, 1],
        [7, 8],
      ],
    );
    await kept(1);
  });

  it('moves it back when the parse fails, with the error of the bytes it was given', async () => {
    pool.buffers.clear();
    const bad = lentBody('{"instances": [1.0, 2.0,, 3.0]}');
    await assert.rejects(pool.parsePredict(bad, LIMITS, new MemoryClaim(new MemoryBudget(1 << 30))), /JSON Parse error/);
    await kept(1);
  });

  it('moves it back when the parse is dropped (the request ended before its tensors)', async () => {
    pool.buffers.clear();
    const parsed = await pool.parsePredict(lentBody('{"instances": [[1.0]]}'), LIMITS, new MemoryClaim(new MemoryBudget(1 << 30)));
    parsed.drop!();
    await kept(1);
  });
});
