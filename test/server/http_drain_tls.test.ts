// HttpDrain over HTTPS (--rest_api_ssl_config_file), in process: a request already received is
// answered whole with `Connection: close`, an idle keep-alive connection is closed, and the
// drain ends only after both — as over plain HTTP. Over TLS a request's socket is not the TCP
// socket Node reports on 'connection', which is what the drain must not end under an answer.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { HttpDrain } from '../../src/server/http_drain.js';
import { tempDir } from '../helpers/temp.js';
import { makeTestPki, type TestPki } from '../helpers/test_pki.js';

describe('HttpDrain over HTTPS', () => {
  let pki: TestPki;
  before(() => {
    pki = makeTestPki(tempDir('tfgate-drain-tls-'));
  });

  let server: https.Server | undefined;
  after(() => server?.close());

  it('answers the request in flight with Connection: close, closes the idle connection, then ends', async () => {
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    let slowArrived!: () => void;
    const arrived = new Promise<void>((r) => (slowArrived = r));
    const body = 'x'.repeat(256 * 1024); // more than one TLS record and socket write
    server = https.createServer({ key: fs.readFileSync(pki.server.key), cert: fs.readFileSync(pki.server.cert) }, (req, res) => {
      if (req.url === '/fast') return void res.end('fast');
      slowArrived();
      void released.then(() => res.end(body));
    });
    const drain = new HttpDrain(server);
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
    const { port } = server.address() as AddressInfo;
    const ca = fs.readFileSync(pki.ca);

    const get = (path: string, agent: https.Agent) =>
      new Promise<{ status: number; connection: string | undefined; body: string }>((resolve, reject) => {
        https
          .get({ host: '127.0.0.1', port, path, ca, agent }, (res) => {
            let text = '';
            res.setEncoding('utf8');
            res.on('data', (d: string) => (text += d));
            res.on('end', () => resolve({ status: res.statusCode!, connection: res.headers.connection, body: text }));
            res.on('error', reject);
          })
          .on('error', reject);
      });

    const idleAgent = new https.Agent({ keepAlive: true });
    assert.equal((await get('/fast', idleAgent)).body, 'fast');
    const idleClosed = new Promise<void>((r) =>
      Object.values(idleAgent.freeSockets)
        .flat()[0]!
        .once('close', () => r()),
    );

    const slow = get('/slow', new https.Agent({ keepAlive: true }));
    await arrived;
    let drained = false;
    const draining = drain.drain().then(() => (drained = true));
    await idleClosed;
    assert.equal(drained, false, 'a request is still being answered');
    release();
    const answer = await slow;
    assert.deepEqual([answer.status, answer.connection, answer.body.length], [200, 'close', body.length]);
    await draining;
    assert.equal(drain.inFlight, 0);
  });
});
