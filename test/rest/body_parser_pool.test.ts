// Large :predict bodies parsed on a parser thread (body_parser_pool.ts) answer exactly as the
// same bodies parsed on the event loop: the same tensors, error texts, byte offsets and
// statuses, the memory budget charged from the thread and given back. In-process (Hono's
// app.request) with a real thread; every body here goes to the thread (minBytes 0).
import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import { createRestApp, type RestDeps } from '../../src/rest/rest_app.js';
import { BodyParserPool } from '../../src/rest/body_parser_pool.js';
import { PredictionService } from '../../src/services/prediction_service.js';
import { Metrics } from '../../src/monitoring/metrics.js';
import { MemoryBudget, MemoryClaim } from '../../src/services/memory_budget.js';
import type { HostTensor } from '../../src/tensor/host_tensor.js';
import { halfPlusTwoSignatures, FakeVersions, type FakeModel } from '../helpers/fake_versions.js';
import { predictResponseJson } from '../../src/rest/json_tensor_writer.js';
import { markReplyAlone } from '../../src/tensor/request_owned.js';

const LIMITS = { maxBodyBytes: 1 << 20, jsonMaxDepth: 8, jsonMaxElements: 10_000 };
const pool = new BodyParserPool(1, 0);
after(() => pool.close());

function app(bodyParser: BodyParserPool | undefined, overrides: Partial<RestDeps> & { models?: Record<string, FakeModel> } = {}) {
  const { models = { hp2: {} }, ...rest } = overrides;
  const deps: RestDeps = {
    prediction: new PredictionService(new FakeVersions(models)),
    modelStatus: () => ({}),
    modelMetadata: () => ({}),
    limits: LIMITS,
    timeoutMs: 0,
    enableCors: false,
    metrics: new Metrics(),
    bodyParser,
    ...rest,
  };
  const a = createRestApp(deps);
  return async (path: string, body: string) => {
    const r = await a.request(path, { method: 'POST', body });
    return { status: r.status, text: await r.text(), retryAfter: r.headers.get('retry-after') };
  };
}

describe('a :predict body parsed on a parser thread answers as on the event loop', () => {
  const BODIES: Array<[what: string, path: string, body: string]> = [
    ['row format', '/v1/models/hp2:predict', '{"instances": [1.0, 2.0, 5.5]}'],
    ['columnar format', '/v1/models/hp2:predict', '{"inputs": {"x": [[4.0], [6.0]]}}'],
    ['a named signature', '/v1/models/hp2:predict', '{"signature_name": "serving_default", "instances": [[1.5]]}'],
    ['not JSON (a byte offset)', '/v1/models/hp2:predict', '{"instances": [1.0, 2.0,, 3.0]}'],
    ['empty', '/v1/models/hp2:predict', ''],
    ['too deep', '/v1/models/hp2:predict', '{"instances": [[[[[[[[[[1.0]]]]]]]]]]}'],
    ['a wrong type', '/v1/models/hp2:predict', '{"instances": ["a"]}'],
    ['uneven rows', '/v1/models/hp2:predict', '{"instances": [[1.0], [1.0, 2.0]]}'],
    ['signature_name not a string', '/v1/models/hp2:predict', '{"signature_name": 3, "instances": [1.0]}'],
    ['an unknown signature (the parse is dropped)', '/v1/models/hp2:predict', '{"signature_name": "nope", "instances": [1.0]}'],
    ['an unknown model (the parse is dropped)', '/v1/models/nope:predict', '{"instances": [1.0]}'],
    ['neither instances nor inputs', '/v1/models/hp2:predict', '{"foo": 1}'],
  ];
  const here = app(undefined);
  const threaded = app(pool);
  for (const [what, path, body] of BODIES) {
    it(what, async () => {
      const expected = await here(path, body);
      const got = await threaded(path, body);
      assert.deepEqual(got, expected);
    });
  }

  it('the memory budget: refused at the same point with the same text (503, Retry-After), every byte given back', async () => {
    const body = `{"instances": [${'1.0, '.repeat(999)}1.0]}`;
    for (const limit of [100, 10_000, 40_000, 60_000, 70_000, 80_000]) {
      const budgetHere = new MemoryBudget(limit);
      const budgetThread = new MemoryBudget(limit);
      const expected = await app(undefined, { budget: budgetHere })('/v1/models/hp2:predict', body);
      const got = await app(pool, { budget: budgetThread })('/v1/models/hp2:predict', body);
      assert.deepEqual(got, expected, `budget ${limit}`);
      assert.equal(budgetThread.inFlightBytes, 0);
    }
  });

  it('the claim holds exactly what the same parse charges on the event loop, until the request is answered', async () => {
    const seen: number[] = [];
    const models = (budget: MemoryBudget): Record<string, FakeModel> => ({
      hp2: {
        run: async (_s, inputs) => {
          seen.push(budget.inFlightBytes);
          return { y: inputs.x };
        },
      },
    });
    const body = `{"instances": [${'[2.5], '.repeat(499)}[2.5]]}`;
    for (const parser of [undefined, pool]) {
      const budget = new MemoryBudget(1 << 30);
      const r = await app(parser, { budget, models: models(budget) })('/v1/models/hp2:predict', body);
      assert.equal(r.status, 200, r.text);
      assert.equal(budget.inFlightBytes, 0);
    }
    assert.equal(seen[1], seen[0], 'charged the same');
    assert.ok(seen[0] > body.length);
  });

  it('the body is moved to the thread (not copied) and the tensors come back as buffers of their own, marked to move on', async () => {
    const body = new TextEncoder().encode('{"instances": [[1.0], [2.0]]}');
    const claim = new MemoryClaim(new MemoryBudget(1 << 20));
    const parsed = await pool.parsePredict(body, LIMITS, claim);
    assert.equal(body.byteLength, 0, 'detached: moved');
    const { inputs } = await parsed.tensors(halfPlusTwoSignatures().serving_default);
    const x = inputs.x as HostTensor;
    assert.deepEqual(
      [x.shape, Array.from(x.values as Float32Array)],
      [
        [2, 1],
        [1, 2],
      ],
    );
    assert.ok(claim.bytes > 0);
    claim.release();
  });
});

