// tfgate's adaptive batching with a fake executor and a hand-cranked clock (no sleeps): the
// cost fit, the arrival rate, when a free executor waits and for how long, and the latency
// target's batch cap and early refusals.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ManualClock } from '../../src/batching/clock.js';
import { SharedBatchScheduler, type Batch, type BatchQueue, type QueueOptions } from '../../src/batching/batch_scheduler.js';
import { AdaptiveBatchPolicy, ArrivalRate, BatchCostModel, parallelExecutors } from '../../src/batching/adaptive_batch_policy.js';
import { Code, ServingError } from '../../src/errors/status.js';

interface Run {
  size: number;
  at: number;
  finish: () => void;
}

function harness(threads: number, options: Partial<QueueOptions> = {}) {
  const clock = new ManualClock();
  const runs: Run[] = [];
  const scheduler = new SharedBatchScheduler<string>(
    threads,
    (_q: BatchQueue<string>, b: Batch<string>) => new Promise<void>((finish) => runs.push({ size: b.size, at: clock.now(), finish })),
    clock,
  );
  const queue = scheduler.addQueue('q', {
    maxBatchSize: 32,
    batchTimeoutMicros: 50_000,
    maxEnqueuedBatches: 100,
    allowedBatchSizes: [],
    enableLargeBatchSplitting: false,
    mode: 'adaptive',
    ...options,
  });
  return { clock, runs, queue };
}
const settle = () => new Promise((r) => setImmediate(r));
/** The queue's policy, which mode: 'adaptive' made an AdaptiveBatchPolicy. */
function adaptive(queue: BatchQueue<string>): AdaptiveBatchPolicy {
  assert.ok(queue.policy instanceof AdaptiveBatchPolicy);
  return queue.policy;
}

/** Gives the queue's cost model batches that took c + a·size ms (the scheduler's own learning is tested below). */
function teach(h: ReturnType<typeof harness>, c: number, a: number, sizes: number[]): void {
  for (const size of sizes) adaptive(h.queue).recordBatch(size, c + a * size);
}

describe('batch cost model τ(b) = c + a·b', () => {
  it('fits c and a by least squares from recent batches', () => {
    const m = new BatchCostModel();
    for (const b of [1, 8, 32, 4]) m.record(b, 6.5 + 0.5 * b);
    const { c, a } = m.coefficients();
    assert.ok(Math.abs(c - 6.5) < 1e-9 && Math.abs(a - 0.5) < 1e-9, `c ${c} a ${a}`);
    assert.ok(Math.abs(m.predict(16) - 14.5) < 1e-9);
  });

  it('one batch size seen: all cost is per row (c = 0), so nothing waits yet', () => {
    const m = new BatchCostModel();
    m.record(1, 7);
    m.record(1, 9);
    assert.deepEqual(m.coefficients(), { c: 0, a: 8 });
  });

  it('keeps c and a non-negative when noise tilts the fit', () => {
    const m = new BatchCostModel();
    m.record(1, 10);
    m.record(2, 9); // slower for fewer rows: noise
    const { c, a } = m.coefficients();
    assert.equal(a, 0);
    assert.equal(c, 9.5);
  });

  it('forgets batches beyond its window', () => {
    const m = new BatchCostModel(4);
    for (let i = 0; i < 4; i++) m.record(1 + i, 100);
    for (let i = 0; i < 4; i++) m.record(1 + i, 2 + 1 * (1 + i));
    const { c, a } = m.coefficients();
    assert.ok(Math.abs(c - 2) < 1e-9 && Math.abs(a - 1) < 1e-9);
  });
});

