// One user who thinks between requests: where a lone request's time goes, on the batching
// bench's MLP (256-512×16-16), with the same think time for every set-up of the same run.
//   - tfgate (this build, and --other-bin builds), one executor, batching off: the client's
//     latency, split by Server-Timing into parse, hand-off, run, hand-back and serialise, the
//     rest being HTTP (the request read, routing, the answer written, the client's own part);
//   - the floor of any server that keeps inference off its event loop: a bare Hono route
//     that parses the body with JSON.parse, posts a Float32Array to a worker thread that runs
//     the same ONNX Runtime session (the same runtime classes, one intra-op thread) and
//     answers with JSON.stringify — what the machine charges every such server;
//   - the engine alone, in this process, batch 1, runs spaced by the same think time.
// Rounds alternate the set-ups (short rounds, the order rotated each round), so that a noisy
// spell of this shared machine hits all alike.
// Printed: each part's mean and median per request, and each server's CPU per request.
//   npm run bench:lone [-- --rounds 20 --requests 25 --think 15 --other-bin ../main/bin/tfgate --tfgate <flags>]
import http from 'node:http';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { sinRow, sinRowBody, writeDeepMlp } from './report/deep_mlp.js';
import { createRuntime } from '../src/runtimes/index.js';
import { selectRuntime } from '../src/runtimes/runtime_selection.js';
import { DEFAULT_ENGINE_SETTINGS } from '../src/config/session_config.js';
import type { HostTensor } from '../src/tensor/host_tensor.js';
import type { Servable } from '../src/runtimes/runtime.js';
import { numberArg, stringArg } from './load/args.js';
import { between } from './load/think_time.js';
import { processCpuMs, startNodeProcess, startTfgate, stopProcess, waitModelAvailable } from './report/processes.js';

const here = fileURLToPath(import.meta.url);
const INPUT = 256;
const WIDTH = numberArg('width', 512);
const DEPTH = numberArg('depth', 16);

function runOnce(servable: Servable, x: HostTensor): Record<string, HostTensor> | Promise<Record<string, HostTensor>> {
  return servable.runNow ? servable.runNow('serving_default', { x }) : servable.run('serving_default', { x });
}

async function loadServable(versionDir: string, intraOpThreads = 0): Promise<Servable> {
  const { runtime } = await selectRuntime('auto');
  const engine = { ...DEFAULT_ENGINE_SETTINGS, intraOpThreads };
  return (await createRuntime(runtime, undefined, undefined, engine)).load(versionDir, { tags: ['serve'] });
}

/** The floor server's worker thread: runs each posted input on the engine, answers with the output and the run's time. */
async function floorWorker(): Promise<void> {
  const servable = await loadServable(workerData as string);
  parentPort!.on('message', (values: Float32Array) => {
    const t0 = performance.now();
    const out = runOnce(servable, { dtype: 'float32', shape: [1, values.length], values }) as Record<string, HostTensor>;
    const t1 = performance.now();
    const y = Object.values(out)[0].values as Float32Array;
    parentPort!.postMessage({ y, runMs: t1 - t0, startedAt: performance.timeOrigin + t0, endedAt: performance.timeOrigin + t1 });
  });
  parentPort!.postMessage('ready');
}

/** The floor server: Hono, JSON.parse, one worker thread running the engine, JSON.stringify. */
async function floorServer(versionDir: string, port: number): Promise<void> {
  // Exits normally on SIGINT/SIGTERM (so that --cpu-prof writes its profile).
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => process.exit(0));
  const { Hono } = await import('hono');
  const { serve } = await import('@hono/node-server');
  const worker = new Worker(here, { workerData: versionDir });
  await new Promise<void>((r) => worker.once('message', () => r()));
  const waiting: Array<(m: { y: Float32Array; runMs: number; startedAt: number; endedAt: number }) => void> = [];
  worker.on('message', (m: { y: Float32Array; runMs: number; startedAt: number; endedAt: number }) => {
    waiting.shift()!(m);
  });
  const app = new Hono();
  app.post('/v1/models/mlp:predict', async (c) => {
    const t0 = performance.now();
    const body = (await c.req.json()) as { instances: number[][] };
    const x = Float32Array.from(body.instances[0]);
    const posted = performance.timeOrigin + performance.now();
    const r = await new Promise<{ y: Float32Array; runMs: number; startedAt: number; endedAt: number }>((resolve) => {
      waiting.push(resolve);
      worker.postMessage(x);
    });
    const back = performance.timeOrigin + performance.now();
    const text = JSON.stringify({ predictions: [Array.from(r.y)] });
    const t1 = performance.now();
    return c.body(text, 200, {
      'content-type': 'application/json',
      'server-timing': `parse;dur=${(posted - performance.timeOrigin - t0).toFixed(3)}, handoff;dur=${(r.startedAt - posted).toFixed(3)}, run;dur=${r.runMs.toFixed(3)}, handback;dur=${(back - r.endedAt).toFixed(3)}, serialise;dur=${(t1 - (back - performance.timeOrigin)).toFixed(3)}`,
    });
  });
  serve({ fetch: app.fetch, port, hostname: '127.0.0.1' }, (info) => process.stdout.write(`listening ${info.port}\n`));
}

