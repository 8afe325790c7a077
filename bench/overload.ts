// Overload: far more clients than the server can serve, each sending again as soon as it is
// answered (closed loop, no think time). A server that bounds what waits must keep running
// full batches at its best throughput and refuse only the excess, at once (503).
//   cells: batching on (TF Serving's fixed batch_timeout_micros), on (adaptive) and off ×
//          16 connections (saturated, nothing refused: the reference), 256 and 1 024;
//   per cell: 200 req/s, share of 503s, 503 latency p50/p99, 200 latency p50/p99, mean batch
//          size, peak RSS of the server (VmHWM, reset before the cell), and whether the model
//          is still AVAILABLE after it;
//   target: batching on, 200 req/s at 256 connections ≥ 0.8 × the same server's at 16.
// Every server is its own tfgate process, all started up front; rounds interleave the cells
// so that a noisy spell on a shared machine hits every cell, and each ratio is taken within
// a round (then the median over rounds). The load runs on a worker thread of this process, with
// a light client (raw sockets) so that its own CPU leaves the server's executors their cores.
//   npm run bench:overload [-- --quick] [--seconds 5] [--rounds 3] [--depth 48] [--connections 16,256,1024]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sinRowBody, writeDeepMlp } from './report/deep_mlp.js';
import { flagArg, numberArg, stringArg } from './load/args.js';
import { runRawLoadInWorker, type RawLoadResult } from './load/raw_http_load.js';
import { startTfgate, stopProcess, waitModelAvailable, type RunningServer } from './report/processes.js';
import { readCounters, serverView } from './report/server_metrics.js';

const QUICK = flagArg('quick');
const SECONDS = numberArg('seconds', QUICK ? 3 : 5);
const ROUNDS = numberArg('rounds', QUICK ? 1 : 3);
const DEPTH = numberArg('depth', 48);
const WIDTH = 256;
const INPUT = 256;
const CONNECTIONS = stringArg('connections', '16,256,1024').split(',').map(Number);
const REFERENCE = CONNECTIONS[0];
const TARGET_RATIO = 0.8;
const MODEL = 'mlp';
const METRICS_PATH = '/monitoring/prometheus/metrics';
const PREDICT_PATH = `/v1/models/${MODEL}:predict`;
// As tfgate's own default: one core is left to the event loop.
const EXECUTORS = Math.max(1, Math.min(os.availableParallelism() - 1, 4));
const MAX_BATCH = 32;
// 4 batches of 32: the batch queue holds 128 requests, as --max_executor_queue does without batching.
const MAX_ENQUEUED_BATCHES = 4;

interface Setup {
  key: string;
  label: string;
  args: (dir: string) => string[];
}

function batchingArgs(dir: string): string[] {
  const file = path.join(dir, 'batching.cfg');
  fs.writeFileSync(
    file,
    `max_batch_size { value: ${MAX_BATCH} }\nbatch_timeout_micros { value: 2000 }\nmax_enqueued_batches { value: ${MAX_ENQUEUED_BATCHES} }\nnum_batch_threads { value: ${EXECUTORS} }\n`,
  );
  return ['--enable_batching', `--batching_parameters_file=${file}`];
}

const SETUPS: Setup[] = [
  { key: 'fixed', label: 'batching on (fixed, 2 ms)', args: batchingArgs },
  { key: 'adaptive', label: 'batching on (adaptive)', args: (dir) => [...batchingArgs(dir), '--batching_mode=adaptive'] },
  { key: 'off', label: 'batching off', args: () => [] },
];

interface Cell {
  ok: number;
  okRps: number;
  refused: number;
  other: Record<string, number>;
  total: number;
  refusedP50: number;
  refusedP99: number;
  okP50: number;
  okP99: number;
  meanBatch: number;
  peakRssMb: number;
  available: boolean;
}