describe('arrival rate', () => {
  it('counts rows after the oldest arrival over the time since it, so a pause lowers it', () => {
    const r = new ArrivalRate();
    assert.equal(r.rowsPerMs(0), 0);
    r.record(0, 1);
    r.record(1, 2);
    r.record(2, 2);
    assert.equal(r.rowsPerMs(2), 2);
    assert.equal(r.rowsPerMs(8), 0.5);
  });

  it('holds the last `window` arrivals only, however many came before', () => {
    const r = new ArrivalRate(3);
    r.record(0, 100);
    r.record(1, 50);
    for (let t = 10; t <= 14; t++) r.record(t, 2); // the window now holds t = 12, 13, 14
    assert.equal(r.rowsPerMs(14), 2);
    assert.equal(r.rowsPerMs(16), 1);
  });
});

describe('adaptive policy decisions', () => {
  it('b* = (λ/k)·c / (1 − (λ/k)·a); saturated ((λ/k)·a ≥ 1) an idle executor runs whatever waits', () => {
    const saturated = new AdaptiveBatchPolicy({ options: {}, numBatchThreads: 2, cores: 4 });
    for (const b of [1, 2, 4, 8]) saturated.recordBatch(b, 6 + 0.5 * b);
    for (let t = 0; t <= 10; t++) saturated.recordArrival(t, 4); // 4 rows/ms over 2 executors: (λ/k)·a = 1
    assert.equal(saturated.targetRows(10, 64), Infinity);
    assert.deepEqual(saturated.decide(10, 3, 9, 64), { run: true });
    const q = new AdaptiveBatchPolicy({ options: {}, numBatchThreads: 2, cores: 4 });
    for (const b of [1, 2, 4, 8]) q.recordBatch(b, 6 + 0.5 * b);
    for (let t = 0; t <= 10; t++) q.recordArrival(t, 0.4); // 0.4 rows/ms (the first arrival opens the window)
    const want = (0.2 * 6) / (1 - 0.2 * 0.5);
    assert.ok(Math.abs(q.targetRows(10, 64) - want) < 1e-9, `${q.targetRows(10, 64)} vs ${want}`);
  });

  it('waits for the missing rows at the arrival rate, but never longer than c after the batch opened', () => {
    const p = new AdaptiveBatchPolicy({ options: {}, numBatchThreads: 1, cores: 4 });
    for (const b of [1, 2, 4, 8]) p.recordBatch(b, 6 + 0.5 * b);
    for (let t = 0; t <= 100; t += 10) p.recordArrival(t, 1); // 0.1 rows/ms → b* = 0.6/0.95 < 1
    assert.deepEqual(p.decide(100, 1, 100, 32), { run: true }, 'b* < 1: a lone request runs at once');
    const busy = new AdaptiveBatchPolicy({ options: {}, numBatchThreads: 1, cores: 4 });
    for (const b of [1, 2, 4, 8]) busy.recordBatch(b, 6 + 0.5 * b);
    for (let t = 0; t <= 10; t++) busy.recordArrival(t, 1); // 1 row/ms → b* = 6/0.5 = 12
    assert.deepEqual(busy.decide(10, 4, 9, 32), { run: false, wakeAt: 15 }, 'capped at opened + c = 15 (the rows would take until 18)');
    assert.deepEqual(busy.decide(10, 11, 9, 32), { run: false, wakeAt: 11 }, 'one row missing: 1 ms');
    assert.deepEqual(busy.decide(10, 12, 9, 32), { run: true });
    assert.deepEqual(busy.decide(15, 5, 9, 32), { run: true }, 'waited c already');
    assert.deepEqual(busy.decide(14.6, 5, 9, 32), { run: true }, '0.4 ms left: under half what a timer can wait');
    assert.deepEqual(busy.decide(14.4, 5, 9, 32), { run: false, wakeAt: 15 }, '0.6 ms left: the timer is taken');
  });

  it('counts no more executors than the cores beside the event loop, so a crowded host batches more', () => {
    assert.deepEqual(
      [parallelExecutors(2, 2), parallelExecutors(2, 4), parallelExecutors(4, 3), parallelExecutors(1, 1), parallelExecutors(8, 64)],
      [1, 2, 2, 1, 8],
    );
    const policy = (cores: number) => {
      const p = new AdaptiveBatchPolicy({ options: {}, numBatchThreads: 2, cores });
      for (const b of [1, 2, 4, 8]) p.recordBatch(b, 6 + 0.5 * b);
      for (let t = 0; t <= 10; t++) p.recordArrival(t, 0.3); // 0.3 rows/ms
      return p;
    };
    // Two executors in parallel: λ/k = 0.15, b* = 0.9/0.925 < 1. Sharing one core: λ/k = 0.3, b* = 1.8/0.85 ≈ 2.1.
    assert.deepEqual(policy(4).decide(10, 1, 10, 32), { run: true });
    const crowded = policy(2);
    assert.ok(Math.abs(crowded.targetRows(10, 32) - 1.8 / 0.85) < 1e-9);
    const decision = crowded.decide(10, 1, 10, 32);
    assert.ok(!decision.run && Math.abs(decision.wakeAt - (10 + (1.8 / 0.85 - 1) / 0.3)) < 1e-9, JSON.stringify(decision));
  });
});

