// Many small models loading at once, one whose load never ends and one whose load aborts its
// process (test_util's faulty executor worker: a FIFO its thread reads; a SIGABRT, as abort()
// in ONNX Runtime or the WASM module would raise). The ports open and answer while the models
// load (each model's status says LOADING until it is AVAILABLE; readiness names those not
// ready); loads are bounded (--num_load_threads) and each goes first through a probe process,
// so the abort ends a probe, never the server; small versions share executor threads instead
// of taking one each; and SIGTERM with the endless load still under way exits 0 within the
// drain bound.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { getJson, postJson, startServer, type RunningServer } from '../helpers/server_process.js';
import { REPO_ROOT } from '../helpers/paths.js';
import { tempDir } from '../helpers/temp.js';
import { ABORT_ON_LOAD, hangOnLoad, TFGATE_WITH_FAULTS_BIN } from '../../test_util/executors/executor_faults.js';

const HALF_PLUS_TWO = path.join(REPO_ROOT, 'model_repository', 'half_plus_two', '1');
const MODELS = 30;
const DRAIN_SECONDS = 1;

const threadsOf = (pid: number) => Number(/Threads:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))![1]);
const stateOf = async (server: RunningServer, model: string) =>
  (await getJson(server.url(`/v1/models/${model}`))).json.model_version_status?.[0];

describe(`${MODELS} small models, one whose load never ends, one whose load aborts (real process)`, () => {
  const names = Array.from({ length: MODELS }, (_, i) => `m${i}`);
  let server: RunningServer;
  /** Whether the port answered while the endless load was under way. */
  let startingWhenOpen: boolean;
  let readyWhenOpen: { status: number; notReady: string[] };

  before(async () => {
    const root = tempDir('tfgate-loads-');
    for (const n of [...names, 'stuck', 'aborts']) fs.cpSync(HALF_PLUS_TWO, path.join(root, n, '1'), { recursive: true });
    hangOnLoad(path.join(root, 'stuck', '1'));
    fs.writeFileSync(path.join(root, 'aborts', '1', ABORT_ON_LOAD), '');
    const config = path.join(root, 'models.config');
    fs.writeFileSync(
      config,
      `model_config_list {\n${['stuck', 'aborts', ...names].map((n) => `  config { name: "${n}" base_path: "${path.join(root, n)}" model_platform: "tensorflow" }\n`).join('')}}\n`,
    );
    server = await startServer(
      [
        `--model_config_file=${config}`,
        '--num_load_threads=2',
        '--num_executors=1',
        '--max_num_load_retries=0',
        '--load_timeout_seconds=0',
        `--shutdown_drain_seconds=${DRAIN_SECONDS}`,
      ],
      { bin: TFGATE_WITH_FAULTS_BIN, whileLoading: true },
    );
    startingWhenOpen = (await getJson(server.url('/monitoring/tfgate/status'))).json.starting;
    const ready = await fetch(server.url('/monitoring/tfgate/ready'));
    readyWhenOpen = {
      status: ready.status,
      notReady: ((await ready.json()) as { not_ready: { name: string }[] }).not_ready.map((m) => m.name),
    };
    // A bound, not a measurement: every small model loads while the stuck one never does.
    const deadline = Date.now() + 120_000;
    for (const n of [...names, 'aborts']) {
      while (!['AVAILABLE', 'END'].includes((await stateOf(server, n))?.state)) {
        if (Date.now() > deadline) throw new Error(`${n} not loaded in time:\n${server.logs()}`);
        await new Promise((r) => setTimeout(r, 200));
      }
    }
  });
  after(() => {
    if (server?.proc.exitCode === null) server.proc.kill('SIGKILL');
  });

  it('the ports answer while models load: status "starting", readiness 503 naming them', () => {
    assert.equal(startingWhenOpen, true);
    assert.equal(readyWhenOpen.status, 503);
    assert.ok(readyWhenOpen.notReady.includes('stuck'), readyWhenOpen.notReady.join());
  });

  it('every small model loads and serves past the endless load, which stays LOADING; readiness names it alone', async () => {
    for (const n of names) assert.equal((await stateOf(server, n)).state, 'AVAILABLE', n);
    assert.equal((await stateOf(server, 'stuck')).state, 'LOADING');
    for (const n of [names[0], names[MODELS - 1]])
      assert.deepEqual((await postJson(server.url(`/v1/models/${n}:predict`), { instances: [1] })).json, { predictions: [2.5] });
    const notReady = ((await (await fetch(server.url('/monitoring/tfgate/ready'))).json()) as { not_ready: { name: string }[] }).not_ready;
    assert.deepEqual(notReady.map((m) => m.name).sort(), ['aborts', 'stuck']);
  });

  it('small versions share executor threads: far fewer threads than models', () => {
    // One executor thread per version would be 30 beside Node's own ~12.
    const threads = threadsOf(server.proc.pid!);
    assert.ok(threads < MODELS, `${threads} threads for ${MODELS} models`);
  });

  it("the load that aborts ends its probe process, not the server: the version fails with the probe's end named", async () => {
    const status = await stateOf(server, 'aborts');
    assert.equal(status.state, 'END');
    assert.equal(status.status.error_code, 'INTERNAL');
    assert.match(
      status.status.error_message,
      /aborts\/1: loading it ended its probe process \(SIGABRT.*\); it was not loaded into the serving executors/,
    );
    assert.equal(server.proc.exitCode, null, 'the server lives');
  });

  it('SIGTERM with the endless load under way: exit 0 within the drain bound', async () => {
    const t0 = performance.now();
    const ended = new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
      server.proc.once('exit', (code, signal) => resolve([code, signal])),
    );
    server.proc.kill('SIGTERM');
    assert.deepEqual(await ended, [0, null], server.logs());
    // main.ts: the drain, then at most 10 s to unload; a few seconds more for a loaded machine.
    assert.ok(performance.now() - t0 < (DRAIN_SECONDS + 15) * 1000);
  });
});
