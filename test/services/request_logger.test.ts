// Request logging in process: the PredictionLog records (read back with the test client's own
// definitions, and by the warmup reader), the file collector's rotation, its bounded queue in
// front of a disk that never answers or fails, and the sampling of calls.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { tempDir } from '../helpers/temp.js';
import { logFiles, readPredictionLogs } from '../helpers/prediction_log_reader.js';
import { capturePredictRequest, encodePredictionLog, type LoggedCall } from '../../src/services/prediction_log.js';
import { FileLogCollector, type DropReason, type LogCollectorReports, type PendingRecord } from '../../src/services/log_collector.js';
import { ServerRequestLogger } from '../../src/services/request_logger.js';
import { readWarmupRuns, WARMUP_FILE } from '../../src/savedmodel/warmup_requests.js';
import { readTfRecords, writeTfRecords } from '../../src/savedmodel/tfrecord.js';
import { protoType } from '../../src/proto/index.js';
import type { ModelConfig } from '../../src/config/model_server_config.js';

const METADATA = { samplingRate: 0.5, savedModelTags: ['serve'] };
const example = (x: number) =>
  protoType('tensorflow.Example')
    .encode(protoType('tensorflow.Example').fromObject({ features: { feature: { x: { floatList: { value: [x] } } } } }))
    .finish();

