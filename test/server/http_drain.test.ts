// HttpDrain over plain HTTP, in process, on keep-alive connections that have answered requests
// before: only the requests not yet answered count as in flight and hold their connection open.
import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { HttpDrain } from '../../src/server/http_drain.js';

describe('HttpDrain', () => {
  let server: http.Server | undefined;
  after(() => server?.close());

  it(
    'a connection that answered its requests is closed at once, one with a request in flight after it is answered',
    { timeout: 10_000 },
    async () => {
      let release!: () => void;
      const released = new Promise<void>((r) => (release = r));
      let slowArrived!: () => void;
      const arrived = new Promise<void>((r) => (slowArrived = r));
      server = http.createServer((req, res) => {
        if (req.url !== '/slow') return void res.end('fast');
        slowArrived();
        void released.then(() => res.end('slow'));
      });
      // No idle timeout of Node's own to close the idle connection for the drain.
      server.keepAliveTimeout = 0;
      const drain = new HttpDrain(server);
      await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
      const { port } = server.address() as AddressInfo;
      const get = (path: string, agent: http.Agent) =>
        new Promise<{ connection: string | undefined; body: string }>((resolve, reject) => {
          http
            .get({ host: '127.0.0.1', port, path, agent }, (res) => {
              let text = '';
              res.setEncoding('utf8');
              res.on('data', (d: string) => (text += d));
              res.on('end', () => resolve({ connection: res.headers.connection, body: text }));
            })
            .on('error', reject);
        });

      // Two connections, each answering three requests first; the second then gets one in flight.
      const idleAgent = new http.Agent({ keepAlive: true, maxSockets: 1 });
      const busyAgent = new http.Agent({ keepAlive: true, maxSockets: 1 });
      for (let i = 0; i < 3; i++) {
        assert.equal((await get('/fast', idleAgent)).body, 'fast');
        assert.equal((await get('/fast', busyAgent)).body, 'fast');
      }
      const idleClosed = new Promise<void>((r) =>
        Object.values(idleAgent.freeSockets)
          .flat()[0]!
          .once('close', () => r()),
      );
      const slow = get('/slow', busyAgent);
      await arrived;
      assert.equal(drain.inFlight, 1, 'the answered requests do not count');

      let drained = false;
      const draining = drain.drain().then(() => (drained = true));
      await idleClosed;
      assert.equal(drained, false, 'a request is still being answered');
      release();
      assert.deepEqual(await slow, { connection: 'close', body: 'slow' });
      await draining;
      assert.equal(drain.inFlight, 0);
    },
  );
});
