// What one gRPC request may make the server allocate, against the real process: a message
// past --max_request_body_bytes is refused by gRPC itself (RESOURCE_EXHAUSTED) before it is
// decoded; a small message declaring a huge shape is refused from the shape before anything
// is allocated (--json_max_elements applies to gRPC too); and a request whose decoded tensors
// would pass --max_inflight_request_bytes is refused at once (RESOURCE_EXHAUSTED, REST 503).
// RSS bound: the process grows less than 96 MB over the whole test.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { MODELS } from '../helpers/paths.js';
import { freePort, startServer, waitAvailable, type RunningServer } from '../helpers/server_process.js';
import { mb, rssSampler, rssBytes } from '../helpers/rss.js';
import { call, connect, grpc, isGrpcError, type Clients } from '../helpers/grpc_client.js';

const HP2 = path.join(MODELS, 'saved_model_half_plus_two_cpu');
const BODY_LIMIT = 16 * 2 ** 20;
const BUDGET = 4 * 2 ** 20;
const RSS_GROWTH_LIMIT = 96 * 2 ** 20;

const floatsRequest = (n: number, content: boolean) => ({
  model_spec: { name: 'hp2' },
  inputs: {
    x: {
      dtype: 'DT_FLOAT',
      tensor_shape: { dim: [{ size: n }] },
      ...(content ? { tensor_content: Buffer.alloc(4 * n) } : { float_val: [1] }),
    },
  },
});

describe('gRPC Predict: what one request may make the server allocate (real process)', () => {
  let server: RunningServer;
  let clients: Clients;
  let baseline = 0;
  let sampler: { stop: () => number };

  before(async () => {
    const port = await freePort();
    server = await startServer(
      [`--port=${port}`, `--model_base_path=${HP2}`, '--model_name=hp2', '--num_executors=1', `--max_request_body_bytes=${BODY_LIMIT}`],
      { readyPath: '/v1/models/hp2' },
    );
    await waitAvailable(server, ['hp2']);
    // The client may send and receive past its own 4 MB default: the server's limits are under test.
    clients = connect(`127.0.0.1:${port}`, { 'grpc.max_send_message_length': -1, 'grpc.max_receive_message_length': -1 });
    for (let i = 0; i < 5; i++) await call(clients.prediction, 'Predict', floatsRequest(1000, true));
    baseline = rssBytes(server.proc.pid!);
    sampler = rssSampler(server.proc.pid!);
  });

  after(async () => {
    const peak = sampler?.stop() ?? 0;
    clients?.close();
    console.log(`# grpc_memory: RSS ${mb(baseline)} MB at start, peak ${mb(peak)} MB`);
    assert.equal(await server.stop(), 0, 'the server survived');
    assert.ok(peak - baseline < RSS_GROWTH_LIMIT, `RSS peaked ${mb(peak - baseline)} MB above its baseline`);
  });

  it('a message past --max_request_body_bytes is refused by gRPC (RESOURCE_EXHAUSTED), not decoded', async () => {
    const n = (BODY_LIMIT * 1.5) / 4;
    await assert.rejects(
      call(clients.prediction, 'Predict', floatsRequest(n, true)),
      (e: grpc.ServiceError) => e.code === grpc.status.RESOURCE_EXHAUSTED || assert.fail(`${grpc.status[e.code]}: ${e.details}`),
    );
  });

  it('a small message declaring 32M elements is refused from its shape (INVALID_ARGUMENT, --json_max_elements)', async () => {
    await assert.rejects(
      call(clients.prediction, 'Predict', floatsRequest(32 * 2 ** 20, false)),
      isGrpcError(grpc.status.INVALID_ARGUMENT, /--json_max_elements/),
    );
  });

  it('a request under the limits is still served', async () => {
    const res = await call(clients.prediction, 'Predict', floatsRequest(1000, true));
    assert.deepEqual(
      res.outputs.y.tensor_shape.dim.map((d: { size: string }) => Number(d.size)),
      [1000],
    );
  });
});

describe('--max_inflight_request_bytes: admission by bytes, gRPC and REST (real process)', () => {
  let server: RunningServer;
  let clients: Clients;

  before(async () => {
    const port = await freePort();
    server = await startServer(
      [`--port=${port}`, `--model_base_path=${HP2}`, '--model_name=hp2', '--num_executors=1', `--max_inflight_request_bytes=${BUDGET}`],
      { readyPath: '/v1/models/hp2' },
    );
    await waitAvailable(server, ['hp2']);
    clients = connect(`127.0.0.1:${port}`, { 'grpc.max_send_message_length': -1 });
  });

  after(async () => {
    clients?.close();
    assert.equal(await server.stop(), 0);
  });

  it('gRPC: a tensor that would pass the budget is refused with RESOURCE_EXHAUSTED; one that fits is served', async () => {
    // 3 MB held in the message + 3 MB decoded > 4 MB.
    await assert.rejects(
      call(clients.prediction, 'Predict', floatsRequest((3 * 2 ** 20) / 4, true)),
      isGrpcError(grpc.status.RESOURCE_EXHAUSTED, /--max_inflight_request_bytes/),
    );
    const res = await call(clients.prediction, 'Predict', floatsRequest(2 ** 18 / 4, true));
    assert.equal(Number(res.outputs.y.tensor_shape.dim[0].size), 2 ** 16);
  });

  it('REST: a body whose parse would pass the budget is answered 503; a small one 200', async () => {
    const big = `{"instances": [${new Array(200_000).fill('1.5').join(',')}]}`;
    const r = await fetch(server.url('/v1/models/hp2:predict'), { method: 'POST', body: big });
    const text = await r.text();
    assert.equal(r.status, 503, text);
    assert.match(JSON.parse(text).error, /--max_inflight_request_bytes/);
    assert.ok(r.headers.get('retry-after'));
    const small = await fetch(server.url('/v1/models/hp2:predict'), { method: 'POST', body: '{"instances": [1.0, 2.0]}' });
    assert.deepEqual(await small.json(), { predictions: [2.5, 3.0] });
  });
});
