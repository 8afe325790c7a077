// SIGTERM with gRPC clients on the real process: Predict calls keep coming on a channel and a
// Health.Watch stream is open. Every call is answered OK, or refused UNAVAILABLE without
// having run (the server said GOAWAY or was gone); the open stream does not hold the drain
// up (it is told NOT_SERVING and ended); the process exits 0 well inside --shutdown_drain_seconds.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { MODELS } from '../helpers/paths.js';
import { freePort, startServer, waitAvailable } from '../helpers/server_process.js';
import { until } from '../helpers/http_outcome.js';
import { call, connect, grpc } from '../helpers/grpc_client.js';

const HP2 = path.join(MODELS, 'saved_model_half_plus_two_cpu');
const predict = {
  model_spec: { name: 'hp2' },
  inputs: { x: { dtype: 'DT_FLOAT', tensor_shape: { dim: [{ size: 3 }] }, float_val: [1, 2, 5] } },
};

describe('graceful shutdown over gRPC (real process)', () => {
  it('SIGTERM with Predict calls running and a Health.Watch stream open: calls OK or UNAVAILABLE, exit 0 inside the bound', async (t) => {
    const port = await freePort();
    const server = await startServer(
      [
        `--port=${port}`,
        '--enable_grpc_healthcheck_service',
        `--model_base_path=${HP2}`,
        '--model_name=hp2',
        '--num_executors=1',
        '--file_system_poll_wait_seconds=0',
        '--shutdown_drain_seconds=20',
      ],
      { readyPath: '/v1/models/hp2' },
    );
    await waitAvailable(server, ['hp2']);
    const clients = connect(`127.0.0.1:${port}`);
    const watch = clients.health.Watch({ service: '' });
    const watched: string[] = [];
    watch.on('data', (m: { status: string }) => watched.push(m.status));
    watch.on('error', () => {});
    await until(() => watched.length > 0, 'the first Watch message');
    let signalled = false;
    const seen = { ok: 0, unavailable: 0, other: [] as string[] };
    const exited = new Promise<number | null>((resolve) => server.proc.once('exit', (code) => resolve(code)));
    const caller = async () => {
      for (;;) {
        try {
          const r = await call(clients.prediction, 'Predict', predict, 20_000);
          assert.deepEqual(r.outputs.y.float_val, [2.5, 3, 4.5]);
          seen.ok++;
        } catch (e) {
          const err = e as grpc.ServiceError;
          if (signalled && err.code === grpc.status.UNAVAILABLE) return void seen.unavailable++;
          return void seen.other.push(`${grpc.status[err.code]}: ${err.details}`);
        }
        if (server.proc.exitCode !== null) return;
      }
    };
    const callers = Array.from({ length: 8 }, caller);
    await until(() => seen.ok >= 100 || seen.other.length > 0, 'gRPC load');
    signalled = true;
    server.proc.kill('SIGTERM');
    await Promise.all(callers);
    const code = await exited;
    watch.cancel();
    clients.close();
    t.diagnostic(JSON.stringify({ code, ...seen, watched }));
    assert.deepEqual(seen.other, [], server.logs());
    assert.equal(code, 0, server.logs().slice(-2000));
    assert.doesNotMatch(server.logs(), /drain took longer/);
    assert.deepEqual(watched, ['SERVING', 'NOT_SERVING'], 'the Watch stream says NOT_SERVING, then ends');
  });
});
