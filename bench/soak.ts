// Soak: the bench model (narrow deep MLP, batched adaptively) served for `--minutes`
// (default 10) at 80 % of its measured capacity, open loop (requests are sent on a fixed
// schedule and latency counts from the intended send time, so a stall is not hidden), while
// a new model version is dropped into the base path every minute (the server loads it and
// unloads the old one under load). Per minute: requests, failures, p50/p99, server RSS.
//   npm run bench:soak [-- --minutes 10 --reload-seconds 60]
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeMlpSavedModel } from '../test_util/savedmodel/model_zoo.js';
import { runLoad } from './load/generator.js';
import { percentile } from './load/latency_recorder.js';
import { numberArg } from './load/args.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const REPO = path.resolve(here, '..', '..');
const MINUTES = numberArg('minutes', 10);
const RELOAD_SECONDS = numberArg('reload-seconds', 60);
const LOAD_FRACTION = 0.8;
const PORT = 18531;
const PROBE_SECONDS = numberArg('probe-seconds', 15);
const PROBE_P99_MS = 250;

function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

function start(base: string, cfg: string): Promise<ChildProcess> {
  const args = [
    path.join(REPO, 'bin', 'tfgate'),
    `--model_base_path=${base}`,
    '--model_name=soak',
    `--rest_api_port=${PORT}`,
    '--rest_api_host=127.0.0.1',
    '--port=0',
    '--enable_batching',
    `--batching_parameters_file=${cfg}`,
    '--batching_mode=adaptive',
    '--file_system_poll_wait_seconds=1',
  ];
  const proc = spawn(process.execPath, args, { cwd: REPO, stdio: ['ignore', 'ignore', 'pipe'] });
  return new Promise((resolve, reject) => {
    let out = '';
    proc.stderr!.on('data', (d) => {
      out += d;
      // The port opens while the model loads: wait for the first loads to settle too.
      if (/Exporting HTTP\/REST API/.test(out) && out.includes('"initial_loads_settled"')) resolve(proc);
      if (out.length > 1e6) out = out.slice(-1e5);
    });
    proc.once('exit', (code) => reject(new Error(`tfgate exited ${code}: ${out.slice(-2000)}`)));
  });
}

interface Minute {
  sent: number;
  failed: number;
  failures: Map<string, number>;
  latencies: number[];
  rssMb: number;
  versions: string;
}

/** Sends at `rate` req/s for `ms` (open loop); latency counts from each request's due time. */
async function openLoop(
  agent: http.Agent,
  url: string,
  body: string,
  rate: number,
  ms: number,
): Promise<{ latencies: number[]; failed: number }> {
  const latencies: number[] = [];
  let failed = 0;
  const t0 = performance.now();
  const pending: Promise<void>[] = [];
  for (let i = 0; ; i++) {
    const intended = t0 + (i * 1000) / rate;
    if (intended >= t0 + ms) break;
    const wait = intended - performance.now();
    if (wait > 1) await new Promise((r) => setTimeout(r, wait));
    pending.push(
      new Promise<void>((resolve) => {
        const req = http.request(
          url,
          { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } },
          (res) => {
            res.resume();
            res.on('end', () => {
              latencies.push(performance.now() - intended);
              if (res.statusCode !== 200) failed++;
              resolve();
            });
          },
        );
        req.on('error', () => {
          failed++;
          resolve();
        });
        req.end(body);
      }),
    );
  }
  await Promise.all(pending);
  return { latencies, failed };
}

