// Large REST bodies in parallel, within every limit, against the real process (default
// flags): four 20 MB :predict bodies of 5M one-value rows at once (before the fix the
// process died here). Parsing and writing the response yield the event loop, so a status
// probe sent meanwhile is answered (its latency is printed, not asserted: measured 0.5–0.8 s
// here, mostly GC and the tensor fill, still synchronous; bench figures, not test bounds,
// judge speed); parsed-but-unserved bytes count against --max_inflight_request_bytes, so
// what does not fit is refused 503 and the process stays under its bound: RSS grows less
// than 1.5 GB (the default budget is a quarter of the ~4 GB heap limit, plus the tensors'
// copies on the executor thread and V8's slack).
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import path from 'node:path';
import { MODELS } from '../helpers/paths.js';
import { startServer, waitAvailable, type RunningServer } from '../helpers/server_process.js';
import { mb, rssBytes, rssSampler } from '../helpers/rss.js';

const HP2 = path.join(MODELS, 'saved_model_half_plus_two_cpu');
const PARALLEL = 4;
const ROWS = 5 * 2 ** 20;
const RSS_GROWTH_LIMIT = 1.5 * 2 ** 30;

function post(url: string, body: Buffer): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': body.length } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (d: Buffer) => chunks.push(d));
      res.on('end', () => resolve({ status: res.statusCode!, text: Buffer.concat(chunks).toString('utf8', 0, 300) }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('four parallel 20 MB REST bodies (real process)', () => {
  let server: RunningServer;

  before(async () => {
    server = await startServer([`--model_base_path=${HP2}`, '--model_name=default', '--num_executors=1'], { readyPath: '/v1/models/default' });
    await waitAvailable(server, ['default']);
  });

  after(async () => {
    assert.equal(await server.stop(), 0, 'the server survived');
  });

  it('other clients are answered meanwhile, memory stays bounded, what does not fit is refused 503', async (t) => {
    const body = Buffer.from(`{"instances": [${'[1],'.repeat(ROWS - 1)}[1]]}`);
    const pid = server.proc.pid!;
    for (let i = 0; i < 5; i++) await post(server.url('/v1/models/default:predict'), Buffer.from('{"instances": [[1.0]]}'));
    const baseline = rssBytes(pid);
    const sampler = rssSampler(pid);
    let done = false;
    const probeMs: number[] = [];
    const probeStatuses: number[] = [];
    const probes = (async () => {
      while (!done) {
        const t0 = performance.now();
        const r = await fetch(server.url('/v1/models/default'));
        await r.text();
        probeStatuses.push(r.status);
        probeMs.push(performance.now() - t0);
        await new Promise((r) => setTimeout(r, 50));
      }
    })();
    const answers = await Promise.all(Array.from({ length: PARALLEL }, () => post(server.url('/v1/models/default:predict'), body)));
    done = true;
    await probes;
    const peak = sampler.stop();
    const statuses = answers.map((a) => a.status);
    const worstProbe = Math.max(...probeMs);
    t.diagnostic(`statuses ${JSON.stringify(statuses)}; ${probeMs.length} probes, slowest ${worstProbe.toFixed(0)} ms; RSS ${mb(baseline)} MB → peak ${mb(peak)} MB`);
    for (const a of answers) assert.ok(a.status === 200 || a.status === 503, `${a.status}: ${a.text}`);
    for (const a of answers.filter((x) => x.status === 503)) assert.match(a.text, /--max_inflight_request_bytes/);
    assert.ok(peak - baseline < RSS_GROWTH_LIMIT, `RSS grew ${mb(peak - baseline)} MB`);
    assert.ok(probeStatuses.length > 0 && probeStatuses.every((st) => st === 200), `status probes answered ${JSON.stringify(probeStatuses)}`);
    // Served again once the load is gone.
    const again = await post(server.url('/v1/models/default:predict'), Buffer.from('{"instances": [[1.0]]}'));
    assert.equal(again.status, 200);
  });
});
