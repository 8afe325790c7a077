// The wide executor thread on real threads and ONNX Runtime: a lone request runs on it, a
// request sent while another runs takes a narrow thread, and with a thread count set (or on
// one-off hosts) there is no wide thread at all. Which thread runs is read from the host's
// choice and the process's run counts (tfgate_executor_runs_total), not from timings.
import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import os from 'node:os';
import path from 'node:path';
import { ExecutorPool } from '../../src/executors/executor_pool.js';
import { ExecutorHost, executorRuns } from '../../src/executors/executor_host.js';
import type { ExecutorReply } from '../../src/executors/protocol.js';
import { unpackReplies } from '../../src/executors/run_wire.js';
import { writeHalfPlusTwoSavedModel } from '../../test_util/savedmodel/model_zoo.js';
import { DEFAULT_ENGINE_SETTINGS } from '../../src/config/session_config.js';
import { tempDir } from '../helpers/temp.js';

const x = (v: number) => ({ x: { dtype: 'float32' as const, shape: [1, 1], values: Float32Array.of(v) } });
const y = (out: Awaited<ReturnType<ExecutorPool['run']>>) => Array.from(out.y.values as Float32Array);
const replyY = (reply: ExecutorReply) => {
  if (!(reply.ok && reply.kind === 'runMany')) return reply;
  const first = unpackReplies(reply.replies)[0];
  return first.ok ? Array.from(first.outputs.y.values as Float32Array) : first;
};

async function halfPlusTwo(): Promise<string> {
  const dir = path.join(tempDir(), '1');
  await writeHalfPlusTwoSavedModel(dir);
  return dir;
}

/** Runs of each width during `f`. */
async function runsDuring(f: () => Promise<unknown>): Promise<{ wide: number; narrow: number }> {
  const before = { ...executorRuns };
  await f();
  return { wide: executorRuns.wide - before.wide, narrow: executorRuns.narrow - before.narrow };
}

describe(
  'wide executor thread (ONNX Runtime, real threads)',
  { skip: os.availableParallelism() < 2 && 'one core: there is no wide thread to choose' },
  () => {
    const closing: Array<{ close(): Promise<void> }> = [];
    after(async () => {
      await Promise.all(closing.map((c) => c.close()));
    });
    const openPool = async (options: Partial<Parameters<typeof ExecutorPool.open>[0]>) => {
      const pool = await ExecutorPool.open({ versionDir: await halfPlusTwo(), tags: ['serve'], runtime: 'onnx', threads: 1, ...options });
      closing.push(pool);
      return pool;
    };

    it('a lone request takes the wide thread; one sent while it runs takes a narrow thread; then the wide again', async () => {
      const host = ExecutorHost.start({ threads: 1, runtime: 'onnx', wide: true });
      closing.push(host);
      const { id } = await host.open({ versionDir: await halfPlusTwo(), tags: ['serve'] });
      const first = host.idleLine(id)!;
      assert.equal(host.widthOf(first), 'wide');
      // Sent: its line is busy until its answer is read, which takes a turn of this thread's event loop.
      const firstReply = first.send(id, [{ signature: 'serving_default', inputs: x(2), outputKeys: [] }]);
      const second = host.idleLine(id)!;
      assert.equal(host.widthOf(second), 'narrow');
      const secondReply = second.send(id, [{ signature: 'serving_default', inputs: x(4), outputKeys: [] }]);
      assert.equal(host.idleLine(id), undefined, 'both busy: the next waits for the narrow one, not the wide');
      assert.deepEqual([replyY(await firstReply), replyY(await secondReply)], [[3], [4]]);
      assert.equal(host.widthOf(host.idleLine(id)!), 'wide');
    });

    it('a pool sends lone requests to the wide thread', async () => {
      const pool = await openPool({ wide: true });
      assert.deepEqual(
        await runsDuring(async () => {
          for (let i = 0; i < 3; i++) assert.deepEqual(y(await pool.run('serving_default', x(i))), [0.5 * i + 2]);
        }),
        { wide: 3, narrow: 0 },
      );
    });

    it('no wide thread when a thread count is set, or for a host that does not ask for one', async () => {
      const set = await openPool({
        wide: true,
        engine: { ...DEFAULT_ENGINE_SETTINGS, intraOpThreads: 1, from: { threads: '--tensorflow_intra_op_parallelism=1' } },
      });
      const oneOff = await openPool({});
      assert.deepEqual(
        await runsDuring(async () => {
          for (const pool of [set, oneOff])
            for (let i = 0; i < 2; i++) assert.deepEqual(y(await pool.run('serving_default', x(i))), [0.5 * i + 2]);
        }),
        { wide: 0, narrow: 4 },
      );
    });
  },
);
