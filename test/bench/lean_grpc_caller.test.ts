// The benches' lean gRPC caller: a server reads the same HTTP/2 headers and message bytes from
// it as from a grpc-js client, its answers from a grpc-js server come back whole (or counted),
// and a status other than OK rejects the call.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as grpc from '@grpc/grpc-js';
import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import { grpcFrame, LeanGrpcCaller } from '../../bench/load/lean_grpc_caller.js';

const METHOD = '/bench.Echo/Call';
const asIs = (b: Buffer) => b;

/** Headers and body of each request to a plain HTTP/2 server, answered with an empty gRPC message. */
async function recordingServer(): Promise<{
  address: string;
  seen: Array<{ headers: http2.IncomingHttpHeaders; body: Buffer }>;
  close(): void;
}> {
  const seen: Array<{ headers: http2.IncomingHttpHeaders; body: Buffer }> = [];
  const server = http2.createServer();
  server.on('stream', (stream, headers) => {
    const chunks: Buffer[] = [];
    stream.on('data', (d: Buffer) => chunks.push(d));
    stream.on('end', () => {
      seen.push({ headers, body: Buffer.concat(chunks) });
      stream.respond({ ':status': 200, 'content-type': 'application/grpc' }, { waitForTrailers: true });
      stream.on('wantTrailers', () => stream.sendTrailers({ 'grpc-status': '0' }));
      stream.end(Buffer.alloc(5));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { address: `127.0.0.1:${(server.address() as AddressInfo).port}`, seen, close: () => server.close() };
}

describe('lean gRPC caller', () => {
  const server = new grpc.Server();
  let address = '';

  before(async () => {
    const definition = {
      Call: {
        path: METHOD,
        requestStream: false,
        responseStream: false,
        requestSerialize: asIs,
        requestDeserialize: asIs,
        responseSerialize: asIs,
        responseDeserialize: asIs,
      },
    };
    server.addService(definition, {
      Call: (call: grpc.ServerUnaryCall<Buffer, Buffer>, callback: grpc.sendUnaryData<Buffer>) => {
        if (call.request.length === 0) return callback({ code: grpc.status.INVALID_ARGUMENT, details: 'empty request, 100% refused' });
        // The answer: the request reversed, then its length, so that it differs from the request.
        callback(null, Buffer.concat([Buffer.from(call.request).reverse(), Buffer.from(String(call.request.length))]));
      },
    });
    const port = await new Promise<number>((resolve, reject) =>
      server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (e, p) => (e ? reject(e) : resolve(p))),
    );
    address = `127.0.0.1:${port}`;
  });
  after(() => server.forceShutdown());

  // Larger than an HTTP/2 frame and a flow-control window, as the benches' images are.
  const message = Buffer.from(Array.from({ length: 300_000 }, (_, i) => (i * 7) & 0xff));
  const viaGrpcJs = (address: string) => {
    const client = new grpc.Client(address, grpc.credentials.createInsecure());
    return new Promise<Buffer>((resolve, reject) =>
      client.makeUnaryRequest(
        METHOD,
        asIs,
        asIs,
        message,
        { deadline: Date.now() + 30_000 },
        (e, r) => (client.close(), e ? reject(e) : resolve(r!)),
      ),
    );
  };

  it('sends the headers and bytes a grpc-js client sends', async () => {
    const recorder = await recordingServer();
    const lean = new LeanGrpcCaller(recorder.address);
    try {
      await viaGrpcJs(recorder.address);
      await lean.call(METHOD, grpcFrame(message), 30_000);
    } finally {
      lean.close();
      recorder.close();
    }
    const [grpcJs, leanOne] = recorder.seen;
    assert.ok(leanOne.body.equals(grpcJs.body));
    assert.equal(leanOne.body.length, message.length + 5);
    // grpc-timeout says the time left, in milliseconds for both.
    const named = (h: http2.IncomingHttpHeaders) =>
      Object.entries(h).map(([k, v]) => (k === 'grpc-timeout' ? [k, /^\d+m$/.test(String(v))] : [k, v]));
    assert.deepEqual(named(leanOne.headers), named(grpcJs.headers));
  });

  it('reads the answer whole or as its size', async () => {
    const lean = new LeanGrpcCaller(address);
    try {
      const framed = grpcFrame(message);
      const whole = await lean.call(METHOD, framed, 30_000, true);
      const size = await lean.call(METHOD, framed, 30_000);
      const want = await viaGrpcJs(address);
      assert.equal(want.length, message.length + 6);
      assert.deepEqual(whole, want);
      assert.equal(size, want.length);
    } finally {
      lean.close();
    }
  });

  it('rejects with the status and message of a failed call', async () => {
    const lean = new LeanGrpcCaller(address);
    try {
      await assert.rejects(lean.call(METHOD, grpcFrame(Buffer.alloc(0)), 30_000), {
        code: grpc.status.INVALID_ARGUMENT,
        message: 'gRPC status 3: empty request, 100% refused',
      });
    } finally {
      lean.close();
    }
  });
});
