// The REST app's answers as bytes on a real socket (@hono/node-server on a loopback port): a POST
// under /v1/ is served by the app's direct dispatch (no middleware), every other request by
// Hono's router. An app with an access log routes every request, so the same requests sent to
// both must come back byte for byte the same: status line, headers in order, body. Only the
// Date header and Server-Timing's measured durations differ from one answer to the next.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { gzipSync } from 'node:zlib';
import { serve, type ServerType } from '@hono/node-server';
import type { AddressInfo } from 'node:net';
import { createRestApp, type RestDeps } from '../../src/rest/rest_app.js';
import { PredictionService } from '../../src/services/prediction_service.js';
import { Metrics } from '../../src/monitoring/metrics.js';
import type { ModelSpec } from '../../src/services/servable_version.js';
import { FakeVersions } from '../helpers/fake_versions.js';

const LIMITS = { maxBodyBytes: 256, jsonMaxDepth: 64, jsonMaxElements: 10_000 };

function listen(deps: Partial<RestDeps>): Promise<ServerType> {
  const app = createRestApp({
    prediction: new PredictionService(new FakeVersions({ hp2: {} })),
    modelStatus: (spec: ModelSpec) => ({ status_of: spec }),
    modelMetadata: (spec: ModelSpec) => ({ metadata_of: spec }),
    limits: LIMITS,
    timeoutMs: 30_000,
    enableCors: false,
    metrics: new Metrics(),
    ...deps,
  });
  return new Promise((resolve) => {
    const server: ServerType = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(server));
  });
}

/** One request on a fresh connection; the answer's bytes as text, up to the end of its body. */
function exchange(port: number, request: Buffer): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let got = Buffer.alloc(0);
    socket.on('data', (d: Buffer) => {
      got = Buffer.concat([got, d]);
      const text = got.toString('latin1');
      const end = text.indexOf('\r\n\r\n');
      if (end < 0) return;
      const length = /\r\ncontent-length: (\d+)\r\n/i.exec(text.slice(0, end + 2));
      if (length && got.length >= end + 4 + Number(length[1])) {
        socket.destroy();
        resolve(text.slice(0, end + 4 + Number(length[1])));
      }
    });
    socket.on('error', reject);
    socket.on('close', () => resolve(got.toString('latin1')));
    socket.write(request);
  });
}

function post(path: string, body: Buffer | string, headers: string[] = []): Buffer {
  const bytes = typeof body === 'string' ? Buffer.from(body) : body;
  const head = [`POST ${path} HTTP/1.1`, 'Host: 127.0.0.1', 'Content-Type: application/json', ...headers];
  if (!headers.some((h) => /^transfer-encoding:/i.test(h))) head.push(`Content-Length: ${bytes.length}`);
  return Buffer.concat([Buffer.from(head.join('\r\n') + '\r\n\r\n'), bytes]);
}

function chunked(path: string, body: string): Buffer {
  const head = [`POST ${path} HTTP/1.1`, 'Host: 127.0.0.1', 'Content-Type: application/json', 'Transfer-Encoding: chunked'];
  return Buffer.from(`${head.join('\r\n')}\r\n\r\n${body.length.toString(16)}\r\n${body}\r\n0\r\n\r\n`);
}

/** The answer with what changes from one answer to the next written as a placeholder. */
const normalised = (answer: string) =>
  answer.replace(/\r\nDate: [^\r]*\r\n/, '\r\nDate: <date>\r\n').replace(/;dur=\d+\.\d{3}/g, ';dur=<ms>');

describe('REST app on a socket: a POST under /v1/ served directly is answered as the router answers it', () => {
  let direct: ServerType;
  let routed: ServerType;
  before(async () => {
    direct = await listen({});
    routed = await listen({ accessLog: () => {} });
  });
  after(() => {
    direct.close();
    routed.close();
  });
  const port = (s: ServerType) => (s.address() as AddressInfo).port;

  const CASES: Array<[what: string, request: Buffer, status: number]> = [
    ['a :predict answered 200', post('/v1/models/hp2:predict', '{"instances": [1.0, 2.0, 5.0]}'), 200],
    ['a :predict of a version', post('/v1/models/hp2/versions/1:predict', '{"inputs": {"x": [[4.0]]}}'), 200],
    ['a gzip body', post('/v1/models/hp2:predict', gzipSync('{"instances": [3.0]}'), ['Content-Encoding: gzip']), 200],
    ['a chunked body', chunked('/v1/models/hp2:predict', '{"instances": [7.0]}'), 200],
    ['an unknown model', post('/v1/models/nope:predict', '{"instances": [1.0]}'), 404],
    ['a body that is not JSON', post('/v1/models/hp2:predict', '{"instances": [1.0'), 400],
    ['an unknown signature', post('/v1/models/hp2:predict', '{"signature_name": "x", "instances": [1.0]}'), 400],
    ['a body over the limit', post('/v1/models/hp2:predict', `{"instances": [${'1.0, '.repeat(60)}1.0]}`), 413],
    ['a :classify', post('/v1/models/hp2:classify', '{"examples": [{"x": 1.0}]}'), 400],
    ['a malformed path', post('/v1/models/hp2:explain', '{}'), 400],
    ['a status asked by POST', post('/v1/models/hp2', '{}'), 400],
  ];
  for (const [what, request, status] of CASES) {
    it(`${what} → ${status}, the same bytes`, async () => {
      const a = await exchange(port(direct), request);
      const b = await exchange(port(routed), request);
      assert.match(a, new RegExp(`^HTTP/1\\.1 ${status} `), a);
      assert.equal(normalised(a), normalised(b));
    });
  }

  it("a :predict's 200 is written as before: headers in this order, Content-Length set by Node", async () => {
    const a = await exchange(port(direct), post('/v1/models/hp2:predict', '{"instances": [1.0, 2.0, 5.0]}'));
    assert.equal(
      normalised(a),
      'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n' +
        'Server-Timing: parse;dur=<ms>, serialise;dur=<ms>\r\n' +
        'Date: <date>\r\nConnection: keep-alive\r\nKeep-Alive: timeout=5\r\nContent-Length: 43\r\n\r\n' +
        '{\n    "predictions": [2.5, 3.0, 4.5\n    ]\n}',
    );
  });
});