function statusLine(pid: number, key: string): number {
  const m = new RegExp(`${key}:\\s+(\\d+) kB`).exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

/** Resets the process's peak RSS (VmHWM) to its current RSS (Linux ≥ 4.0); false where refused. */
function resetPeakRss(pid: number): boolean {
  try {
    fs.writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

async function modelAvailable(port: number): Promise<boolean> {
  const status = (await fetch(`http://127.0.0.1:${port}/v1/models/${MODEL}`, { headers: { connection: 'close' } })
    .then((r) => r.json())
    .catch(() => ({}))) as { model_version_status?: { state: string }[] };
  return status.model_version_status?.some((v) => v.state === 'AVAILABLE') ?? false;
}

function cellOf(r: RawLoadResult, meanBatch: number, peakRssMb: number, available: boolean): Cell {
  const ok = r.byOutcome.get('200');
  const refused = r.byOutcome.get('503');
  const other: Record<string, number> = {};
  let total = 0;
  for (const [k, rec] of r.byOutcome) {
    total += rec.count;
    if (k !== '200' && k !== '503') other[k] = rec.count;
  }
  return {
    ok: ok?.count ?? 0,
    okRps: (ok?.count ?? 0) / r.seconds,
    refused: refused?.count ?? 0,
    other,
    total,
    refusedP50: refused?.percentileMs(50) ?? NaN,
    refusedP99: refused?.percentileMs(99) ?? NaN,
    okP50: ok?.percentileMs(50) ?? NaN,
    okP99: ok?.percentileMs(99) ?? NaN,
    meanBatch,
    peakRssMb,
    available,
  };
}

async function measure(server: RunningServer, body: string, connections: number): Promise<Cell> {
  const pid = server.proc.pid!;
  const hwm = resetPeakRss(pid);
  let sampledPeak = statusLine(pid, 'VmRSS');
  const sampler = hwm ? undefined : setInterval(() => (sampledPeak = Math.max(sampledPeak, statusLine(pid, 'VmRSS'))), 50);
  const metricsUrl = `http://127.0.0.1:${server.port}${METRICS_PATH}`;
  const before = await readCounters(metricsUrl);
  const r = await runRawLoadInWorker({
    host: '127.0.0.1',
    port: server.port,
    path: PREDICT_PATH,
    body,
    connections,
    durationMs: SECONDS * 1000,
  });
  if (sampler) clearInterval(sampler);
  const alive = server.proc.exitCode === null && server.proc.signalCode === null;
  const peak = !alive ? NaN : hwm ? statusLine(pid, 'VmHWM') : sampledPeak;
  const available = alive && (await modelAvailable(server.port));
  const view = alive ? serverView(before, await readCounters(metricsUrl)) : undefined;
  return cellOf(r, view?.meanBatchSize ?? NaN, peak, available);
}

const median = (xs: number[]) => {
  const s = xs.filter(Number.isFinite).sort((a, b) => a - b);
  return s.length ? (s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2) : NaN;
};
const f = (x: number, digits = 0) => (Number.isFinite(x) ? x.toFixed(digits) : '–');

async function main() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tfgate-bench-overload-'));
  const modelBase = path.join(dir, MODEL);
  await writeDeepMlp(path.join(modelBase, '1'), { input: INPUT, width: WIDTH, depth: DEPTH });
  const body = sinRowBody(INPUT);
  const monitoring = path.join(dir, 'monitoring.cfg');
  fs.writeFileSync(monitoring, `prometheus_config { enable: true path: "${METRICS_PATH}" }\n`);

  const servers = new Map<string, RunningServer>();
  for (const s of SETUPS) {
    const server = await startTfgate(MODEL, modelBase, [
      `--num_executors=${EXECUTORS}`,
      `--monitoring_config_file=${monitoring}`,
      ...s.args(dir),
    ]);
    server.proc.stdout!.resume();
    server.proc.stderr!.resume();
    await waitModelAvailable(server.port, MODEL);
    // Warm up: sessions built, JIT warm.
    await runRawLoadInWorker({ host: '127.0.0.1', port: server.port, path: PREDICT_PATH, body, connections: 8, durationMs: 1000 });
    servers.set(s.key, server);
  }

  console.log(
    `model: MLP ${INPUT}-${WIDTH}×${DEPTH}-16 relu, one row a request; ${EXECUTORS} executor thread(s); ${os.availableParallelism()} cores; load average ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  );
  console.log(
    `batching: max_batch_size ${MAX_BATCH}, batch_timeout_micros 2000, max_enqueued_batches ${MAX_ENQUEUED_BATCHES}, num_batch_threads ${EXECUTORS}; batching off: --max_executor_queue default (128)`,
  );
  console.log(`closed loop, no think time, ${SECONDS} s a cell, ${ROUNDS} round(s), cells interleaved\n`);

  const cells = new Map<string, Cell[]>();
  const cellKey = (setup: string, c: number) => `${setup}@${c}`;
  for (let round = 0; round < ROUNDS; round++) {
    for (const c of CONNECTIONS) {
      for (const s of SETUPS) {
        const server = servers.get(s.key)!;
        if (server.proc.exitCode !== null || server.proc.signalCode !== null) continue;
        const cell = await measure(server, body, c);
        const list = cells.get(cellKey(s.key, c)) ?? [];
        list.push(cell);
        cells.set(cellKey(s.key, c), list);
        const others = Object.entries(cell.other)
          .map(([k, v]) => `${k} ${v}`)
          .join(', ');
        process.stderr.write(
          `round ${round + 1}/${ROUNDS} ${s.label} @ ${c}: ${f(cell.okRps)} 200/s, ${f((100 * cell.refused) / Math.max(1, cell.total), 1)} % 503, batch ${f(cell.meanBatch, 1)}, peak RSS ${f(cell.peakRssMb)} MB${others ? `, ${others}` : ''}${cell.available ? '' : ', MODEL NOT AVAILABLE'}\n`,
        );
      }
    }
  }

  console.log(
    '| set-up | connections | 200 req/s | 503 share | 503 p50 / p99 ms | 200 p50 / p99 ms | other answers | mean batch | peak RSS MB | AVAILABLE after |',
  );
  console.log('|---|---:|---:|---:|---:|---:|---|---:|---:|---|');
  for (const s of SETUPS) {
    for (const c of CONNECTIONS) {
      const list = cells.get(cellKey(s.key, c)) ?? [];
      if (!list.length) {
        console.log(`| ${s.label} | ${c} | server gone | | | | | | | no |`);
        continue;
      }
      const m = (pick: (x: Cell) => number, d = 0) => f(median(list.map(pick)), d);
      const other = new Map<string, number>();
      for (const x of list) for (const [k, v] of Object.entries(x.other)) other.set(k, (other.get(k) ?? 0) + v);
      const share = (x: Cell) => (100 * x.refused) / Math.max(1, x.total);
      console.log(
        `| ${s.label} | ${c} | ${m((x) => x.okRps)} | ${m(share, 1)} % | ${m((x) => x.refusedP50, 1)} / ${m((x) => x.refusedP99, 1)} | ${m((x) => x.okP50, 1)} / ${m((x) => x.okP99, 1)} | ${[...other].map(([k, v]) => `${k}: ${v}`).join(', ') || '–'} | ${m((x) => x.meanBatch, 1)} | ${f(Math.max(...list.map((x) => x.peakRssMb)))} | ${list.every((x) => x.available) ? 'yes' : 'NO'} |`,
      );
    }
  }

  console.log(`\nratios within a round (median over rounds): 200 req/s at N connections ÷ the same server's at ${REFERENCE}`);
  for (const s of SETUPS) {
    const ref = cells.get(cellKey(s.key, REFERENCE)) ?? [];
    for (const c of CONNECTIONS.slice(1)) {
      const list = cells.get(cellKey(s.key, c)) ?? [];
      const ratios = list.map((x, i) => x.okRps / (ref[i]?.okRps ?? NaN));
      const r = median(ratios);
      const judged = s.key !== 'off' && c === 256 ? ` (target ≥ ${TARGET_RATIO}: ${r >= TARGET_RATIO ? 'met' : 'MISSED'})` : '';
      console.log(`- ${s.label}, ${c} connections: ${f(r, 2)} [${ratios.map((x) => f(x, 2)).join(', ')}]${judged}`);
    }
  }

  for (const server of servers.values()) await stopProcess(server.proc);
  fs.rmSync(dir, { recursive: true, force: true });
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