describe('adaptive batching in the shared scheduler', () => {
  it('follows a num_batch_threads change: a policy counts the executors the scheduler has now, keeping what it learned', () => {
    const scheduler = new SharedBatchScheduler<string>(1, () => Promise.resolve(), new ManualClock(), 8);
    const queue = scheduler.addQueue('q', {
      maxBatchSize: 32,
      batchTimeoutMicros: 0,
      maxEnqueuedBatches: 100,
      allowedBatchSizes: [],
      enableLargeBatchSplitting: false,
      mode: 'adaptive',
    });
    const policy = adaptive(queue);
    for (const b of [1, 2, 4, 8]) policy.recordBatch(b, 6 + 0.5 * b);
    for (let t = 0; t <= 10; t++) policy.recordArrival(t, 0.3); // 0.3 rows/ms
    // One executor: λ/k = 0.3, b* = 1.8/0.85; four on 8 cores: λ/k = 0.075, b* = 0.45/0.9625 < 1.
    assert.ok(Math.abs(policy.targetRows(10, 32) - 1.8 / 0.85) < 1e-9);
    scheduler.setNumBatchThreads(4);
    assert.equal(adaptive(queue), policy, 'the same policy, with its cost model');
    assert.ok(Math.abs(policy.targetRows(10, 32) - 0.45 / 0.9625) < 1e-9, String(policy.targetRows(10, 32)));
    assert.deepEqual(policy.decide(10, 1, 10, 32), { run: true });
  });

  it('before it has learned anything, a lone request runs at once (no timeout paid)', () => {
    const h = harness(1);
    h.queue.schedule('a', 1);
    assert.deepEqual(
      h.runs.map((r) => [r.size, r.at]),
      [[1, 0]],
    );
  });

  it('one closed-loop user: every request runs the moment it arrives, though batching pays', async () => {
    const h = harness(1, { maxBatchSize: 4 });
    teach(h, 6, 0.5, [1, 2, 4, 3]);
    const start = h.runs.length;
    for (let i = 0; i < 5; i++) {
      h.clock.advance(40); // think time
      h.queue.schedule(`u${i}`, 1);
      const run = h.runs.at(-1)!;
      assert.equal(h.runs.length, start + i + 1);
      assert.equal(run.at, h.clock.now(), `request ${i} waited`);
      h.clock.advance(6.5);
      run.finish();
      await settle();
    }
  });

  it('an idle executor waits up to c for a fuller batch when requests keep arriving', () => {
    const h = harness(1, { maxBatchSize: 32 });
    teach(h, 20, 0.5, [1, 8, 2, 4]);
    for (let t = 0; t < 40; t += 2) adaptive(h.queue).recordArrival(t, 1); // earlier traffic: 0.5 rows/ms
    h.clock.advance(40);
    // b* = 0.5·20 / (1 − 0.25) ≈ 13.3 rows; they would take ~25 ms, so the wait is capped at c = 20 ms.
    for (let i = 0; i < 15; i++) {
      h.queue.schedule(`r${i}`, 1);
      h.clock.advance(2);
    }
    assert.ok(h.runs.length >= 1, 'a batch ran');
    const run = h.runs[0];
    assert.equal(run.at, 60, 'ran c = 20 ms after the batch opened, not at once (greedy) nor later');
    assert.equal(run.size, 10, 'with the 10 requests that arrived by then');
  });

  it('learns batch costs from the batches it runs (time from dispatch to completion)', async () => {
    const h = harness(1);
    h.queue.schedule('a', 1);
    h.clock.advance(7);
    h.runs[0].finish();
    await settle();
    assert.equal(adaptive(h.queue).cost.samples, 1);
    assert.equal(adaptive(h.queue).cost.predict(1), 7);
  });

  it("prefers the executor's own compute time when the batch reports it", async () => {
    const clock = new ManualClock();
    const done: Array<() => void> = [];
    const scheduler = new SharedBatchScheduler<string>(
      1,
      (_q, b) => new Promise<void>((finish) => done.push(() => ((b.costMs = 2), finish()))),
      clock,
    );
    const q = scheduler.addQueue('q', {
      maxBatchSize: 4,
      batchTimeoutMicros: 0,
      maxEnqueuedBatches: 10,
      allowedBatchSizes: [],
      enableLargeBatchSplitting: false,
      mode: 'adaptive',
    });
    q.schedule('a', 1);
    clock.advance(9); // the main thread saw 9 ms; the executor computed for 2
    done[0]();
    await settle();
    assert.equal(adaptive(q).cost.predict(1), 2);
  });

  it('at saturation batches grow to the maximum while the executor is busy (pull-based)', async () => {
    const h = harness(1, { maxBatchSize: 8 });
    teach(h, 6, 0.5, [1, 2]);
    h.queue.schedule('x', 1);
    const first = h.runs.at(-1)!;
    for (let i = 0; i < 20; i++) h.queue.schedule(`y${i}`, 1);
    first.finish();
    await settle();
    assert.equal(h.runs.at(-1)!.size, 8);
  });

  it('a latency target caps the batch at the size that runs within half of it', async () => {
    const h = harness(1, { maxBatchSize: 32, mode: 'adaptive', latencyTargetMs: 20 });
    teach(h, 6, 0.5, [1, 2, 4, 8]);
    // (20/2 − 6) / 0.5 = 8 rows.
    assert.equal(h.queue.executionBatchSize, 8);
    h.queue.schedule('first', 1);
    for (let i = 0; i < 12; i++) h.queue.schedule(`f${i}`, 1);
    assert.deepEqual(
      h.runs.map((r) => r.size),
      [1, 8],
      'a batch is full at 8 rows (and goes ahead to the busy executor)',
    );
  });

  it('a request predicted to miss the latency target is refused at once: 503 (UNAVAILABLE) with a retry hint', async () => {
    const h = harness(1, { maxBatchSize: 32, mode: 'adaptive', latencyTargetMs: 20 });
    teach(h, 6, 0.5, [1, 2, 4, 8]);
    h.queue.schedule('running', 1); // occupies the executor
    // Batches of 8 take 10 ms each. One full batch goes ahead to the busy executor; behind it
    // 16 rows wait, so a new request would run in the third batch from now: after 30 ms.
    for (let i = 0; i < 24; i++) h.queue.schedule(`q${i}`, 1);
    assert.deepEqual(
      h.runs.map((r) => r.size),
      [1, 8],
    );
    let refused: unknown;
    try {
      h.queue.schedule('late', 1);
    } catch (e) {
      refused = e;
    }
    assert.ok(refused instanceof ServingError, 'refused');
    assert.equal(refused.code, Code.UNAVAILABLE);
    assert.match(
      refused.message,
      /^The request would miss the model's latency target: about 30 ms predicted for the work queued ahead of it, target 20 ms; retry later$/,
    );
    assert.equal(refused.hints.retryAfterMs, 10);
  });

  it('batch_timeout_micros does not apply in adaptive mode', async () => {
    const h = harness(1, { maxBatchSize: 4, batchTimeoutMicros: 1_000_000 });
    h.queue.schedule('a', 1);
    assert.equal(h.runs.length, 1, 'ran at once, not after the fixed 1 s timeout');
  });
});

