// Who may reach gRPC and what HandleReloadConfigRequest may do, on the real process:
// --grpc_api_host binds one address; --enable_reload_config_request=false turns the method
// off (UNIMPLEMENTED); --reload_config_allowed_base_paths refuses a base path outside the
// allowed directories (INVALID_ARGUMENT naming it) without looking at the file system.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import path from 'node:path';
import { MODELS } from '../helpers/paths.js';
import { freePort, startServer, waitAvailable, type RunningServer } from '../helpers/server_process.js';
import { call, connect, grpc, isGrpcError, type Clients } from '../helpers/grpc_client.js';

const HP2 = path.join(MODELS, 'saved_model_half_plus_two_cpu');
const HP3 = path.join(MODELS, 'saved_model_half_plus_three');

const reload = (models: Array<[string, string]>) => ({
  config: { model_config_list: { config: models.map(([name, base_path]) => ({ name, base_path, model_platform: 'tensorflow' })) } },
});

/** Resolves with the connection error code, or 'connected'. */
function tryConnect(host: string, port: number): Promise<string> {
  return new Promise((resolve) => {
    const s = net.connect(port, host);
    s.once('connect', () => (s.destroy(), resolve('connected')));
    s.once('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? e.message));
  });
}

describe('gRPC address and HandleReloadConfigRequest limits (real process)', () => {
  let server: RunningServer;
  let clients: Clients;
  let port: number;

  before(async () => {
    port = await freePort();
    // 127.0.0.2 is loopback too on Linux: binding it, not 0.0.0.0, leaves 127.0.0.1:port closed.
    server = await startServer(
      [
        `--port=${port}`,
        '--grpc_api_host=127.0.0.2',
        `--model_base_path=${HP2}`,
        '--model_name=hp2',
        `--reload_config_allowed_base_paths=${MODELS}`,
        '--num_executors=1',
        '--file_system_poll_wait_seconds=0',
      ],
      { readyPath: '/v1/models/hp2' },
    );
    await waitAvailable(server, ['hp2']);
    clients = connect(`127.0.0.2:${port}`);
  });
  after(async () => {
    clients?.close();
    await server?.stop();
  });

  it('--grpc_api_host=127.0.0.2: served there, nothing listens on 127.0.0.1 at that port', async () => {
    assert.match(server.logs(), new RegExp(`Running gRPC ModelServer at 127\\.0\\.0\\.2:${port}`));
    const status = await call(clients.model, 'GetModelStatus', { model_spec: { name: 'hp2' } });
    assert.equal(status.model_version_status[0].state, 'AVAILABLE');
    assert.equal(await tryConnect('127.0.0.1', port), 'ECONNREFUSED');
  });

  it('a base path outside --reload_config_allowed_base_paths is refused by name, the same whether it exists or not, and nothing changes', async () => {
    for (const outside of ['/etc', '/no/such/dir/anywhere', `${MODELS}-private/m`, `${MODELS}/../../etc`]) {
      const shown = outside; // named as the request gave it
      await assert.rejects(
        call(
          clients.model,
          'HandleReloadConfigRequest',
          reload([
            ['hp2', HP2],
            ['x', outside],
          ]),
        ),
        isGrpcError(
          grpc.status.INVALID_ARGUMENT,
          new RegExp(
            `^Model x has base_path ${shown.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}, outside the base paths this server allows \\(--reload_config_allowed_base_paths\\)$`,
          ),
        ),
      );
    }
    const status = await call(clients.model, 'GetModelStatus', { model_spec: { name: 'hp2' } });
    assert.equal(status.model_version_status[0].state, 'AVAILABLE', 'hp2 untouched');
    assert.doesNotMatch(server.logs(), /No versions of servable x/, 'the refused paths were not looked at');
  });

  it('a base path inside the allowed directories loads', async () => {
    const r = await call(
      clients.model,
      'HandleReloadConfigRequest',
      reload([
        ['hp2', HP2],
        ['hp3', HP3],
      ]),
    );
    assert.equal(r.status.error_code ?? 'OK', 'OK');
    await waitAvailable(server, ['hp3']);
  });
});

describe('--enable_reload_config_request=false (real process)', () => {
  it('HandleReloadConfigRequest answers UNIMPLEMENTED and unloads nothing; GetModelStatus still works', async () => {
    const port = await freePort();
    const server = await startServer(
      [
        `--port=${port}`,
        '--enable_reload_config_request=false',
        `--model_base_path=${HP2}`,
        '--model_name=hp2',
        '--num_executors=1',
        '--file_system_poll_wait_seconds=0',
      ],
      { readyPath: '/v1/models/hp2' },
    );
    const clients = connect(`127.0.0.1:${port}`);
    try {
      await waitAvailable(server, ['hp2']);
      await assert.rejects(
        call(clients.model, 'HandleReloadConfigRequest', reload([])),
        isGrpcError(
          grpc.status.UNIMPLEMENTED,
          /^HandleReloadConfigRequest is turned off on this server \(--enable_reload_config_request=false\)$/,
        ),
      );
      const status = await call(clients.model, 'GetModelStatus', { model_spec: { name: 'hp2' } });
      assert.equal(status.model_version_status[0].state, 'AVAILABLE');
    } finally {
      clients.close();
      await server.stop();
    }
  });
});
