// SIGTERM while a load never ends in the server's own executor thread (no probe process): the
// process is gone within its bound (--shutdown_drain_seconds plus the unload grace) whatever is
// loading, and a model already loaded was served until then. The endless load comes from
// test_util's faulty executor worker, whose thread reads a FIFO in the version folder: neither
// the thread's end nor the process's exit can interrupt that read, so the exit watchdog ends
// the process. (With probe processes, the default, see server_model_loads.test.ts.)
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { postJson, startServer, type RunningServer } from '../helpers/server_process.js';
import { REPO_ROOT } from '../helpers/paths.js';
import { tempDir } from '../helpers/temp.js';
import { hangOnLoad, TFGATE_WITH_FAULTS_BIN } from '../../test_util/executors/executor_faults.js';

const HALF_PLUS_TWO = path.join(REPO_ROOT, 'model_repository', 'half_plus_two', '1');
const DRAIN_SECONDS = 1;
/** main.ts: the drain, then at most 10 s to unload; a few seconds more for a loaded machine. */
const BOUND_MS = (DRAIN_SECONDS + 10 + 5) * 1000;

function config(root: string, names: string[]): string {
  const file = path.join(root, 'models.config');
  fs.writeFileSync(
    file,
    `model_config_list {\n${names.map((n) => `  config { name: "${n}" base_path: "${path.join(root, n)}" model_platform: "tensorflow" }\n`).join('')}}\n`,
  );
  return file;
}

async function waitState(server: RunningServer, model: string, state: string): Promise<void> {
  // A bound, not a measurement.
  const deadline = Date.now() + 60_000;
  for (;;) {
    const r = await fetch(server.url(`/v1/models/${model}`)).catch(() => undefined);
    const states = r?.ok
      ? ((await r.json()) as { model_version_status: { state: string }[] }).model_version_status.map((v) => v.state)
      : [];
    if (states.includes(state)) return;
    if (Date.now() > deadline) throw new Error(`${model} not ${state} in time:\n${server.logs()}`);
    await new Promise((res) => setTimeout(res, 100));
  }
}

/** SIGTERM; resolves with how the process ended and after how long (it is killed past the bound). */
async function terminate(server: RunningServer): Promise<{ code: number | null; signal: NodeJS.Signals | null; ms: number }> {
  const t0 = performance.now();
  const ended = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    server.proc.once('exit', (code, signal) => resolve({ code, signal })),
  );
  server.proc.kill('SIGTERM');
  const timer = setTimeout(() => server.proc.kill('SIGKILL'), BOUND_MS + 30_000);
  const how = await ended;
  clearTimeout(timer);
  return { ...how, ms: performance.now() - t0 };
}

describe('SIGTERM while a load never ends, no probe process (real process)', () => {
  it('a thread stuck in its load (no probe process): gone within the bound, killed by the exit watchdog, which says why', async () => {
    const root = tempDir('tfgate-stuck-');
    fs.cpSync(HALF_PLUS_TWO, path.join(root, 'good', '1'), { recursive: true });
    fs.cpSync(HALF_PLUS_TWO, path.join(root, 'stuck', '1'), { recursive: true });
    hangOnLoad(path.join(root, 'stuck', '1'));
    // Threads of each version's own (--shared_executors_max_mb=0): the stuck one holds no other version.
    const server = await startServer(
      [
        `--model_config_file=${config(root, ['stuck', 'good'])}`,
        '--enable_load_probe=false',
        '--shared_executors_max_mb=0',
        '--num_load_threads=2',
        '--load_timeout_seconds=0',
        `--shutdown_drain_seconds=${DRAIN_SECONDS}`,
      ],
      { bin: TFGATE_WITH_FAULTS_BIN, whileLoading: true },
    );
    try {
      await waitState(server, 'good', 'AVAILABLE');
      await waitState(server, 'stuck', 'LOADING');
      assert.deepEqual((await postJson(server.url('/v1/models/good:predict'), { instances: [1] })).json, { predictions: [2.5] });
    } catch (e) {
      server.proc.kill('SIGKILL');
      throw e;
    }
    const end = await terminate(server);
    assert.ok(end.ms < BOUND_MS, `exited after ${end.ms} ms`);
    assert.equal(end.signal, 'SIGKILL', server.logs());
    assert.match(server.logs(), /"event":"exit_watchdog".*an executor thread stuck/);
  });
});