describe('a large :predict answer written on a parser thread', () => {
  /** A pool whose every answer is written on its thread, counting them. */
  function writingPool() {
    const p = new BodyParserPool(1, Number.POSITIVE_INFINITY, 0);
    let written = 0;
    const format = p.formatPredict.bind(p);
    p.formatPredict = (outputs, f, movable) => {
      written++;
      return format(outputs, f, movable);
    };
    return { pool: p, written: () => written };
  }

  it('is the bytes the event loop writes (row and columnar, one output and several, past one run of rows), the outputs moved unless the request log keeps them', async () => {
    const { pool: writer, written } = writingPool();
    after(() => writer.close());
    const rows = 5000;
    const x = Float32Array.from({ length: rows }, (_, i) => i / 7);
    const kept: HostTensor[] = [];
    const movedOnThread: HostTensor[] = [];
    const models: Record<string, FakeModel> = {
      hp2: {
        run: async (_s, inputs) => {
          const y = { ...inputs.x, values: (inputs.x.values as Float32Array).map((v) => v * 0.5 + 2) };
          kept.push(y);
          return { y };
        },
      },
      two: {
        run: async (_s, inputs) => ({
          a: inputs.x,
          b: {
            dtype: 'string',
            shape: [inputs.x.shape[0]],
            values: Array.from({ length: inputs.x.shape[0] }, (_, i) => new TextEncoder().encode(`é${i}`)),
          },
        }),
      },
      uneven: {
        run: async () => ({
          a: { dtype: 'float32', shape: [2], values: new Float32Array(2) },
          b: { dtype: 'float32', shape: [3], values: new Float32Array(3) },
        }),
      },
    };
    const rowBody = `{"instances": [${Array.from(x, (v) => `[${v}]`).join(', ')}]}`;
    const columnarBody = `{"inputs": {"x": [${Array.from(x, (v) => `[${v}]`).join(', ')}]}}`;
    const limits = { ...LIMITS, maxBodyBytes: 1 << 24, jsonMaxElements: 1 << 20 };
    const here = app(undefined, { models, limits });
    const threaded = app(writer, { models, limits });
    for (const [path, body] of [
      ['/v1/models/hp2:predict', rowBody],
      ['/v1/models/hp2:predict', columnarBody],
      ['/v1/models/two:predict', rowBody],
      ['/v1/models/two:predict', columnarBody],
      ['/v1/models/uneven:predict', rowBody],
    ]) {
      const expected = await here(path, body);
      kept.length = 0;
      const got = await threaded(path, body);
      assert.deepEqual(got, expected, `${path} ${body.slice(0, 12)}`);
      movedOnThread.push(...kept);
    }
    assert.equal(written(), 5, 'every answer written on the thread');
    // Nothing read the outputs afterwards: each went to the thread moved, not copied.
    assert.equal(movedOnThread.length, 2);
    for (const y of movedOnThread) assert.equal((y.values as Float32Array).length, 0, 'moved');

    // The request log keeps a logged call's outputs to write later: copied, left readable here.
    kept.length = 0;
    const logging = new PredictionService(new FakeVersions(models), { sample: () => ({ log: () => {} }) });
    const logged = await app(writer, { models, limits, prediction: logging })('/v1/models/hp2:predict', rowBody);
    assert.equal(kept.length, 1);
    assert.deepEqual(logged, await here('/v1/models/hp2:predict', rowBody));
    assert.equal((kept[0].values as Float32Array).length, rows, 'left readable');
  });

  it('copies a view into a larger buffer even when nothing reads it afterwards (its neighbours stay)', async () => {
    const { pool: writer } = writingPool();
    after(() => writer.close());
    const message = new Float32Array(20_000).fill(1.5);
    const y: HostTensor = { dtype: 'float32', shape: [10_000], values: message.subarray(0, 10_000) };
    const bytes = await writer.formatPredict({ y }, 'row', true);
    assert.equal(Buffer.from(bytes).toString('utf8'), predictResponseJson({ y }, 'row'));
    assert.equal(message.length, 20_000, 'not moved');
  });

  it("moves the packed reply of a request alone in its message, its outputs' views into it with it", async () => {
    const { pool: writer } = writingPool();
    after(() => writer.close());
    const reply = new ArrayBuffer(64 + 2 * 40_000);
    new Float32Array(reply, 64).fill(2.5);
    markReplyAlone(reply);
    const y: HostTensor = { dtype: 'float32', shape: [10_000], values: new Float32Array(reply, 64, 10_000) };
    const z: HostTensor = { dtype: 'float32', shape: [10_000], values: new Float32Array(reply, 40_064, 10_000) };
    const expected = predictResponseJson({ y, z }, 'row');
    const bytes = await writer.formatPredict({ y, z }, 'row', true);
    assert.equal(Buffer.from(bytes).toString('utf8'), expected);
    assert.equal(reply.byteLength, 0, 'moved');
  });
});
