// The real binary on ONNX Runtime puts lone requests on its wide executor thread (the one
// whose sessions use every core), as its metrics page counts them; with
// --tensorflow_intra_op_parallelism set there is no wide thread and every request runs narrow.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import os from 'node:os';
import path from 'node:path';
import { FIXTURES, MODELS } from '../helpers/paths.js';
import { postJson, startServer, type RunningServer } from '../helpers/server_process.js';

const runs = (page: string, width: string) =>
  Number(new RegExp(`^tfgate_executor_runs_total\\{width="${width}"\\} (\\d+)$`, 'm').exec(page)?.[1]);

describe(
  'executor width (real process, ONNX Runtime)',
  { skip: os.availableParallelism() < 2 && 'one core: there is no wide thread to choose' },
  () => {
    let servers: RunningServer[] = [];
    const start = (...flags: string[]) =>
      startServer([
        `--model_base_path=${path.join(MODELS, 'saved_model_half_plus_two_cpu')}`,
        '--model_name=hp2',
        '--runtime=onnx',
        '--num_executors=1',
        // Executor threads of its own: versions sharing the small ones' threads have no wide thread.
        '--shared_executors_max_mb=0',
        `--monitoring_config_file=${path.join(FIXTURES, 'configs', 'monitoring_config.txt')}`,
        ...flags,
      ]);
    // Both at once: their start-ups overlap.
    before(async () => {
      servers = await Promise.all([start(), start('--tensorflow_intra_op_parallelism=1')]);
    });
    after(async () => {
      await Promise.all(servers.map((s) => s.stop()));
    });

    async function sequentialRuns(server: RunningServer): Promise<{ wide: number; narrow: number }> {
      for (let i = 0; i < 4; i++)
        assert.deepEqual((await postJson(server.url('/v1/models/hp2:predict'), `{"instances": [${i}.0]}`)).json, {
          predictions: [0.5 * i + 2],
        });
      const page = await (await fetch(server.url('/monitoring/prometheus/metrics'))).text();
      return { wide: runs(page, 'wide'), narrow: runs(page, 'narrow') };
    }

    it('one request at a time: each runs on the wide thread', async () => {
      assert.deepEqual(await sequentialRuns(servers[0]), { wide: 4, narrow: 0 });
    });

    it('with --tensorflow_intra_op_parallelism=1: no wide thread, every request narrow', async () => {
      assert.deepEqual(await sequentialRuns(servers[1]), { wide: 0, narrow: 4 });
    });
  },
);
