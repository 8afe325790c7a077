// The Open Inference Protocol's routes in-process (Hono's app.request, no socket, no threads),
// as test/rest/rest_app.test.ts tests /v1: routing, the inference envelope it shares with
// :predict (admission before the body is read, limits, the memory budget, the deadline,
// metrics, Server-Timing) and the one error answer. Behind it, the real PredictionService
// over fake versions. The same API over a real port and real models:
// test/integration/server_open_inference.test.ts.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createRestApp, type RestDeps } from '../../../src/rest/rest_app.js';
import { PredictionService } from '../../../src/services/prediction_service.js';
import { Metrics } from '../../../src/monitoring/metrics.js';
import { MemoryBudget } from '../../../src/services/memory_budget.js';
import { Code, ServingError } from '../../../src/errors/status.js';
import * as MSG from '../../../src/errors/messages.js';
import { AdmissionCount } from '../../../src/executors/admission.js';
import type { ModelSpec } from '../../../src/services/servable_version.js';
import { FakeVersions, type FakeModel } from '../../helpers/fake_versions.js';
import { BodyParserPool } from '../../../src/rest/body_parser_pool.js';

const LIMITS = { maxBodyBytes: 1 << 20, jsonMaxDepth: 64, jsonMaxElements: 10_000 };

function v2App(options: { models?: Record<string, FakeModel> } & Partial<RestDeps> = {}) {
  const { models = { hp2: {} }, ...overrides } = options;
  const versions = new FakeVersions(models);
  const deps: RestDeps = {
    prediction: new PredictionService(versions),
    modelStatus: (spec: ModelSpec) => {
      if (!models[spec.name]) throw new ServingError(Code.NOT_FOUND, MSG.couldNotFindAnyVersions(spec.name));
      return { model_version_status: [{ version: '1', state: 'AVAILABLE' }] };
    },
    modelMetadata: () => ({}),
    limits: LIMITS,
    timeoutMs: 0,
    enableCors: false,
    metrics: new Metrics(),
    ...overrides,
  };
  const app = createRestApp(deps);
  const call = async (method: string, path: string, body?: BodyInit, headers: Record<string, string> = {}) => {
    const res = await app.request(path, {
      method,
      body,
      headers,
      ...(body instanceof ReadableStream && { duplex: 'half' }),
    } as RequestInit);
    const text = await res.text();
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: res.status, headers: res.headers, text, json };
  };
  return { call, versions, deps };
}

const x = (over: object = {}) => JSON.stringify({ inputs: [{ name: 'x', shape: [2, 1], datatype: 'FP32', data: [1, 2], ...over }] });

