// Large bodies are read one per parser thread (body_read_gate.ts): the next waits unread until
// the body ahead is let go of (its tensors taken, its parse dropped, or its request ended), or
// until a body still being read has stalled. In-process, with a real parser thread.
import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { PassThrough } from 'node:stream';
import type { Context } from 'hono';
import { BodyReadGate } from '../../src/rest/body_read_gate.js';
import { BodyParserPool } from '../../src/rest/body_parser_pool.js';
import { readRequestBodyBytes } from '../../src/rest/request_body.js';
import { MemoryBudget } from '../../src/services/memory_budget.js';
import { halfPlusTwoSignatures } from '../helpers/fake_versions.js';

const LIMITS = { jsonMaxDepth: 8, jsonMaxElements: 10_000 };
const MIN_BYTES = 64;
const pool = new BodyParserPool(1, MIN_BYTES);
after(() => pool.close());

/** A request as readRequestBodyBytes sees it in-process: a declared size, no Node request. */
function context(text: string): Context {
  const bytes = Buffer.from(text);
  return {
    req: {
      header: (name: string) => (name === 'content-length' ? String(bytes.length) : undefined),
      arrayBuffer: async () => bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length),
    },
    env: {},
  } as unknown as Context;
}

/** Whether `p` has settled once the turns queued now have run. */
async function settled(p: Promise<unknown>): Promise<boolean> {
  let done = false;
  void p.then(
    () => (done = true),
    () => (done = true),
  );
  for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
  return done;
}

const large = (n: number) => `{"instances": [${Array.from({ length: n }, (_, i) => `[${i}.5]`).join(', ')}]}`;

describe('large bodies read through the parser pool', { timeout: 10_000 }, () => {
  it('the next large body is read once the thread has the tensors of the one ahead; small bodies never wait', async () => {
    const budget = new MemoryBudget(1 << 30);
    const gate = pool.gate!;
    const [claimA, claimB] = [budget.claim(), budget.claim()];
    const a = await readRequestBodyBytes(context(large(20)), 1 << 20, claimA, gate);
    const readingB = readRequestBodyBytes(context(large(30)), 1 << 20, claimB, gate);
    assert.equal(await settled(readingB), false, 'the second body waits unread');
    // A small body is not gated.
    const claimSmall = budget.claim();
    assert.equal((await readRequestBodyBytes(context('{"instances": [1]}'), 1 << 20, claimSmall, gate)).length, 18);
    claimSmall.release();
    const parsed = await pool.parsePredict(a, LIMITS, claimA);
    assert.equal(await settled(readingB), false, 'parsed, not yet filled: the body is still held');
    const { inputs } = await parsed.tensors(halfPlusTwoSignatures().serving_default);
    assert.deepEqual(inputs.x.shape, [20, 1]);
    const b = await readingB;
    assert.equal(Buffer.from(b).toString(), large(30));
    // Dropped before its tensors were asked for: let go of all the same.
    const claimC = budget.claim();
    const readingC = readRequestBodyBytes(context(large(40)), 1 << 20, claimC, gate);
    assert.equal(await settled(readingC), false);
    (await pool.parsePredict(b, LIMITS, claimB)).drop!();
    await readingC;
    assert.equal(gate.held, 1);
    for (const claim of [claimA, claimB, claimC]) claim.release();
    assert.equal(gate.held, 0);
    assert.equal(budget.inFlightBytes, 0);
  });

  it('a request that ends without its body reaching the thread gives its turn back with its claim; a refused claim takes no turn', async () => {
    const gate = pool.gate!;
    const budget = new MemoryBudget(1 << 30);
    const claimA = budget.claim();
    await readRequestBodyBytes(context(large(20)), 1 << 20, claimA, gate);
    const claimB = budget.claim();
    const readingB = readRequestBodyBytes(context(large(20)), 1 << 20, claimB, gate);
    assert.equal(await settled(readingB), false);
    claimA.release();
    await readingB;
    claimB.release();
    const small = new MemoryBudget(10);
    await assert.rejects(readRequestBodyBytes(context(large(20)), 1 << 20, small.claim(), gate), /max_inflight_request_bytes/);
    assert.equal(gate.queued, 0);
    assert.equal(gate.held, 0);
  });

  it('a client that went away while its body waited is refused CANCELLED once its turn comes, its turn given back', async () => {
    const gate = new BodyReadGate(1, 0);
    const ahead = await gate.enter();
    const budget = new MemoryBudget(1 << 30);
    const claim = budget.claim();
    const incoming = new PassThrough();
    const c = {
      req: { header: (name: string) => (name === 'content-length' ? '100' : undefined) },
      env: { incoming },
    } as unknown as Context;
    const reading = readRequestBodyBytes(c, 1 << 20, claim, gate);
    assert.equal(await settled(reading), false);
    incoming.destroy();
    await once(incoming, 'close');
    ahead.leave();
    await assert.rejects(reading, /the client closed the connection/);
    claim.release();
    assert.equal(gate.held, 0);
  });

  it('a body still being read that has received nothing for a while lets the next one in', async () => {
    const gate = new BodyReadGate(1, 0);
    const stalled = await gate.enter();
    const next = gate.enter();
    assert.equal(await settled(next), false);
    (await next).leave();
    assert.equal(gate.held, 1);
    // One whose body is read holds its turn until it is let go of.
    stalled.read();
    const after = gate.enter();
    await new Promise((r) => setTimeout(r, 500));
    assert.equal(await settled(after), false);
    stalled.leave();
    (await after).leave();
    assert.equal(gate.held, 0);
  });

  it('a body trickling in a few bytes at a time lets the next one in; one arriving fast holds its place', async () => {
    const gate = new BodyReadGate(1, 0);
    const trickling = await gate.enter();
    const fast = gate.enter();
    const drip = setInterval(() => trickling.data(100), 20);
    try {
      const slot = await fast; // within ~STALL_MS, though bytes kept coming
      const next = gate.enter();
      const flood = setInterval(() => slot.data(64 * 1024), 20);
      await new Promise((r) => setTimeout(r, 500));
      clearInterval(flood);
      assert.equal(await settled(next), false, 'a body arriving at 3 MB/s holds its place');
      slot.leave();
      (await next).leave();
    } finally {
      clearInterval(drip);
    }
    trickling.leave();
    assert.equal(gate.held, 0);
  });
});
