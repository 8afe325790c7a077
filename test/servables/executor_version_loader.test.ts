// ExecutorVersionLoader on half_plus_two: what a load reports (the engine of each signature),
// that runs come back with their time, and that a dying executor thread is reported with the
// model and version it served. --verify_on_load's loader around it: verifying_version_loader.test.ts.
import { describe, it, before } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { ExecutorVersionLoader, type ExecutorLoaderOptions } from '../../src/servables/executor_version_loader.js';
import type { RunStats } from '../../src/services/servable_version.js';
import { Code, ServingError } from '../../src/errors/status.js';
import { writeHalfPlusTwoSavedModel } from '../../test_util/savedmodel/model_zoo.js';
import { FAULTY_EXECUTOR_WORKER, POISON } from '../../test_util/executors/executor_faults.js';
import { tempDir } from '../helpers/temp.js';

const x = (...v: number[]) => ({ x: { dtype: 'float32' as const, shape: [v.length, 1], values: Float32Array.from(v) } });
const BASE: ExecutorLoaderOptions = { tags: ['serve'], runtime: 'embedded', threadsPerVersion: 1 };

describe('ExecutorVersionLoader', () => {
  let dir: string;
  before(async () => {
    dir = path.join(tempDir(), '1');
    await writeHalfPlusTwoSavedModel(dir);
  });

  it('a load reports each signature\'s engine; runs answer with their time in stats', async () => {
    const loaded: Array<[string, number, string[]]> = [];
    const loader = new ExecutorVersionLoader({ ...BASE, onLoaded: (m, v, d) => loaded.push([m, v, Object.keys(d.engines)]) });
    const version = await loader.load('hp2', 1, dir);
    try {
      assert.deepEqual(loaded, [['hp2', 1, Object.keys(version.description.signatures)]]);
      const stats: RunStats = {};
      const out = await version.run('serving_default', x(1, 2), [], { stats });
      assert.deepEqual(Array.from(out.y.values as Float32Array), [2.5, 3]);
      assert.ok(typeof stats.inferMs === 'number' && typeof stats.computeMs === 'number', JSON.stringify(stats));
    } finally {
      await loader.unload(version);
    }
  });

  it('a thread that dies is reported with the model and version it served', async () => {
    const deaths: Array<[string, number, string]> = [];
    const loader = new ExecutorVersionLoader({ ...BASE, workerFile: FAULTY_EXECUTOR_WORKER, onThreadDeath: (m, v, e) => deaths.push([m, v, e.message]) });
    const version = await loader.load('hp2', 7, dir);
    try {
      await assert.rejects(version.run('serving_default', x(POISON), []), (e: unknown) => e instanceof ServingError && e.code === Code.INTERNAL && /^executor thread failed: /.test(e.message));
      assert.equal(deaths.length, 1);
      assert.deepEqual(deaths[0].slice(0, 2), ['hp2', 7]);
      assert.match(deaths[0][2], /^executor thread failed: /);
    } finally {
      await loader.unload(version);
    }
  });
});
