// The saturated adaptive cell of bench:batching (deep MLP, 64 wrk connections, max_batch_size 32,
// one executor, num_batch_threads 1), for finding where the executor idles and comparing builds.
//   compare: each build given (`--bins a=path/to/bin/tfgate,b=…`; default: this checkout) is a
//     server; rounds alternate them (forward and backward in turn), each cell `--seconds` of wrk
//     with the other servers frozen, then the engine alone replays the cell's batch sizes.
//     Printed per build: served req/s, ÷ offline at the same batches, from CPU time, the
//     executor's share in the engine, event-loop CPU µs per request, batch sizes; per round too.
//   --trace: one server of the first build with TFGATE_BATCH_TRACE (and --cpu-prof with
//     --profile), one cell; prints the executor's idle gaps while requests were queued, what
//     each gap was made of (the run's answer coming back, the loop's work before it took it,
//     forming and sending the next batch, the thread waking), and with --profile what the
//     event loop ran during the gaps, from its CPU profile's samples.
//   node dist/bench/saturated_trace.js [--rounds 3 --seconds 5 --warmup-seconds 8] [--bins old=…,new=…] [--trace [--profile]]
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sinRowBody, writeDeepMlp } from './report/deep_mlp.js';
import { selectRuntime } from '../src/runtimes/runtime_selection.js';
import { runWrk } from './load/wrk.js';
import { flagArg, numberArg, stringArg } from './load/args.js';
import { openOfflineEngine, type OfflineEngine } from './report/model_curve.js';
import { TFGATE_BIN, freePort, startNodeProcess, stopProcess, waitModelAvailable } from './report/processes.js';
import { drained, saturatedCell, type SaturatedCell } from './report/saturated_cell.js';
import { roundOrder } from './report/round_order.js';
import { analyseTrace, type TraceFile } from './report/batch_gaps.js';

const SECONDS = numberArg('seconds', 5);
const ROUNDS = numberArg('rounds', 3);
const WARMUP_SECONDS = numberArg('warmup-seconds', 8);
const INPUT = 256;
const CONNECTIONS = 64;
const METRICS_PATH = '/monitoring/prometheus/metrics';

interface Server {
  label: string;
  proc: ChildProcess;
  url: string;
  metricsUrl: string;
}

/** One saturated cell of `s`, the other servers frozen; replayed offline when an engine is given and batches ran. */
function cell(s: Server, others: Server[], body: string, offline: OfflineEngine | undefined): Promise<SaturatedCell> {
  return saturatedCell(
    s,
    others.map((o) => o.proc),
    {
      body,
      connections: CONNECTIONS,
      seconds: SECONDS,
      offline,
      replayMs: 600,
      replayMix: (batches) => (batches.size ? batches : undefined),
    },
  );
}

async function start(
  label: string,
  bin: string,
  modelBase: string,
  cfgFile: string,
  monitoring: string,
  body: string,
  nodeFlags: string[] = [],
): Promise<Server> {
  const port = await freePort();
  const server = await startNodeProcess(
    [
      ...nodeFlags,
      bin,
      '--model_name=mlp',
      `--model_base_path=${modelBase}`,
      '--rest_api_host=127.0.0.1',
      `--rest_api_port=${port}`,
      '--port=0',
      '--num_executors=1',
      `--monitoring_config_file=${monitoring}`,
      '--enable_batching',
      `--batching_parameters_file=${cfgFile}`,
      '--batching_mode=adaptive',
    ],
    /Exporting HTTP\/REST API at:[\d.]+:(\d+)/,
  );
  const s = {
    label,
    proc: server.proc,
    url: `http://127.0.0.1:${server.port}/v1/models/mlp:predict`,
    metricsUrl: `http://127.0.0.1:${server.port}${METRICS_PATH}`,
  };
  await waitModelAvailable(server.port, 'mlp');
  if (WARMUP_SECONDS > 0) runWrk(s.url, body, CONNECTIONS, WARMUP_SECONDS);
  await drained(s.metricsUrl);
  return s;
}

function summary(cells: SaturatedCell[]) {
  const sum = (f: (c: SaturatedCell) => number) => cells.reduce((t, c) => t + f(c), 0);
  const requests = sum((c) => c.wrk.requests);
  const wall = sum((c) => c.wallMs);
  const batches = new Map<number, number>();
  for (const c of cells) for (const [b, n] of c.batches) batches.set(b, (batches.get(b) ?? 0) + n);
  const batchCount = [...batches.values()].reduce((t, n) => t + n, 0);
  const rows = [...batches].reduce((t, [b, n]) => t + b * n, 0);
  const perCell = cells.map((c) => {
    const offCpu = c.offline.cpuMsPerItem;
    const n = c.wrk.requests;
    const bound = Math.min(n / c.executorThreadCpuMs, n / c.mainCpuMs, (2 * n) / (c.processCpuMs + c.wrk.clientCpuMs));
    return { ratio: c.wrk.rps / c.offline.itemsPerSec, cpuRatio: bound * offCpu, rps: c.wrk.rps };
  });
  return {
    rps: sum((c) => c.wrk.rps) / cells.length,
    perCell,
    meanBatch: rows / Math.max(1, batchCount),
    atMax: (batches.get(32) ?? 0) / Math.max(1, batchCount),
    engineBusy: sum((c) => c.engineMs) / wall,
    executorBusy: sum((c) => c.executorThreadCpuMs) / wall,
    loopBusy: sum((c) => c.mainCpuMs) / wall,
    loopUsPerRequest: (sum((c) => c.mainCpuMs) * 1000) / requests,
    executorUsPerRequest: (sum((c) => c.executorThreadCpuMs) * 1000) / requests,
    serverUsPerRequest: (sum((c) => c.processCpuMs) * 1000) / requests,
    wrkShare: sum((c) => c.wrk.clientCpuMs) / wall / os.cpus().length,
  };
}

