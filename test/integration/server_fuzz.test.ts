// Bad input at scale against the real server, for a bounded time: mutated valid requests,
// random bytes, deep nesting, huge shapes, invalid UTF-8, wrong content types, and gzip
// bodies (mutated JSON gzipped, corrupt or truncated gzip, bombs that inflate past
// --max_request_body_bytes). A client error must never be answered 5xx, the process must
// survive with its memory near where it started, and good requests keep working. The counts
// are printed (node:test diagnostics).
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { MODELS } from '../helpers/paths.js';
import { startServer, type RunningServer } from '../helpers/server_process.js';
import { seededRandom } from '../../test_util/savedmodel/model_zoo.js';

const SECONDS = 8;
/** What the fuzz sends at the least, however long it takes. */
const MIN_REQUESTS = 102;

const VALID = [
  '{"instances": [1.0, 2.0, 5.0]}',
  '{"inputs": {"x": [[1.0], [2.0]]}}',
  '{"signature_name": "serving_default", "instances": [[1.0]]}',
  '{"signature_name": "regress_x_to_y", "examples": [{"x": 2.0}]}',
  '{"signature_name": "classify_x_to_y", "context": {"x": 1.0}, "examples": [{}]}',
];
const PATHS = [
  '/v1/models/default:predict',
  '/v1/models/default:regress',
  '/v1/models/default:classify',
  '/v1/models/default/versions/123:predict',
  '/v1/models/default/labels/x:predict',
];
const TOKENS = [
  '[',
  ']',
  '{',
  '}',
  ',',
  ':',
  '"',
  'NaN',
  '-Infinity',
  '1e999',
  '-0',
  '18446744073709551616',
  'null',
  'true',
  '"b64"',
  '{"b64": "@@"}',
  '\\u0000',
  '\uFFFF',
  '"\\ud800"',
];

function mutate(rand: () => number, s: string): string {
  const ops = 1 + Math.floor(rand() * 4);
  for (let i = 0; i < ops; i++) {
    const at = Math.floor(rand() * (s.length + 1));
    const r = rand();
    if (r < 0.3) s = s.slice(0, at) + s.slice(at + 1 + Math.floor(rand() * 3));
    else if (r < 0.7) s = s.slice(0, at) + TOKENS[Math.floor(rand() * TOKENS.length)] + s.slice(at);
    else s = s.slice(0, at) + s.slice(at, at + 8).repeat(1 + Math.floor(rand() * 3)) + s.slice(at);
  }
  return s;
}

type Body = { body: Uint8Array | string; contentType?: string; contentEncoding?: string; what: string };

/** The server's --max_request_body_bytes: a bomb must inflate past it. */
const MAX_BODY_BYTES = 4 * 2 ** 20;
/** Zeros that inflate to 4× the limit from a body of a few KB; made once. */
const BOMB = gzipSync(Buffer.alloc(4 * MAX_BODY_BYTES));

function generateGzip(rand: () => number): Body {
  const k = rand();
  const gz = gzipSync(mutate(rand, VALID[Math.floor(rand() * VALID.length)]));
  if (k < 0.4) return { body: gz, contentType: 'application/json', contentEncoding: 'gzip', what: 'gzip mutated' };
  if (k < 0.6) {
    const corrupt = Uint8Array.from(gz);
    for (let i = 0; i < 1 + Math.floor(rand() * 4); i++) corrupt[Math.floor(rand() * corrupt.length)] ^= 1 + Math.floor(rand() * 255);
    return { body: corrupt, contentEncoding: 'gzip', what: 'gzip corrupt' };
  }
  if (k < 0.8) return { body: gz.subarray(0, Math.floor(rand() * gz.length)), contentEncoding: 'gzip', what: 'gzip truncated' };
  return { body: BOMB, contentEncoding: rand() < 0.5 ? 'gzip' : 'x-gzip', what: 'gzip bomb' };
}

function generate(rand: () => number): Body {
  if (rand() < 0.2) return generateGzip(rand);
  const k = rand();
  if (k < 0.45) return { body: mutate(rand, VALID[Math.floor(rand() * VALID.length)]), contentType: 'application/json', what: 'mutated' };
  if (k < 0.6)
    return {
      body: Uint8Array.from({ length: Math.floor(rand() * 300) }, () => Math.floor(rand() * 256)),
      contentType: 'application/json',
      what: 'random bytes',
    };
  if (k < 0.65) {
    const depth = 50 + Math.floor(rand() * 5000);
    return { body: `{"instances": ${'['.repeat(depth)}1${']'.repeat(depth)}}`, what: 'deep nesting' };
  }
  if (k < 0.7) {
    // Up to 800 000 levels in a key the API ignores, sometimes cut short or broken inside.
    const depth = 1000 + Math.floor(rand() * 400_000);
    const open = rand() < 0.5 ? '['.repeat(depth) : '{"k": ['.repeat(depth);
    const close = open.startsWith('[') ? ']'.repeat(depth) : ']}'.repeat(depth);
    const inner = rand() < 0.7 ? '1' : '1,';
    const cut = rand() < 0.2 ? Math.floor(rand() * close.length) : close.length;
    return {
      body: `{"ignored": ${open}${inner}${close.slice(0, cut)}, "instances": [1.0]}`,
      contentType: 'application/json',
      what: 'deep nesting in an ignored key',
    };
  }
  if (k < 0.8) {
    const n = 1 + Math.floor(rand() * 3);
    const rows = Array.from({ length: n }, () => `[${new Array(1 + Math.floor(rand() * 20000)).fill('1.0').join(',')}]`);
    return { body: `{"instances": [${rows.join(',')}]}`, what: 'huge or ragged shapes' };
  }
  if (k < 0.9) {
    const bad = Uint8Array.from([...Buffer.from('{"instances": ["'), 0xc3, 0x28, 0xff, 0xfe, 0xed, 0xa0, 0x80, ...Buffer.from('"]}')]);
    return { body: bad, contentType: 'application/json', what: 'invalid UTF-8' };
  }
  const types = ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/octet-stream'];
  return {
    body: VALID[Math.floor(rand() * VALID.length)],
    contentType: types[Math.floor(rand() * types.length)],
    what: 'wrong content type',
  };
}

