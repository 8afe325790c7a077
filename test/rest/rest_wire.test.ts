// The REST app's answers as bytes on a real socket (@hono/node-server on a loopback port): with
// no middleware, a :predict is served from Node's request directly (takePredictsDirectly) and
// any other POST under /v1/ by the app's direct dispatch; every other request by Hono's router.
// An app with an access log routes every request, so the same requests sent to both must come
// back byte for byte the same: status line, headers in order, body. Only the Date header and
// Server-Timing's measured durations differ from one answer to the next.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { gzipSync } from 'node:zlib';
import { serve, type ServerType } from '@hono/node-server';
import type { AddressInfo } from 'node:net';
import { createRestApp, takePredictsDirectly, type RestDeps } from '../../src/rest/rest_app.js';
import { MemoryBudget } from '../../src/services/memory_budget.js';
import { PredictionService } from '../../src/services/prediction_service.js';
import { Metrics } from '../../src/monitoring/metrics.js';
import type { ModelSpec } from '../../src/services/servable_version.js';
import { FakeVersions } from '../helpers/fake_versions.js';

const LIMITS = { maxBodyBytes: 256, jsonMaxDepth: 64, jsonMaxElements: 10_000 };

/** The app on a loopback port, as the model server serves it (takePredictsDirectly after serve). */
function listen(overrides: Partial<RestDeps>): Promise<ServerType> {
  const deps: RestDeps = {
    prediction: new PredictionService(new FakeVersions({ hp2: {} })),
    modelStatus: (spec: ModelSpec) => ({ status_of: spec }),
    modelMetadata: (spec: ModelSpec) => ({ metadata_of: spec }),
    limits: LIMITS,
    timeoutMs: 30_000,
    enableCors: false,
    metrics: new Metrics(),
    ...overrides,
  };
  const app = createRestApp(deps);
  return new Promise((resolve) => {
    const server: ServerType = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(server));
    takePredictsDirectly(server as import('node:http').Server, deps);
  });
}

/**
 * `requests` one after another on one connection, each sent once the answer before it is in;
 * the answers' bytes as text, each up to the end of its body.
 */
function exchange(port: number, ...requests: Buffer[]): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    const answers: string[] = [];
    let got = Buffer.alloc(0);
    socket.on('data', (d: Buffer) => {
      got = Buffer.concat([got, d]);
      const text = got.toString('latin1');
      const end = text.indexOf('\r\n\r\n');
      if (end < 0) return;
      const length = /\r\ncontent-length: (\d+)\r\n/i.exec(text.slice(0, end + 2));
      if (length && got.length >= end + 4 + Number(length[1])) {
        answers.push(text.slice(0, end + 4 + Number(length[1])));
        got = got.subarray(end + 4 + Number(length[1]));
        if (answers.length === requests.length) {
          socket.destroy();
          resolve(answers);
        } else socket.write(requests[answers.length]);
      }
    });
    socket.on('error', reject);
    socket.on('close', () => resolve([...answers, got.toString('latin1')]));
    socket.write(requests[0]);
  });
}

function post(path: string, body: Buffer | string, headers: string[] = [], host = '127.0.0.1'): Buffer {
  const bytes = typeof body === 'string' ? Buffer.from(body) : body;
  const head = [`POST ${path} HTTP/1.1`, `Host: ${host}`, 'Content-Type: application/json', ...headers];
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

const port = (s: ServerType) => (s.address() as AddressInfo).port;

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
    // Paths and hosts @hono/node-server rewrites or refuses: left to it.
    ['a path with a dot segment', post('/v1/models/x/../hp2:predict', '{"instances": [1.0]}'), 200],
    ['a path with an escape', post('/v1/models/h%702:predict', '{"instances": [1.0]}'), 200],
    ['a host in capitals', post('/v1/models/hp2:predict', '{"instances": [1.0]}', [], 'LOCALHOST'), 200],
    ['a host that is no host', post('/v1/models/hp2:predict', '{"instances": [1.0]}', [], 'a/b'), 400],
    ['an absolute URL', post('http://127.0.0.1/v1/models/hp2:predict', '{"instances": [1.0]}'), 200],
  ];
  for (const [what, request, status] of CASES) {
    it(`${what} → ${status}, the same bytes`, async () => {
      const [a] = await exchange(port(direct), request);
      const [b] = await exchange(port(routed), request);
      assert.match(a, new RegExp(`^HTTP/1\\.1 ${status} `), a);
      assert.equal(normalised(a), normalised(b));
    });
  }

  it('an error answered, then a 200, on one connection: the same bytes', async () => {
    const requests = [post('/v1/models/nope:predict', '{"instances": [1.0]}'), post('/v1/models/hp2:predict', '{"instances": [1.0]}')];
    const a = await exchange(port(direct), ...requests);
    const b = await exchange(port(routed), ...requests);
    assert.equal(a.length, 2);
    assert.match(a[1], /^HTTP\/1\.1 200 /);
    assert.deepEqual(a.map(normalised), b.map(normalised));
  });

  it("a :predict's 200 is written as before: headers in this order, Content-Length set by Node", async () => {
    const [a] = await exchange(port(direct), post('/v1/models/hp2:predict', '{"instances": [1.0, 2.0, 5.0]}'));
    assert.equal(
      normalised(a),
      'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n' +
        'Server-Timing: parse;dur=<ms>, serialise;dur=<ms>\r\n' +
        'Date: <date>\r\nConnection: keep-alive\r\nKeep-Alive: timeout=5\r\nContent-Length: 43\r\n\r\n' +
        '{\n    "predictions": [2.5, 3.0, 4.5\n    ]\n}',
    );
  });
});

describe('REST app on a socket: a :predict refused before its body is read, served directly or not', () => {
  let direct: ServerType;
  let routed: ServerType;
  before(async () => {
    direct = await listen({ budget: new MemoryBudget(16) });
    routed = await listen({ budget: new MemoryBudget(16), accessLog: () => {} });
  });
  after(() => {
    direct.close();
    routed.close();
  });

  it('over --max_inflight_request_bytes → 503, the same bytes, and the connection serves the next request', async () => {
    const requests = [post('/v1/models/hp2:predict', '{"instances": [1.0, 2.0, 5.0]}'), post('/v1/models/hp2:predict', '{}')];
    const a = await exchange(port(direct), ...requests);
    const b = await exchange(port(routed), ...requests);
    assert.match(a[0], /^HTTP\/1\.1 503 /, a[0]);
    assert.deepEqual(a.map(normalised), b.map(normalised));
  });
});