describe('/v2 in-process: routes and errors', () => {
  const CASES: Array<[method: string, path: string, body: string | undefined, status: number, json: unknown]> = [
    ['GET', '/v2/health/live', undefined, 200, { live: true }],
    ['GET', '/v2/models/hp2/ready', undefined, 200, { name: 'hp2', ready: true }],
    [
      'POST',
      '/v2/models/hp2/infer',
      x(),
      200,
      { model_name: 'hp2', model_version: '1', outputs: [{ name: 'y', datatype: 'FP32', shape: [2, 1], data: [2.5, 3] }] },
    ],
    [
      'POST',
      '/v2/models/hp2/versions/1/infer',
      JSON.stringify({ id: 'a', inputs: [{ name: 'x', shape: [1, 1], datatype: 'FP32', data: [4] }] }),
      200,
      { id: 'a', model_name: 'hp2', model_version: '1', outputs: [{ name: 'y', datatype: 'FP32', shape: [1, 1], data: [4] }] },
    ],
    ['POST', '/v2/models/nope/infer', x(), 404, { error: MSG.couldNotFindAnyVersions('nope') }],
    ['POST', '/v2/models/hp2/versions/9/infer', x(), 404, { error: MSG.couldNotFindVersion(9, 'hp2') }],
    ['POST', '/v2/models/hp2/infer', 'not json', 400, { error: 'JSON Parse error: Invalid value. at offset: 1' }],
    ['POST', '/v2/models/hp2/infer', '', 400, { error: MSG.JSON_DOCUMENT_EMPTY }],
    ['POST', '/v2/models/hp2/infer', '{}', 400, { error: "'inputs' must be an array of input tensors" }],
    [
      'POST',
      '/v2/models/hp2/infer',
      x({ datatype: 'INT32', data: [1, 2] }),
      400,
      { error: "Input 'x' has datatype INT32; model 'hp2' expects FP32" },
    ],
    [
      'POST',
      '/v2/models/hp2/infer',
      JSON.stringify({ parameters: { signature_name: 'nope' }, inputs: [] }),
      400,
      { error: "Model 'hp2' has no signature 'nope'" },
    ],
    ['GET', '/v2/models/hp2/infer', undefined, 405, { error: 'Method GET is not allowed on /v2/models/hp2/infer; use POST' }],
    ['GET', '/v2/nothing', undefined, 404, { error: 'Not found: GET /v2/nothing' }],
  ];
  for (const [method, path, body, status, json] of CASES) {
    it(`${method} ${path} ${body === undefined ? '' : body.slice(0, 40)} → ${status}`, async () => {
      const { call, versions } = v2App();
      const r = await call(method, path, body);
      assert.equal(r.status, status, r.text);
      assert.deepEqual(r.json, json);
      // Errors are written compact, the protocol's way (/v1 pretty-prints them as TF Serving does).
      if (status !== 200) assert.equal(r.text, JSON.stringify(json));
      assert.equal(versions.held, 0, 'no version stays acquired');
    });
  }

  it('a wrong method → 405 with Allow, from the error itself', async () => {
    const r = await v2App().call('POST', '/v2/health/live', '{}');
    assert.equal(r.status, 405);
    assert.equal(r.headers.get('allow'), 'GET');
  });
});

describe('/v2 infer in the same envelope as :predict', () => {
  /** A body that counts whether the server read any of it. */
  function watchedBody(text: string) {
    const state = { read: false };
    const stream = new ReadableStream<Uint8Array>(
      {
        pull(controller) {
          state.read = true;
          controller.enqueue(new TextEncoder().encode(text));
          controller.close();
        },
      },
      { highWaterMark: 0 },
    );
    return { stream, state };
  }

  it('a version whose queue is full: refused 503 with Retry-After before its body is read, on /v2 as on :predict', async () => {
    const full = () => {
      throw new ServingError(Code.UNAVAILABLE, 'The executor queue is full', { retryAfterMs: 1000 });
    };
    const { call, versions } = v2App({ models: { hp2: { admit: full } } });
    for (const [path, text] of [
      ['/v2/models/hp2/infer', x()],
      ['/v1/models/hp2:predict', '{"instances": [1.0]}'],
    ]) {
      const { stream, state } = watchedBody(text);
      const r = await call('POST', path, stream);
      assert.equal(r.status, 503, `${path}: ${r.text}`);
      assert.equal(r.headers.get('retry-after'), '1', path);
      assert.equal(state.read, false, `${path}: refused unread`);
    }
    assert.equal(versions.held, 0);
  });

  it('the admission place is held while the body is read and parsed, and given back once its tensors are built', async () => {
    const places = new AdmissionCount();
    let heldAtRun = -1;
    const models: Record<string, FakeModel> = {
      hp2: {
        admit: () => places.hold(),
        run: async (_s, inputs) => {
          heldAtRun = places.held;
          return { y: inputs.x };
        },
      },
    };
    const r = await v2App({ models }).call('POST', '/v2/models/hp2/infer', x());
    assert.equal(r.status, 200, r.text);
    assert.equal(heldAtRun, 0, 'released before the run');
    assert.equal(places.held, 0);
  });

  it('limits: a body over maxBodyBytes → 413; past the memory budget → 503, the claim given back', async () => {
    const small = await v2App({ limits: { ...LIMITS, maxBodyBytes: 16 } }).call('POST', '/v2/models/hp2/infer', x());
    assert.deepEqual(
      [small.status, small.json],
      [413, { error: 'Request body is larger than the limit of 16 bytes (--max_request_body_bytes)' }],
    );
    const budget = new MemoryBudget(64);
    const r = await v2App({ budget }).call('POST', '/v2/models/hp2/infer', x());
    assert.equal(r.status, 503, r.text);
    assert.match(r.text, /--max_inflight_request_bytes/);
    assert.equal(r.headers.get('retry-after'), '1');
    assert.equal(budget.inFlightBytes, 0);
  });

  it('a call still running at timeoutMs → 504', async () => {
    const never = () => new Promise<never>(() => {});
    const r = await v2App({ timeoutMs: 20, models: { hp2: { run: never } } }).call('POST', '/v2/models/hp2/infer', x());
    assert.deepEqual([r.status, r.json], [504, { error: 'Request timed out after 20 ms (--rest_api_timeout_in_ms)' }]);
  });

  it('counted as :predict is (request_count by status), with Server-Timing on the answer', async () => {
    const { call } = v2App({ metricsPath: '/metrics' });
    const ok = await call('POST', '/v2/models/hp2/infer', x());
    assert.match(ok.headers.get('server-timing') ?? '', /^parse;dur=\d+\.\d{3}.*serialise;dur=\d+\.\d{3}$/);
    await call('POST', '/v2/models/hp2/infer', '{}');
    const text = (await call('GET', '/metrics')).text;
    assert.match(text, /^:tensorflow:serving:request_count\{model_name="hp2",status="OK"\} 1$/m);
    assert.match(text, /^:tensorflow:serving:request_count\{model_name="hp2",status="INVALID_ARGUMENT"\} 1$/m);
  });
});

