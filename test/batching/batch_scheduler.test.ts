// The shared batch scheduler with a fake executor and a hand-cranked clock (no sleeps).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ManualClock } from '../../src/batching/clock.js';
import { SharedBatchScheduler, paddedSize, type Batch, type BatchQueue, type QueueOptions } from '../../src/batching/batch_scheduler.js';
import { Code, ServingError } from '../../src/errors/status.js';

interface Run {
  queue: string;
  tasks: string[];
  size: number;
  padded: number;
  at: number;
  finish: () => void;
}

function harness(threads: number, defaults: Partial<QueueOptions> = {}) {
  const clock = new ManualClock();
  const runs: Run[] = [];
  const scheduler = new SharedBatchScheduler<string>(
    threads,
    (q: BatchQueue<string>, b: Batch<string>) =>
      new Promise<void>((finish) =>
        runs.push({
          queue: q.name,
          tasks: b.pieces.map((p) => (p.size === p.taskSize ? p.task : `${p.task}[${p.offset}+${p.size}]`)),
          size: b.size,
          padded: b.paddedSize,
          at: clock.now(),
          finish,
        }),
      ),
    clock,
  );
  const options: QueueOptions = {
    maxBatchSize: 4,
    batchTimeoutMicros: 10_000,
    maxEnqueuedBatches: 3,
    allowedBatchSizes: [],
    enableLargeBatchSplitting: false,
    ...defaults,
  };
  return { clock, runs, scheduler, queue: (name = 'q', o: Partial<QueueOptions> = {}) => scheduler.addQueue(name, { ...options, ...o }) };
}
const settle = () => new Promise((r) => setImmediate(r));

describe('shared batch scheduler', () => {
  it('the timer starts with the first task; the batch runs when it times out', () => {
    const { clock, runs, queue } = harness(1);
    const q = queue();
    clock.advance(5);
    q.schedule('a', 1);
    clock.advance(6);
    q.schedule('b', 1);
    clock.advance(3.9);
    assert.equal(runs.length, 0, 'not yet 10 ms since the first task');
    clock.advance(0.1);
    assert.deepEqual(
      runs.map((r) => [r.tasks, r.at]),
      [[['a', 'b'], 15]],
    );
  });

  it('a full batch runs at once, without waiting for its timer', () => {
    const { runs, queue } = harness(1);
    const q = queue();
    q.schedule('a', 3);
    q.schedule('b', 1);
    assert.deepEqual(
      runs.map((r) => r.tasks),
      [['a', 'b']],
    );
  });

  it('a task that does not fit closes the open batch, which may then run', () => {
    const { runs, queue } = harness(1);
    const q = queue();
    q.schedule('a', 3);
    q.schedule('b', 2);
    assert.deepEqual(
      runs.map((r) => r.tasks),
      [['a']],
    );
    assert.equal(q.enqueuedBatches, 1);
  });

  it('timeout 0 is greedy, and batches grow while every executor is busy (pull-based)', async () => {
    const { runs, queue } = harness(1, { batchTimeoutMicros: 0 });
    const q = queue();
    q.schedule('a', 1);
    assert.deepEqual(
      runs.map((r) => r.tasks),
      [['a']],
    );
    q.schedule('b', 1);
    q.schedule('c', 1);
    assert.equal(runs.length, 1, 'the one executor is busy');
    runs[0].finish();
    await settle();
    assert.deepEqual(
      runs.map((r) => r.tasks),
      [['a'], ['b', 'c']],
    );
  });

  it('round-robin between queues', async () => {
    const { runs, queue } = harness(1, { batchTimeoutMicros: 0 });
    const [q1, q2] = [queue('m1'), queue('m2')];
    q1.schedule('a1', 4);
    q1.schedule('b1', 4);
    q1.schedule('c1', 4);
    q2.schedule('a2', 4);
    for (let i = 0; i < 3; i++) {
      runs[runs.length - 1].finish();
      await settle();
    }
    // b1 went ahead to the busy executor before a2 arrived; from then on the queues alternate.
    assert.deepEqual(
      runs.map((r) => r.queue),
      ['m1', 'm1', 'm2', 'm1'],
    );
  });

  it("queue full: UNAVAILABLE with TF Serving's text; oversize: INVALID_ARGUMENT", () => {
    const { queue } = harness(1, { maxEnqueuedBatches: 2 });
    const q = queue();
    q.schedule('running', 4); // runs at once (full)
    q.schedule('a', 3);
    q.schedule('b', 3); // closes a's batch, which goes ahead to the busy executor
    q.schedule('c', 3); // closes b's batch: 2 enqueued (b's and c's)
    assert.equal(q.freeRows, 1, 'a one-row task still fits the open batch');
    assert.throws(
      () => q.schedule('d', 3),
      (e: unknown) =>
        e instanceof ServingError &&
        e.code === Code.UNAVAILABLE &&
        e.message ===
          'The batch scheduling queue to which this task was submitted is full; currently 2 batches enqueued and max_enqueued_batches is 2',
    );
    q.schedule('e', 1); // still fits the open batch, which is now full
    assert.equal(q.freeRows, 0, 'no task of any size fits now');
    assert.equal(
      q.fullError().message,
      'The batch scheduling queue to which this task was submitted is full; currently 2 batches enqueued and max_enqueued_batches is 2',
    );
    assert.throws(
      () => q.schedule('f', 5),
      (e: unknown) =>
        e instanceof ServingError &&
        e.code === Code.INVALID_ARGUMENT &&
        e.message === 'Task size 5 is larger than maximum input batch size 4',
    );
  });

  it('pads up to the next allowed batch size', () => {
    const { runs, queue } = harness(1, { maxBatchSize: 8, allowedBatchSizes: [2, 4, 8], batchTimeoutMicros: 0 });
    queue().schedule('a', 3);
    assert.deepEqual([runs[0].size, runs[0].padded], [3, 4]);
    assert.deepEqual([paddedSize(1, [2, 4]), paddedSize(4, [2, 4]), paddedSize(5, [])], [2, 4, 5]);
  });

  it('splitting spreads a large task over batches, in order', async () => {
    const { runs, queue } = harness(1, {
      maxBatchSize: 10,
      maxExecutionBatchSize: 4,
      enableLargeBatchSplitting: true,
      batchTimeoutMicros: 0,
      maxEnqueuedBatches: 10,
    });
    const q = queue();
    q.schedule('a', 1);
    q.schedule('big', 9);
    for (let i = 0; i < 2; i++) {
      runs[runs.length - 1].finish();
      await settle();
    }
    // The first two pieces went ahead, one at a time, while 'a' ran; the last waits, partial.
    assert.deepEqual(
      runs.map((r) => r.tasks),
      [['a'], ['big[0+4]'], ['big[4+4]']],
    );
    runs[0].finish();
    await settle();
    assert.deepEqual(runs[3].tasks, ['big[8+1]']);
  });
});