/** Growth allowed over the fuzz's second half (allocator noise), and above baseline at any time. */
const RSS_GROWTH_BYTES = 24 * 2 ** 20;
const RSS_BOUND_BYTES = 192 * 2 ** 20;

function rssBytes(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) * 1024 : NaN;
}

describe('fuzzing the REST API (real process)', () => {
  let server: RunningServer;
  before(async () => {
    server = await startServer([
      `--model_base_path=${path.join(MODELS, 'saved_model_half_plus_two_cpu')}`,
      '--model_name=default',
      '--num_executors=1',
      '--json_max_depth=64',
      `--max_request_body_bytes=${MAX_BODY_BYTES}`,
    ]);
    for (
      let i = 0;
      i < 100 && (await (await fetch(server.url('/v1/models/default'))).json()).model_version_status?.[0]?.state !== 'AVAILABLE';
      i++
    ) {
      await new Promise((r) => setTimeout(r, 100));
    }
  });
  after(async () => {
    assert.equal(await server.stop(), 0, 'the server survived and drained');
  });

  it(`${SECONDS} s of bad requests: no 5xx, no crash, good requests still answered`, async (t) => {
    const seed = 20261124;
    const rand = seededRandom(seed); // replayable from the seed
    const counts = new Map<string, number>();
    const statuses = new Map<number, number>();
    const serverErrors: string[] = [];
    const bombStatuses = new Map<number, number>();
    let sent = 0;
    for (let i = 0; i < 20; i++)
      await fetch(server.url('/v1/models/default:predict'), { method: 'POST', body: '{"instances": [1.0]}' }).then((r) => r.text());
    const pid = server.proc.pid!;
    const baseline = rssBytes(pid);
    let peak = baseline;
    const sampler = setInterval(() => (peak = Math.max(peak, rssBytes(pid))), 100);
    const worker = async (end: number, until: number) => {
      while (Date.now() < end || sent < until) {
        const b = generate(rand);
        const url = server.url(PATHS[Math.floor(rand() * PATHS.length)]);
        const headers: Record<string, string> = {
          ...(b.contentType && { 'content-type': b.contentType }),
          ...(b.contentEncoding && { 'content-encoding': b.contentEncoding }),
        };
        const res = await fetch(url, { method: 'POST', body: typeof b.body === 'string' ? b.body : Buffer.from(b.body), headers });
        const text = await res.text();
        sent++;
        counts.set(b.what, (counts.get(b.what) ?? 0) + 1);
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        if (b.what === 'gzip bomb') bombStatuses.set(res.status, (bombStatuses.get(res.status) ?? 0) + 1);
        if (res.status >= 500)
          serverErrors.push(`${b.what} → ${res.status} ${text.slice(0, 200)} body: ${Buffer.from(b.body).toString('utf8').slice(0, 200)}`);
      }
    };
    // Two equal halves: the first grows V8's heap to its working size (RSS does not shrink
    // back: V8 keeps the pages), the second must not grow it further — what bad requests
    // make is garbage once answered, so more of them cost no more memory.
    // A half lasts its time and at least MIN_REQUESTS / 2 requests: on a loaded machine 8 s held
    // only 66 (a count, not a speed, is what the fuzz needs; speed is the benches' business).
    const half = async () => {
      const end = Date.now() + (SECONDS * 1000) / 2;
      const until = sent + MIN_REQUESTS / 2;
      await Promise.all([worker(end, until), worker(end, until), worker(end, until), worker(end, until)]);
      await new Promise((r) => setTimeout(r, 300));
      return rssBytes(pid);
    };
    const afterFirst = await half();
    const afterSecond = await half();
    clearInterval(sampler);
    const mb = (b: number) => (b / 2 ** 20).toFixed(0);
    t.diagnostic(
      `seed ${seed}: ${sent} requests; by kind ${JSON.stringify(Object.fromEntries(counts))}; by status ${JSON.stringify(Object.fromEntries(statuses))}; RSS ${mb(baseline)} MB before, ${mb(afterFirst)} MB after the first half, ${mb(afterSecond)} MB after the second, peak ${mb(peak)} MB`,
    );
    assert.ok(afterSecond - afterFirst <= RSS_GROWTH_BYTES, `RSS grew ${mb(afterSecond - afterFirst)} MB over the second half`);
    assert.ok(peak - baseline <= RSS_BOUND_BYTES, `RSS peaked ${mb(peak - baseline)} MB above its baseline`);
    assert.deepEqual(serverErrors.slice(0, 5), [], `${serverErrors.length} answers were 5xx`);
    assert.ok(sent >= MIN_REQUESTS, `only ${sent} requests`);
    assert.deepEqual([...bombStatuses.keys()], [413], `gzip bombs answered ${JSON.stringify(Object.fromEntries(bombStatuses))}`);
    const good = await fetch(server.url('/v1/models/default:predict'), { method: 'POST', body: '{"instances": [1.0, 2.0, 5.0]}' });
    assert.deepEqual(await good.json(), { predictions: [2.5, 3, 4.5] });
  });
});
