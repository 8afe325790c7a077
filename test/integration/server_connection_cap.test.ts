// --rest_max_connections on the real process: connections past the cap are closed as soon as
// they are accepted, the ones inside it keep being served, and once some close a new client
// gets in again. Nothing crashes and the model stays AVAILABLE.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import path from 'node:path';
import { MODELS } from '../helpers/paths.js';
import { startServer, waitAvailable } from '../helpers/server_process.js';
import { requestOutcome, until } from '../helpers/http_outcome.js';

const HP2 = path.join(MODELS, 'saved_model_half_plus_two_cpu');
const CAP = 8;

interface Held {
  socket: net.Socket;
  closed: boolean;
  received: string;
}

/** A TCP connection that sends nothing until told: it holds a slot. */
function hold(port: number): Promise<Held> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    const held: Held = { socket, closed: false, received: '' };
    socket.on('data', (d) => (held.received += d));
    socket.on('close', () => (held.closed = true));
    socket.on('error', () => {}); // a reset from the server shows as 'close'
    socket.once('connect', () => resolve(held));
    socket.once('error', reject);
  });
}

describe('--rest_max_connections (real process)', () => {
  it('cap 8, 20 connections held open: 12+ closed at once, the open ones still answered, a probe gets in after some close, model AVAILABLE', async () => {
    const server = await startServer(
      [`--model_base_path=${HP2}`, `--rest_max_connections=${CAP}`, '--file_system_poll_wait_seconds=0', '--num_executors=1'],
      { readyPath: '/v1/models/default' },
    );
    try {
      await waitAvailable(server, ['default']);
      assert.match(server.logs(), new RegExp(`connections capped at ${CAP}`));
      const held: Held[] = [];
      for (let i = 0; i < 20; i++) held.push(await hold(server.port));
      // The readiness probes' keep-alive connections may still take a slot or two: at most CAP stay open.
      await until(() => held.filter((h) => h.closed).length >= 20 - CAP, `${20 - CAP} connections past the cap to be closed`, 10_000);
      const open = held.filter((h) => !h.closed);
      assert.ok(open.length <= CAP && open.length > 0, `${open.length} open`);
      // A held connection inside the cap is served.
      open[0].socket.write('GET /v1/models/default HTTP/1.1\r\nHost: x\r\n\r\n');
      await until(() => /\r\n\r\n[\s\S]*AVAILABLE/.test(open[0].received), 'an answer on a connection inside the cap', 10_000);
      assert.match(open[0].received, /^HTTP\/1\.1 200/);
      // With every slot taken a new client is turned away at once, not left hanging.
      const refused = await requestOutcome({ port: server.port, method: 'GET', path: '/v1/models/default', agent: false });
      if (held.filter((h) => !h.closed).length === CAP) assert.equal(refused.kind, 'refused', JSON.stringify(refused));
      // Some close: a probe gets in (a bounded poll: the server sees the close asynchronously).
      open.slice(0, 4).forEach((h) => h.socket.destroy());
      let probe = await requestOutcome({ port: server.port, method: 'GET', path: '/v1/models/default', agent: false });
      const deadline = Date.now() + 10_000;
      while (probe.kind !== 'answered' && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 50));
        probe = await requestOutcome({ port: server.port, method: 'GET', path: '/v1/models/default', agent: false });
      }
      assert.equal(probe.kind, 'answered', JSON.stringify(probe));
      assert.equal(probe.kind === 'answered' && probe.status, 200);
      assert.match(probe.kind === 'answered' ? probe.body.toString() : '', /"state": ?"AVAILABLE"/);
      assert.equal(server.proc.exitCode, null, 'still running');
      held.forEach((h) => h.socket.destroy());
    } finally {
      assert.equal(await server.stop(), 0, server.logs());
    }
  });
});