describe('/v2 infer: a large body on a body-parser thread, answered as on the event loop', () => {
  const spec = (name: string, dtype: string) => ({ name, dtype, shape: [-1] });
  const signature = (key: string, input: string, dtype: string) => ({
    key,
    methodName: 'tensorflow/serving/predict',
    inputs: { [input]: spec(`${input}:0`, dtype) },
    outputs: { y: spec('y:0', dtype) },
    defaults: {},
  });
  // Echoes its one input as `y`: the answer shows the tensor the body was read into.
  const echo: FakeModel = {
    signatures: {
      serving_default: signature('serving_default', 'x', 'DT_FLOAT'),
      ints: signature('ints', 'i', 'DT_INT64'),
      bytes: signature('bytes', 's', 'DT_STRING'),
    },
    run: async (_s, inputs) => ({ y: Object.values(inputs)[0] }),
  };
  const n = 600;
  const floats = Array.from({ length: n }, (_, i) => (i % 2 ? -i / 7 : i * 1e-3));
  const request = (inputs: object[], signatureName?: string) =>
    JSON.stringify({ ...(signatureName && { parameters: { signature_name: signatureName } }), inputs });
  const BODIES: Array<[string, string, Record<string, string>?]> = [
    ['FP32, flat', request([{ name: 'x', shape: [n], datatype: 'FP32', data: floats }])],
    [
      'FP32, nested',
      request([
        { name: 'x', shape: [n / 2, 2], datatype: 'FP32', data: Array.from({ length: n / 2 }, (_, i) => floats.slice(2 * i, 2 * i + 2)) },
      ]),
    ],
    [
      'FP32, data before its datatype (counted, then read)',
      JSON.stringify({ inputs: [{ name: 'x', data: floats, shape: [n], datatype: 'FP32' }] }),
    ],
    [
      'FP32, data before its datatype, an escape elsewhere (the general parser)',
      JSON.stringify({ id: '\n', inputs: [{ name: 'x', data: floats, shape: [n], datatype: 'FP32' }] }),
    ],
    ['FP32, one element short', request([{ name: 'x', shape: [n + 1], datatype: 'FP32', data: floats }])],
    ['FP32, a string among the numbers', request([{ name: 'x', shape: [n + 1], datatype: 'FP32', data: [...floats, 'a'] }])],
    ['INT64 for the FP32 input', request([{ name: 'x', shape: [n], datatype: 'INT64', data: floats.map((_, i) => i) }])],
    [
      'INT64 past 2^53',
      `{"parameters": {"signature_name": "ints"}, "inputs": [{"name": "i", "shape": [${n}], "datatype": "INT64", "data": [${floats.map((_, i) => `${2n ** 60n + BigInt(i)}`).join(',')}]}]}`,
    ],
    ['INT64 with a fraction', request([{ name: 'i', shape: [n], datatype: 'INT64', data: floats }], 'ints')],
    ['BYTES', request([{ name: 's', shape: [n], datatype: 'BYTES', data: floats.map(String) }], 'bytes')],
    ['BYTES for the FP32 input', request([{ name: 'x', shape: [n], datatype: 'BYTES', data: floats.map(String) }])],
    ['an unknown input', request([{ name: 'z', shape: [n], datatype: 'FP32', data: floats }])],
    ['not JSON', `${request([{ name: 'x', shape: [n], datatype: 'FP32', data: floats }]).slice(0, -3)}`],
  ];
  const binaryJson = request([{ name: 'x', shape: [n], datatype: 'FP32', parameters: { binary_data_size: 4 * n } }]);
  const binaryBody = Buffer.concat([Buffer.from(binaryJson), Buffer.from(new Float32Array(floats).buffer)]);

  it('the same status, headers and bytes; the claim given back; the body parsed by the pool', async () => {
    const pool = new BodyParserPool(1, 1024);
    let onThread = 0;
    const parseInfer = pool.parseInfer.bind(pool);
    pool.parseInfer = (...args) => {
      onThread++;
      return parseInfer(...args);
    };
    try {
      const cases: Array<[string, BodyInit, Record<string, string>]> = [
        ...BODIES.map(([name, text]): [string, BodyInit, Record<string, string>] => [name, text, {}]),
        ['binary data', binaryBody, { 'Inference-Header-Content-Length': String(binaryJson.length) }],
      ];
      for (const [name, text, headers] of cases) {
        const loopBudget = new MemoryBudget(1 << 30);
        const threadBudget = new MemoryBudget(1 << 30);
        const onLoop = await v2App({ models: { m: echo }, budget: loopBudget }).call('POST', '/v2/models/m/infer', text, headers);
        const before = onThread;
        const viaPool = v2App({ models: { m: echo }, budget: threadBudget, bodyParser: pool });
        const threaded = await viaPool.call('POST', '/v2/models/m/infer', text, headers);
        assert.equal(onThread, before + 1, `${name}: parsed by the pool`);
        assert.equal(threaded.status, onLoop.status, `${name}: ${threaded.text.slice(0, 200)}`);
        assert.equal(threaded.text, onLoop.text, name);
        assert.equal(threaded.headers.get('content-type'), onLoop.headers.get('content-type'), name);
        assert.equal(viaPool.versions.held, 0, name);
        assert.deepEqual([loopBudget.inFlightBytes, threadBudget.inFlightBytes], [0, 0], name);
      }
    } finally {
      pool.close();
    }
  });

  it('a memory budget too small: the same 503 on the thread as on the loop, the claim given back', async () => {
    const pool = new BodyParserPool(1, 1024);
    try {
      const text = BODIES[0][1];
      // The body fits; its tensor does not.
      const limit = Buffer.byteLength(text) + 1000;
      const answers = [];
      for (const bodyParser of [undefined, pool]) {
        const budget = new MemoryBudget(limit);
        const r = await v2App({ models: { m: echo }, budget, bodyParser }).call('POST', '/v2/models/m/infer', text);
        answers.push([r.status, r.text]);
        assert.equal(budget.inFlightBytes, 0);
      }
      assert.equal(answers[0][0], 503, String(answers[0][1]));
      assert.deepEqual(answers[1], answers[0]);
    } finally {
      pool.close();
    }
  });
});
