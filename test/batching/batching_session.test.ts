// Batching in front of a version: stacking, padding with the first row of the last task,
// slicing results back, split requests reassembled in order. Over HTTP on a real model:
// test/integration/server_batching_parameters.test.ts.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ManualClock } from '../../src/batching/clock.js';
import { SharedBatchScheduler } from '../../src/batching/batch_scheduler.js';
import { BatchingSession, processBatch, type BatchTask } from '../../src/batching/batching_session.js';
import type { QueueOptions } from '../../src/batching/queue_options.js';
import type { ServableVersion } from '../../src/services/servable_version.js';
import type { HostTensor } from '../../src/tensor/host_tensor.js';
import { concatRows, padDims, padRows, sliceRows } from '../../src/tensor/batch_rows.js';
import { Code, QUEUED_PAST_DEADLINE, ServingError } from '../../src/errors/status.js';

const col = (...v: number[]): HostTensor => ({ dtype: 'float32', shape: [v.length, 1], values: Float32Array.from(v) });
const rows = (t: HostTensor) => Array.from(t.values as Float32Array);

/** A version computing y = 10·x that records the batches it ran. */
/** A session on `scheduler` with these tests' usual queue (8 rows, 1 ms, 10 batches, no splitting), changed by `options`. */
function sessionOf(version: ServableVersion, scheduler: SharedBatchScheduler<BatchTask>, options: Partial<QueueOptions> = {}) {
  return new BatchingSession('m/1', version, scheduler, {
    maxBatchSize: 8,
    batchTimeoutMicros: 1000,
    maxEnqueuedBatches: 10,
    allowedBatchSizes: [],
    enableLargeBatchSplitting: false,
    ...options,
  });
}

function recordingVersion() {
  const seen: number[][] = [];
  const version: ServableVersion = {
    description: { backend: 'fake', engines: {}, signatures: {}, refusals: {}, signatureDefs: {}, warmupRecords: 0 },
    run: async (_sig, inputs) => {
      seen.push(rows(inputs.x));
      return { y: { dtype: 'float32', shape: inputs.x.shape, values: Float32Array.from(inputs.x.values as Float32Array, (v) => v * 10) } };
    },
  };
  return { seen, version };
}

describe('row operations', () => {
  it('concat, slice and pad along dimension 0 (strings too)', () => {
    assert.deepEqual(rows(concatRows([col(1, 2), col(3)])), [1, 2, 3]);
    assert.deepEqual(rows(sliceRows(col(1, 2, 3, 4), 1, 2)), [2, 3]);
    assert.deepEqual(rows(padRows(col(1, 2, 3), 5, 1)), [1, 2, 3, 2, 2]);
    const s: HostTensor = { dtype: 'string', shape: [2], values: [Buffer.from('a'), Buffer.from('b')] };
    assert.deepEqual(
      (concatRows([s, s]).values as Uint8Array[]).map((b) => Buffer.from(b).toString()),
      ['a', 'b', 'a', 'b'],
    );
    assert.throws(
      () => concatRows([col(1), { dtype: 'float32', shape: [1, 2], values: Float32Array.of(1, 2) }]),
      /cannot batch tensors of shapes/,
    );
  });
  it('pads non-batch dimensions with zeros at their end', () => {
    const t: HostTensor = { dtype: 'float32', shape: [2, 2], values: Float32Array.of(1, 2, 3, 4) };
    assert.deepEqual(rows(padDims(t, [2, 3])), [1, 2, 0, 3, 4, 0]);
  });
});

describe('admission before a request is read', () => {
  it("places held by requests still being parsed count against the queue's room; released ones give it back", () => {
    const clock = new ManualClock();
    const scheduler = new SharedBatchScheduler<BatchTask>(1, () => new Promise<void>(() => {}), clock);
    const { version } = recordingVersion();
    const session = sessionOf(version, scheduler, { maxBatchSize: 2, maxEnqueuedBatches: 2 });
    const releases = Array.from({ length: 5 }, () => session.admit());
    assert.equal(releases.length, 5, 'no queue yet (its signature and shape are known only once parsed): nothing is refused');
    releases.forEach((r) => r());
    void session.run('serving_default', { x: col(1, 2) }, []); // runs at once: the executor never answers
    // Queue room now: 2 batches of 2 rows.
    const held = [session.admit(), session.admit(), session.admit(), session.admit()];
    assert.throws(
      () => session.admit(),
      (e: unknown) =>
        e instanceof ServingError &&
        e.code === Code.UNAVAILABLE &&
        /^The batch scheduling queue to which this task was submitted is full; currently 0 batches enqueued and max_enqueued_batches is 2$/.test(
          e.message,
        ),
    );
    held[0]();
    held[0]();
    const again = session.admit();
    assert.throws(() => session.admit(), 'a release given twice frees one place only');
    for (const r of [again, ...held.slice(1)]) r();
    // 3-4 fill a batch handed ahead to the busy executor; 5-8 fill the two the queue may hold.
    for (const v of [3, 4, 5, 6, 7, 8]) void session.run('serving_default', { x: col(v) }, []).catch(() => {});
    assert.throws(() => session.admit(), /currently 2 batches enqueued and max_enqueued_batches is 2$/, 'the queue itself is full');
  });
});

