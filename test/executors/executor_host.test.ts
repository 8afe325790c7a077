// Executor threads shared by several versions (ExecutorHost): each version answers with its own
// graph on the same thread; unloading one leaves the other serving; a thread that dies is
// replaced and its replacement loads every version still hosted before it serves them.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { ExecutorHost } from '../../src/executors/executor_host.js';
import { ExecutorPool } from '../../src/executors/executor_pool.js';
import { Code, ServingError } from '../../src/errors/status.js';
import { writeHalfPlusTwoSavedModel, writeManySignaturesSavedModel } from '../../test_util/savedmodel/model_zoo.js';
import { FAULTY_EXECUTOR_WORKER, POISON } from '../../test_util/executors/executor_faults.js';
import { tempDir } from '../helpers/temp.js';

const x = (...v: number[]) => ({ x: { dtype: 'float32' as const, shape: [v.length, 1], values: Float32Array.from(v) } });
const ys = (out: Record<string, { values: unknown }>) => Array.from(out.y.values as Float32Array);

describe('executor threads shared by versions', () => {
  let host: ExecutorHost;
  let hp2: string;
  let many: string;
  before(async () => {
    const root = tempDir();
    hp2 = path.join(root, 'hp2', '1');
    many = path.join(root, 'many', '1');
    await writeHalfPlusTwoSavedModel(hp2);
    await writeManySignaturesSavedModel(many, 3);
    host = ExecutorHost.start({ threads: 1, runtime: 'embedded', workerFile: FAULTY_EXECUTOR_WORKER });
  });
  after(async () => {
    await host.close();
  });

  const open = (versionDir: string) => ExecutorPool.open({ versionDir, tags: ['serve'], runtime: 'embedded', threads: 1, host });

  it('two versions on one thread each answer with their own signatures; unloading one leaves the other', async () => {
    const a = await open(hp2);
    const b = await open(many);
    assert.deepEqual(Object.keys(a.description.signatures), ['serving_default']);
    assert.deepEqual(Object.keys(b.description.signatures).sort(), ['s1', 's2', 'serving_default']);
    assert.deepEqual(ys(await b.run('s2', x(4))), [4]);
    assert.deepEqual(ys(await a.run('serving_default', x(0))), [2]);
    await assert.rejects(a.run('s2', x(1)), (e: unknown) => e instanceof ServingError && e.code === Code.FAILED_PRECONDITION);
    await b.close();
    assert.equal(host.hostedCount, 1);
    assert.deepEqual(ys(await a.run('serving_default', x(1))), [2.5]);
    await a.close();
    assert.equal(host.hostedCount, 0);
  });

  it('a thread that dies fails its message only; its replacement loads every version hosted, which all serve again', async () => {
    const a = await open(hp2);
    const b = await open(many);
    const deaths: string[] = [];
    a.onThreadDeath = (e) => deaths.push(e.message);
    try {
      await assert.rejects(a.run('serving_default', x(POISON)), /^ServingError: executor thread failed: |executor thread failed: /);
      assert.equal(deaths.length, 1);
      assert.deepEqual(ys(await b.run('s1', x(1))), [2.5]);
      assert.deepEqual(ys(await a.run('serving_default', x(2))), [3]);
    } finally {
      await a.close();
      await b.close();
    }
  });
});
