// Warmup records: TFRecord framing with its checksums, PredictionLog → signature runs, and the
// replay on every executor thread before a version serves (the real warmup file of a Keras
// export, a tfgate-written one, a corrupted copy, and one whose request fails).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { readTfRecords, writeTfRecords } from '../../src/savedmodel/tfrecord.js';
import { readWarmupRuns, WARMUP_FILE } from '../../src/savedmodel/warmup_requests.js';
import { ExecutorPool } from '../../src/executors/executor_pool.js';
import { writeHalfPlusTwoSavedModel } from '../../test_util/savedmodel/model_zoo.js';
import { protoType } from '../../src/proto/index.js';
import { Code, ServingError } from '../../src/errors/status.js';
import { fixtureModel } from '../helpers/paths.js';
import { tempDir } from '../helpers/temp.js';

const PredictionLog = protoType('tensorflow.serving.PredictionLog');
const isError = (code: Code, re: RegExp) => (e: unknown) => e instanceof ServingError && e.code === code && re.test(e.message);

function predictLog(x: number[], signature = 'serving_default'): Uint8Array {
  const values = Float32Array.from(x);
  return PredictionLog.encode(
    PredictionLog.fromObject({
      predictLog: {
        request: {
          modelSpec: { name: 'm', signatureName: signature },
          inputs: {
            x: { dtype: 'DT_FLOAT', tensorShape: { dim: [{ size: x.length }, { size: 1 }] }, tensorContent: new Uint8Array(values.buffer) },
          },
        },
      },
    }),
  ).finish();
}

function regressLog(x: number): Uint8Array {
  return PredictionLog.encode(
    PredictionLog.fromObject({
      regressLog: {
        request: {
          modelSpec: { signatureName: 'regress_x_to_y' },
          input: { exampleList: { examples: [{ features: { feature: { x: { floatList: { value: [x] } } } } }] } },
        },
      },
    }),
  ).finish();
}

describe('TFRecord', () => {
  it('round-trips records and checks both checksums', () => {
    const recs = [Uint8Array.of(1, 2, 3), new Uint8Array(0), Uint8Array.from({ length: 300 }, (_, i) => i & 255)];
    const bytes = writeTfRecords(recs);
    assert.deepEqual(
      readTfRecords(bytes, 'f').map((r) => [...r]),
      recs.map((r) => [...r]),
    );
    const badData = bytes.slice();
    badData[13] ^= 1;
    assert.throws(() => readTfRecords(badData, 'f'), isError(Code.DATA_LOSS, /^f: record 0: corrupted record data/));
    const badLength = bytes.slice();
    badLength[0] ^= 1;
    assert.throws(() => readTfRecords(badLength, 'f'), isError(Code.DATA_LOSS, /^f: record 0: corrupted record length/));
    assert.throws(() => readTfRecords(bytes.subarray(0, bytes.length - 2), 'f'), isError(Code.DATA_LOSS, /^f: record 2 is truncated/));
  });

  it('reads the real warmup file: one predict record, a [1,30,30,3] zero image for serving_default', async () => {
    const runs = await readWarmupRuns(fixtureModel('keras2_traffic_sign_cnn_warmup', '1'));
    assert.equal(runs?.length, 1);
    const [run] = runs![0];
    assert.equal(run.signature, 'serving_default');
    assert.deepEqual(run.inputs.conv2d_input.shape, [1, 30, 30, 3]);
    assert.ok((run.inputs.conv2d_input.values as Float32Array).every((v) => v === 0));
  });
});

describe('warmup on the executor threads', () => {
  it('the real file replays on every thread before the pool opens', async () => {
    const pool = await ExecutorPool.open({
      versionDir: fixtureModel('keras2_traffic_sign_cnn_warmup', '1'),
      tags: ['serve'],
      runtime: 'embedded',
      threads: 2,
      warmupIterations: 1,
    });
    assert.equal(pool.description.warmupRecords, 1);
    await pool.close();
  });

  it('a tfgate-written file (predict and regress records) round-trips; without warmup nothing is replayed', async () => {
    const dir = path.join(tempDir(), '1');
    await writeHalfPlusTwoSavedModel(dir);
    fs.mkdirSync(path.join(dir, 'assets.extra'));
    fs.writeFileSync(path.join(dir, WARMUP_FILE), writeTfRecords([predictLog([1, 2]), predictLog([5])]));
    const runs = (await readWarmupRuns(dir))!;
    assert.deepEqual(
      runs.map((r) => r.map((x) => [x.signature, Array.from(x.inputs.x.values as Float32Array)])),
      [[['serving_default', [1, 2]]], [['serving_default', [5]]]],
    );
    const pool = await ExecutorPool.open({ versionDir: dir, tags: ['serve'], runtime: 'embedded', threads: 1, warmupIterations: 3 });
    assert.equal(pool.description.warmupRecords, 2);
    await pool.close();
    const cold = await ExecutorPool.open({ versionDir: dir, tags: ['serve'], runtime: 'embedded', threads: 1, warmupIterations: 0 });
    assert.equal(cold.description.warmupRecords, 0);
    await cold.close();
  });

  it('regress records become serialized tf.Examples for the signature', async () => {
    const dir = path.join(tempDir(), '1');
    fs.cpSync(fixtureModel('saved_model_half_plus_two_cpu', '00000123'), dir, { recursive: true });
    fs.mkdirSync(path.join(dir, 'assets.extra'), { recursive: true });
    fs.writeFileSync(path.join(dir, WARMUP_FILE), writeTfRecords([regressLog(2)]));
    const pool = await ExecutorPool.open({ versionDir: dir, tags: ['serve'], runtime: 'embedded', threads: 1, warmupIterations: 1 });
    assert.equal(pool.description.warmupRecords, 1);
    await pool.close();
  });

  it('a corrupted copy, or a record whose request fails, fails the load with a message naming the file', async () => {
    const dir = path.join(tempDir(), '1');
    fs.cpSync(fixtureModel('keras2_traffic_sign_cnn_warmup', '1'), dir, { recursive: true });
    const file = path.join(dir, WARMUP_FILE);
    fs.chmodSync(file, 0o644);
    const bytes = fs.readFileSync(file);
    bytes[100] ^= 0xff;
    fs.writeFileSync(file, bytes);
    await assert.rejects(
      ExecutorPool.open({ versionDir: dir, tags: ['serve'], runtime: 'embedded', threads: 1, warmupIterations: 1 }),
      isError(Code.DATA_LOSS, /tf_serving_warmup_requests: record 0: corrupted record data/),
    );

    const hp2 = path.join(tempDir(), '1');
    await writeHalfPlusTwoSavedModel(hp2);
    fs.mkdirSync(path.join(hp2, 'assets.extra'));
    fs.writeFileSync(path.join(hp2, WARMUP_FILE), writeTfRecords([predictLog([1], 'nope')]));
    await assert.rejects(
      ExecutorPool.open({ versionDir: hp2, tags: ['serve'], runtime: 'embedded', threads: 1, warmupIterations: 1 }),
      (e: unknown) =>
        e instanceof ServingError && /^Warmup failed: .*tf_serving_warmup_requests record 0 \(signature nope\)/.test(e.message),
    );
  });
});