async function main() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tfgate-soak-'));
  const base = path.join(dir, 'soak');
  const model = { inputDim: 256, hiddenSizes: new Array(16).fill(512), outputDim: 16, activation: 'relu' as const, seed: 3 };
  await writeMlpSavedModel(path.join(base, '1'), model);
  const cfg = path.join(dir, 'batching.cfg');
  fs.writeFileSync(
    cfg,
    'max_batch_size { value: 32 }\nbatch_timeout_micros { value: 0 }\nmax_enqueued_batches { value: 1000 }\nnum_batch_threads { value: 1 }\n',
  );
  const server = await start(base, cfg);
  const url = `http://127.0.0.1:${PORT}/v1/models/soak:predict`;
  const body = JSON.stringify({ instances: [Array.from({ length: 256 }, (_, j) => Math.sin(j))] });
  for (let i = 0; i < 100; i++) {
    const r = await fetch(`http://127.0.0.1:${PORT}/v1/models/soak`)
      .then((r) => r.json())
      .catch(() => ({}));
    if ((r as { model_version_status?: { state: string }[] }).model_version_status?.[0]?.state === 'AVAILABLE') break;
    await new Promise((r) => setTimeout(r, 100));
  }

  // Idle sockets close before the server's 5 s keep-alive timeout, so a reuse never races its close.
  const agent = new http.Agent({ keepAlive: true, maxSockets: 256, timeout: 4000 });
  // Capacity: the closed-loop saturation rate is an upper bound; the capacity is the highest
  // open-loop rate (this client, this machine) that is served without a growing backlog.
  await runLoad({ url, method: 'POST', body, mode: { kind: 'concurrency', connections: 32 }, durationMs: 3000 });
  const closed = (await runLoad({ url, method: 'POST', body, mode: { kind: 'concurrency', connections: 64 }, durationMs: 10_000 })).rps;
  // 15 s probes: a rate that is just too high takes several seconds to show its growing
  // backlog, so short probes overestimate capacity (and 80 % of an overestimate is not 80 %).
  let capacity = closed;
  for (let k = 0; k < 10; k++) {
    const probe = await openLoop(agent, url, body, capacity, PROBE_SECONDS * 1000);
    const sorted = probe.latencies.sort((a, b) => a - b);
    const kept = percentile(sorted, 99) < PROBE_P99_MS && probe.failed === 0;
    console.log(
      `  open loop at ${capacity.toFixed(0)} req/s for ${PROBE_SECONDS} s: p99 ${percentile(sorted, 99).toFixed(0)} ms, ${probe.failed} failed${kept ? ' — sustained' : ''}`,
    );
    await new Promise((r) => setTimeout(r, 5000)); // let any backlog drain
    if (kept) break;
    capacity *= 0.9;
  }
  const rate = capacity * LOAD_FRACTION;
  console.log(
    `capacity ${capacity.toFixed(0)} req/s sustained open loop (closed-loop saturation ${closed.toFixed(0)} req/s); soak at ${rate.toFixed(0)} req/s open loop for ${MINUTES} min, a new version every ${RELOAD_SECONDS} s; ${os.cpus().length} cores shared by client and server`,
  );

  const minutes: Minute[] = [];
  const minuteOf = (t: number) => {
    const m = Math.floor(t / 60_000);
    while (minutes.length <= m) minutes.push({ sent: 0, failed: 0, failures: new Map(), latencies: [], rssMb: NaN, versions: '' });
    return minutes[m];
  };
  const send = (intended: number, t0: number) =>
    new Promise<void>((resolve) => {
      const bucket = minuteOf(intended - t0);
      bucket.sent++;
      const fail = (why: string) => {
        bucket.failed++;
        bucket.failures.set(why, (bucket.failures.get(why) ?? 0) + 1);
        resolve();
      };
      const req = http.request(
        url,
        { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (d) => (text += d));
          res.on('end', () => {
            // Latency from when the request was due, not when the client got round to it.
            bucket.latencies.push(performance.now() - intended);
            if (res.statusCode === 200) resolve();
            else fail(`${res.statusCode} ${text.slice(0, 120)}`);
          });
        },
      );
      req.on('error', (e) => fail(e.message));
      req.end(body);
    });

  // Every version is written before the clock starts: writing one is heavy work in this
  // process and would delay the client's own sends (which the latencies would then count).
  const staged = 1 + Math.floor((MINUTES * 60) / RELOAD_SECONDS);
  for (let v = 2; v <= staged; v++) await writeMlpSavedModel(path.join(dir, `v${v}`), { ...model, seed: 3 + v });

  const t0 = performance.now();
  const end = t0 + MINUTES * 60_000;
  const inFlight = new Set<Promise<void>>();
  let version = 1;
  const reloads = setInterval(() => {
    if (version >= staged) return;
    version++;
    // A new version folder renamed in, as a deploy would: the server never sees half of it.
    fs.renameSync(path.join(dir, `v${version}`), path.join(base, String(version)));
  }, RELOAD_SECONDS * 1000);
  const sampler = setInterval(async () => {
    const now = performance.now();
    if (now >= end) return;
    const m = minuteOf(now - t0);
    m.rssMb = Math.max(Number.isNaN(m.rssMb) ? 0 : m.rssMb, rssMb(server.pid!));
    const status = (await fetch(`http://127.0.0.1:${PORT}/v1/models/soak`)
      .then((r) => r.json())
      .catch(() => ({}))) as { model_version_status?: { version: string; state: string }[] };
    m.versions = (status.model_version_status ?? []).map((v) => `${v.version}:${v.state}`).join(' ');
  }, 1000);
  const progress = setInterval(() => {
    const m = minutes[minutes.length - 1];
    if (m)
      process.stderr.write(
        `\r${((performance.now() - t0) / 1000).toFixed(0)} s: minute ${minutes.length} sent ${m.sent}, failed ${m.failed}, RSS ${m.rssMb.toFixed(0)} MB   `,
      );
  }, 2000);

  const interval = 1000 / rate;
  for (let i = 0; ; i++) {
    const intended = t0 + i * interval;
    if (intended >= end) break;
    const wait = intended - performance.now();
    if (wait > 1) await new Promise((r) => setTimeout(r, wait));
    const p = send(intended, t0);
    inFlight.add(p);
    void p.finally(() => inFlight.delete(p));
  }
  await Promise.all(inFlight);
  clearInterval(reloads);
  clearInterval(sampler);
  clearInterval(progress);
  process.stderr.write('\n');

  console.log('\n| minute | sent | failed | p50 ms | p99 ms | max ms | server RSS MB | versions at the end of the minute |');
  console.log('|---:|---:|---:|---:|---:|---:|---:|---|');
  minutes.forEach((m, i) => {
    const s = m.latencies.sort((a, b) => a - b);
    console.log(
      `| ${i + 1} | ${m.sent} | ${m.failed} | ${percentile(s, 50).toFixed(1)} | ${percentile(s, 99).toFixed(1)} | ${(s[s.length - 1] ?? NaN).toFixed(1)} | ${m.rssMb.toFixed(0)} | ${m.versions} |`,
    );
  });
  const all = minutes.flatMap((m) => m.latencies).sort((a, b) => a - b);
  const failures = new Map<string, number>();
  for (const m of minutes) for (const [k, v] of m.failures) failures.set(k, (failures.get(k) ?? 0) + v);
  const first = minutes[0].latencies.sort((a, b) => a - b);
  const last = minutes[minutes.length - 1].latencies.sort((a, b) => a - b);
  console.log(
    `\nrequests ${all.length}, failed ${[...failures.values()].reduce((a, b) => a + b, 0)} ${JSON.stringify(Object.fromEntries(failures))}`,
  );
  console.log(
    `p99 drift: first minute ${percentile(first, 99).toFixed(1)} ms → last minute ${percentile(last, 99).toFixed(1)} ms; overall p50 ${percentile(all, 50).toFixed(1)} ms, p99 ${percentile(all, 99).toFixed(1)} ms`,
  );
  console.log(
    `RSS drift: ${minutes[0].rssMb.toFixed(0)} MB in the first minute → ${minutes[minutes.length - 1].rssMb.toFixed(0)} MB in the last; versions loaded: ${version}`,
  );
  agent.destroy();
  server.kill('SIGTERM');
  fs.rmSync(dir, { recursive: true, force: true });
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
