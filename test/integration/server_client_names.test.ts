// Names a client chooses, against the real process over REST and gRPC: JavaScript's
// prototype names (constructor, __proto__, toString…) are names like any other — each
// answers exactly what an unknown name answers, never a function's source — and unknown
// model names do not grow the Prometheus metrics (one `_unknown_` series for all of them).
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { FIXTURES, MODELS } from '../helpers/paths.js';
import { freePort, startServer, waitAvailable, type RunningServer } from '../helpers/server_process.js';
import { call, connect, type Clients, type Message } from '../helpers/grpc_client.js';

const HP = path.join(MODELS, 'saved_model_half_plus_two_cpu');
const PROTO_NAMES = ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf'];
/** What every prototype name is compared with: a name that simply does not exist. */
const BASELINE = 'no_such_name';

interface Answer {
  status: number | string;
  body: string;
}

/** The answer for `name` must be the baseline's, with the baseline's name replaced by it. */
function assertSameAsUnknown(position: string, name: string, got: Answer, baseline: Answer): void {
  assert.doesNotMatch(got.body, /native code|function /, `${position} = ${name}: ${got.body}`);
  assert.deepEqual(got, { status: baseline.status, body: baseline.body.split(BASELINE).join(name) }, `${position} = ${name}`);
}

