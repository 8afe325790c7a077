// REST answers that must be TF Serving's, against the real process with a plain HTTP client
// (node:http, paths sent exactly as written): gzip request bodies (net_http), the CORS
// preflight and headers (http_server.cc), routing over path and query with the verb compared
// as written (http_rest_api_util.cc, http_rest_api_handler.cc), status by label
// (get_model_status_impl.cc). Each expected text is TF Serving's, written out.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { MODELS } from '../helpers/paths.js';
import { startServer, waitAvailable, type RunningServer } from '../helpers/server_process.js';
import { rawRequest } from '../helpers/raw_http.js';
import { tempDir } from '../helpers/temp.js';

const HP2 = path.join(MODELS, 'saved_model_half_plus_two_cpu');
const TWO_VERSIONS = path.join(MODELS, 'saved_model_half_plus_two_2_versions');
const MAX_BODY = 1 << 20;
const JSON_TYPE = { 'content-type': 'application/json' };
const CORS_HEADERS = ['access-control-allow-origin', 'access-control-allow-methods', 'access-control-allow-headers'];

/** Waits until the server's log has a line `matches` accepts (log lines arrive after the answer). */
async function logLine(server: RunningServer, matches: (entry: Record<string, unknown>) => boolean): Promise<Record<string, unknown>> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    for (const line of server.logs().split('\n')) {
      if (!line.startsWith('{')) continue;
      const entry = JSON.parse(line) as Record<string, unknown>;
      if (matches(entry)) return entry;
    }
    if (Date.now() > deadline) throw new Error(`no such log line:\n${server.logs()}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('REST as TF Serving answers it (real process, plain HTTP)', () => {
  let server: RunningServer;
  const req = (method: string, p: string, options?: Parameters<typeof rawRequest>[3]) => rawRequest(server.port, method, p, options);

  before(async () => {
    const dir = tempDir();
    const config = path.join(dir, 'models.config');
    fs.writeFileSync(
      config,
      `model_config_list {
  config { name: "hp2" base_path: "${HP2}" model_platform: "tensorflow" }
  config { name: "two" base_path: "${TWO_VERSIONS}" model_platform: "tensorflow" model_version_policy { all {} } }
}
`,
    );
    server = await startServer([
      `--model_config_file=${config}`,
      `--max_request_body_bytes=${MAX_BODY}`,
      '--access_log',
      '--num_executors=1',
      '--file_system_poll_wait_seconds=0',
    ]);
    await waitAvailable(server, ['hp2', 'two']);
    await waitAvailable(server, ['two'], 20_000, 2);
  });

  after(async () => {
    assert.equal(await server?.stop(), 0);
  });

  describe('gzip request bodies (net_http inflates them for every handler)', () => {
    const body = '{"instances": [1.0, 2.0, 5.0]}';

    it('a gzip body is inflated and served, whatever Content-Encoding names gzip', async () => {
      for (const encoding of ['gzip', 'x-gzip']) {
        const r = await req('POST', '/v1/models/hp2:predict', {
          headers: { ...JSON_TYPE, 'content-encoding': encoding },
          body: gzipSync(body),
        });
        assert.equal(r.status, 200, `${encoding}: ${r.body}`);
        assert.deepEqual(r.json, { predictions: [2.5, 3, 4.5] });
      }
      const cls = await req('POST', '/v1/models/hp2:classify', {
        headers: { 'content-encoding': 'gzip' },
        body: gzipSync('{"signature_name": "classify_x_to_y", "examples": [{"x": 2.0}]}'),
      });
      assert.deepEqual(cls.json, { results: [[['', 3]]] });
    });

    it('a body that is not gzip reads as empty, as net_http hands the handler nothing', async () => {
      const r = await req('POST', '/v1/models/hp2:predict', { headers: { 'content-encoding': 'gzip' }, body });
      assert.equal(r.status, 400);
      assert.deepEqual(r.json, { error: 'JSON Parse error: The document is empty' });
    });

    it('a gzip bomb stops at --max_request_body_bytes: 413, and the server serves on', async () => {
      const bomb = gzipSync(Buffer.alloc(64 * MAX_BODY, 0x20));
      assert.ok(bomb.length < MAX_BODY / 8, 'the compressed body itself is small');
      const r = await req('POST', '/v1/models/hp2:predict', { headers: { 'content-encoding': 'gzip' }, body: bomb });
      assert.equal(r.status, 413);
      assert.deepEqual(r.json, { error: `Request body is larger than the limit of ${MAX_BODY} bytes (--max_request_body_bytes)` });
      const after = await req('POST', '/v1/models/hp2:predict', { headers: { 'content-encoding': 'gzip' }, body: gzipSync(body) });
      assert.deepEqual(after.json, { predictions: [2.5, 3, 4.5] });
    });
  });

  describe('CORS preflight (http_server.cc, before the handler routes)', () => {
    it('OPTIONS with an http(s) Origin: 200, empty body, no CORS headers while the flag is off', async () => {
      for (const origin of ['http://client.example', 'https://client.example:8080']) {
        for (const p of ['/v1/models/hp2:predict', '/v1/models/nope', '/v1/anything?x=1']) {
          const r = await req('OPTIONS', p, { headers: { origin } });
          assert.equal(r.status, 200, `${origin} ${p}`);
          assert.equal(r.body.length, 0);
          for (const h of CORS_HEADERS) assert.equal(r.headers[h], undefined, h);
        }
      }
    });

    it('OPTIONS without such an Origin: FAILED_PRECONDITION (400), empty body as TF Serving writes it, the text in the access log', async () => {
      for (const headers of [{}, { origin: 'null' }, { origin: 'client.example' }] as Record<string, string>[]) {
        const r = await req('OPTIONS', '/v1/models/hp2', { headers });
        assert.equal(r.status, 400, JSON.stringify(headers));
        assert.equal(r.body.length, 0);
      }
      const entry = await logLine(server, (e) => e.method === 'OPTIONS' && e.status === 400);
      assert.equal(entry.error, 'Origin header is missing in CORS preflight');
    });

    it("OPTIONS outside the REST API is not TF Serving's to answer: 404", async () => {
      assert.equal((await req('OPTIONS', '/elsewhere', { headers: { origin: 'http://client.example' } })).status, 404);
    });
  });

  describe('routes over the path and query, verb and "metadata" compared as written', () => {
    it('a query string is part of what the regular expressions see', async () => {
      const status = await req('GET', '/v1/models/hp2?x=1');
      assert.equal(status.status, 404);
      assert.deepEqual(status.json, { error: 'Could not find any versions of model hp2?x=1' });
      const metadata = await req('GET', '/v1/models/hp2/metadata?x=1');
      assert.equal(metadata.status, 400);
      assert.deepEqual(metadata.json, { error: 'Malformed request: GET /v1/models/hp2/metadata?x=1' });
      const predict = await req('POST', '/v1/models/hp2:predict?x=1', { body: '{"instances": [1.0]}' });
      assert.equal(predict.status, 400);
      assert.deepEqual(predict.json, { error: 'Malformed request: POST /v1/models/hp2:predict?x=1' });
    });

    it('the expressions ignore case, the verb and "metadata" do not', async () => {
      const upper = await req('POST', '/v1/models/hp2:PREDICT', { body: '{"instances": [1.0]}' });
      assert.equal(upper.status, 400);
      assert.deepEqual(upper.json, { error: 'Malformed request: POST /v1/models/hp2:PREDICT' });
      const prefix = await req('POST', '/V1/MODELS/hp2:predict', { body: '{"instances": [1.0]}' });
      assert.deepEqual(prefix.json, { predictions: [2.5] });
      const metadata = await req('GET', '/v1/models/hp2/METADATA');
      assert.equal(metadata.status, 200);
      assert.deepEqual(
        metadata.json,
        { model_version_status: [{ version: '123', state: 'AVAILABLE', status: { error_code: 'OK', error_message: '' } }] },
        'the status, not the metadata',
      );
    });

    it('names are unescaped as curl does: a malformed escape stays as written', async () => {
      const r = await req('GET', '/v1/models/%zz');
      assert.equal(r.status, 404);
      assert.deepEqual(r.json, { error: 'Could not find any versions of model %zz' });
      const escaped = await req('POST', '/v1/models/h%70%32:predict', { body: '{"instances": [1.0]}' });
      assert.deepEqual(escaped.json, { predictions: [2.5] });
    });
  });

  it('nesting in a member the API does not read is no failure (RapidJSON parses iteratively); in a tensor it is', async () => {
    const rss = () => Number(/VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${server.proc.pid}/status`, 'utf8'))![1]) * 1024;
    const before = rss();
    const levels = 500_000;
    const deep = `{"meta": ${'['.repeat(levels)}${']'.repeat(levels)}, "instances": [1.0, 2.0]}`;
    for (let i = 0; i < 3; i++) {
      const r = await req('POST', '/v1/models/hp2:predict', { body: deep, headers: JSON_TYPE });
      assert.equal(r.status, 200, r.body.toString());
      assert.deepEqual(r.json, { predictions: [2.5, 3.0] });
    }
    // Nothing of the 500 000 levels is built: the process stays within a few MB of where it was
    // (built as arrays, each level would cost ~100 bytes: ~50 MB a request).
    assert.ok(rss() - before < 24 * 2 ** 20, `RSS grew by ${((rss() - before) / 2 ** 20).toFixed(1)} MB`);
    const malformed = await req('POST', '/v1/models/hp2:predict', {
      body: `{"meta": ${'['.repeat(levels)}1,${']'.repeat(levels)}, "instances": [1.0]}`,
      headers: JSON_TYPE,
    });
    assert.equal(malformed.status, 400);
    assert.match(malformed.json.error, /^JSON Parse error: Invalid value\. at offset: 500011$/);
    const deepTensor = await req('POST', '/v1/models/hp2:predict', {
      body: `{"instances": ${'['.repeat(100)}1.0${']'.repeat(100)}}`,
      headers: JSON_TYPE,
    });
    assert.equal(deepTensor.status, 400);
    assert.match(deepTensor.json.error, /deeper than the limit of 64 \(--json_max_depth\)/);
  });

  it('status by label lists every version, whatever the label; an unknown model by label is 404', async () => {
    const all = await req('GET', '/v1/models/two');
    assert.equal(all.json.model_version_status.length, 2);
    for (const label of ['stable', 'no_such_label']) {
      const r = await req('GET', `/v1/models/two/labels/${label}`);
      assert.equal(r.status, 200, label);
      assert.deepEqual(r.json, all.json, label);
    }
    const unknown = await req('GET', '/v1/models/nope/labels/stable');
    assert.equal(unknown.status, 404);
    assert.deepEqual(unknown.json, { error: 'Could not find any versions of model nope' });
  });
});

