// Batching in front of a version: stacking, padding with the first row of the last task,
// slicing results back, split requests reassembled in order; then over HTTP on a real model.
import { describe, it, after, before } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import fs from 'node:fs';
import { ManualClock } from '../../src/batching/clock.js';
import { SharedBatchScheduler } from '../../src/batching/batch_scheduler.js';
import { BatchingSession, processBatch, type BatchTask } from '../../src/batching/batching_session.js';
import type { ServableVersion } from '../../src/services/servable_version.js';
import type { HostTensor } from '../../src/tensor/host_tensor.js';
import { concatRows, padDims, padRows, sliceRows } from '../../src/tensor/rows.js';
import { REPO_ROOT } from '../helpers/paths.js';
import { postJson, startServer, type RunningServer } from '../helpers/server_process.js';
import { writeHalfPlusTwoSavedModel } from '../../src/savedmodel/model_zoo.js';
import { tempDir } from '../helpers/temp.js';
import { Code, QUEUED_PAST_DEADLINE, ServingError } from '../../src/core/status.js';

const col = (...v: number[]): HostTensor => ({ dtype: 'float32', shape: [v.length, 1], values: Float32Array.from(v) });
const rows = (t: HostTensor) => Array.from(t.values as Float32Array);

/** A version computing y = 10·x that records the batches it ran. */
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
    assert.deepEqual((concatRows([s, s]).values as Uint8Array[]).map((b) => Buffer.from(b).toString()), ['a', 'b', 'a', 'b']);
    assert.throws(() => concatRows([col(1), { dtype: 'float32', shape: [1, 2], values: Float32Array.of(1, 2) }]), /cannot batch tensors of shapes/);
  });
  it('pads non-batch dimensions with zeros at their end', () => {
    const t: HostTensor = { dtype: 'float32', shape: [2, 2], values: Float32Array.of(1, 2, 3, 4) };
    assert.deepEqual(rows(padDims(t, [2, 3])), [1, 2, 0, 3, 4, 0]);
  });
});