describe('PredictionLog records', () => {
  const inputs = {
    x: { dtype: 'float32' as const, shape: [3], values: Float32Array.of(1, 2, 5) },
    s: { dtype: 'string' as const, shape: [1], values: [new TextEncoder().encode('a')] },
  };
  const calls: LoggedCall[] = [
    {
      kind: 'predict',
      request: capturePredictRequest({ name: 'm', label: 'stable' }, undefined, inputs, ['y']),
      name: 'm',
      version: 7,
      signatureName: 'serving_default',
      outputs: { y: { dtype: 'float32', shape: [3], values: Float32Array.of(2.5, 3, 4.5) } },
    },
    {
      kind: 'classify',
      spec: { name: 'm', version: 7 },
      signatureName: 'classify_x_to_y',
      examples: [example(2)],
      run: { version: 7, signatureName: 'classify_x_to_y', results: [[['', 3]]] },
    },
    {
      kind: 'regress',
      spec: { name: 'm' },
      signatureName: 'regress_x_to_y',
      examples: [example(2), example(4)],
      run: { version: 7, signatureName: 'regress_x_to_y', results: [3, 4] },
    },
    {
      kind: 'multi_inference',
      tasks: [
        { spec: { name: 'm' }, signatureName: 'classify_x_to_y', methodName: 'tensorflow/serving/classify' },
        { spec: { name: 'm' }, signatureName: 'regress_x_to_y', methodName: 'tensorflow/serving/regress' },
      ],
      examples: [example(2)],
      runs: [
        { kind: 'classify', version: 7, signatureName: 'classify_x_to_y', results: [[['', 3]]] },
        { kind: 'regress', version: 7, signatureName: 'regress_x_to_y', results: [3] },
      ],
    },
  ];

  it("each call reads back, with the client's definitions, as the gRPC request and response it stands for", () => {
    const dir = tempDir();
    const file = path.join(dir, 'log');
    fs.writeFileSync(file, writeTfRecords(calls.map((c) => encodePredictionLog(c, METADATA, 1700000000))));
    const [predict, classify, regress, multi] = readPredictionLogs(file);
    for (const r of [predict, classify, regress, multi]) {
      assert.deepEqual(r.log_metadata.sampling_config, { sampling_rate: 0.5 });
      assert.deepEqual(r.log_metadata.saved_model_tags, ['serve']);
      assert.equal(r.log_metadata.timestamp_secs, 1700000000);
    }
    assert.deepEqual(predict.log_metadata.model_spec, {
      name: 'm',
      version: { value: 7 },
      signature_name: 'serving_default',
      version_choice: 'version',
    });
    const req = predict.predict_log.request;
    assert.deepEqual(req.model_spec, { name: 'm', version_label: 'stable', version_choice: 'version_label' });
    assert.deepEqual(req.output_filter, ['y']);
    assert.deepEqual(new Float32Array(new Uint8Array(req.inputs.x.tensor_content).buffer), Float32Array.of(1, 2, 5));
    assert.deepEqual(req.inputs.x.tensor_shape, { dim: [{ size: 3 }] });
    assert.equal(req.inputs.s.dtype, 'DT_STRING');
    assert.deepEqual(
      req.inputs.s.string_val.map((b: Uint8Array) => Buffer.from(b).toString()),
      ['a'],
    );
    assert.deepEqual(
      new Float32Array(new Uint8Array(predict.predict_log.response.outputs.y.tensor_content).buffer),
      Float32Array.of(2.5, 3, 4.5),
    );
    assert.deepEqual(predict.predict_log.response.model_spec, {
      name: 'm',
      version: { value: 7 },
      signature_name: 'serving_default',
      version_choice: 'version',
    });

    assert.deepEqual(classify.classify_log.request.model_spec, {
      name: 'm',
      version: { value: 7 },
      signature_name: 'classify_x_to_y',
      version_choice: 'version',
    });
    assert.deepEqual(classify.classify_log.request.input.example_list.examples, [
      { features: { feature: { x: { float_list: { value: [2] }, kind: 'float_list' } } } },
    ]);
    assert.deepEqual(classify.classify_log.response.result, { classifications: [{ classes: [{ score: 3 }] }] });
    assert.deepEqual(regress.regress_log.response.result, { regressions: [{ value: 3 }, { value: 4 }] });
    assert.equal(regress.regress_log.request.input.example_list.examples.length, 2);

    const m = multi.multi_inference_log;
    assert.deepEqual(
      m.request.tasks.map((t: { method_name: string }) => t.method_name),
      ['tensorflow/serving/classify', 'tensorflow/serving/regress'],
    );
    assert.deepEqual(m.response.results[0].classification_result, { classifications: [{ classes: [{ score: 3 }] }] });
    assert.deepEqual(m.response.results[1].regression_result, { regressions: [{ value: 3 }] });
    assert.deepEqual(m.response.results[1].model_spec, {
      name: 'm',
      version: { value: 7 },
      signature_name: 'regress_x_to_y',
      version_choice: 'version',
    });
  });

  it('the warmup reader replays them: the same signatures, inputs and output filter', async () => {
    const dir = tempDir();
    fs.mkdirSync(path.join(dir, 'assets.extra'));
    fs.writeFileSync(path.join(dir, WARMUP_FILE), writeTfRecords(calls.map((c) => encodePredictionLog(c, METADATA, 0))));
    const runs = (await readWarmupRuns(dir))!;
    assert.deepEqual(
      runs.map((r) => r.map((run) => [run.signature, run.outputKeys])),
      [
        [['serving_default', ['y']]],
        [['classify_x_to_y', []]],
        [['regress_x_to_y', []]],
        [
          ['classify_x_to_y', []],
          ['regress_x_to_y', []],
        ],
      ],
    );
    assert.deepEqual(runs[0][0].inputs.x, inputs.x);
    assert.deepEqual(
      (runs[0][0].inputs.s.values as Uint8Array[]).map((v) => Buffer.from(v).toString()),
      ['a'],
    );
    assert.deepEqual(
      (runs[2][0].inputs.inputs.values as Uint8Array[]).map((v) => Buffer.from(v)),
      [example(2), example(4)].map((e) => Buffer.from(e)),
    );
  });
});

/** A record of exactly `size` encoded bytes, its first byte `tag`. */
function record(tag: number, size = 60, model = 'm'): PendingRecord {
  return { model, bytes: size, encode: () => new Uint8Array(size).fill(tag) };
}

