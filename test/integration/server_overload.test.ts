// Overload at ten times what the batch queue holds, against the real process: requests past
// max_enqueued_batches are refused with TF Serving's UNAVAILABLE (503) at once instead of
// queueing, the server's memory stays bounded while it lasts, and it serves normally as soon
// as the load stops.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { startServer, waitAvailable, type RunningServer } from '../helpers/server_process.js';
import { tempDir } from '../helpers/temp.js';
import { writeQueueingConvModel } from '../helpers/queueing_model.js';

const HW = 48;
const MAX_BATCH = 2;
const MAX_BATCHES = 4;
/** Requests the server holds at most: the queued batches plus one batch running. */
const CAPACITY = MAX_BATCH * (MAX_BATCHES + 1);
const CLIENTS = 10 * CAPACITY;

function rssBytes(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) * 1024 : NaN;
}

describe('overload at 10x the queue capacity (real process)', () => {
  let server: RunningServer;
  let body: string;

  before(async () => {
    const root = tempDir();
    await writeQueueingConvModel(path.join(root, 'conv', '1'), HW, 9);
    fs.writeFileSync(
      path.join(root, 'batching.cfg'),
      `max_batch_size { value: ${MAX_BATCH} }\nbatch_timeout_micros { value: 0 }\nmax_enqueued_batches { value: ${MAX_BATCHES} }\nnum_batch_threads { value: 1 }\n`,
    );
    body = JSON.stringify({ instances: [Array.from({ length: HW }, (_, i) => Array.from({ length: HW }, (_, j) => [((i + j) % 5) / 5]))] });
    server = await startServer(
      [
        '--model_name=conv',
        `--model_base_path=${path.join(root, 'conv')}`,
        '--enable_batching',
        `--batching_parameters_file=${path.join(root, 'batching.cfg')}`,
        '--num_executors=1',
      ],
      { readyPath: '/v1/models/conv' },
    );
    await waitAvailable(server, ['conv']);
  });

  after(async () => {
    assert.equal(await server?.stop(), 0);
  });

  it('only the queue-full 503 refuses, memory stays bounded, and service recovers when the load stops', async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: CLIENTS });
    const send = () =>
      new Promise<{ status: number; ms: number; text: string }>((resolve, reject) => {
        const t0 = performance.now();
        const req = http.request(
          server.url('/v1/models/conv:predict'),
          { method: 'POST', agent, headers: { 'content-type': 'application/json' } },
          (res) => {
            let text = '';
            res.setEncoding('utf8');
            res.on('data', (d) => (text += d));
            res.on('end', () => resolve({ status: res.statusCode!, ms: performance.now() - t0, text }));
          },
        );
        req.on('error', reject);
        req.end(body);
      });
    // Warm up, then take the baseline.
    for (let i = 0; i < 5; i++) assert.equal((await send()).status, 200);
    const pid = server.proc.pid!;
    const baseline = rssBytes(pid);

    let peak = baseline;
    const sampler = setInterval(() => (peak = Math.max(peak, rssBytes(pid))), 50);
    const answers: { status: number; ms: number; text: string }[] = [];
    const until = performance.now() + 4000;
    await Promise.all(
      Array.from({ length: CLIENTS }, async () => {
        while (performance.now() < until) answers.push(await send());
      }),
    );
    clearInterval(sampler);

    const byStatus = new Map<number, number>();
    for (const a of answers) byStatus.set(a.status, (byStatus.get(a.status) ?? 0) + 1);
    assert.deepEqual([...byStatus.keys()].sort(), [200, 503], `only 200 and 503: ${JSON.stringify([...byStatus])}`);
    const refused = answers.filter((a) => a.status === 503);
    const served = answers.filter((a) => a.status === 200);
    for (const a of refused)
      assert.match(
        JSON.parse(a.text).error,
        /^The batch scheduling queue to which this task was submitted is full; currently \d+ batches enqueued and max_enqueued_batches is 4$/,
      );
    // How fast a refusal comes back is printed, not asserted (no timed assertions in tests);
    // that refusals come before the body is even read is server_overload_admission's check.
    const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    const refusedMs = median(refused.map((a) => a.ms));
    const servedMs = median(served.map((a) => a.ms));
    // Bounded: what the server holds is the queue, not the crowd at the door.
    const grownMb = (peak - baseline) / 2 ** 20;
    assert.ok(grownMb < 150, `RSS grew ${grownMb.toFixed(0)} MB under ${CLIENTS} clients (baseline ${(baseline / 2 ** 20).toFixed(0)} MB)`);
    console.log(
      `# overload: ${answers.length} answers (${served.length} × 200, ${refused.length} × 503), median 503 ${refusedMs.toFixed(1)} ms, median 200 ${servedMs.toFixed(1)} ms, RSS ${(baseline / 2 ** 20).toFixed(0)} → peak ${(peak / 2 ** 20).toFixed(0)} MB`,
    );

    // Recovery: the next requests, one at a time, are all served.
    for (let i = 0; i < 5; i++) assert.equal((await send()).status, 200);
    agent.destroy();
  });
});