describe('admission before a request is read', () => {
  it('places held by requests still being parsed count against the queue\'s room; released ones give it back', () => {
    const clock = new ManualClock();
    const scheduler = new SharedBatchScheduler<BatchTask>(1, () => new Promise<void>(() => {}), clock);
    const { version } = recordingVersion();
    const session = new BatchingSession('m/1', version, scheduler, { maxBatchSize: 2, batchTimeoutMicros: 1000, maxEnqueuedBatches: 2, allowedBatchSizes: [], enableLargeBatchSplitting: false });
    const releases = Array.from({ length: 5 }, () => session.admit());
    assert.equal(releases.length, 5, 'no queue yet (its signature and shape are known only once parsed): nothing is refused');
    releases.forEach((r) => r());
    void session.run('serving_default', { x: col(1, 2) }, []); // runs at once: the executor never answers
    // Queue room now: 2 batches of 2 rows.
    const held = [session.admit(), session.admit(), session.admit(), session.admit()];
    assert.throws(() => session.admit(), (e: unknown) => e instanceof ServingError && e.code === Code.UNAVAILABLE && /^The batch scheduling queue to which this task was submitted is full; currently 0 batches enqueued and max_enqueued_batches is 2$/.test(e.message));
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
    const session = new BatchingSession('m/1', version, scheduler, { maxBatchSize: 8, batchTimeoutMicros: 1000, maxEnqueuedBatches: 10, allowedBatchSizes: [2, 4, 8], enableLargeBatchSplitting: false });
    const late = session.run('serving_default', { x: col(1, 2) }, [], { deadline: performance.now() - 1 });
    const live = session.run('serving_default', { x: col(3) }, [], { deadline: performance.now() + 60_000 });
    const open = session.run('serving_default', { x: col(4) }, []);
    clock.advance(1);
    await assert.rejects(late, (e: unknown) => e instanceof ServingError && e.code === Code.DEADLINE_EXCEEDED && e.message === QUEUED_PAST_DEADLINE);
    assert.deepEqual(rows((await live).y), [30]);
    assert.deepEqual(rows((await open).y), [40]);
    assert.deepEqual(seen, [[3, 4]], 'the late rows left the batch, which was padded anew (2 rows: no padding)');
  });

  it('stacks requests, pads with the first row of the last task, and slices each answer back', async () => {
    const clock = new ManualClock();
    const scheduler = new SharedBatchScheduler<BatchTask>(1, processBatch, clock);
    const { seen, version } = recordingVersion();
    const session = new BatchingSession('m/1', version, scheduler, { maxBatchSize: 8, batchTimeoutMicros: 1000, maxEnqueuedBatches: 10, allowedBatchSizes: [4, 8], enableLargeBatchSplitting: false });
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
    const session = new BatchingSession('m/1', version, scheduler, { maxBatchSize: 8, batchTimeoutMicros: 1000, maxEnqueuedBatches: 10, allowedBatchSizes: [], enableLargeBatchSplitting: false });
    const a = session.run('serving_default', { x: col(1) }, []);
    const b = session.run('serving_default', { x: { dtype: 'float32', shape: [1, 2], values: Float32Array.of(5, 6) } }, []);
    clock.advance(1);
    await Promise.all([a, b]);
    assert.equal(seen.length, 2);
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
    const session = new BatchingSession('m/1', version, scheduler, { maxBatchSize: 8, batchTimeoutMicros: 1000, maxEnqueuedBatches: 10, allowedBatchSizes: [], enableLargeBatchSplitting: false, padVariableLengthInputs: true });
    const a = session.run('s', { x: { dtype: 'float32', shape: [1, 2], values: Float32Array.of(1, 2) } }, []);
    const b = session.run('s', { x: { dtype: 'float32', shape: [1, 3], values: Float32Array.of(3, 4, 5) } }, []);
    clock.advance(1);
    await Promise.all([a, b]);
    assert.deepEqual(seen, [[[2, 3], [1, 2, 0, 3, 4, 5]]]);
    assert.deepEqual(rows((await a).y), [1, 2, 0]);
  });

  it('a request split over batches comes back whole and in order', async () => {
    const clock = new ManualClock();
    const scheduler = new SharedBatchScheduler<BatchTask>(1, processBatch, clock);
    const { seen, version } = recordingVersion();
    const session = new BatchingSession('m/1', version, scheduler, { maxBatchSize: 16, maxExecutionBatchSize: 4, batchTimeoutMicros: 0, maxEnqueuedBatches: 10, allowedBatchSizes: [], enableLargeBatchSplitting: true });
    const out = await session.run('serving_default', { x: col(1, 2, 3, 4, 5, 6, 7, 8, 9, 10) }, []);
    assert.deepEqual(rows(out.y), [10, 20, 30, 40, 50, 60, 70, 80, 90, 100]);
    assert.deepEqual(seen.map((b) => b.length), [4, 4, 2]);
  });

  it('a failing batch fails every request in it, and only those', async () => {
    const clock = new ManualClock();
    const scheduler = new SharedBatchScheduler<BatchTask>(1, processBatch, clock);
    const failing: ServableVersion = { description: { backend: 'fake', engines: {}, signatures: {}, refusals: {}, signatureDefs: {}, warmupRecords: 0 }, run: async () => Promise.reject(new Error('boom')) };
    const session = new BatchingSession('m/1', failing, scheduler, { maxBatchSize: 8, batchTimeoutMicros: 0, maxEnqueuedBatches: 10, allowedBatchSizes: [], enableLargeBatchSplitting: false });
    await assert.rejects(session.run('s', { x: col(1) }, []), /boom/);
  });
});