describe('latency target admission', () => {
  it("admits a request that runs in the first round even when the target is below the model's run time", () => {
    const p = new AdaptiveBatchPolicy({ options: { latencyTargetMs: 1 }, numBatchThreads: 2, cores: 4 });
    for (const b of [1, 2, 4, 8]) p.recordBatch(b, 6 + 0.5 * b);
    assert.equal(p.batchCap(32), 1);
    assert.equal(p.predictedMiss(1, 0, 32), undefined);
    assert.equal(p.predictedMiss(1, 1, 32), undefined, 'two executors: the second batch also runs at once');
    assert.deepEqual(p.predictedMiss(1, 2, 32), { predictedMs: 13, targetMs: 1 });
  });
});

describe('a full batch is handed ahead to a busy executor', () => {
  it('one full batch waits at the executor while it runs another; a partial one keeps growing', async () => {
    const h = harness(1, { maxBatchSize: 4 });
    h.queue.schedule('x', 1); // runs at once: the executor is busy from here on
    for (const t of ['a', 'b', 'c']) h.queue.schedule(t, 1);
    assert.deepEqual(
      h.runs.map((r) => r.size),
      [1],
      'a partial batch waits',
    );
    h.queue.schedule('d', 1);
    assert.deepEqual(
      h.runs.map((r) => r.size),
      [1, 4],
      'full: it went ahead',
    );
    for (const t of ['e', 'f', 'g', 'h', 'i']) h.queue.schedule(t, 1);
    assert.equal(h.runs.length, 2, 'only one batch ahead');
    h.runs[0].finish();
    await settle();
    assert.deepEqual(
      h.runs.map((r) => r.size),
      [1, 4, 4],
      'a slot freed: the next full batch goes ahead',
    );
    h.runs[1].finish();
    await settle();
    assert.equal(h.runs.length, 3, 'the partial batch (i) is not handed ahead');
    h.runs[2].finish();
    await settle();
    assert.deepEqual(
      h.runs.map((r) => r.size),
      [1, 4, 4, 1],
      'and runs once an executor is free',
    );
  });

  it('fixed mode too: batches form as in TF Serving, and one that can no longer grow goes ahead', async () => {
    const h = harness(1, { maxBatchSize: 4, mode: 'fixed', batchTimeoutMicros: 0 });
    for (const t of ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h']) h.queue.schedule(t, 1);
    assert.deepEqual(
      h.runs.map((r) => r.size),
      [1, 4],
      'a runs at once; b-e fill a batch, which goes ahead',
    );
    h.queue.schedule('i', 1);
    assert.equal(h.runs.length, 2, 'only one batch ahead; f-i wait');
    h.runs[0].finish();
    await settle();
    assert.deepEqual(
      h.runs.map((r) => r.size),
      [1, 4, 4],
      'f-i are full: ahead as soon as a slot frees',
    );
  });

  it('fixed mode: a partial batch waits for a free batch thread, growing meanwhile', async () => {
    const h = harness(1, { maxBatchSize: 4, mode: 'fixed', batchTimeoutMicros: 0 });
    for (const t of ['a', 'b', 'c']) h.queue.schedule(t, 1);
    assert.deepEqual(
      h.runs.map((r) => r.size),
      [1],
      'b, c wait: their batch could still grow',
    );
    h.queue.schedule('d', 1);
    h.runs[0].finish();
    await settle();
    assert.deepEqual(
      h.runs.map((r) => r.size),
      [1, 3],
      'the thread freed: the batch runs as it stands (zero timeout)',
    );
  });
});