async function main() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tfgate-bench-satgap-'));
  const version = path.join(dir, 'mlp', '1');
  await writeDeepMlp(version, { input: INPUT, width: 512, depth: 16 });
  const cfgFile = path.join(dir, 'batching.cfg');
  fs.writeFileSync(
    cfgFile,
    'max_batch_size { value: 32 }\nbatch_timeout_micros { value: 0 }\nmax_enqueued_batches { value: 1000 }\nnum_batch_threads { value: 1 }\n',
  );
  const monitoring = path.join(dir, 'monitoring.cfg');
  fs.writeFileSync(monitoring, `prometheus_config { enable: true path: "${METRICS_PATH}" }\n`);
  const body = sinRowBody(INPUT);
  const bins = stringArg('bins', `this=${TFGATE_BIN}`)
    .split(',')
    .map((kv) => {
      const [label, bin] = kv.split('=');
      return { label, bin: path.resolve(bin) };
    });

  if (flagArg('trace')) {
    const traceFile = path.join(dir, 'trace.json');
    const profileDir = path.join(dir, 'profile');
    process.env.TFGATE_BATCH_TRACE = traceFile;
    const flags = flagArg('profile') ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`, '--cpu-prof-interval=50'] : [];
    const s = await start(bins[0].label, bins[0].bin, path.join(dir, 'mlp'), cfgFile, monitoring, body, flags);
    delete process.env.TFGATE_BATCH_TRACE;
    const c = await cell(s, [], body, undefined);
    await stopProcess(s.proc);
    if (!fs.existsSync(traceFile)) throw new Error(`${bins[0].bin} wrote no batch trace: a build without TFGATE_BATCH_TRACE?`);
    const trace = JSON.parse(fs.readFileSync(traceFile, 'utf8')) as TraceFile;
    let profile: unknown;
    if (flagArg('profile')) {
      // The main thread's profile: thread id 0 in the file name (CPU.<date>.<time>.<pid>.<tid>.<seq>.cpuprofile).
      const main = fs.readdirSync(profileDir).find((f) => f.split('.')[4] === '0');
      if (main) profile = JSON.parse(fs.readFileSync(path.join(profileDir, main), 'utf8'));
    }
    console.log(`${bins[0].label}: ${c.wrk.rps.toFixed(0)} req/s over ${SECONDS} s (uptime load ${os.loadavg()[0].toFixed(2)})`);
    console.log(analyseTrace(trace, c.startMs, c.endMs, profile));
    fs.rmSync(dir, { recursive: true, force: true });
    return;
  }

  const selection = await selectRuntime('auto');
  const offline = await openOfflineEngine(version, INPUT, selection.runtime);
  const servers: Server[] = [];
  for (const b of bins) servers.push(await start(b.label, b.bin, path.join(dir, 'mlp'), cfgFile, monitoring, body));
  const results = new Map<string, SaturatedCell[]>(servers.map((s) => [s.label, []]));
  try {
    for (let round = 0; round < ROUNDS; round++) {
      for (const s of roundOrder(servers, round)) {
        const c = await cell(
          s,
          servers.filter((o) => o !== s),
          body,
          offline,
        );
        results.get(s.label)!.push(c);
        process.stderr.write(
          `round ${round + 1}/${ROUNDS} ${s.label}: ${c.wrk.rps.toFixed(0)} req/s, load ${os.loadavg()[0].toFixed(2)}\n`,
        );
      }
    }
  } finally {
    offline.dispose();
    await Promise.all(servers.map((s) => stopProcess(s.proc)));
  }
  console.log(
    `saturated adaptive cell, ${CONNECTIONS} wrk connections, ${SECONDS} s × ${ROUNDS} rounds interleaved; load at the end ${os.loadavg()[0].toFixed(2)}`,
  );
  console.log(
    '| build | req/s | served ÷ offline (per round) | from CPU (per round) | rows per batch / at 32 | engine busy | executor thread | event loop busy | CPU µs/req: loop / executor / server | wrk |',
  );
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  const pct = (x: number) => `${(100 * x).toFixed(0)} %`;
  for (const [label, cells] of results) {
    const s = summary(cells);
    const m = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    console.log(
      `| ${label} | ${s.rps.toFixed(0)} | ${m(s.perCell.map((x) => x.ratio)).toFixed(2)} (${s.perCell.map((x) => x.ratio.toFixed(2)).join(' ')}) | ${m(s.perCell.map((x) => x.cpuRatio)).toFixed(2)} (${s.perCell.map((x) => x.cpuRatio.toFixed(2)).join(' ')}) | ${s.meanBatch.toFixed(1)} / ${pct(s.atMax)} | ${pct(s.engineBusy)} | ${pct(s.executorBusy)} | ${pct(s.loopBusy)} | ${s.loopUsPerRequest.toFixed(0)} / ${s.executorUsPerRequest.toFixed(0)} / ${s.serverUsPerRequest.toFixed(0)} | ${pct(s.wrkShare)} |`,
    );
  }
  fs.rmSync(dir, { recursive: true, force: true });
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
