// The batching-policy seam: a queue asks its policy, the one its mode names in the
// scheduler's table, and nothing else of it; fixed_timeout_policy.ts's worked example played
// with a fake executor and a hand-cranked clock; a third policy ("every request alone")
// plugged in from here, through the table and the interface, without touching the queue.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ManualClock } from '../../src/batching/clock.js';
import { SharedBatchScheduler, type Batch, type BatchQueue, type QueueOptions } from '../../src/batching/batch_scheduler.js';
import { BATCH_POLICIES, type PolicyTable } from '../../src/batching/batch_policies.js';
import { RUN_NOW, type BatchPolicy } from '../../src/batching/batch_policy.js';
import { FixedTimeoutPolicy } from '../../src/batching/fixed_timeout_policy.js';
import { AdaptiveBatchPolicy } from '../../src/batching/adaptive_batch_policy.js';
import { BATCHING_MODE_NAMES } from '../../src/config/batching_modes.js';
import { FLAGS } from '../../src/config/flags.js';
import { Code, ServingError } from '../../src/errors/status.js';

interface Run {
  tasks: string[];
  at: number;
  finish: () => void;
}

function harness(options: Partial<QueueOptions>, policies?: PolicyTable) {
  const clock = new ManualClock();
  const runs: Run[] = [];
  const scheduler = new SharedBatchScheduler<string>(
    1,
    (_q: BatchQueue<string>, b: Batch<string>) =>
      new Promise<void>((finish) => runs.push({ tasks: b.pieces.map((p) => p.task), at: clock.now(), finish })),
    clock,
    2,
    policies,
  );
  const queue = scheduler.addQueue('q', {
    maxBatchSize: 4,
    batchTimeoutMicros: 10_000,
    maxEnqueuedBatches: 10,
    allowedBatchSizes: [],
    enableLargeBatchSplitting: false,
    ...options,
  });
  return { clock, runs, queue };
}
const settle = () => new Promise((r) => setImmediate(r));
const seen = (runs: Run[]) => runs.map((r) => [r.tasks.join(' '), r.at]);

/** The third policy: every request is a batch of its own, run as soon as an executor is free. */
class RunAlone implements BatchPolicy {
  admit(): undefined {
    return undefined;
  }
  batchCap(): number {
    return 1;
  }
  whenToRun() {
    return RUN_NOW;
  }
  batchDone(): void {}
}

describe('fixed timeout (TF Serving): the worked example of its header', () => {
  it('max_batch_size 4, 10 ms timeout, one executor, batches of 5 ms', async () => {
    const { clock, runs, queue } = harness({ mode: 'fixed' });
    queue.schedule('a', 1); // t = 0: a batch opens, due at t = 10
    clock.advance(4);
    queue.schedule('b', 1);
    clock.advance(5.9);
    assert.deepEqual(seen(runs), [], 'not due before t = 10');
    clock.advance(0.1);
    assert.deepEqual(seen(runs), [['a b', 10]], 'due: runs with 2 rows');
    clock.advance(1);
    for (const t of ['c', 'd', 'e', 'f']) queue.schedule(t, 1);
    assert.deepEqual(seen(runs).at(-1), ['c d e f', 11], 'full: ahead to the busy executor, not due');
    clock.advance(1);
    queue.schedule('g', 1); // t = 12: a new batch, due at t = 22
    clock.advance(3);
    runs[0].finish(); // t = 15
    await settle();
    clock.advance(5);
    runs[1].finish(); // t = 20
    await settle();
    clock.advance(1.9);
    assert.equal(runs.length, 2, 'at t = 20 the executor is free, but [g] is not due');
    clock.advance(0.1);
    assert.deepEqual(seen(runs), [
      ['a b', 10],
      ['c d e f', 11],
      ['g', 22],
    ]);
  });
});

describe('the policy table', () => {
  it('has a policy for every batching mode config accepts, and --batching_mode names each', () => {
    assert.deepEqual(Object.keys(BATCH_POLICIES).sort(), [...BATCHING_MODE_NAMES].sort());
    for (const mode of BATCHING_MODE_NAMES) assert.match(FLAGS.batching_mode.help, new RegExp(`\\b${mode} \\(`), mode);
    assert.ok(harness({ mode: 'fixed' }).queue.policy instanceof FixedTimeoutPolicy);
    assert.ok(harness({}).queue.policy instanceof FixedTimeoutPolicy, "no mode: TF Serving's");
    assert.ok(harness({ mode: 'adaptive' }).queue.policy instanceof AdaptiveBatchPolicy);
    assert.throws(() => harness({ mode: 'alone' }), /no batching policy for mode 'alone' \(known: fixed, adaptive\)/);
  });

  it('a batching.cfg edit keeps the policy (and what it learned) unless the mode changes', () => {
    const { queue } = harness({ mode: 'adaptive' });
    const first = queue.policy;
    queue.reconfigure({ ...queue.options, maxBatchSize: 8, latencyTargetMs: 50 });
    assert.equal(queue.policy, first);
    queue.reconfigure({ ...queue.options, mode: 'fixed' });
    assert.ok(queue.policy instanceof FixedTimeoutPolicy);
  });
});

describe('a third policy, plugged in through the table', () => {
  const policies: PolicyTable = { ...BATCH_POLICIES, alone: () => new RunAlone() };

  it("every request runs alone, while the queue keeps TF Serving's rules (ahead when full, queue full)", async () => {
    const { runs, queue } = harness({ mode: 'alone', maxEnqueuedBatches: 2 }, policies);
    assert.ok(queue.policy instanceof RunAlone);
    assert.equal(queue.executionBatchSize, 1);
    queue.schedule('a', 1); // runs at once
    queue.schedule('b', 1); // a full batch: ahead to the busy executor
    queue.schedule('c', 1);
    queue.schedule('d', 1);
    assert.throws(
      () => queue.schedule('e', 1),
      (e: unknown) =>
        e instanceof ServingError &&
        e.code === Code.UNAVAILABLE &&
        e.message ===
          'The batch scheduling queue to which this task was submitted is full; currently 2 batches enqueued and max_enqueued_batches is 2',
    );
    assert.deepEqual(
      runs.map((r) => r.tasks),
      [['a'], ['b']],
    );
    runs[0].finish();
    await settle();
    runs[1].finish();
    await settle();
    assert.deepEqual(
      runs.map((r) => r.tasks),
      [['a'], ['b'], ['c'], ['d']],
      'one request per batch, in order',
    );
  });

  it('the modes config knows still reach their own policies from the extended table', () => {
    assert.ok(harness({ mode: 'fixed' }, policies).queue.policy instanceof FixedTimeoutPolicy);
    assert.ok(harness({ mode: 'adaptive' }, policies).queue.policy instanceof AdaptiveBatchPolicy);
  });
});
