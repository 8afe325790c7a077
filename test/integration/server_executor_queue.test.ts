// Without batching, what waits for the executor threads is bounded too (--max_executor_queue,
// default 128 per version): 512 clients at once against the real process (default flags) get
// 200 or, past the queue, 503 at once; RSS grows less than 384 MB while it lasts, and the
// server serves normally when the load stops.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import path from 'node:path';
import { startServer, waitAvailable, type RunningServer } from '../helpers/server_process.js';
import { tempDir } from '../helpers/temp.js';
import { mb, rssBytes, rssSampler } from '../helpers/rss.js';
import { writeQueueingConvModel } from '../helpers/queueing_model.js';

const HW = 48;
const CLIENTS = 512;
// A sanity bound, not what tells the fix apart (the 503s do: before it, all 512 clients got 200
// and RSS grew ~280 MB here too): 512 connections' buffers and parse trees grow V8's heap by
// 170-270 MB on this machine whatever the queue holds.
const RSS_GROWTH_LIMIT = 384 * 2 ** 20;

describe('executor queue without batching: 512 clients (real process)', () => {
  let server: RunningServer;
  let body: string;

  before(async () => {
    const root = tempDir();
    await writeQueueingConvModel(path.join(root, 'conv', '1'), HW, 9);
    body = JSON.stringify({ instances: [Array.from({ length: HW }, (_, i) => Array.from({ length: HW }, (_, j) => [((i + j) % 5) / 5]))] });
    server = await startServer(['--model_name=conv', `--model_base_path=${path.join(root, 'conv')}`, '--num_executors=1'], {
      readyPath: '/v1/models/conv',
    });
    await waitAvailable(server, ['conv']);
  });

  after(async () => {
    assert.equal(await server?.stop(), 0);
  });

  it('past the queue: 503 at once; memory bounded; recovers', async (t) => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: CLIENTS });
    const send = () =>
      new Promise<{ status: number; text: string }>((resolve, reject) => {
        const req = http.request(
          server.url('/v1/models/conv:predict'),
          { method: 'POST', agent, headers: { 'content-type': 'application/json' } },
          (res) => {
            let text = '';
            res.setEncoding('utf8');
            res.on('data', (d) => (text += d));
            res.on('end', () => resolve({ status: res.statusCode!, text }));
          },
        );
        req.on('error', reject);
        req.end(body);
      });
    for (let i = 0; i < 5; i++) assert.equal((await send()).status, 200);
    const pid = server.proc.pid!;
    const baseline = rssBytes(pid);
    const sampler = rssSampler(pid);
    const answers: { status: number; text: string }[] = [];
    const until = performance.now() + 4000;
    await Promise.all(
      Array.from({ length: CLIENTS }, async () => {
        while (performance.now() < until) answers.push(await send());
      }),
    );
    const peak = sampler.stop();
    const byStatus: Record<number, number> = {};
    for (const a of answers) byStatus[a.status] = (byStatus[a.status] ?? 0) + 1;
    t.diagnostic(`${answers.length} answers ${JSON.stringify(byStatus)}; RSS ${mb(baseline)} → peak ${mb(peak)} MB`);
    assert.deepEqual(Object.keys(byStatus).sort(), ['200', '503'], JSON.stringify(byStatus));
    for (const a of answers.filter((x) => x.status === 503)) assert.match(JSON.parse(a.text).error, /--max_executor_queue/);
    assert.ok(peak - baseline < RSS_GROWTH_LIMIT, `RSS grew ${mb(peak - baseline)} MB`);
    for (let i = 0; i < 5; i++) assert.equal((await send()).status, 200);
    agent.destroy();
  });
});
