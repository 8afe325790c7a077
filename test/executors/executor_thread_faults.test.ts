// The executor pool when things go wrong: a version that cannot load fails open() with the
// load's own error; a thread that dies mid-message fails that message only (and a batch
// waiting behind it, which never started), is reported once and replaced. The fault comes from test_util's faulty worker; the production one has none.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { ExecutorPool } from '../../src/executors/executor_pool.js';
import { Code, ServingError } from '../../src/errors/status.js';
import { writeHalfPlusTwoSavedModel } from '../../test_util/savedmodel/model_zoo.js';
import { FAULTY_EXECUTOR_WORKER, POISON } from '../../test_util/executors/executor_faults.js';
import { tempDir } from '../helpers/temp.js';

const x = (...v: number[]) => ({ x: { dtype: 'float32' as const, shape: [v.length, 1], values: Float32Array.from(v) } });
const ys = (out: Record<string, { values: unknown }>) => Array.from(out.y.values as Float32Array);

describe('executor pool: faults', () => {
  it('a version that cannot load: open() rejects with the load error', async () => {
    const dir = path.join(tempDir(), '1');
    await assert.rejects(
      ExecutorPool.open({ versionDir: dir, tags: ['serve'], runtime: 'embedded', threads: 1 }),
      (e: unknown) => e instanceof ServingError && e.message.includes(dir),
    );
  });

  it('a thread that dies: its message fails INTERNAL (and a batch waiting behind it), onThreadDeath hears once per death, the next request is served', async () => {
    const dir = path.join(tempDir(), '1');
    await writeHalfPlusTwoSavedModel(dir);
    const pool = await ExecutorPool.open({
      versionDir: dir,
      tags: ['serve'],
      runtime: 'embedded',
      threads: 1,
      workerFile: FAULTY_EXECUTOR_WORKER,
    });
    const deaths: string[] = [];
    pool.onThreadDeath = (e) => deaths.push(e.message);
    try {
      assert.deepEqual(ys(await pool.run('serving_default', x(1))), [2.5]);
      await assert.rejects(
        pool.run('serving_default', x(POISON)),
        (e: unknown) => e instanceof ServingError && e.code === Code.INTERNAL && /^executor thread failed: /.test(e.message),
      );
      assert.equal(deaths.length, 1);
      assert.match(deaths[0], /^executor thread failed: /);
      // piscina starts a new thread, which loads the version again before it answers.
      assert.deepEqual(ys(await pool.run('serving_default', x(2))), [3]);
      // A batch waiting on the thread behind the message it dies on never started: it fails
      // with it, and the death is counted once.
      const poisoned = pool.run('serving_default', x(POISON), [], { queueBehind: true });
      const behind = pool.run('serving_default', x(1), [], { queueBehind: true });
      const failed = (why: RegExp) => (e: unknown) => e instanceof ServingError && e.code === Code.INTERNAL && why.test(e.message);
      await assert.rejects(poisoned, failed(/^executor thread failed: the executor thread exited$/));
      await assert.rejects(behind, failed(/^executor thread failed: the executor thread exited before it started this message$/));
      assert.equal(deaths.length, 2);
      assert.deepEqual(ys(await pool.run('serving_default', x(2), [], { queueBehind: true })), [3]);
    } finally {
      await pool.close();
    }
  });

  it('the production worker is untouched by the poison value', async () => {
    const dir = path.join(tempDir(), '1');
    await writeHalfPlusTwoSavedModel(dir);
    const pool = await ExecutorPool.open({ versionDir: dir, tags: ['serve'], runtime: 'embedded', threads: 1 });
    try {
      assert.deepEqual(ys(await pool.run('serving_default', x(POISON))), [0.5 * POISON + 2]);
    } finally {
      await pool.close();
    }
  });
});