describe('client-chosen names (real process)', () => {
  let server: RunningServer;
  let clients: Clients;

  before(async () => {
    const grpcPort = await freePort();
    server = await startServer([
      `--port=${grpcPort}`,
      '--model_name=hp',
      `--model_base_path=${HP}`,
      '--num_executors=1',
      `--monitoring_config_file=${path.join(FIXTURES, 'configs', 'monitoring_config.txt')}`,
    ]);
    await waitAvailable(server, ['hp']);
    clients = connect(`127.0.0.1:${grpcPort}`);
  });

  after(async () => {
    clients?.close();
    assert.equal(await server?.stop(), 0);
  });

  const rest = async (method: 'GET' | 'POST', p: string, body?: unknown): Promise<Answer> => {
    const r = await fetch(server.url(p), {
      method,
      body: body === undefined ? undefined : JSON.stringify(body),
      headers: { 'content-type': 'application/json' },
    });
    return { status: r.status, body: await r.text() };
  };

  // Each position: the request with a client-chosen `name` in it.
  const restPositions: Record<string, (name: string) => Promise<Answer>> = {
    'model name (status)': (n) => rest('GET', `/v1/models/${n}`),
    'model name (metadata)': (n) => rest('GET', `/v1/models/${n}/metadata`),
    'model name (predict)': (n) => rest('POST', `/v1/models/${n}:predict`, { instances: [1] }),
    'version label (predict)': (n) => rest('POST', `/v1/models/hp/labels/${n}:predict`, { instances: [1] }),
    signature_name: (n) => rest('POST', '/v1/models/hp:predict', { signature_name: n, instances: [1] }),
    'input name (columnar)': (n) => rest('POST', '/v1/models/hp:predict', { inputs: { [n]: [1] } }),
    'input name (row)': (n) => rest('POST', '/v1/models/hp:predict', { instances: [{ [n]: 1 }] }),
    'classify signature_name': (n) => rest('POST', '/v1/models/hp:classify', { signature_name: n, examples: [{ x: 1 }] }),
    'example feature key': (n) => rest('POST', '/v1/models/hp:regress', { signature_name: 'regress_x_to_y', examples: [{ [n]: 1 }] }),
    'context feature key': (n) =>
      rest('POST', '/v1/models/hp:regress', { signature_name: 'regress_x_to_y', context: { [n]: 1 }, examples: [{ x: 1 }] }),
  };

  for (const [position, request] of Object.entries(restPositions)) {
    it(`REST ${position}: prototype names answer as an unknown name`, async () => {
      const baseline = await request(BASELINE);
      assert.notEqual(baseline.status, 200, `${position}: the baseline must be refused: ${baseline.body}`);
      for (const name of PROTO_NAMES) assertSameAsUnknown(position, name, await request(name), baseline);
    });
  }

  const tensor = { dtype: 'DT_FLOAT', tensor_shape: { dim: [{ size: '1' }] }, float_val: [1] };
  const grpcAnswer = async (client: 'prediction' | 'model', method: string, request: Message): Promise<Answer> => {
    try {
      return { status: 'OK', body: JSON.stringify(await call(clients[client], method, request)) };
    } catch (e) {
      const err = e as grpc.ServiceError;
      return { status: grpc.status[err.code], body: err.details };
    }
  };
  const example = (feature: Record<string, number>) => ({
    features: { feature: Object.fromEntries(Object.entries(feature).map(([k, v]) => [k, { float_list: { value: [v] } }])) },
  });
  const grpcPositions: Record<string, (name: string) => Promise<Answer>> = {
    'model name (Predict)': (n) => grpcAnswer('prediction', 'Predict', { model_spec: { name: n }, inputs: { x: tensor } }),
    'model name (GetModelStatus)': (n) => grpcAnswer('model', 'GetModelStatus', { model_spec: { name: n } }),
    'model name (GetModelMetadata)': (n) =>
      grpcAnswer('prediction', 'GetModelMetadata', { model_spec: { name: n }, metadata_field: ['signature_def'] }),
    metadata_field: (n) => grpcAnswer('prediction', 'GetModelMetadata', { model_spec: { name: 'hp' }, metadata_field: [n] }),
    version_label: (n) => grpcAnswer('prediction', 'Predict', { model_spec: { name: 'hp', version_label: n }, inputs: { x: tensor } }),
    signature_name: (n) => grpcAnswer('prediction', 'Predict', { model_spec: { name: 'hp', signature_name: n }, inputs: { x: tensor } }),
    'input name': (n) => grpcAnswer('prediction', 'Predict', { model_spec: { name: 'hp' }, inputs: { [n]: tensor } }),
    output_filter: (n) => grpcAnswer('prediction', 'Predict', { model_spec: { name: 'hp' }, inputs: { x: tensor }, output_filter: [n] }),
    'example feature key': (n) =>
      grpcAnswer('prediction', 'Regress', {
        model_spec: { name: 'hp', signature_name: 'regress_x_to_y' },
        input: { example_list: { examples: [example({ [n]: 1 })] } },
      }),
    'classify signature_name': (n) =>
      grpcAnswer('prediction', 'Classify', {
        model_spec: { name: 'hp', signature_name: n },
        input: { example_list: { examples: [example({ x: 1 })] } },
      }),
  };

  for (const [position, request] of Object.entries(grpcPositions)) {
    it(`gRPC ${position}: prototype names answer as an unknown name`, async () => {
      const baseline = await request(BASELINE);
      assert.notEqual(baseline.status, 'OK', `${position}: the baseline must be refused: ${baseline.body}`);
      for (const name of PROTO_NAMES) assertSameAsUnknown(position, name, await request(name), baseline);
    });
  }

  it('requests for unknown models are counted under one _unknown_ label; the scrape stays small', async () => {
    const scrape = async () => (await fetch(server.url('/monitoring/prometheus/metrics'))).text();
    const unknownNotFound = (text: string) =>
      Number(text.match(/^:tensorflow:serving:request_count\{model_name="_unknown_",status="NOT_FOUND"\} (\d+)/m)?.[1] ?? 0);
    const first = await scrape();
    const before = first.length;
    const N = 1000;
    for (let i = 0; i < N; i += 50) {
      await Promise.all(
        Array.from({ length: 50 }, (_, k) =>
          k % 5 === 0
            ? grpcAnswer('prediction', 'Predict', { model_spec: { name: `random_${i + k}` }, inputs: { x: tensor } })
            : rest('POST', `/v1/models/random_${i + k}:predict`, { instances: [1] }),
        ),
      );
    }
    await rest('POST', '/v1/models/hp:predict', { instances: [1] });
    const text = await scrape();
    assert.doesNotMatch(text, /random_/);
    // The earlier tests' unknown names are under the same label: count the difference.
    assert.equal(
      unknownNotFound(text) - unknownNotFound(first),
      N,
      text
        .split('\n')
        .filter((l) => l.includes('request_count'))
        .join('\n'),
    );
    assert.match(text, /^:tensorflow:serving:request_count\{model_name="hp",status="OK"\} \d+/m);
    // Grows by the few new _unknown_ and hp series, not by N series.
    assert.ok(text.length - before < 40_000, `the scrape grew by ${text.length - before} bytes after ${N} unknown-model requests`);
  });
});
