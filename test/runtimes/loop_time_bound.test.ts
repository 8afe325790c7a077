// Loops that never end: a run whose loops keep calling their functions past the bound fails
// with DEADLINE_EXCEEDED naming the bound (TF would hold the thread for ever), and the
// version keeps answering; a load whose warmup never ends fails at its time bound, its
// executor thread stopped.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { Code } from '../../src/errors/status.js';
import { EmbeddedRuntime } from '../../src/runtimes/embedded/embedded_runtime.js';
import { loopTimeBound } from '../../src/runtimes/tfjs_patches/graph_executor_patch.js';
import { ExecutorVersionLoader } from '../../src/servables/executor_version_loader.js';
import { TimeBoundedVersionLoader } from '../../src/servables/load_time_bound.js';
import { protoType } from '../../src/proto/index.js';
import { writeTfRecords } from '../../src/savedmodel/tfrecord.js';
import { WARMUP_FILE } from '../../src/savedmodel/warmup_requests.js';
import { writeCountdownSumModel } from '../../test_util/savedmodel/loop_model_zoo.js';
import { isError } from '../helpers/errors.js';
import { tempDir } from '../helpers/temp.js';

/** The countdown `while v > 0: v -= 1` never ends from 1e30 (in float32, 1e30 - 1 == 1e30). */
const endless = { x: { dtype: 'float32' as const, shape: [], values: Float32Array.of(1e30) } };

describe('loops that never end', () => {
  let dir: string;
  const saved = loopTimeBound.ms;
  before(async () => {
    dir = path.join(tempDir('tfgate-loop-'), '1');
    await writeCountdownSumModel(dir);
    loopTimeBound.ms = 500;
  });
  after(() => {
    loopTimeBound.ms = saved;
  });

  it('a run past the loop bound fails with DEADLINE_EXCEEDED; the next run is answered', async () => {
    const s = await new EmbeddedRuntime('wasm').load(dir, { tags: ['serve'] });
    try {
      await assert.rejects(
        s.run('serving_default', endless),
        isError(Code.DEADLINE_EXCEEDED, /a loop of this run did not end within 0\.5 s \(\d+ calls of its condition and body\)/),
      );
      const out = await s.run('serving_default', { x: { dtype: 'float32', shape: [], values: Float32Array.of(10) } });
      assert.deepEqual(Array.from(out.output_0.values as Float32Array), [55]);
    } finally {
      s.dispose();
    }
  });

  it('a load whose warmup never ends fails at --load_timeout_seconds with DEADLINE_EXCEEDED', async () => {
    const version = path.join(tempDir('tfgate-loop-load-'), '1');
    fs.cpSync(dir, version, { recursive: true });
    const PredictionLog = protoType('tensorflow.serving.PredictionLog');
    const record = PredictionLog.encode(
      PredictionLog.fromObject({ predictLog: { request: { inputs: { x: { dtype: 'DT_FLOAT', tensorShape: {}, floatVal: [1e30] } } } } }),
    ).finish();
    fs.mkdirSync(path.join(version, 'assets.extra'));
    fs.writeFileSync(path.join(version, WARMUP_FILE), writeTfRecords([record]));
    // The executor thread keeps the default loop bound (30 s): only the load's bound can end this in time.
    const loader = new TimeBoundedVersionLoader(
      new ExecutorVersionLoader({ tags: ['serve'], runtime: 'wasm', threadsPerVersion: 1, warmupIterations: 1, memoryFloorMb: 256 }),
      2,
    );
    await assert.rejects(
      loader.load('countdown', 1, version),
      isError(
        Code.DEADLINE_EXCEEDED,
        /loading took longer than its time bound of 2 s \(--load_timeout_seconds=2 plus 1 s per 4 MB on disk\); its executor threads were stopped/,
      ),
    );
  });
});
