// The REST app in-process (Hono's app.request, no socket, no threads): routing, errors as
// TF Serving words and numbers them, limits, CORS, Server-Timing, metrics and the access log.
// Behind it, the real PredictionService over fake versions (test/helpers/fake_versions.ts).
// The same API over a real port and a real model: test/integration/server_*.test.ts.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createRestApp, type RestDeps } from '../../src/rest/rest_app.js';
import { fixed3 } from '../../src/rest/request_envelope.js';
import { restCall } from '../../src/rest/rest_paths.js';
import { PredictionService } from '../../src/services/prediction_service.js';
import { Metrics } from '../../src/monitoring/metrics.js';
import { MemoryBudget } from '../../src/services/memory_budget.js';
import { Code, ServingError } from '../../src/errors/status.js';
import * as MSG from '../../src/errors/messages.js';
import type { ModelSpec } from '../../src/services/servable_version.js';
import { FakeVersions, type FakeModel } from '../helpers/fake_versions.js';

const LIMITS = { maxBodyBytes: 1 << 20, jsonMaxDepth: 64, jsonMaxElements: 10_000 };

/** An app over fake versions; status and metadata echo the ModelSpec the route resolved. */
function restApp(options: { models?: Record<string, FakeModel> } & Partial<RestDeps> = {}) {
  const { models = { hp2: {} }, ...overrides } = options;
  const versions = new FakeVersions(models);
  const deps: RestDeps = {
    prediction: new PredictionService(versions),
    modelStatus: (spec: ModelSpec) => ({ status_of: spec }),
    modelMetadata: (spec: ModelSpec) => ({ metadata_of: spec }),
    limits: LIMITS,
    timeoutMs: 0,
    enableCors: false,
    metrics: new Metrics(),
    ...overrides,
  };
  const app = createRestApp(deps);
  const call = async (method: string, path: string, body?: string, headers: Record<string, string> = {}) => {
    const res = await app.request(path, { method, body, headers });
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

describe("REST app: routing (TF Serving's URL patterns)", () => {
  const CASES: Array<[method: string, path: string, body: string | undefined, status: number, json: unknown]> = [
    ['GET', '/v1/models/m', undefined, 200, { status_of: { name: 'm' } }],
    ['GET', '/v1/models/m/versions/3', undefined, 200, { status_of: { name: 'm', version: 3 } }],
    ['GET', '/v1/models/m/labels/stable', undefined, 200, { status_of: { name: 'm', label: 'stable' } }],
    ['GET', '/v1/models/m/metadata', undefined, 200, { metadata_of: { name: 'm' } }],
    ['GET', '/v1/models/m/versions/3/metadata', undefined, 200, { metadata_of: { name: 'm', version: 3 } }],
    ['GET', '/v1/models/a%20b', undefined, 200, { status_of: { name: 'a b' } }],
    // The patterns ignore case; `metadata` is then compared as written, so this asks for the status.
    ['GET', '/v1/models/m/METADATA', undefined, 200, { status_of: { name: 'm' } }],
    ['POST', '/v1/models/hp2:predict', '{"instances": [1.0, 2.0]}', 200, { predictions: [2.5, 3] }],
    ['POST', '/v1/models/hp2/versions/1:predict', '{"inputs": {"x": [[4.0]]}}', 200, { outputs: [[4]] }],
    ['POST', '/v1/models/hp2:explain', '{}', 400, { error: MSG.malformedRequest('POST', '/v1/models/hp2:explain') }],
    ['GET', '/v1/models/hp2:predict', undefined, 400, { error: MSG.malformedRequest('GET', '/v1/models/hp2:predict') }],
    ['POST', '/v1/models/hp2:predict?x=1', '{}', 400, { error: MSG.malformedRequest('POST', '/v1/models/hp2:predict?x=1') }],
    ['POST', '/v1/models/hp2:PREDICT', '{}', 400, { error: MSG.malformedRequest('POST', '/v1/models/hp2:PREDICT') }],
    ['GET', '/v1/models', undefined, 400, { error: MSG.MISSING_MODEL_NAME }],
    [
      'GET',
      '/v1/models/m/versions/99999999999999999999',
      undefined,
      400,
      { error: 'Failed to convert version: 99999999999999999999 to numeric.' },
    ],
    ['GET', '/elsewhere', undefined, 404, { error: 'Not found: GET /elsewhere' }],
  ];
  for (const [method, path, body, status, json] of CASES) {
    it(`${method} ${path} → ${status}`, async () => {
      const r = await restApp().call(method, path, body);
      assert.equal(r.status, status, r.text);
      assert.deepEqual(r.json, json);
    });
  }

  it(':regress reads tf.Examples and answers {"results": …}', async () => {
    const models = {
      hp2: { run: async () => ({ outputs: { dtype: 'float32' as const, shape: [2], values: Float32Array.from([7, 8]) } }) },
    };
    const r = await restApp({ models }).call(
      'POST',
      '/v1/models/hp2:regress',
      '{"signature_name": "regress_x_to_y", "examples": [{"x": [1.0]}, {"x": [2.0]}]}',
    );
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.json, { results: [7, 8] });
  });
});

describe("REST app: errors (canonical code → HTTP status, TF Serving's texts)", () => {
  const CASES: Array<[what: string, path: string, body: string, status: number, error: string]> = [
    ['unknown model', '/v1/models/nope:predict', '{"instances": [1.0]}', 404, MSG.couldNotFindAnyVersions('nope')],
    ['unknown version', '/v1/models/hp2/versions/9:predict', '{"instances": [1.0]}', 404, MSG.couldNotFindVersion(9, 'hp2')],
    ['empty body', '/v1/models/hp2:predict', '', 400, MSG.JSON_DOCUMENT_EMPTY],
    [
      'unknown signature',
      '/v1/models/hp2:predict',
      '{"signature_name": "nope", "instances": [1.0]}',
      400,
      MSG.restSignatureNotFound('nope'),
    ],
    ['neither instances nor inputs', '/v1/models/hp2:predict', '{"foo": 1}', 400, MSG.MISSING_INPUTS_OR_INSTANCES],
  ];
  for (const [what, path, body, status, error] of CASES) {
    it(`${what} → ${status}`, async () => {
      const { call, versions } = restApp();
      const r = await call('POST', path, body);
      assert.equal(r.status, status, r.text);
      assert.deepEqual(r.json, { error });
      assert.equal(versions.held, 0, 'no version stays acquired');
    });
  }

  it('a signature the runtime refused → 501 UNIMPLEMENTED, naming why', async () => {
    const r = await restApp({ models: { hp2: { refusals: { serving_default: 'op Foo has no kernel' } } } }).call(
      'POST',
      '/v1/models/hp2:predict',
      '{"instances": [1.0]}',
    );
    assert.equal(r.status, 501);
    assert.deepEqual(r.json, { error: 'signature "serving_default" of model hp2 version 1 cannot be served: op Foo has no kernel' });
  });

  it('an error carrying a retry hint → its status and Retry-After in whole seconds (at least 1)', async () => {
    const busy = async () => {
      throw new ServingError(Code.UNAVAILABLE, 'busy', { retryAfterMs: 1500 });
    };
    const r = await restApp({ models: { hp2: { run: busy } } }).call('POST', '/v1/models/hp2:predict', '{"instances": [1.0]}');
    assert.equal(r.status, 503);
    assert.deepEqual(r.json, { error: 'busy' });
    assert.equal(r.headers.get('retry-after'), '2');
  });

  it('errors are pretty-printed as TF Serving writes them (4-space indent)', async () => {
    const r = await restApp().call('GET', '/v1/models');
    assert.equal(r.text, `{\n    "error": "${MSG.MISSING_MODEL_NAME}"\n}`);
    assert.equal(r.headers.get('content-type'), 'application/json');
  });
});

describe('REST app: limits', () => {
  it('a body over limits.maxBodyBytes → 413, before parsing', async () => {
    const r = await restApp({ limits: { ...LIMITS, maxBodyBytes: 64 } }).call(
      'POST',
      '/v1/models/hp2:predict',
      `{"instances": [${'1.0, '.repeat(40)}1.0]}`,
    );
    assert.equal(r.status, 413);
    assert.deepEqual(r.json, { error: 'Request body is larger than the limit of 64 bytes (--max_request_body_bytes)' });
  });

  it('JSON nested deeper than limits.jsonMaxDepth → 400', async () => {
    const r = await restApp({ limits: { ...LIMITS, jsonMaxDepth: 3 } }).call(
      'POST',
      '/v1/models/hp2:predict',
      '{"instances": [[[[1.0]]]]}',
    );
    assert.equal(r.status, 400);
    assert.deepEqual(r.json, { error: MSG.jsonTooDeep(3) });
  });

  it('a request the memory budget has no room for → 503; what it claimed is given back', async () => {
    const budget = new MemoryBudget(16);
    const r = await restApp({ budget }).call('POST', '/v1/models/hp2:predict', '{"instances": [1.0, 2.0, 3.0, 4.0]}');
    assert.equal(r.status, 503, r.text);
    assert.equal(budget.inFlightBytes, 0);
  });

  it(':predict: a body of one-value rows is read straight into its tensor, so it fits a budget its JSON tree would not (~14× the body)', async () => {
    const rows = 50_000;
    const body = `{"instances": [${Array.from({ length: rows }, (_, i) => `[${i}.5]`).join(', ')}]}`;
    // The body's bytes (~0.5 MB), its tensor (0.2 MB) and the answer fit; a tree of 50 000 lists does not (≥ 4.8 MB).
    const budget = new MemoryBudget(2 * 2 ** 20);
    const r = await restApp({ budget, limits: { ...LIMITS, jsonMaxElements: 200_000 } }).call('POST', '/v1/models/hp2:predict', body);
    assert.equal(r.status, 200, r.text.slice(0, 300));
    const predictions = (r.json as { predictions: number[][] }).predictions;
    assert.equal(predictions.length, rows);
    assert.deepEqual(predictions[rows - 1], [(rows - 1 + 0.5) / 2 + 2]);
    assert.equal(budget.inFlightBytes, 0);
  });

  it(':classify: the serialized Examples are charged before they are written (192 bytes each), after the parse fits', async () => {
    const budget = new MemoryBudget(2.5 * 2 ** 20);
    const body = `{"examples": [${new Array(10_000).fill('{}').join(', ')}]}`;
    const r = await restApp({ budget, limits: { ...LIMITS, jsonMaxElements: 100_000 } }).call('POST', '/v1/models/hp2:classify', body);
    assert.equal(r.status, 503, r.text);
    assert.match(r.text, /needs 1920000 more bytes/);
    assert.equal(budget.inFlightBytes, 0);
  });

  it('a call still running at timeoutMs → 504 DEADLINE_EXCEEDED, and the version is let go', async () => {
    const never = () => new Promise<never>(() => {});
    const { call, versions } = restApp({ timeoutMs: 20, models: { hp2: { run: never } } });
    const r = await call('POST', '/v1/models/hp2:predict', '{"instances": [1.0]}');
    assert.equal(r.status, 504);
    assert.deepEqual(r.json, { error: 'Request timed out after 20 ms (--rest_api_timeout_in_ms)' });
    assert.equal(versions.held, 1, 'the run itself still holds it; the answer did not wait');
  });
});

describe('REST app: CORS', () => {
  const CORS = {
    'access-control-allow-origin': '*',
    'access-control-allow-methods': 'POST, GET',
    'access-control-allow-headers': 'Content-Type',
  };
  const corsOf = (h: Headers) => Object.fromEntries(Object.keys(CORS).map((k) => [k, h.get(k)]));

  it("enableCors: TF Serving's three headers on success and error alike", async () => {
    const { call } = restApp({ enableCors: true });
    assert.deepEqual(corsOf((await call('GET', '/v1/models/m')).headers), CORS);
    assert.deepEqual(corsOf((await call('POST', '/v1/models/nope:predict', '{"instances": [1.0]}')).headers), CORS);
  });

  it('without enableCors: none of them', async () => {
    assert.equal((await restApp().call('GET', '/v1/models/m')).headers.get('access-control-allow-origin'), null);
  });

  it('OPTIONS with an http(s) Origin → 200, empty body', async () => {
    const r = await restApp().call('OPTIONS', '/v1/models/hp2:predict', undefined, { origin: 'http://client.example' });
    assert.equal(r.status, 200);
    assert.equal(r.text, '');
  });

  it('OPTIONS without one → FAILED_PRECONDITION (400), empty body, the text in the access log', async () => {
    const entries: Array<{ method: string; status: number; error?: string }> = [];
    const r = await restApp({ accessLog: (e) => entries.push(e) }).call('OPTIONS', '/v1/models/hp2');
    assert.equal(r.status, 400);
    assert.equal(r.text, '');
    assert.deepEqual(
      entries.map(({ method, status, error }) => ({ method, status, error })),
      [{ method: 'OPTIONS', status: 400, error: MSG.ORIGIN_HEADER_MISSING }],
    );
  });

  it('OPTIONS outside the REST API → 404', async () => {
    assert.equal((await restApp().call('OPTIONS', '/elsewhere', undefined, { origin: 'http://client.example' })).status, 404);
  });
});

describe('REST paths parsed once', () => {
  it('the same method and path give the same call, kept; others their own; what is refused is refused again', () => {
    const predict = restCall('POST', '/v1/models/m/versions/3:predict');
    assert.deepEqual(predict, { kind: 'predict', model: { name: 'm', version: 3 } });
    assert.equal(restCall('POST', '/v1/models/m/versions/3:predict'), predict, 'kept');
    assert.deepEqual(restCall('GET', '/v1/models/m/versions/3'), { kind: 'status', model: { name: 'm', version: 3 } });
    assert.deepEqual(restCall('POST', '/v1/models/m/labels/x:regress'), { kind: 'regress', model: { name: 'm', label: 'x' } });
    for (let k = 0; k < 2; k++) assert.throws(() => restCall('GET', '/v1/models/m:predict'), /Malformed request/);
    // Past the paths kept, each still gets its own answer.
    for (let k = 0; k < 600; k++) assert.equal(restCall('POST', `/v1/models/m${k}:predict`).model.name, `m${k}`);
    assert.deepEqual(restCall('POST', '/v1/models/m/versions/3:predict'), predict);
  });
});

describe('REST app: Server-Timing, metrics, status page, access log', () => {
  it('predict answers carry Server-Timing from the stats the layers below filled in', async () => {
    const timed: FakeModel['run'] = async (_s, inputs, _k, options) => {
      Object.assign(options.stats!, {
        queueMs: 0.8,
        handoffMs: 0.05,
        computeMs: 2.0,
        handbackMs: 0.04,
        inferMs: 2.1,
        batchSize: 7,
        paddedBatchSize: 8,
      });
      return { y: inputs.x };
    };
    const r = await restApp({ models: { hp2: { run: timed } } }).call('POST', '/v1/models/hp2:predict', '{"instances": [1.0]}');
    assert.equal(r.status, 200, r.text);
    // parse and serialise are the REST layer's own, measured here; the rest come from the stats.
    assert.match(
      r.headers.get('server-timing') ?? '',
      /^parse;dur=\d+\.\d{3}, queue;dur=0\.800, handoff;dur=0\.050, run;dur=2\.000, handback;dur=0\.040, infer;dur=2\.100, serialise;dur=\d+\.\d{3}, batch;desc="7\/8"$/,
    );
  });

  it("Server-Timing's durations are written as toFixed(3) writes them, halves and all", () => {
    const values = [0, -0, -1e-12, -0.5, 1e9, 1e21, NaN, Infinity, 5e-324, 0.0005, 1.0005, 2.0015, 999999999.9995];
    // Every half-thousandth up to 25 ms (ties of the decimal text, on either side in binary), and spread values.
    for (let k = 0; k < 50_000; k++) values.push(k / 2000, k / 1000 + 1e-9, k * 7.77e-3, 1e-4 * 1.3 ** (k % 90));
    for (const v of values) if (fixed3(v) !== v.toFixed(3)) assert.equal(fixed3(v), v.toFixed(3), String(v));
  });

  it('requests are counted by model and status on metricsPath', async () => {
    const { call } = restApp({ metricsPath: '/monitoring/prometheus/metrics' });
    await call('POST', '/v1/models/hp2:predict', '{"instances": [1.0]}');
    await call('POST', '/v1/models/hp2:predict', '{"signature_name": "nope", "instances": [1.0]}');
    const text = (await call('GET', '/monitoring/prometheus/metrics')).text;
    assert.match(text, /^:tensorflow:serving:request_count\{model_name="hp2",status="OK"\} 1$/m);
    assert.match(text, /^:tensorflow:serving:request_count\{model_name="hp2",status="INVALID_ARGUMENT"\} 1$/m);
  });

  it('without metricsPath nothing answers there', async () => {
    assert.equal((await restApp().call('GET', '/monitoring/prometheus/metrics')).status, 404);
  });

  it('serverStatus answers GET /monitoring/tfgate/status', async () => {
    const r = await restApp({ serverStatus: () => ({ models: [] }) }).call('GET', '/monitoring/tfgate/status');
    assert.equal(r.status, 200);
    assert.deepEqual(r.json, { models: [] });
  });

  it('the access log is told of each request once answered, with the error text when there was one', async () => {
    const entries: Array<{ method: string; path: string; status: number; error?: string }> = [];
    const { call } = restApp({ accessLog: (e) => entries.push(e) });
    await call('POST', '/v1/models/hp2:predict', '{"instances": [1.0]}');
    await call('POST', '/v1/models/nope:predict', '{"instances": [1.0]}');
    assert.deepEqual(
      entries.map(({ method, path, status, error }) => ({ method, path, status, error })),
      [
        { method: 'POST', path: '/v1/models/hp2:predict', status: 200, error: undefined },
        { method: 'POST', path: '/v1/models/nope:predict', status: 404, error: MSG.couldNotFindAnyVersions('nope') },
      ],
    );
  });
});