describe('batching over HTTP (real server, real model)', () => {
  let server: RunningServer;
  before(async () => {
    const dir = tempDir('tfgate-batching-');
    const cfg = path.join(dir, 'batching.cfg');
    fs.writeFileSync(cfg, 'max_batch_size { value: 8 }\nbatch_timeout_micros { value: 20000 }\nmax_enqueued_batches { value: 100 }\nnum_batch_threads { value: 1 }\nallowed_batch_sizes: 4\nallowed_batch_sizes: 8\n');
    fs.writeFileSync(path.join(dir, 'monitoring.config'), 'prometheus_config { enable: true }\n');
    server = await startServer([`--model_base_path=${path.join(REPO_ROOT, 'model_repository', 'half_plus_two')}`, '--model_name=hp2', '--enable_batching', `--batching_parameters_file=${cfg}`, '--num_executors=1', `--monitoring_config_file=${path.join(dir, 'monitoring.config')}`]);
  });
  after(async () => assert.equal(await server.stop(), 0));

  it('concurrent requests each get their own answer', async () => {
    const xs = [1, 2, 3, 4, 5, 6, 7];
    const answers = await Promise.all(xs.map((x) => postJson(server.url('/v1/models/hp2:predict'), { instances: [[x]] })));
    for (const a of answers) assert.equal(a.status, 200, a.text);
    assert.deepEqual(answers.map((a) => a.json.predictions[0][0]), xs.map((x) => 0.5 * x + 2));
    // Server-Timing tells each client the batch it ran in: rows / rows after padding.
    const batches = answers.map((a) => /batch;desc="(\d+)\/(\d+)"/.exec(a.headers.get('server-timing') ?? ''));
    assert.ok(batches.every((m) => m && [4, 8].includes(Number(m[2]))), 'padded to an allowed size');
    assert.ok(batches.some((m) => Number(m![1]) > 1), 'requests that arrived together ran as one batch');
  });

  it('batch metrics: sizes, padding rows and queuing latency', async () => {
    const text = await (await fetch(server.url('/monitoring/prometheus/metrics'))).text();
    assert.match(text, /^tfgate_batch_size_count\{model_name="hp2"\} [1-9]\d*$/m);
    assert.match(text, /^tfgate_batch_padding_rows_total\{model_name="hp2"\} [1-9]\d*$/m);
    assert.match(text, /^:tensorflow:serving:batching_session:queuing_latency_count\{thread_pool_name="batch_threads"\} [1-9]\d*$/m);
  });

  it('a request larger than max_batch_size is a 400 with TF Serving\'s text', async () => {
    const r = await postJson(server.url('/v1/models/hp2:predict'), { instances: new Array(9).fill([1.0]) });
    assert.equal(r.status, 400);
    assert.equal(r.json.error, 'Task size 9 is larger than maximum input batch size 8');
  });
});

describe('YAML top-level batching section (real server)', () => {
  it('sets the global parameters when no --batching_parameters_file is given', async () => {
    const dir = tempDir('tfgate-yamlbatch-');
    await writeHalfPlusTwoSavedModel(path.join(dir, 'm', '1'));
    fs.writeFileSync(path.join(dir, 'tfgate.yaml'), 'batching: {max_batch_size: 2}\nmodel_config_list:\n  config:\n    - {name: m, base_path: m}\n');
    const server = await startServer([`--config=${path.join(dir, 'tfgate.yaml')}`, '--enable_batching', '--num_executors=1']);
    try {
      const r = await postJson(server.url('/v1/models/m:predict'), { instances: [[1.0], [2.0], [3.0]] });
      assert.equal(r.json.error, 'Task size 3 is larger than maximum input batch size 2');
    } finally {
      assert.equal(await server.stop(), 0);
    }
  });
});

describe('per-model batching parameters (real server)', () => {
  let server: RunningServer;
  before(async () => {
    const dir = tempDir('tfgate-permodel-');
    await writeHalfPlusTwoSavedModel(path.join(dir, 'by_file', '1'));
    await writeHalfPlusTwoSavedModel(path.join(dir, 'by_yaml', '1'));
    await writeHalfPlusTwoSavedModel(path.join(dir, 'global', '1'));
    fs.writeFileSync(path.join(dir, 'by_file', '1', 'batching_params.pbtxt'), 'max_batch_size { value: 2 }\n');
    fs.writeFileSync(path.join(dir, 'batching.cfg'), 'max_batch_size { value: 8 }\nnum_batch_threads { value: 1 }\n');
    fs.writeFileSync(
      path.join(dir, 'tfgate.yaml'),
      'model_config_list:\n  config:\n    - {name: by_file, base_path: by_file}\n    - {name: global, base_path: global}\n    - name: by_yaml\n      base_path: by_yaml\n      batching: {max_batch_size: 3}\n',
    );
    server = await startServer([`--config=${path.join(dir, 'tfgate.yaml')}`, '--enable_batching', `--batching_parameters_file=${path.join(dir, 'batching.cfg')}`, '--enable_per_model_batching_parameters', '--num_executors=1']);
  });
  after(async () => assert.equal(await server.stop(), 0));

  const sizeError = async (model: string, rows: number) =>
    (await postJson(server.url(`/v1/models/${model}:predict`), { instances: new Array(rows).fill([1.0]) })).json.error as string | undefined;

  it("a version's batching_params.pbtxt, a model's YAML section, else the global file", async () => {
    assert.equal(await sizeError('by_file', 3), 'Task size 3 is larger than maximum input batch size 2');
    assert.equal(await sizeError('by_yaml', 4), 'Task size 4 is larger than maximum input batch size 3');
    assert.equal(await sizeError('by_yaml', 3), undefined);
    assert.equal(await sizeError('global', 8), undefined);
    assert.equal(await sizeError('global', 9), 'Task size 9 is larger than maximum input batch size 8');
  });
});