/** Reports that remember what they were told. */
function recorder(): {
  reports: LogCollectorReports;
  written: string[];
  dropped: Array<[string, DropReason, string | undefined]>;
  failures: string[];
} {
  const r = { written: [] as string[], dropped: [] as Array<[string, DropReason, string | undefined]>, failures: [] as string[] };
  return {
    ...r,
    reports: {
      written: (m) => void r.written.push(m),
      dropped: (m, reason, e) => void r.dropped.push([m, reason, e?.code]),
      failing: (file, e) => void r.failures.push(`${path.basename(file)}: ${e.message}`),
    },
  };
}

/** Everything written into a FIFO, read once a writer opens it, until it closes. */
function readFifo(fifo: string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    fs.createReadStream(fifo)
      .on('data', (d) => chunks.push(d as Buffer))
      .on('end', () => resolve(Buffer.concat(chunks)))
      .on('error', reject);
  });
}

const stemOf = (prefix: string) => `${prefix}.${os.hostname()}.${process.pid}`;
const firstBytes = (file: string) => readTfRecords(fs.readFileSync(file), file).map((r) => r[0]);

describe('file log collector', () => {
  it('rotates before a record would pass the size bound; a record never splits; a larger one gets a file of its own', async () => {
    const prefix = path.join(tempDir(), 'req');
    // Each 60-byte record is a 76-byte frame: two fit in 160 bytes, a third does not.
    const told = recorder();
    const c = new FileLogCollector(prefix, { maxFileBytes: 160, maxQueuedBytes: 1 << 20 }, told.reports);
    for (const tag of [1, 2, 3, 4, 5]) c.collect(record(tag));
    await c.drained();
    c.collect(record(6, 500));
    c.collect(record(7));
    await c.close();
    const files = logFiles(prefix);
    assert.deepEqual(
      files.map((f) => path.basename(f)),
      [0, 1, 2, 3, 4].map((n) => `${path.basename(stemOf(prefix))}.0000${n}.tfrecord`),
    );
    assert.deepEqual(files.map(firstBytes), [[1, 2], [3, 4], [5], [6], [7]]);
    for (const f of files)
      assert.ok(fs.statSync(f).size <= 160 || firstBytes(f).length === 1, `${f} is within the bound or holds one record`);
    assert.equal(told.written.length, 7);
  });

  it('a file an earlier process left non-empty is never appended to; an empty one is used', async () => {
    const prefix = path.join(tempDir(), 'req');
    fs.writeFileSync(`${stemOf(prefix)}.00000.tfrecord`, 'left by a crash');
    fs.writeFileSync(`${stemOf(prefix)}.00001.tfrecord`, '');
    const c = new FileLogCollector(prefix, { maxFileBytes: 1 << 20, maxQueuedBytes: 1 << 20 }, recorder().reports);
    c.collect(record(9));
    await c.close();
    assert.equal(fs.readFileSync(`${stemOf(prefix)}.00000.tfrecord`, 'utf8'), 'left by a crash');
    assert.deepEqual(firstBytes(`${stemOf(prefix)}.00001.tfrecord`), [9]);
  });

  it('a disk that never answers (a FIFO nobody reads): records past the bound are dropped at once and counted; the rest are written once it answers', async () => {
    const prefix = path.join(tempDir(), 'req');
    const fifo = `${stemOf(prefix)}.00000.tfrecord`;
    execFileSync('mkfifo', [fifo]);
    const told = recorder();
    const c = new FileLogCollector(prefix, { maxFileBytes: 1 << 20, maxQueuedBytes: 1000 }, told.reports);
    let read: Promise<Buffer> | undefined;
    try {
      // The first record is taken for writing and waits in open(); it still counts against the bound.
      for (let i = 0; i < 20; i++) c.collect(record(i, 100));
      assert.equal(told.dropped.length, 10, 'ten records of 100 bytes fit in 1000, the other ten are dropped without waiting');
      assert.ok(told.dropped.every(([m, reason]) => m === 'm' && reason === 'queue_full'));
      assert.deepEqual(
        told.failures,
        [
          `${path.basename(fifo)}: the queue of records to write is full (9 records, about 1000 bytes): the log is written slower than requests are sampled`,
        ],
        'said once for the streak',
      );
      assert.equal(c.hasRoom(1), false);
      // Someone reads the FIFO: what was queued is written.
      read = readFifo(fifo);
      await c.close();
      assert.deepEqual(
        readTfRecords(await read, fifo).map((r) => r[0]),
        [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
      );
      assert.equal(told.written.length, 10);
    } finally {
      // A failed assertion must not leave the open() waiting: the test process could not exit.
      if (!read) await Promise.all([readFifo(fifo), c.close()]);
    }
  });

  it('a failing write (a full disk) drops the records it carried, with the errno; the next write goes to a new file', async () => {
    const prefix = path.join(tempDir(), 'req');
    fs.symlinkSync('/dev/full', `${stemOf(prefix)}.00000.tfrecord`);
    const told = recorder();
    const c = new FileLogCollector(prefix, { maxFileBytes: 1 << 20, maxQueuedBytes: 1 << 20 }, told.reports);
    c.collect(record(1));
    await c.drained();
    assert.deepEqual(told.dropped, [['m', 'write_error', 'ENOSPC']]);
    assert.equal(told.failures.length, 1);
    assert.match(told.failures[0], /ENOSPC/);
    c.collect(record(2));
    await c.close();
    assert.deepEqual(firstBytes(`${stemOf(prefix)}.00001.tfrecord`), [2]);
    assert.deepEqual(told.written, ['m']);
  });
});

const modelConfig = (name: string, prefix: string, rate: number): ModelConfig => ({
  name,
  base_path: '/models/x',
  model_platform: 'tensorflow',
  model_version_policy: { latest: { num_versions: 1 } },
  version_labels: {},
  logging_config: { log_collector_config: { type: 'file', filename_prefix: prefix }, sampling_config: { sampling_rate: rate } },
});

const predictCall = (name: string): LoggedCall => ({
  kind: 'predict',
  request: capturePredictRequest({ name }, undefined, {}, []),
  name,
  version: 1,
  signatureName: 'serving_default',
  outputs: {},
});

describe('server request logger', () => {
  it("samples each call with the model's rate (0 never, 1 always, 0.25 a draw below it)", () => {
    const draws = [0, 0.1, 0.24, 0.25, 0.9, 0.999];
    let i = 0;
    const logger = new ServerRequestLogger({
      tags: ['serve'],
      limits: { maxFileBytes: 1 << 20, maxQueuedBytes: 1 << 20 },
      reports: recorder().reports,
      random: () => draws[i++ % draws.length],
    });
    const dir = tempDir();
    logger.update([
      modelConfig('never', path.join(dir, 'a'), 0),
      modelConfig('always', path.join(dir, 'b'), 1),
      modelConfig('quarter', path.join(dir, 'c'), 0.25),
      { ...modelConfig('none', '', 1), logging_config: undefined },
    ]);
    const sampled = (model: string) => draws.map(() => logger.sample(model) !== undefined);
    assert.deepEqual(sampled('never'), [false, false, false, false, false, false]);
    assert.deepEqual(sampled('always'), [true, true, true, true, true, true]);
    assert.deepEqual(sampled('quarter'), [true, true, true, false, false, false]);
    assert.deepEqual(sampled('none'), [false, false, false, false, false, false]);
    assert.equal(logger.sample('unknown'), undefined);
  });

  it('with Math.random, a rate of 0.3 logs about 30 % of calls (within 6 standard deviations of 20 000)', () => {
    const logger = new ServerRequestLogger({
      tags: [],
      limits: { maxFileBytes: 1 << 20, maxQueuedBytes: 1 << 20 },
      reports: recorder().reports,
    });
    logger.update([modelConfig('m', path.join(tempDir(), 'p'), 0.3)]);
    let n = 0;
    for (let k = 0; k < 20000; k++) if (logger.sample('m')) n++;
    const sd = Math.sqrt(20000 * 0.3 * 0.7);
    assert.ok(Math.abs(n - 6000) < 6 * sd, `${n} of 20000`);
  });

  it('models with one logging_config share its files; a reload keeps an unchanged logger and writes out a removed one', async () => {
    const dir = tempDir();
    const told = recorder();
    const logger = new ServerRequestLogger({
      tags: ['serve'],
      limits: { maxFileBytes: 1 << 20, maxQueuedBytes: 1 << 20 },
      reports: told.reports,
    });
    logger.update([
      modelConfig('a', path.join(dir, 'shared'), 1),
      modelConfig('b', path.join(dir, 'shared'), 1),
      modelConfig('c', path.join(dir, 'own'), 1),
    ]);
    for (const m of ['a', 'b', 'c']) logger.sample(m)!.log(predictCall(m));
    logger.update([modelConfig('a', path.join(dir, 'shared'), 1)]);
    assert.equal(logger.sample('c'), undefined, 'c no longer logs');
    logger.sample('a')!.log(predictCall('a'));
    await logger.close();
    assert.deepEqual(
      logFiles(path.join(dir, 'shared'))
        .flatMap(readPredictionLogs)
        .map((r) => r.log_metadata.model_spec.name),
      ['a', 'b', 'a'],
      'one file: the reload kept the logger',
    );
    assert.deepEqual(
      logFiles(path.join(dir, 'own'))
        .flatMap(readPredictionLogs)
        .map((r) => r.log_metadata.model_spec.name),
      ['c'],
      'the removed logger wrote what it had',
    );
    assert.equal(told.written.length, 4);
  });

  it("close() waits for a logger a reload retired until its queue is written (its file's reader blocked until close is called)", async () => {
    const prefix = path.join(tempDir(), 'retired');
    const fifo = `${stemOf(prefix)}.00000.tfrecord`;
    execFileSync('mkfifo', [fifo]);
    const told = recorder();
    const logger = new ServerRequestLogger({ tags: [], limits: { maxFileBytes: 1 << 20, maxQueuedBytes: 1 << 20 }, reports: told.reports });
    logger.update([modelConfig('r', prefix, 1)]);
    logger.sample('r')!.log(predictCall('r'));
    logger.update([]);
    let closed = false;
    const closing = logger.close().then(() => (closed = true));
    for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
    assert.equal(closed, false, "close() resolved before the retired logger's record was written");
    const [bytes] = await Promise.all([readFifo(fifo), closing]);
    assert.deepEqual(
      readTfRecords(bytes, fifo).map(() => 'record'),
      ['record'],
    );
    assert.equal(told.written.length, 1);
  });

  it('a full queue: the call is not even captured, and the drop is counted', async () => {
    const prefix = path.join(tempDir(), 'req');
    const fifo = `${stemOf(prefix)}.00000.tfrecord`;
    execFileSync('mkfifo', [fifo]);
    const told = recorder();
    const logger = new ServerRequestLogger({ tags: [], limits: { maxFileBytes: 1 << 20, maxQueuedBytes: 600 }, reports: told.reports });
    logger.update([modelConfig('m', prefix, 1)]);
    let tickets = 0;
    try {
      for (let k = 0; k < 10; k++) {
        const t = logger.sample('m');
        if (!t) continue;
        tickets++;
        t.log(predictCall('m'));
      }
      assert.ok(tickets >= 1 && tickets < 10, `${tickets} tickets`);
      assert.equal(told.dropped.length, 10 - tickets, 'a call not sampled for want of room is a drop');
      assert.ok(told.dropped.every(([, reason]) => reason === 'queue_full'));
    } finally {
      // Unblock the FIFO so the queued records can leave and the logger close.
      await Promise.all([readFifo(fifo), logger.close()]);
    }
    assert.equal(told.written.length + told.dropped.length, 10, 'each of the 10 calls is written or dropped, none lost silently');
  });
});
