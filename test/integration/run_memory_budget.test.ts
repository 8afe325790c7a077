// --max_inflight_request_bytes covers what the executor will allocate, against the real process:
// keras3_mnist_conv holds 84.5 KB per row at its peak (two 26×26×16 float activations) for a
// 3 KB row in, so a request's run, not its decoded tensors, is what fills the budget. The
// budget charges the run's estimate (run_memory.ts) before it starts: a small message whose
// run would not fit is refused RESOURCE_EXHAUSTED, and of four parallel requests only those
// that fit together are admitted, while a status probe is answered. The process's RSS grows
// less than the budget (measured 125–150 MB for a 192 MiB budget; before the run's cost was
// charged, all four ran, two at a time on two executor threads).
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { MODELS } from '../helpers/paths.js';
import { freePort, startServer, waitAvailable, type RunningServer } from '../helpers/server_process.js';
import { mb, rssBytes, rssSampler } from '../helpers/rss.js';
import { call, connect, grpc, isGrpcError, type Clients } from '../helpers/grpc_client.js';

const MNIST = path.join(MODELS, 'keras3_mnist_conv');
const BUDGET = 192 * 2 ** 20;
const ROW_BYTES = 28 * 28 * 4;

const images = (rows: number) => ({
  model_spec: { name: 'mnist' },
  inputs: {
    keras_tensor: {
      dtype: 'DT_FLOAT',
      tensor_shape: { dim: [{ size: rows }, { size: 28 }, { size: 28 }, { size: 1 }] },
      tensor_content: Buffer.alloc(rows * ROW_BYTES),
    },
  },
});

describe("the in-flight budget covers the executor's run (real process, keras3_mnist_conv)", () => {
  let server: RunningServer;
  let clients: Clients;

  before(async () => {
    const port = await freePort();
    server = await startServer(
      [`--port=${port}`, `--model_base_path=${MNIST}`, '--model_name=mnist', '--num_executors=2', `--max_inflight_request_bytes=${BUDGET}`],
      { readyPath: '/v1/models/mnist' },
    );
    await waitAvailable(server, ['mnist']);
    clients = connect(`127.0.0.1:${port}`, { 'grpc.max_send_message_length': -1, 'grpc.max_receive_message_length': -1 });
  });

  after(async () => {
    clients?.close();
    assert.equal(await server.stop(), 0, 'the server survived');
  });

  it('a 9 MB request whose run would hold ~250 MB is refused before it runs; a 500-row one is served', async () => {
    await assert.rejects(
      call(clients.prediction, 'Predict', images(3000)),
      isGrpcError(grpc.status.RESOURCE_EXHAUSTED, /--max_inflight_request_bytes/),
    );
    const served = await call(clients.prediction, 'Predict', images(500));
    assert.deepEqual(
      served.outputs.output_0.tensor_shape.dim.map((d: { size: string }) => Number(d.size)),
      [500, 10],
    );
  });

  it('four parallel 1 500-row requests (~130 MB each when run): only what fits is admitted, RSS grows less than the budget', async (t) => {
    const pid = server.proc.pid!;
    const baseline = rssBytes(pid);
    const sampler = rssSampler(pid, 10);
    const probe = fetch(server.url('/v1/models/mnist')).then((r) => r.status);
    const answers = await Promise.all(
      Array.from({ length: 4 }, () =>
        call(clients.prediction, 'Predict', images(1500)).then(
          () => 'OK',
          (e: grpc.ServiceError) => `${grpc.status[e.code]}${/--max_inflight_request_bytes/.test(e.details) ? '' : `: ${e.details}`}`,
        ),
      ),
    );
    const peak = sampler.stop();
    t.diagnostic(`answers ${answers.join(', ')}; RSS ${mb(baseline)} MB → peak ${mb(peak)} MB`);
    assert.equal(await probe, 200);
    assert.ok(answers.includes('OK'), answers.join(', '));
    assert.ok(answers.includes('RESOURCE_EXHAUSTED'), answers.join(', '));
    assert.ok(
      answers.every((a) => a === 'OK' || a === 'RESOURCE_EXHAUSTED'),
      answers.join(', '),
    );
    assert.ok(peak - baseline < BUDGET, `RSS grew ${mb(peak - baseline)} MB, past the ${mb(BUDGET)} MB budget`);
  });
});
