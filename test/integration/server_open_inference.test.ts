// The Open Inference Protocol (KServe v2) against the real process: every route, its errors,
// and the same predictions as TF Serving's :predict from the same server for the same inputs
// on the fixtures (FP32, nested FP32, INT64, UINT8 → INT32, two INT32 inputs and outputs,
// BYTES tf.Example protos through a string-input signature). Requests are the spec's examples
// (inference_rest.md, the binary tensor data extension) adapted to these models.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { FIXTURES, MODELS, REPO_ROOT } from '../helpers/paths.js';
import { startServer, waitAvailable, type RunningServer } from '../helpers/server_process.js';
import { rawRequest, type RawResponse } from '../helpers/raw_http.js';
import { tempDir } from '../helpers/temp.js';
import { parseExampleRequest } from '../../src/rest/json_examples.js';

const MAX_BODY = 1 << 20;
const MAX_ELEMENTS = 1 << 16;
const JSON_TYPE = { 'content-type': 'application/json' };

type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any

function flatten(v: Json): Json[] {
  return Array.isArray(v) ? v.flatMap(flatten) : [v];
}

function shapeOf(v: Json): number[] {
  return Array.isArray(v) ? [v.length, ...(v.length ? shapeOf(v[0]) : [])] : [];
}

/** A body under the binary tensor data extension: the JSON, then each part's bytes. */
function binaryBody(header: object, parts: Uint8Array[]): { body: Buffer; headers: Record<string, string> } {
  const json = Buffer.from(JSON.stringify(header));
  return {
    body: Buffer.concat([json, ...parts]),
    headers: { 'content-type': 'application/octet-stream', 'inference-header-content-length': String(json.length) },
  };
}

/** BYTES elements as binary data: a 4-byte little-endian length before each. */
function bytesElements(elements: Uint8Array[]): Buffer {
  return Buffer.concat(elements.flatMap((e) => [Buffer.from(new Uint32Array([e.length]).buffer), Buffer.from(e)]));
}

/** A binary response split into its JSON and the bytes of each output that has binary_data_size. */
function splitBinaryResponse(r: RawResponse): { json: Json; outputs: Record<string, Buffer> } {
  const n = Number(r.headers['inference-header-content-length']);
  assert.ok(n > 0, 'Inference-Header-Content-Length is set');
  const json = JSON.parse(r.body.subarray(0, n).toString('utf8'));
  const outputs: Record<string, Buffer> = {};
  let at = n;
  for (const o of json.outputs) {
    const size = o.parameters?.binary_data_size;
    if (size === undefined) continue;
    outputs[o.name] = r.body.subarray(at, at + size);
    at += size;
  }
  assert.equal(at, r.body.length, 'the binary outputs fill the rest of the body');
  return { json, outputs };
}

const float32s = (b: Buffer) => [...new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.length))];