describe('REST with --rest_api_enable_cors_support (real process)', () => {
  let server: RunningServer;

  before(async () => {
    server = await startServer([`--model_base_path=${HP2}`, '--model_name=hp2', '--rest_api_enable_cors_support', '--num_executors=1']);
    await waitAvailable(server, ['hp2']);
  });

  after(async () => {
    assert.equal(await server?.stop(), 0);
  });

  it("every REST answer carries TF Serving's three CORS headers: preflight, success and error alike", async () => {
    const answers = [
      await rawRequest(server.port, 'OPTIONS', '/v1/models/hp2:predict', { headers: { origin: 'http://client.example' } }),
      await rawRequest(server.port, 'OPTIONS', '/v1/models/hp2:predict'),
      await rawRequest(server.port, 'POST', '/v1/models/hp2:predict', { body: '{"instances": [1.0]}' }),
      await rawRequest(server.port, 'GET', '/v1/models/nope'),
    ];
    assert.deepEqual(
      answers.map((a) => a.status),
      [200, 400, 200, 404],
    );
    for (const a of answers) {
      assert.equal(a.headers['access-control-allow-origin'], '*');
      assert.equal(a.headers['access-control-allow-methods'], 'POST, GET');
      assert.equal(a.headers['access-control-allow-headers'], 'Content-Type');
    }
  });
});