const PARTS = ['parse', 'queue', 'handoff', 'run', 'handback', 'serialise'] as const;

interface Sample {
  totalMs: number;
  parts: Record<string, number>;
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

function post(port: number, body: string): Promise<Sample> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const req = http.request(
      { host: '127.0.0.1', port, path: '/v1/models/mlp:predict', method: 'POST', agent, headers: { 'content-type': 'application/json' } },
      (res) => {
        res.on('data', () => {});
        res.on('end', () => {
          const totalMs = performance.now() - t0;
          if (res.statusCode !== 200) return reject(new Error(`status ${res.statusCode}`));
          const parts: Record<string, number> = {};
          for (const m of String(res.headers['server-timing'] ?? '').matchAll(/(\w+);dur=([\d.]+)/g)) parts[m[1]] = Number(m[2]);
          resolve({ totalMs, parts });
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * CPU time (ns, from schedstat) of a process's main thread and of its other threads together,
 * and the main thread's time runnable but waiting for a CPU (preempted, or woken and not yet run).
 */
function threadCpuNs(pid: number): { main: number; others: number; mainWait: number } {
  let main = 0;
  let others = 0;
  let mainWait = 0;
  for (const tid of fs.readdirSync(`/proc/${pid}/task`)) {
    let fields: string[];
    try {
      fields = fs.readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ');
    } catch {
      continue; // a thread that ended meanwhile
    }
    if (Number(tid) === pid) {
      main += Number(fields[0]);
      mainWait += Number(fields[1]);
    } else others += Number(fields[0]);
  }
  return { main, others, mainWait };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Arm {
  label: string;
  /** One request (or run), timed. */
  once(): Promise<Sample>;
  pid?: number;
  samples: Sample[];
  cpuMs: number;
  /** Servers: CPU ns of the main thread and of the other threads (executor, engine, GC helpers) over the measured requests. */
  mainNs: number;
  othersNs: number;
  mainWaitNs: number;
}

function stats(xs: number[]): { mean: number; median: number } {
  const s = [...xs].sort((a, b) => a - b);
  return { mean: xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length), median: s[s.length >> 1] ?? NaN };
}

async function main(): Promise<void> {
  const rounds = numberArg('rounds', 20);
  const requests = numberArg('requests', 25);
  const thinkMean = numberArg('think', 15);
  const portBase = numberArg('port-base', 8740);
  const otherBins = stringArg('other-bin', '')
    .split(',')
    .filter(Boolean)
    .map((b) => path.resolve(b));
  const extra = process.argv.includes('--tfgate') ? process.argv.slice(process.argv.indexOf('--tfgate') + 1) : [];
  if (extra.includes('--variant')) throw new Error('--variant goes before --tfgate');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tfgate-bench-lone-'));
  const version = path.join(dir, 'mlp', '1');
  await writeDeepMlp(version, { input: INPUT, width: WIDTH, depth: DEPTH });
  const body = sinRowBody(INPUT);
  const values = Float32Array.from(sinRow(INPUT));
  const x: HostTensor = { dtype: 'float32', shape: [1, INPUT], values };

  const arms: Arm[] = [];
  const procs: Array<Awaited<ReturnType<typeof startTfgate>>['proc']> = [];
  try {
    let port = portBase;
    // --variant name=flag,flag (repeatable): this build again with other flags.
    const variants: Array<[string, string[]]> = [];
    for (let i = 0; i < process.argv.length; i++)
      if (process.argv[i] === '--variant') {
        const [name, flags = ''] =
          process.argv[i + 1].split('=', 2).length === 2
            ? [
                process.argv[i + 1].slice(0, process.argv[i + 1].indexOf('=')),
                process.argv[i + 1].slice(process.argv[i + 1].indexOf('=') + 1),
              ]
            : [process.argv[i + 1]];
        variants.push([name, flags.split(',').filter(Boolean)]);
      }
    const bins: Array<[string, string | undefined, string[]]> = [
      ['tfgate', undefined, []],
      ...variants.map(([name, flags]): [string, undefined, string[]] => [`tfgate ${name}`, undefined, flags]),
      ...otherBins.map((b, i): [string, string, string[]] => [`other ${i + 1}`, b, []]),
    ];
    for (const [label, bin, flags] of bins) {
      const p = port++;
      const s = await startTfgate('mlp', path.join(dir, 'mlp'), ['--num_executors=1', ...extra, ...flags, `--rest_api_port=${p}`], bin);
      procs.push(s.proc);
      await waitModelAvailable(s.port, 'mlp');
      arms.push({ label, once: () => post(s.port, body), pid: s.proc.pid, samples: [], cpuMs: 0, mainNs: 0, othersNs: 0, mainWaitNs: 0 });
    }
    const fp = port++;
    const floor = await startNodeProcess([here, '--floor-server', version, String(fp)], /listening (\d+)/);
    procs.push(floor.proc);
    arms.push({
      label: 'floor (Hono + engine worker)',
      once: () => post(floor.port, body),
      pid: floor.proc.pid,
      samples: [],
      cpuMs: 0,
      mainNs: 0,
      othersNs: 0,
      mainWaitNs: 0,
    });
    for (const [label, intra] of [['engine alone, 1 thread', 1]] as const) {
      const servable = await loadServable(version, intra);
      arms.push({
        label,
        async once() {
          const t0 = performance.now();
          const r = runOnce(servable, x);
          if (r instanceof Promise) await r;
          const ms = performance.now() - t0;
          return { totalMs: ms, parts: { run: ms } };
        },
        samples: [],
        cpuMs: 0,
        mainNs: 0,
        othersNs: 0,
        mainWaitNs: 0,
      });
    }
    for (const a of arms) for (let i = 0; i < 20; i++) await a.once();
    const think = between(0.5 * thinkMean, 1.5 * thinkMean);
    // Each round runs every set-up for `requests` requests, in an order rotated each round.
    for (let r = 0; r < rounds; r++) {
      for (let k = 0; k < arms.length; k++) {
        const a = arms[(k + r) % arms.length];
        const cpu0 = a.pid ? processCpuMs(a.pid) : 0;
        const threads0 = a.pid ? threadCpuNs(a.pid) : undefined;
        const self0 = process.cpuUsage();
        for (let i = 0; i < requests; i++) {
          await sleep(think());
          a.samples.push(await a.once());
        }
        const self = process.cpuUsage(self0);
        a.cpuMs += a.pid ? processCpuMs(a.pid) - cpu0 : (self.user + self.system) / 1000;
        if (threads0) {
          const threads = threadCpuNs(a.pid!);
          a.mainNs += threads.main - threads0.main;
          a.othersNs += threads.others - threads0.others;
          a.mainWaitNs += threads.mainWait - threads0.mainWait;
        }
      }
    }
    console.log(
      `lone user, MLP ${INPUT}-${WIDTH}×${DEPTH}-16, think ${0.5 * thinkMean}–${1.5 * thinkMean} ms, ${rounds} rounds × ${requests} requests per set-up; load ${os
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}`,
    );
    console.log(
      `| set-up | total mean | total median | ${PARTS.join(' | ')} | rest (HTTP, client) | CPU ms/req | main thread µs/req | main thread waiting for a CPU µs/req | other threads µs/req |`,
    );
    console.log(`|---|---:|---:|${PARTS.map(() => '---:|').join('')}---:|---:|---:|---:|---:|`);
    for (const a of arms) {
      const total = stats(a.samples.map((s) => s.totalMs));
      const part = (k: string) => stats(a.samples.map((s) => s.parts[k] ?? 0)).mean;
      const rest = stats(a.samples.map((s) => s.totalMs - PARTS.reduce((t, k) => t + (s.parts[k] ?? 0), 0))).mean;
      console.log(
        `| ${a.label} | ${total.mean.toFixed(3)} | ${total.median.toFixed(3)} | ${PARTS.map((k) => part(k).toFixed(3)).join(' | ')} | ${rest.toFixed(3)} | ${(a.cpuMs / a.samples.length).toFixed(3)} | ${a.pid ? (a.mainNs / 1000 / a.samples.length).toFixed(0) : ''} | ${a.pid ? (a.mainWaitNs / 1000 / a.samples.length).toFixed(0) : ''} | ${a.pid ? (a.othersNs / 1000 / a.samples.length).toFixed(0) : ''} |`,
      );
    }
    // The split: what the engine alone pays with this think time, what the machine adds for
    // any off-loop server (floor − engine), what tfgate adds beyond that (tfgate − floor).
    const byLabel = (l: string) => stats(arms.find((a) => a.label.startsWith(l))!.samples.map((s) => s.totalMs));
    const [engine, floorMs, tfgate] = [byLabel('engine alone'), byLabel('floor'), byLabel('tfgate')];
    const diff = (x: { mean: number; median: number }, y: { mean: number; median: number }) =>
      `${(x.mean - y.mean).toFixed(3)} ms mean, ${(x.median - y.median).toFixed(3)} median`;
    console.log(`\nengine alone (think time): ${engine.mean.toFixed(3)} ms mean, ${engine.median.toFixed(3)} median`);
    console.log(`any off-loop server adds (floor − engine alone): ${diff(floorMs, engine)}`);
    console.log(`tfgate adds (tfgate − floor): ${diff(tfgate, floorMs)}`);
  } finally {
    for (const p of procs) await stopProcess(p);
    agent.destroy();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

if (!isMainThread) void floorWorker();
else if (process.argv[2] === '--floor-server') void floorServer(process.argv[3], Number(process.argv[4]));
else
  main().catch((e) => {
    console.error(e);
    process.exit(1);
  });