describe('Open Inference Protocol (KServe v2), real process', () => {
  let server: RunningServer;
  const req = (method: string, p: string, options?: Parameters<typeof rawRequest>[3]) => rawRequest(server.port, method, p, options);
  const infer = (p: string, body: unknown) =>
    req('POST', p, { headers: JSON_TYPE, body: typeof body === 'string' ? body : JSON.stringify(body) });
  /** TF Serving's :predict, columnar (`inputs` → `outputs`), on the same server. */
  const predict = async (p: string, body: unknown) => {
    const r = await req('POST', p, { headers: JSON_TYPE, body: JSON.stringify(body) });
    assert.equal(r.status, 200, r.body.toString());
    return r.json.outputs;
  };
  const expectError = async (r: Promise<RawResponse>, status: number, message: RegExp) => {
    const res = await r;
    assert.equal(res.status, status, res.body.toString());
    assert.match(res.headers['content-type'] ?? '', /application\/json/);
    assert.deepEqual(Object.keys(res.json), ['error'], res.body.toString());
    assert.match(res.json.error, message);
  };

  before(async () => {
    const dir = tempDir();
    const config = path.join(dir, 'models.config');
    const m = (name: string) => path.join(MODELS, name);
    fs.writeFileSync(
      config,
      `model_config_list {
  config { name: "hp2" base_path: "${m('saved_model_half_plus_two_cpu')}" model_platform: "tensorflow" }
  config {
    name: "two" base_path: "${m('saved_model_half_plus_two_2_versions')}" model_platform: "tensorflow"
    model_version_policy { all {} }
    version_labels { key: "stable" value: 123 }
    version_labels { key: "canary" value: 124 }
  }
  config { name: "matrix" base_path: "${m('matrix_half_plus_two')}" model_platform: "tensorflow" }
  config { name: "i64" base_path: "${m('tfjs_int64_multiply')}" model_platform: "tensorflow" }
  config { name: "u8" base_path: "${m('tfjs_uint8_multiply')}" model_platform: "tensorflow" }
  config { name: "multi" base_path: "${m('tfjs_model_multi_output')}" model_platform: "tensorflow" }
}
`,
    );
    server = await startServer([
      `--model_config_file=${config}`,
      `--max_request_body_bytes=${MAX_BODY}`,
      `--json_max_elements=${MAX_ELEMENTS}`,
      '--num_executors=1',
      '--file_system_poll_wait_seconds=0',
    ]);
    await waitAvailable(server, ['hp2', 'two', 'matrix', 'i64', 'u8', 'multi']);
    await waitAvailable(server, ['two'], 20_000, 2);
  });

  after(async () => {
    assert.equal(await server?.stop(), 0);
  });

  describe('server routes', () => {
    it('GET /v2: name, version (package.json) and extensions', async () => {
      const version = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')).version;
      for (const p of ['/v2', '/v2/']) {
        const r = await req('GET', p);
        assert.equal(r.status, 200);
        assert.deepEqual(r.json, { name: 'tfgate', version, extensions: ['binary_tensor_data'] });
      }
    });

    it('GET /v2/health/live and /v2/health/ready: 200 once every model is AVAILABLE', async () => {
      assert.deepEqual(await req('GET', '/v2/health/live').then((r) => [r.status, r.json]), [200, { live: true }]);
      assert.deepEqual(await req('GET', '/v2/health/ready').then((r) => [r.status, r.json]), [200, { ready: true }]);
    });

    it('a path that is none of the routes is 404, a wrong method 405 with Allow', async () => {
      await expectError(req('GET', '/v2/nothing'), 404, /^Not found: GET \/v2\/nothing$/);
      await expectError(req('GET', '/v2/models/hp2/versions/123/explain'), 404, /Not found/);
      await expectError(req('GET', '/v2/models/hp2/infer'), 405, /use POST/);
      const r = await req('POST', '/v2/health/live', { body: '{}' });
      assert.equal(r.status, 405);
      assert.equal(r.headers.allow, 'GET');
      await expectError(req('DELETE', '/v2/models/hp2'), 405, /use GET/);
    });

    it('OPTIONS (a CORS preflight) on a route: an empty 200', async () => {
      const r = await req('OPTIONS', '/v2/models/hp2/infer', { headers: { origin: 'http://example.com' } });
      assert.deepEqual([r.status, r.body.length], [200, 0]);
    });
  });

  describe('model metadata and readiness', () => {
    const hp2Metadata = {
      name: 'hp2',
      versions: ['123'],
      platform: 'tensorflow_savedmodel',
      inputs: [{ name: 'x', datatype: 'FP32', shape: [-1, 1] }],
      outputs: [{ name: 'y', datatype: 'FP32', shape: [-1, 1] }],
    };

    it('metadata from serving_default, -1 for unknown dimensions, by name, version or label', async () => {
      assert.deepEqual((await req('GET', '/v2/models/hp2')).json, hp2Metadata);
      assert.deepEqual((await req('GET', '/v2/models/hp2/versions/123')).json, hp2Metadata);
      const two = await req('GET', '/v2/models/two/versions/stable');
      assert.equal(two.status, 200);
      assert.deepEqual(two.json.versions, ['124', '123']);
      assert.deepEqual((await req('GET', '/v2/models/i64')).json.inputs, [{ name: 'x', datatype: 'INT64', shape: [2] }]);
      const u8 = (await req('GET', '/v2/models/u8')).json;
      assert.deepEqual(
        [u8.inputs, u8.outputs],
        [[{ name: 'x', datatype: 'UINT8', shape: [1] }], [{ name: 'output_0', datatype: 'INT32', shape: [1] }]],
      );
      const multi = (await req('GET', '/v2/models/multi')).json;
      assert.deepEqual(
        multi.inputs.map((t: Json) => t.name),
        ['x', 'y'],
      );
      assert.deepEqual(
        multi.outputs.map((t: Json) => [t.name, t.datatype, t.shape]),
        [
          ['output_0', 'INT32', []],
          ['output_1', 'INT32', []],
        ],
      );
    });

    it('metadata errors: unknown model, version or label are 404', async () => {
      await expectError(req('GET', '/v2/models/nope'), 404, /nope/);
      await expectError(req('GET', '/v2/models/hp2/versions/9'), 404, /hp2/);
      await expectError(req('GET', '/v2/models/hp2/versions/beta'), 404, /version label: beta/);
      // A name a client chooses is looked up as a name, never as an object member.
      await expectError(req('GET', '/v2/models/constructor'), 404, /constructor/);
      await expectError(req('GET', '/v2/models/two/versions/__proto__'), 404, /__proto__/);
    });

    it('ready: 200 {name, ready: true} for a servable model / version / label; 404 for an unknown one', async () => {
      for (const p of ['/v2/models/hp2/ready', '/v2/models/two/versions/123/ready', '/v2/models/two/versions/canary/ready']) {
        const r = await req('GET', p);
        assert.deepEqual([r.status, r.json], [200, { name: p.split('/')[3], ready: true }], p);
      }
      await expectError(req('GET', '/v2/models/nope/ready'), 404, /nope/);
      await expectError(req('GET', '/v2/models/hp2/versions/9/ready'), 404, /version 9 of model hp2/);
      await expectError(req('GET', '/v2/models/hp2/versions/beta/ready'), 404, /beta/);
    });
  });

  describe('infer: the same predictions as :predict', () => {
    it('the spec example adapted to half_plus_two: id echoed, model version given, flat FP32 output', async () => {
      const r = await infer('/v2/models/hp2/infer', {
        id: '42',
        inputs: [{ name: 'x', shape: [3, 1], datatype: 'FP32', data: [1, 2, 5] }],
        outputs: [{ name: 'y' }],
      });
      assert.equal(r.status, 200, r.body.toString());
      assert.match(r.headers['content-type'] ?? '', /application\/json/);
      assert.deepEqual(r.json, {
        model_name: 'hp2',
        model_version: '123',
        id: '42',
        outputs: [{ name: 'y', datatype: 'FP32', shape: [3, 1], data: [2.5, 3, 4.5] }],
      });
      const expected = await predict('/v1/models/hp2:predict', { inputs: [[1], [2], [5]] });
      assert.deepEqual(r.json.outputs[0].data, flatten(expected));
      // Without an id the answer has none; nested data means the same as flat.
      const nested = await infer('/v2/models/hp2/infer', {
        inputs: [{ name: 'x', shape: [3, 1], datatype: 'FP32', data: [[1], [2], [5]] }],
      });
      assert.deepEqual(nested.json, { model_name: 'hp2', model_version: '123', outputs: r.json.outputs });
    });

    it('by version and by label, as :predict by version and label', async () => {
      for (const [v2, v1] of [
        ['/v2/models/two/versions/123/infer', '/v1/models/two/versions/123:predict'],
        ['/v2/models/two/versions/canary/infer', '/v1/models/two/labels/canary:predict'],
      ]) {
        const r = await infer(v2, { inputs: [{ name: 'x', shape: [2, 1], datatype: 'FP32', data: [0.1, -7.25] }] });
        assert.equal(r.status, 200, r.body.toString());
        assert.equal(r.json.model_version, v2.includes('canary') ? '124' : '123');
        const expected = flatten(await predict(v1, { inputs: [[0.1], [-7.25]] }));
        assert.deepEqual(r.json.outputs[0].data.map(Math.fround), expected.map(Math.fround));
      }
    });

    it('FP32 [2,3,3] (matrix_half_plus_two): nested input, flat output with the shape :predict has', async () => {
      const x = [
        [
          [1, 2, 3],
          [4, 5, 6],
          [7, 8, 9],
        ],
        [
          [0.5, -1, 1e-3],
          [100, 2.75, 3],
          [0, 0, 1],
        ],
      ];
      const r = await infer('/v2/models/matrix/infer', { inputs: [{ name: 'x', shape: [2, 3, 3], datatype: 'FP32', data: x }] });
      assert.equal(r.status, 200, r.body.toString());
      const expected = await predict('/v1/models/matrix:predict', { inputs: x });
      assert.deepEqual(r.json.outputs[0].shape, shapeOf(expected));
      assert.deepEqual(r.json.outputs[0].data.map(Math.fround), flatten(expected).map(Math.fround));
    });

    it('INT64 [2] and UINT8 → INT32: integers kept exact', async () => {
      const i64 = await infer('/v2/models/i64/infer', { inputs: [{ name: 'x', shape: [2], datatype: 'INT64', data: [3, 4] }] });
      assert.deepEqual(i64.json.outputs, [{ name: 'output_0', datatype: 'INT64', shape: [2], data: [18, 24] }]);
      assert.deepEqual(i64.json.outputs[0].data, await predict('/v1/models/i64:predict', { inputs: [3, 4] }));
      const u8 = await infer('/v2/models/u8/infer', { inputs: [{ name: 'x', shape: [1], datatype: 'UINT8', data: [3] }] });
      assert.deepEqual(u8.json.outputs, [{ name: 'output_0', datatype: 'INT32', shape: [1], data: [18] }]);
      assert.deepEqual(u8.json.outputs[0].data, flatten(await predict('/v1/models/u8:predict', { inputs: [3] })));
    });

    it('two inputs, two outputs: every output by name, or the ones asked for in their order', async () => {
      const inputs = [
        { name: 'x', shape: [3], datatype: 'INT32', data: [1, 2, 3] },
        { name: 'y', shape: [3], datatype: 'INT32', data: [1, 2, 3] },
      ];
      const all = await infer('/v2/models/multi/infer', { inputs });
      assert.deepEqual(all.json.outputs, [
        { name: 'output_0', datatype: 'INT32', shape: [3], data: [2, 4, 6] },
        { name: 'output_1', datatype: 'INT32', shape: [3], data: [1, 2, 3] },
      ]);
      const expected = await predict('/v1/models/multi:predict', { inputs: { x: [1, 2, 3], y: [1, 2, 3] } });
      assert.deepEqual(Object.fromEntries(all.json.outputs.map((o: Json) => [o.name, o.data])), expected);
      const one = await infer('/v2/models/multi/infer', { inputs, outputs: [{ name: 'output_1' }] });
      assert.deepEqual(
        one.json.outputs.map((o: Json) => o.name),
        ['output_1'],
      );
      const reversed = await infer('/v2/models/multi/infer', { inputs, outputs: [{ name: 'output_1' }, { name: 'output_0' }] });
      assert.deepEqual(
        reversed.json.outputs.map((o: Json) => o.name),
        ['output_1', 'output_0'],
      );
    });

    it('BYTES (serialized tf.Example protos) through a string-input signature, by the signature_name parameter', async () => {
      const examples = parseExampleRequest({ examples: [{ x: [1.5] }, { x: [5.5] }, { x: [-2.25] }] }).serialized;
      const expected = await predict('/v1/models/hp2:predict', {
        signature_name: 'regress_x_to_y',
        inputs: examples.map((e) => ({ b64: Buffer.from(e).toString('base64') })),
      });
      const { body, headers } = binaryBody(
        {
          parameters: { signature_name: 'regress_x_to_y' },
          inputs: [{ name: 'inputs', shape: [3], datatype: 'BYTES', parameters: { binary_data_size: bytesElements(examples).length } }],
        },
        [bytesElements(examples)],
      );
      const r = await req('POST', '/v2/models/hp2/infer', { headers, body });
      assert.equal(r.status, 200, r.body.toString());
      assert.deepEqual(r.json.outputs, [{ name: 'outputs', datatype: 'FP32', shape: shapeOf(expected), data: flatten(expected) }]);
      assert.deepEqual(flatten(expected), [2.75, 4.75, 0.875]);
    });
  });

  describe('infer: binary tensor data extension', () => {
    it('the extension example adapted: binary FP32 input, binary output (binary_data)', async () => {
      const x = Buffer.from(new Float32Array([1, 2, 5, 0.1]).buffer);
      const { body, headers } = binaryBody(
        {
          inputs: [{ name: 'x', shape: [4, 1], datatype: 'FP32', parameters: { binary_data_size: 16 } }],
          outputs: [{ name: 'y', parameters: { binary_data: true } }],
        },
        [x],
      );
      const r = await req('POST', '/v2/models/hp2/infer', { headers, body });
      assert.equal(r.status, 200, r.body.toString());
      assert.equal(r.headers['content-type'], 'application/octet-stream');
      const { json, outputs } = splitBinaryResponse(r);
      assert.deepEqual(json.outputs, [{ name: 'y', datatype: 'FP32', shape: [4, 1], parameters: { binary_data_size: 16 } }]);
      const expected = flatten(await predict('/v1/models/hp2:predict', { inputs: [[1], [2], [5], [0.1]] }));
      assert.deepEqual(float32s(outputs.y), expected.map(Math.fround));
    });

    it('JSON and binary inputs mixed; binary_data_output for all outputs, overridden per output', async () => {
      const { body, headers } = binaryBody(
        {
          parameters: { binary_data_output: true },
          inputs: [
            { name: 'x', shape: [2], datatype: 'INT32', data: [5, 6] },
            { name: 'y', shape: [2], datatype: 'INT32', parameters: { binary_data_size: 8 } },
          ],
          outputs: [{ name: 'output_0' }, { name: 'output_1', parameters: { binary_data: false } }],
        },
        [Buffer.from(new Int32Array([7, 8]).buffer)],
      );
      const r = await req('POST', '/v2/models/multi/infer', { headers, body });
      assert.equal(r.status, 200, r.body.toString());
      const { json, outputs } = splitBinaryResponse(r);
      assert.deepEqual(json.outputs[1], { name: 'output_1', datatype: 'INT32', shape: [2], data: [7, 8] });
      assert.deepEqual(
        [...new Int32Array(outputs.output_0.buffer.slice(outputs.output_0.byteOffset, outputs.output_0.byteOffset + 8))],
        [10, 12],
      );
    });

    it('binary size errors: past the end, bytes left over, a size that does not fit the shape, a header past the body', async () => {
      const header = { inputs: [{ name: 'x', shape: [2, 1], datatype: 'FP32', parameters: { binary_data_size: 8 } }] };
      const short = binaryBody(header, [Buffer.alloc(4)]);
      await expectError(req('POST', '/v2/models/hp2/infer', short), 400, /binary_data_size 8 runs past the end/);
      const long = binaryBody(header, [Buffer.alloc(12)]);
      await expectError(req('POST', '/v2/models/hp2/infer', long), 400, /4 bytes of binary data after the JSON/);
      const misfit = binaryBody({ inputs: [{ name: 'x', shape: [3, 1], datatype: 'FP32', parameters: { binary_data_size: 8 } }] }, [
        Buffer.alloc(8),
      ]);
      await expectError(req('POST', '/v2/models/hp2/infer', misfit), 400, /needs 12/);
      await expectError(
        req('POST', '/v2/models/hp2/infer', { headers: { 'inference-header-content-length': '9999' }, body: '{"inputs": []}' }),
        400,
        /Inference-Header-Content-Length/,
      );
    });
  });

  describe('infer errors: {"error": …} with 400 / 404 / 413', () => {
    const x = (over: object = {}) => ({ inputs: [{ name: 'x', shape: [1, 1], datatype: 'FP32', data: [1], ...over }] });

    it('unknown model, version or label: 404', async () => {
      await expectError(infer('/v2/models/nope/infer', x()), 404, /nope/);
      await expectError(infer('/v2/models/hp2/versions/9/infer', x()), 404, /hp2/);
      await expectError(infer('/v2/models/two/versions/beta/infer', x()), 404, /version label: beta/);
    });

    it('malformed requests: 400 naming what is wrong', async () => {
      const cases: Array<[unknown, RegExp]> = [
        ['not json', /JSON Parse error/],
        ['[1]', /must be a JSON object/],
        [{}, /'inputs' must be an array/],
        [{ id: 42, ...x() }, /'id' must be a string/],
        [x({ datatype: 'FLOAT32' }), /unknown datatype 'FLOAT32'/],
        [x({ datatype: 'INT32' }), /Input 'x' has datatype INT32; model 'hp2' expects FP32/],
        [x({ shape: [2, 1] }), /'data' has 1 elements but shape \[2, 1\] needs 2/],
        [x({ shape: [1, -1] }), /non-negative integers/],
        [x({ data: ['a'] }), /element 0 is "a", expected a number/],
        [x({ data: 1 }), /'data' must be an array/],
        [x({ data: undefined }), /neither 'data' nor a binary_data_size/],
        [x({ name: 'z' }), /Unexpected inference input 'z' for model 'hp2'; its inputs are: x/],
        [{ inputs: [x().inputs[0], x().inputs[0]] }, /Input 'x' is given twice/],
        [{ ...x(), outputs: [{ name: 'nope' }] }, /nope/],
        [{ ...x(), parameters: { signature_name: 'nope' } }, /no signature 'nope'/],
        [{ ...x(), parameters: { binary_data_output: 'yes' } }, /binary_data_output' must be true or false/],
        [
          x({ shape: [1 << 10, 1 << 10], data: undefined, parameters: { binary_data_size: 4 } }),
          /more than the 65536 allowed \(--json_max_elements\)/,
        ],
      ];
      for (const [body, message] of cases) await expectError(infer('/v2/models/hp2/infer', body), 400, message);
      await expectError(
        infer('/v2/models/u8/infer', { inputs: [{ name: 'x', shape: [1], datatype: 'UINT8', data: [300] }] }),
        400,
        /expected an integer in \[0, 255\]/,
      );
      await expectError(
        infer('/v2/models/i64/infer', { inputs: [{ name: 'x', shape: [2], datatype: 'INT64', data: [1.5, 2] }] }),
        400,
        /expected an integer/,
      );
      // A missing input is refused with TF Serving's message, which names both.
      await expectError(infer('/v2/models/multi/infer', { inputs: [{ name: 'x', shape: [], datatype: 'INT32', data: [1] }] }), 400, /y/);
    });

    it('a body over --max_request_body_bytes: 413', async () => {
      await expectError(
        req('POST', '/v2/models/hp2/infer', { headers: { 'content-type': 'application/octet-stream' }, body: Buffer.alloc(MAX_BODY + 1) }),
        413,
        /--max_request_body_bytes/,
      );
    });
  });
});

describe('Open Inference Protocol readiness, batching, access log and memory budget (real process)', () => {
  let server: RunningServer;
  const req = (method: string, p: string, options?: Parameters<typeof rawRequest>[3]) => rawRequest(server.port, method, p, options);

  before(async () => {
    const dir = tempDir();
    // A version whose saved_model.pb is not one: its load fails, so the model never becomes ready.
    fs.mkdirSync(path.join(dir, 'broken', '1'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'broken', '1', 'saved_model.pb'), 'not a SavedModel');
    const config = path.join(dir, 'models.config');
    fs.writeFileSync(
      config,
      `model_config_list {
  config { name: "hp2" base_path: "${path.join(MODELS, 'saved_model_half_plus_two_cpu')}" model_platform: "tensorflow" }
  config { name: "broken" base_path: "${path.join(dir, 'broken')}" model_platform: "tensorflow" }
}
`,
    );
    server = await startServer([
      `--model_config_file=${config}`,
      '--access_log',
      '--enable_batching',
      `--monitoring_config_file=${path.join(FIXTURES, 'configs', 'monitoring_config.txt')}`,
      '--max_inflight_request_bytes=65536',
      '--max_num_load_retries=0',
      '--num_executors=1',
      '--file_system_poll_wait_seconds=0',
    ]);
    await waitAvailable(server, ['hp2']);
    // Wait until the broken version's load has failed (its status carries the error).
    const deadline = Date.now() + 20_000;
    for (;;) {
      const r = await req('GET', '/v1/models/broken');
      if (r.status === 200 && r.json.model_version_status.some((s: Json) => s.status.error_code !== 'OK')) break;
      if (Date.now() > deadline) throw new Error(`broken's load did not fail in time:\n${server.logs()}`);
      await new Promise((res) => setTimeout(res, 50));
    }
  });

  after(async () => {
    assert.equal(await server?.stop(), 0);
  });

  it('a model that failed to load: model ready 400 {ready: false}, server ready 400; the others stay ready', async () => {
    assert.deepEqual(await req('GET', '/v2/models/broken/ready').then((r) => [r.status, r.json]), [400, { name: 'broken', ready: false }]);
    assert.deepEqual(await req('GET', '/v2/models/broken/versions/1/ready').then((r) => [r.status, r.json]), [
      400,
      { name: 'broken', ready: false },
    ]);
    assert.deepEqual(await req('GET', '/v2/health/ready').then((r) => [r.status, r.json]), [400, { ready: false }]);
    assert.deepEqual(await req('GET', '/v2/health/live').then((r) => [r.status, r.json]), [200, { live: true }]);
    assert.deepEqual(await req('GET', '/v2/models/hp2/ready').then((r) => [r.status, r.json]), [200, { name: 'hp2', ready: true }]);
    const metadata = await req('GET', '/v2/models/broken');
    assert.equal(metadata.status, 404);
  });

  it('infer runs through the batch queue, counted in the metrics as :predict is', async () => {
    const metric = async (re: RegExp) =>
      Number(re.exec(await (await fetch(server.url('/monitoring/prometheus/metrics'))).text())?.[1] ?? 0);
    const batches = /^tfgate_batch_size_count\{model_name="hp2"\} (\d+)$/m;
    const requests = /^:tensorflow:serving:request_count\{model_name="hp2",status="OK"\} (\d+)$/m;
    const [batchesBefore, requestsBefore] = [await metric(batches), await metric(requests)];
    const r = await req('POST', '/v2/models/hp2/infer', {
      headers: JSON_TYPE,
      body: JSON.stringify({ inputs: [{ name: 'x', shape: [3, 1], datatype: 'FP32', data: [1, 2, 5] }] }),
    });
    assert.deepEqual(r.json.outputs[0].data, [2.5, 3, 4.5]);
    assert.equal(await metric(batches), batchesBefore + 1);
    assert.equal(await metric(requests), requestsBefore + 1);
  });

  it('the access log has each v2 request, with the error it was refused with', async () => {
    const r = await req('GET', '/v2/models/nope/ready');
    assert.equal(r.status, 404);
    const deadline = Date.now() + 10_000;
    for (;;) {
      const line = server
        .logs()
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l))
        .find((e) => e.path === '/v2/models/nope/ready');
      if (line) {
        assert.deepEqual([line.method, line.status, line.error], ['GET', 404, r.json.error]);
        break;
      }
      // Log lines are written after the answer: wait for this one.
      if (Date.now() > deadline) throw new Error(`no access log line:\n${server.logs()}`);
      await new Promise((res) => setTimeout(res, 20));
    }
  });

  it('a request past --max_inflight_request_bytes: 503 with Retry-After, and the next small one is served', async () => {
    const data = Array.from({ length: 20_000 }, (_, i) => i);
    const r = await req('POST', '/v2/models/hp2/infer', {
      headers: JSON_TYPE,
      body: JSON.stringify({ inputs: [{ name: 'x', shape: [20_000, 1], datatype: 'FP32', data }] }),
    });
    assert.equal(r.status, 503, r.body.toString());
    assert.equal(r.headers['retry-after'], '1');
    assert.match(r.json.error, /--max_inflight_request_bytes/);
    const ok = await req('POST', '/v2/models/hp2/infer', {
      headers: JSON_TYPE,
      body: JSON.stringify({ inputs: [{ name: 'x', shape: [1, 1], datatype: 'FP32', data: [2] }] }),
    });
    assert.deepEqual(ok.json.outputs[0].data, [3]);
  });
});
