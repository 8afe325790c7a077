// --rest_api_timeout_in_ms's one timer for every call given the same timeout: each call still
// gets its own deadline, whichever calls before it settled.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Code, type ServingError } from '../../src/errors/status.js';
import { withTimeout } from '../../src/rest/request_timeout.js';

const never = () => new Promise<never>(() => {});
const timedOut = (ms: number) => ({ code: Code.DEADLINE_EXCEEDED, message: `Request timed out after ${ms} ms (--rest_api_timeout_in_ms)` });
const later = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('withTimeout', () => {
  it('a call still running after one that settled first is answered DEADLINE_EXCEEDED at its own deadline', async () => {
    // The first call's timer stays set for the first deadline: when it fires it must be set again for the second.
    assert.equal(await withTimeout(Promise.resolve('first'), 40), 'first');
    await later(15);
    await assert.rejects(withTimeout(never(), 40), timedOut(40));
  });

  it('several calls waiting: each answered DEADLINE_EXCEEDED, oldest first; the ones that settle keep their outcome', async () => {
    const order: number[] = [];
    const waiting: Promise<unknown>[] = [];
    for (let i = 0; i < 3; i++) {
      waiting.push(withTimeout(never(), 30).catch((e: unknown) => (order.push(i), e)));
      waiting.push(withTimeout(Promise.resolve(i), 30));
      waiting.push(withTimeout(Promise.reject(new Error(`own ${i}`)), 30).catch((e: Error) => e.message));
      await later(5);
    }
    const outcomes = await Promise.all(waiting);
    for (let i = 0; i < 3; i++) {
      const { code, message } = outcomes[3 * i] as ServingError;
      assert.deepEqual({ code, message }, timedOut(30));
      assert.equal(outcomes[3 * i + 1], i);
      assert.equal(outcomes[3 * i + 2], `own ${i}`);
    }
    assert.deepEqual(order, [0, 1, 2]);
  });

  it('calls given different timeouts each keep theirs', async () => {
    const long = withTimeout(never(), 60);
    await assert.rejects(withTimeout(never(), 10), timedOut(10));
    await assert.rejects(long, timedOut(60));
  });

  it('ms ≤ 0: no timeout, the work itself', () => {
    const work = Promise.resolve(1);
    assert.equal(withTimeout(work, 0), work);
  });
});
