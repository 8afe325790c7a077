// The executor pool on a real model version: requests run on executor threads, report their
// compute time, and are not sent at all once their caller has stopped waiting.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { ExecutorPool, executorNiceIncrement, type ExecutorTiming } from '../../src/executors/executor_pool.js';
import { writeHalfPlusTwoSavedModel } from '../../test_util/savedmodel/model_zoo.js';
import { Code, QUEUED_PAST_DEADLINE, ServingError } from '../../src/errors/status.js';
import { tempDir } from '../helpers/temp.js';
import { MIN_MOVED_BYTES, markRequestOwned } from '../../src/tensor/request_owned.js';

const x = (...v: number[]) => ({ x: { dtype: 'float32' as const, shape: [v.length, 1], values: Float32Array.from(v) } });

describe('executor pool', () => {
  let pool: ExecutorPool;
  before(async () => {
    const dir = path.join(tempDir(), '1');
    await writeHalfPlusTwoSavedModel(dir);
    pool = await ExecutorPool.open({ versionDir: dir, tags: ['serve'], runtime: 'embedded', threads: 1 });
  });
  after(async () => {
    await pool.close();
  });

  it('runs a request on an executor thread and reports its compute time, hand-off and hand-back', async () => {
    const timing: ExecutorTiming = {};
    const out = await pool.run('serving_default', x(1, 2), [], { timing, deadline: performance.now() + 60_000 });
    assert.deepEqual(Array.from(out.y.values as Float32Array), [2.5, 3]);
    assert.ok(typeof timing.computeMs === 'number' && timing.computeMs >= 0);
    assert.ok(Number.isFinite(timing.handoffMs) && Number.isFinite(timing.handbackMs), JSON.stringify(timing));
  });

  it('moves the buffers of request-owned inputs to the thread and copies the rest, which stay usable', async () => {
    const ones = Array.from({ length: MIN_MOVED_BYTES / 4 }, () => 1);
    const owned = markRequestOwned(x(...ones).x);
    const small = markRequestOwned(x(1, 2).x); // owned, but cheaper copied than moved
    const shared = x(5).x; // as a signature default is: sent with every request that omits it
    const answers = await Promise.all([
      pool.run('serving_default', { x: owned }),
      pool.run('serving_default', { x: small }),
      pool.run('serving_default', { x: shared }),
      pool.run('serving_default', { x: shared }),
    ]);
    assert.deepEqual(
      answers.map((a) => Array.from(a.y.values as Float32Array)),
      [ones.map(() => 2.5), [2.5, 3], [4.5], [4.5]],
    );
    assert.equal((owned.values as Float32Array).byteLength, 0, 'moved: detached on this side');
    assert.deepEqual(Array.from(small.values as Float32Array), [1, 2]);
    assert.deepEqual(Array.from(shared.values as Float32Array), [5]);
    assert.deepEqual(Array.from((await pool.run('serving_default', { x: shared })).y.values as Float32Array), [4.5]);
  });

  it('a batch that cannot start waits on the busy thread behind the running one, not for the event loop to hand it over', async () => {
    const first: ExecutorTiming = {};
    const second: ExecutorTiming = {};
    const a = pool.run('serving_default', x(1), [], { timing: first, queueBehind: true });
    const b = pool.run('serving_default', x(2), [], { timing: second, queueBehind: true });
    // The event loop busy meanwhile: nothing can be handed over until it is done.
    const busyMs = 250;
    const until = performance.now() + busyMs;
    while (performance.now() < until);
    assert.deepEqual(
      (await Promise.all([a, b])).map((out) => Array.from(out.y.values as Float32Array)),
      [[2.5], [3]],
    );
    assert.ok(second.handoffMs! < busyMs, `the second started ${second.handoffMs} ms after its run() (the loop was busy ${busyMs} ms)`);
  });

  it('a request whose deadline passed before it left the queue is answered DEADLINE_EXCEEDED and not sent', async () => {
    const timing: { computeMs?: number } = {};
    const late = pool.run('serving_default', x(1), [], { timing, deadline: performance.now() - 1 });
    const onTime = pool.run('serving_default', x(5), []);
    await assert.rejects(
      late,
      (e: unknown) => e instanceof ServingError && e.code === Code.DEADLINE_EXCEEDED && e.message === QUEUED_PAST_DEADLINE,
    );
    assert.equal(timing.computeMs, undefined, 'it never ran');
    assert.deepEqual(Array.from((await onTime).y.values as Float32Array), [4.5]);
  });

  it('past maxQueued waiting requests, a request is refused UNAVAILABLE at once (--max_executor_queue)', async () => {
    const dir = path.join(tempDir(), '1');
    await writeHalfPlusTwoSavedModel(dir);
    const small = await ExecutorPool.open({ versionDir: dir, tags: ['serve'], runtime: 'embedded', threads: 1, maxQueued: 2 });
    try {
      // The first goes at once to the idle thread; the next two wait (the rest of this
      // event-loop turn gathers behind it), a fourth finds the queue full.
      const first = small.run('serving_default', x(1));
      const second = small.run('serving_default', x(2));
      const third = small.run('serving_default', x(3));
      await assert.rejects(
        small.run('serving_default', x(4)),
        (e: unknown) => e instanceof ServingError && e.code === Code.UNAVAILABLE && /--max_executor_queue/.test(e.message),
      );
      assert.deepEqual(await Promise.all([first, second, third].map(async (p) => Array.from((await p).y.values as Float32Array))), [
        [2.5],
        [3],
        [3.5],
      ]);
      // Once sent, the queue has room again.
      assert.deepEqual(Array.from((await small.run('serving_default', x(4))).y.values as Float32Array), [4]);
    } finally {
      await small.close();
    }
  });
});

describe('executor thread priority', () => {
  it('nice +10 only when the executors take every core (else the event loop has one of its own)', () => {
    const table: Array<[threads: number, cores: number, nice: number]> = [
      [1, 2, 0],
      [2, 2, 10],
      [3, 4, 0],
      [4, 4, 10],
      [4, 8, 0],
      [9, 8, 10],
    ];
    for (const [threads, cores, nice] of table)
      assert.equal(executorNiceIncrement(threads, cores), nice, `${threads} threads on ${cores} cores`);
  });
});