describe('batching session', () => {
  it('a task past its deadline when its batch starts is answered DEADLINE_EXCEEDED and never runs; the rest of the batch runs', async () => {
    const clock = new ManualClock();
    const scheduler = new SharedBatchScheduler<BatchTask>(1, processBatch, clock);
    const { seen, version } = recordingVersion();
    const session = sessionOf(version, scheduler, { allowedBatchSizes: [2, 4, 8] });
    const late = session.run('serving_default', { x: col(1, 2) }, [], { deadline: performance.now() - 1 });
    const live = session.run('serving_default', { x: col(3) }, [], { deadline: performance.now() + 60_000 });
    const open = session.run('serving_default', { x: col(4) }, []);
    clock.advance(1);
    await assert.rejects(
      late,
      (e: unknown) => e instanceof ServingError && e.code === Code.DEADLINE_EXCEEDED && e.message === QUEUED_PAST_DEADLINE,
    );
    assert.deepEqual(rows((await live).y), [30]);
    assert.deepEqual(rows((await open).y), [40]);
    assert.deepEqual(seen, [[3, 4]], 'the late rows left the batch, which was padded anew (2 rows: no padding)');
  });

  it('stacks requests, pads with the first row of the last task, and slices each answer back', async () => {
    const clock = new ManualClock();
    const scheduler = new SharedBatchScheduler<BatchTask>(1, processBatch, clock);
    const { seen, version } = recordingVersion();
    const session = sessionOf(version, scheduler, { allowedBatchSizes: [4, 8] });
    const a = session.run('serving_default', { x: col(1) }, []);
    const b = session.run('serving_default', { x: col(2, 3) }, []);
    clock.advance(1);
    assert.deepEqual(rows((await a).y), [10]);
    assert.deepEqual(rows((await b).y), [20, 30]);
    assert.deepEqual(seen, [[1, 2, 3, 2]], 'one batch of 3 rows padded to 4 with row 2 (first row of the last task)');
  });

  it('requests with other non-batch shapes go to another queue', async () => {
    const clock = new ManualClock();
    const scheduler = new SharedBatchScheduler<BatchTask>(2, processBatch, clock);
    const { seen, version } = recordingVersion();
    const session = sessionOf(version, scheduler);
    const a = session.run('serving_default', { x: col(1) }, []);
    const b = session.run('serving_default', { x: { dtype: 'float32', shape: [1, 2], values: Float32Array.of(5, 6) } }, []);
    clock.advance(1);
    await Promise.all([a, b]);
    assert.equal(seen.length, 2);
  });

  it('inputs and output filters named in another order share a queue; another output filter does not', async () => {
    const clock = new ManualClock();
    const scheduler = new SharedBatchScheduler<BatchTask>(2, processBatch, clock);
    const { seen, version } = recordingVersion();
    const session = sessionOf(version, scheduler);
    const a = session.run('serving_default', { x: col(1), z: col(7) }, ['y', 'w']);
    const b = session.run('serving_default', { z: col(8), x: col(2) }, ['w', 'y']);
    const c = session.run('serving_default', { x: col(3), z: col(9) }, ['y']);
    clock.advance(1);
    await Promise.all([a, b, c]);
    assert.deepEqual(seen, [[1, 2], [3]]);
  });

  it('a request like the last one joins its queue; one of another signature, dtype, input set or shape does not', async () => {
    const clock = new ManualClock();
    const scheduler = new SharedBatchScheduler<BatchTask>(1, processBatch, clock);
    const { seen, version } = recordingVersion();
    const session = sessionOf(version, scheduler);
    const int = (v: number): HostTensor => ({ dtype: 'int32', shape: [1, 1], values: Int32Array.of(v) });
    // Each request unlike the first queue's comes between two of them: it is compared with one
    // like them, and the next one with it.
    const like = (v: number) => session.run('serving_default', { x: col(v) }, []);
    const runs = [
      like(1),
      session.run('serving_default', { x: col(10), z: col(0) }, []),
      like(2),
      session.run('other', { x: col(20) }, []),
      like(3),
      session.run('serving_default', { x: int(30) }, []),
      like(4),
      session.run('serving_default', { x: { dtype: 'float32', shape: [1, 2], values: Float32Array.of(40, 40) } }, []),
      like(5),
      session.run('serving_default', { x: col(50) }, ['y']),
      session.run('serving_default', { x: col(60) }, ['w']),
      like(6),
    ];
    clock.advance(1);
    await Promise.all(runs);
    assert.deepEqual(
      seen.map((r) => r.join(' ')).sort(),
      ['1 2 3 4 5 6', '10', '20', '30', '40 40', '50', '60'],
      'one batch per queue; the first queue found again after the others',
    );
  });

  it('pad_variable_length_inputs: inputs of other lengths share a batch, zero-padded to the longest', async () => {
    const clock = new ManualClock();
    const scheduler = new SharedBatchScheduler<BatchTask>(1, processBatch, clock);
    const seen: number[][][] = [];
    const version: ServableVersion = {
      description: { backend: 'fake', engines: {}, signatures: {}, refusals: {}, signatureDefs: {}, warmupRecords: 0 },
      run: async (_s, inputs) => {
        const x = inputs.x;
        seen.push([x.shape, rows(x)]);
        return { y: x };
      },
    };
    const session = sessionOf(version, scheduler, { padVariableLengthInputs: true });
    const a = session.run('s', { x: { dtype: 'float32', shape: [1, 2], values: Float32Array.of(1, 2) } }, []);
    const b = session.run('s', { x: { dtype: 'float32', shape: [1, 3], values: Float32Array.of(3, 4, 5) } }, []);
    clock.advance(1);
    await Promise.all([a, b]);
    assert.deepEqual(seen, [
      [
        [2, 3],
        [1, 2, 0, 3, 4, 5],
      ],
    ]);
    assert.deepEqual(rows((await a).y), [1, 2, 0]);
  });

  it('a request split over batches comes back whole and in order', async () => {
    const clock = new ManualClock();
    const scheduler = new SharedBatchScheduler<BatchTask>(1, processBatch, clock);
    const { seen, version } = recordingVersion();
    const session = sessionOf(version, scheduler, {
      maxBatchSize: 16,
      maxExecutionBatchSize: 4,
      batchTimeoutMicros: 0,
      enableLargeBatchSplitting: true,
    });
    const out = await session.run('serving_default', { x: col(1, 2, 3, 4, 5, 6, 7, 8, 9, 10) }, []);
    assert.deepEqual(rows(out.y), [10, 20, 30, 40, 50, 60, 70, 80, 90, 100]);
    assert.deepEqual(
      seen.map((b) => b.length),
      [4, 4, 2],
    );
  });

  it("the next batch goes to the executor once this one's outputs are in, before its requests are answered", async () => {
    const clock = new ManualClock();
    const scheduler = new SharedBatchScheduler<BatchTask>(1, processBatch, clock);
    const order: string[] = [];
    let finishFirst!: () => void;
    const version: ServableVersion = {
      description: { backend: 'fake', engines: {}, signatures: {}, refusals: {}, signatureDefs: {}, warmupRecords: 0 },
      run: async (_s, inputs) => {
        const x = rows(inputs.x)[0];
        order.push(`run ${x}`);
        if (x === 1) await new Promise<void>((r) => (finishFirst = r));
        return { y: inputs.x };
      },
    };
    const session = sessionOf(version, scheduler);
    const first = session.run('s', { x: col(1) }, []).then(() => order.push('answer 1'));
    clock.advance(1);
    const second = session.run('s', { x: col(2) }, []).then(() => order.push('answer 2'));
    clock.advance(1); // due, but the one executor is busy
    finishFirst();
    await Promise.all([first, second]);
    assert.deepEqual(order, ['run 1', 'run 2', 'answer 1', 'answer 2']);
  });

  it('a failing batch fails every request in it, and only those', async () => {
    const clock = new ManualClock();
    const scheduler = new SharedBatchScheduler<BatchTask>(1, processBatch, clock);
    const failing: ServableVersion = {
      description: { backend: 'fake', engines: {}, signatures: {}, refusals: {}, signatureDefs: {}, warmupRecords: 0 },
      run: async () => Promise.reject(new Error('boom')),
    };
    const session = new BatchingSession('m/1', failing, scheduler, {
      maxBatchSize: 8,
      batchTimeoutMicros: 0,
      maxEnqueuedBatches: 10,
      allowedBatchSizes: [],
      enableLargeBatchSplitting: false,
    });
    await assert.rejects(session.run('s', { x: col(1) }, []), /boom/);
  });
});
