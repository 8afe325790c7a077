// An executor thread that dies mid-request fails only the requests it held, with a 500; the
// pool replaces the thread and the model keeps serving. The server runs in this process on a
// real port, its executor threads on test_util's faulty worker (the production worker has no
// test hook).
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { FIXTURES, MODELS } from '../helpers/paths.js';
import { freePort, postJson } from '../helpers/server_process.js';
import { parseFlags, resolveServerOptions, type ServerOptions } from '../../src/config/flags.js';
import { ModelServer } from '../../src/server/model_server.js';
import { FAULTY_EXECUTOR_WORKER, POISON } from '../../test_util/executors/executor_faults.js';

describe('executor thread faults (real port, faulty executor worker)', () => {
  let server: ModelServer;
  let port: number;
  let options: ServerOptions;
  const lines: string[] = [];
  const logs = () => lines.join('\n');
  const url = (p: string) => `http://127.0.0.1:${port}${p}`;
  before(async () => {
    options = resolveServerOptions(
      parseFlags([
        `--model_base_path=${path.join(MODELS, 'saved_model_half_plus_two_cpu')}`,
        '--model_name=default',
        '--num_executors=2',
        `--monitoring_config_file=${path.join(FIXTURES, 'configs', 'monitoring_config.txt')}`,
        `--rest_api_port=${await freePort()}`,
        '--rest_api_host=127.0.0.1',
        '--port=0',
      ]),
    );
    server = new ModelServer(options, (msg) => lines.push(msg), 'embedded', { executorWorkerFile: FAULTY_EXECUTOR_WORKER });
    port = (await server.start()).restPort!;
    await server.initialLoadsSettled();
  });
  after(async () => {
    // As the binary on SIGTERM: everything answered within the drain bound (its exit code 0).
    assert.equal((await server.stop(options.shutdownDrainSeconds * 1000)).drained, true);
  });

  const predict = (x: number) => postJson(url('/v1/models/default:predict'), `{"instances": [${x.toFixed(1)}]}`);

  it('the request that kills its thread gets 500 INTERNAL; the next ones are served', async () => {
    assert.deepEqual((await predict(2)).json, { predictions: [3] });
    const killed = await predict(POISON);
    assert.equal(killed.status, 500);
    assert.match(killed.json.error, /^executor thread failed: /);
    for (let i = 0; i < 10; i++) assert.deepEqual((await predict(i)).json, { predictions: [0.5 * i + 2] });
    const metrics = await (await fetch(url('/monitoring/prometheus/metrics'))).text();
    assert.match(metrics, /^tfgate_executor_thread_deaths_total\{model_name="default"\} 1$/m);
    assert.match(logs(), /an executor thread of \{name: default version: 123\} died and is replaced: executor thread failed/);
    // tfgate's status page tells the operator which version loses threads, and why.
    const status = await (await fetch(url('/monitoring/tfgate/status'))).json();
    const v = status.models.find((m: { name: string }) => m.name === 'default').versions[0];
    assert.equal(v.version, '123');
    assert.equal(v.state, 'AVAILABLE');
    assert.equal(v.executor_thread_deaths, 1);
    assert.match(v.last_executor_thread_death.message, /^executor thread failed: /);
    // TF Serving's own status answer stays exactly TF Serving's.
    assert.deepEqual(Object.keys((await (await fetch(url('/v1/models/default'))).json()).model_version_status[0]), [
      'version',
      'state',
      'status',
    ]);
  });

  it('under load only the message that carried the poisoned request fails; then all are served', async () => {
    const xs = Array.from({ length: 40 }, (_, i) => 100 + i); // none of them the poison
    const answers = await Promise.all([...xs.slice(0, 20).map(predict), predict(POISON), ...xs.slice(20).map(predict)]);
    const poisoned = answers[20];
    assert.equal(poisoned.status, 500);
    const normal = answers.filter((_, i) => i !== 20);
    normal.forEach((a, i) => {
      if (a.status === 200) assert.deepEqual(a.json, { predictions: [0.5 * xs[i] + 2] });
      else assert.equal(a.status, 500, a.text);
    });
    // Requests that arrive in one event-loop turn travel to a thread in one message (at most
    // 32): that message is what the dying thread takes down, nothing queued behind it.
    const failed = normal.filter((a) => a.status !== 200).length;
    assert.ok(failed < 32, `${failed} of 40 failed with it`);
    const after = await Promise.all(xs.map(predict));
    assert.deepEqual(
      after.map((a) => a.status),
      xs.map(() => 200),
    );
    const status = await (await fetch(url('/monitoring/tfgate/status'))).json();
    assert.equal(status.models[0].versions[0].executor_thread_deaths, 2, 'repeated deaths are counted');
  });
});
