// Batching saturation bench: batching on a model whose per-item cost falls steeply with batch size (a deep,
// narrow MLP: per-op dispatch dominates at batch 1, as kernel launches do on a GPU).
//  1. the model's offline T(batch) curve, in this process, on the runtime and session settings
//     of one executor thread (the same runtime classes the executors load it with);
//  2. closed-loop users at light, medium and saturating load against tfgate with batching
//     off, TF Serving-style fixed batch_timeout_micros (a sweep) and tfgate's adaptive mode;
//  3. each saturated cell as the server saw it, from its Prometheus metrics and /proc read
//     before and after: the batch sizes it formed, its executor's time in the engine, its
//     event loop's CPU per request and per batch, and the client's (wrk's) share of the machine;
//     then that engine alone, right after the cell, running the batch sizes the cell ran;
//  4. the targets: saturated throughput ≥ 0.9 × the offline throughput at the batch sizes the
//     server formed in that cell; adaptive at one user ≤ batch-1 latency + 2 ms; adaptive
//     mean ≤ 1.0 × the best fixed timeout at each load;
//  5. beside the saturated cells, two framework floors (report/framework_floor.ts): a bare Hono
//     route reading the same body (with JSON.parse, or its bytes only) and answering the
//     model's 16 outputs' worth of values, under the same wrk; its CPU per request, plus the
//     engine's per item and wrk's, bounds what a server on this framework could serve ÷ offline
//     on this machine.
// Every server is a separate tfgate process with one executor and num_batch_threads 1, all
// started up front (an idle server costs nothing) so that rounds can interleave them: a noisy
// spell on this shared machine then hits every set-up, not whichever ran during it. Rounds
// visit the set-ups forward and backward in turn (round_order.ts), so none always runs first
// or last; a saturated cell runs with the other servers frozen. Each cell is the mean over
// rounds. Closed-loop users start spread over one think time (as Locust's spawn rate would
// spread them, not all in one burst) and think the same seeded times on every set-up of a
// round; the server's metrics, read before and after each cell, give its own view (time in
// tfgate, batch-queue wait, rows per batch). The saturating load uses wrk (C, far lighter)
// when it is installed; the next cell starts once the server has answered what wrk left in
// flight.
// "The best fixed timeout" is chosen on other rounds than those adaptive is compared on
// (held_out.ts): the least of five noisy means, picked after the fact, would favour the fixed
// side by chance alone. The per-round ratios are printed beside the verdict, so a miss within
// their spread reads as what it is; the figure picked after the fact is printed for reference.
//   npm run bench:batching [-- --seconds 1 --rounds 4 --warmup-seconds 8 --depth 16 --width 512]
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DEEP_MLP_OUTPUTS, sinRowBody, writeDeepMlp } from './report/deep_mlp.js';
import { selectRuntime } from '../src/runtimes/runtime_selection.js';
import { runLoad } from './load/generator.js';
import { hasWrk, runWrk } from './load/wrk.js';
import { numberArg } from './load/args.js';
import { openOfflineEngine, type OfflineEngine } from './report/model_curve.js';
import { startTfgate, stopProcess, waitModelAvailable } from './report/processes.js';
import { withServerView, type ServerView } from './report/server_metrics.js';
import { saturatedCell, type SaturatedServer } from './report/saturated_cell.js';
import { roundOrder } from './report/round_order.js';
import { heldOutComparison } from './report/held_out.js';
import { floorCeilingPerSec, frameworkFloorCell, startFrameworkFloor, type FloorCell } from './report/framework_floor.js';

const SECONDS = numberArg('seconds', 1);
/** Even and odd rounds are the two folds of the held-out comparison: at least 2. */
const ROUNDS = Math.max(2, numberArg('rounds', 4));
const INPUT = numberArg('input', 256);
const WIDTH = numberArg('width', 512);
const DEPTH = numberArg('depth', 16);
const MAX_BATCH = 32;
const SATURATING_CLIENTS = 64;
/**
 * Saturated warm-up of each server before any cell (wrk, 64 connections): V8 keeps optimising
 * the request path for tens of thousands of requests, its compiler threads busy 15–35 s into a
 * saturated run; measured from a fresh server in 5 s windows, the bench MLP served 3 740 req/s
 * in the first and 4 200–4 340 from the third on (server CPU 452 → 384–400 µs a request). A
 * long-running server is the warm one. 0: only the short warm-up at 8 connections.
 */
const WARMUP_SECONDS = numberArg('warmup-seconds', 8);
/** How long the engine replays a saturated cell's batches offline after it. */
const REPLAY_MS = numberArg('replay-ms', 600);
const METRICS_PATH = '/monitoring/prometheus/metrics';

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);

interface Load {
  label: string;
  users: number;
  thinkMs?: [number, number];
}

/** One cell of one round, from the Node generator or from wrk (which reports a summary only). */
interface Measured {
  rps: number;
  errors: number;
  meanMs: number;
  p99Ms: number;
  /** Closed-loop cells: the server's own view (its metrics before and after). */
  server?: ServerView;
  /** Saturated cells: what the server and the client did meanwhile. */
  inside?: Inside;
}

/** A saturated cell as the server saw it: its metrics and /proc read before and after. */
interface Inside {
  wallMs: number;
  requests: number;
  /** Executed batches by size (after padding; no allowed_batch_sizes here, so as formed). */
  batches: Map<number, number>;
  /** Executor time in the engine on batches (tfgate_executor_busy_seconds_total), ms. */
  engineMs: number;
  /** CPU of the server's main thread (its event loop), of its busiest other thread (the executor), and of the whole process, ms. */
  mainCpuMs: number;
  executorThreadCpuMs: number;
  processCpuMs: number;
  /** wrk's CPU, ms. */
  clientCpuMs: number;
  /** The engine alone in this process right after the cell, running the batches the server ran (every server frozen). */
  offline: { itemsPerSec: number; cpuMsPerItem: number };
}

/** wrk against `url` with every other server frozen, and the server's own view of it. */
async function saturatedCellMeasured(
  server: SaturatedServer,
  others: ChildProcess[],
  body: string,
  connections: number,
  offline: OfflineEngine,
): Promise<Measured> {
  const c = await saturatedCell(server, others, {
    body,
    connections,
    seconds: SECONDS,
    offline,
    replayMs: REPLAY_MS,
    // Batching off: each request ran alone, a batch of 1.
    replayMix: (batches, requests) => (batches.size ? batches : new Map([[1, requests]])),
  });
  return {
    rps: c.wrk.rps,
    errors: c.wrk.non2xx,
    meanMs: c.wrk.meanMs,
    p99Ms: c.wrk.p99Ms,
    inside: {
      wallMs: c.wallMs,
      requests: c.wrk.requests,
      batches: c.batches,
      engineMs: c.engineMs,
      mainCpuMs: c.mainCpuMs,
      executorThreadCpuMs: c.executorThreadCpuMs,
      processCpuMs: c.processCpuMs,
      clientCpuMs: c.wrk.clientCpuMs,
      offline: c.offline,
    },
  };
}

/** The row count below which `share` of the rows ran (rows weighted: what a request sees). */
function rowQuantile(batches: Map<number, number>, share: number): number {
  const sizes = [...batches.keys()].sort((x, y) => x - y);
  const total = sizes.reduce((t, b) => t + b * batches.get(b)!, 0);
  let seen = 0;
  for (const b of sizes) {
    seen += b * batches.get(b)!;
    if (seen >= share * total) return b;
  }
  return sizes[sizes.length - 1] ?? 0;
}

async function main() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tfgate-bench-batching-'));
  const version = path.join(dir, 'mlp', '1');
  await writeDeepMlp(version, { input: INPUT, width: WIDTH, depth: DEPTH });

  // 1. Offline T(batch): the runtime the servers resolve (--runtime=auto, theirs by default),
  // loaded by the same classes with the session settings of one executor thread, in this
  // process. Each saturated cell is compared with a replay of its own batches right after it.
  const selection = await selectRuntime('auto');
  const offline = await openOfflineEngine(version, INPUT, selection.runtime);
  const T = new Map<number, number>();
  for (const b of [1, 2, 4, 8, 16, 32].filter((x) => x <= MAX_BATCH)) T.set(b, (await offline.timeBatch(b, 300)).medianMs);
  const t1 = T.get(1)!;
  console.log(
    `model: MLP ${INPUT}-${WIDTH}×${DEPTH}-16 relu; offline on ${offline.backend} (${selection.reason}), one thread, in this process`,
  );
  console.log('| batch | T(batch) ms (median run) | ms per item | per item ÷ batch 1 |');
  console.log('|---:|---:|---:|---:|');
  for (const [b, ms] of T) console.log(`| ${b} | ${ms.toFixed(3)} | ${(ms / b).toFixed(3)} | ${(ms / b / t1).toFixed(3)} |`);
  console.log(
    `offline throughput at batch ${MAX_BATCH}: ${((MAX_BATCH * 1000) / T.get(MAX_BATCH)!).toFixed(0)} items/s; at batch 1: ${(1000 / t1).toFixed(0)} items/s\n`,
  );

  // 2. Set-ups × loads. Timeouts are scaled to the model: fractions and multiples of T(1).
  const timeoutsMicros = [0, 0.25, 0.5, 1, 2].map((f) => Math.round(f * t1 * 1000));
  const setups: Array<{ label: string; args: string[]; fixedTimeout?: number; adaptive?: boolean }> = [
    { label: 'batching off', args: [] },
    ...timeoutsMicros.map((t) => ({
      label: `fixed timeout ${t} µs`,
      args: ['--enable_batching', `--batching_parameters_file=${cfg(dir, t)}`],
      fixedTimeout: t,
    })),
    {
      label: 'adaptive',
      args: ['--enable_batching', `--batching_parameters_file=${cfg(dir, 0)}`, '--batching_mode=adaptive'],
      adaptive: true,
    },
  ];
  // Think time so that `users` offer about the given share of batch-1 capacity, ±50 % spread.
  const think = (users: number, load: number): [number, number] => {
    const m = (users * t1) / load;
    return [0.5 * m, 1.5 * m];
  };
  const loads: Load[] = [
    { label: '1 user', users: 1, thinkMs: think(1, 0.1) },
    { label: 'light (8 users, ~40 % of batch-1 capacity)', users: 8, thinkMs: think(8, 0.4) },
    { label: 'medium (32 users, ~150 % of batch-1 capacity)', users: 32, thinkMs: think(32, 1.5) },
    { label: `saturating (${SATURATING_CLIENTS} users, no think time)`, users: SATURATING_CLIENTS },
  ];
  const body = sinRowBody(INPUT);
  const useWrk = hasWrk();
  const monitoring = path.join(dir, 'monitoring.cfg');
  fs.writeFileSync(monitoring, `prometheus_config { enable: true path: "${METRICS_PATH}" }\n`);
  const servers = new Map<string, { proc: ChildProcess; url: string; metricsUrl: string }>();
  for (const s of setups) {
    const server = await startTfgate('mlp', path.join(dir, 'mlp'), [
      '--num_executors=1',
      `--monitoring_config_file=${monitoring}`,
      ...s.args,
    ]);
    servers.set(s.label, {
      proc: server.proc,
      url: `http://127.0.0.1:${server.port}/v1/models/mlp:predict`,
      metricsUrl: `http://127.0.0.1:${server.port}${METRICS_PATH}`,
    });
    await waitModelAvailable(server.port, 'mlp');
    await runLoad({ url: servers.get(s.label)!.url, method: 'POST', body, mode: { kind: 'concurrency', connections: 8 }, durationMs: 500 }); // warm up
    if (useWrk && WARMUP_SECONDS > 0) runWrk(servers.get(s.label)!.url, body, SATURATING_CLIENTS, WARMUP_SECONDS);
  }
  // The framework floors beside them (saturated cells only, where wrk runs): the body parsed by
  // JSON.parse, and its bytes taken unparsed.
  const floors = useWrk
    ? [
        { label: 'parsed by JSON.parse', server: await startFrameworkFloor(DEEP_MLP_OUTPUTS), cells: [] as FloorCell[] },
        { label: 'bytes taken, not parsed', server: await startFrameworkFloor(DEEP_MLP_OUTPUTS, true), cells: [] as FloorCell[] },
      ]
    : [];
  if (WARMUP_SECONDS > 0) for (const f of floors) runWrk(f.server.url, body, SATURATING_CLIENTS, WARMUP_SECONDS);
  const procs = [...servers.values()].map((s) => s.proc).concat(floors.map((f) => f.server.proc));
  // results[setup][load] = one measurement per round.
  const results = new Map<string, Map<string, Measured[]>>(setups.map((s) => [s.label, new Map(loads.map((l) => [l.label, []]))]));
  try {
    for (let round = 0; round < ROUNDS; round++) {
      for (const l of loads) {
        for (const s of roundOrder(setups, round)) {
          const server = servers.get(s.label)!;
          let r: Measured;
          if (l.thinkMs === undefined && useWrk) {
            r = await saturatedCellMeasured(
              server,
              procs.filter((p) => p !== server.proc),
              body,
              l.users,
              offline,
            );
          } else {
            const mode = l.thinkMs
              ? ({
                  kind: 'closed',
                  users: l.users,
                  thinkMs: l.thinkMs,
                  spawnRatePerSec: (l.users * 1000) / ((l.thinkMs[0] + l.thinkMs[1]) / 2),
                } as const)
              : ({ kind: 'concurrency', connections: l.users } as const);
            const { result: g, server: view } = await withServerView(server.metricsUrl, () =>
              runLoad({ url: server.url, method: 'POST', body, mode, durationMs: SECONDS * 1000, seed: round * 1000 + l.users }),
            );
            const sum = g.recorder.summary();
            r = { rps: g.rps, errors: sum.errors, meanMs: sum.meanMs, p99Ms: sum.p99Ms, server: view };
          }
          results.get(s.label)!.get(l.label)!.push(r);
        }
        if (l.thinkMs === undefined)
          for (const f of floors)
            f.cells.push(
              await frameworkFloorCell(
                f.server,
                procs.filter((p) => p !== f.server.proc),
                body,
                l.users,
                SECONDS,
              ),
            );
        process.stderr.write(`round ${round + 1}/${ROUNDS}: ${l.label} measured on every set-up\n`);
      }
    }
  } finally {
    offline.dispose();
    await Promise.all(procs.map((p) => stopProcess(p)));
  }
  const meanLatency = (rs: Measured[]) => mean(rs.map((r) => r.meanMs));
  const p99 = (rs: Measured[]) => mean(rs.map((r) => r.p99Ms));
  const rps = (rs: Measured[]) => mean(rs.map((r) => r.rps));
  const errors = (rs: Measured[]) => rs.reduce((n, r) => n + r.errors, 0);

  console.log(
    `closed-loop users (uniform think time ±50 %), ${SECONDS} s per cell and round, ${ROUNDS} rounds interleaved; mean / p99 latency in ms (req/s; errors)${useWrk ? '; saturating load by wrk' : ''}`,
  );
  console.log(`| set-up | ${loads.map((l) => l.label).join(' | ')} |`);
  console.log(`|---|${loads.map(() => '---:').join('|')}|`);
  for (const [label, byLoad] of results) {
    const cells = loads.map((l) => {
      const rs = byLoad.get(l.label)!;
      return `${meanLatency(rs).toFixed(2)} / ${p99(rs).toFixed(2)} (${rps(rs).toFixed(0)}; ${errors(rs)})`;
    });
    console.log(`| ${label} | ${cells.join(' | ')} |`);
  }
  const closedLoads = loads.filter((l) => l.thinkMs);
  console.log(
    `\nthe same cells as the server saw them (its metrics before and after each cell, rounds pooled): mean time in tfgate / batch-queue wait in ms; rows per batch`,
  );
  console.log(`| set-up | ${closedLoads.map((l) => l.label).join(' | ')} |`);
  console.log(`|---|${closedLoads.map(() => '---:').join('|')}|`);
  for (const [label, byLoad] of results) {
    const cells = closedLoads.map((l) => {
      const views = byLoad
        .get(l.label)!
        .map((r) => r.server)
        .filter((v): v is ServerView => v !== undefined && v.requests > 0);
      if (!views.length) return '–';
      const requests = views.reduce((t, v) => t + v.requests, 0);
      const weighted = (f: (v: ServerView) => number) => views.reduce((t, v) => t + f(v) * v.requests, 0) / requests;
      const rows = label === 'batching off' ? 'unbatched' : `batch ${weighted((v) => v.meanBatchSize).toFixed(2)}`;
      return `${weighted((v) => v.requestMs).toFixed(2)} / ${weighted((v) => v.queueingMs).toFixed(2)}; ${rows}`;
    });
    console.log(`| ${label} | ${cells.join(' | ')} |`);
  }

  // 3. The saturated cells from inside, each set-up's rounds pooled; offline: each cell's own batches replayed right after it.
  const saturating = loads[loads.length - 1].label;
  const cores = os.cpus().length;
  const ratios = new Map<string, number>();
  const cpuRatios = new Map<string, number>();
  let floorCeiling = NaN;
  if (useWrk) {
    console.log(
      `\nsaturated (${SATURATING_CLIENTS} wrk connections) as the server saw it, from its metrics and /proc before and after each cell, ${ROUNDS} rounds pooled. ` +
        `offline: the engine alone in this process, right after each cell, running the batch sizes that cell ran, in their proportions (every server frozen). ` +
        `engine busy: the executor's time in the engine ÷ wall; executor thread: its CPU ÷ wall. ` +
        `CPU per request: the executor thread's, the event loop's (per request / per batch), and the offline engine's per item at the same batches. ` +
        `wrk and server: CPU as a share of the machine (${cores} cores). ` +
        `CPU bound ÷ offline: what the CPU time per request allows on this machine with nothing else running — the least of one core ÷ the executor's CPU per request, ` +
        `one core ÷ the event loop's, and ${cores} cores ÷ the server's and wrk's — over one core ÷ the offline engine's CPU per item (on a shared machine wall-clock ratios follow the other load; CPU times move with it too, less).`,
    );
    console.log(
      '| set-up | served req/s | rows per batch: mean / row-weighted median / batches at max | offline items/s, same batches | served ÷ offline | engine busy | executor thread busy | CPU µs per request: executor / event loop (per batch) / whole server / offline per item | wrk CPU | server CPU | CPU bound ÷ offline |',
    );
    console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
    const pct = (x: number) => `${(100 * x).toFixed(0)} %`;
    for (const s of setups) {
      const rs = results.get(s.label)!.get(saturating)!;
      const ins = rs.map((r) => r.inside!).filter(Boolean);
      if (!ins.length) continue;
      const sum = (f: (x: Inside) => number) => ins.reduce((t, x) => t + f(x), 0);
      const wall = sum((x) => x.wallMs);
      const requests = sum((x) => x.requests);
      const batches = new Map<number, number>();
      for (const x of ins) for (const [b, n] of x.batches) batches.set(b, (batches.get(b) ?? 0) + n);
      const batchCount = [...batches.values()].reduce((t, n) => t + n, 0);
      const rows = [...batches].reduce((t, [b, n]) => t + b * n, 0);
      const served = rps(rs);
      const off = mean(ins.map((x) => x.offline.itemsPerSec));
      const offCpuUs = mean(ins.map((x) => x.offline.cpuMsPerItem)) * 1000;
      ratios.set(s.label, served / off);
      const cpuPerRequest = (f: (x: Inside) => number) => sum(f) / requests;
      const cpuBound = Math.min(
        1 / cpuPerRequest((x) => x.executorThreadCpuMs),
        1 / cpuPerRequest((x) => x.mainCpuMs),
        cores / cpuPerRequest((x) => x.processCpuMs + x.clientCpuMs),
      );
      cpuRatios.set(s.label, cpuBound * (offCpuUs / 1000));
      const perRequest = (ms: number) => ((ms * 1000) / requests).toFixed(0);
      const sizes = batchCount
        ? `${(rows / batchCount).toFixed(1)} / ${rowQuantile(batches, 0.5)} / ${pct((batches.get(MAX_BATCH) ?? 0) / batchCount)}`
        : '1 (unbatched)';
      const loop = sum((x) => x.mainCpuMs);
      console.log(
        `| ${s.label} | ${served.toFixed(0)} | ${sizes} | ${off.toFixed(0)} | ${(served / off).toFixed(2)} | ${batchCount ? pct(sum((x) => x.engineMs) / wall) : '–'} | ${pct(sum((x) => x.executorThreadCpuMs) / wall)} | ${perRequest(sum((x) => x.executorThreadCpuMs))} / ${perRequest(loop)} (${batchCount ? ((loop * 1000) / batchCount).toFixed(0) : '–'}) / ${perRequest(sum((x) => x.processCpuMs))} / ${offCpuUs.toFixed(0)} | ${pct(sum((x) => x.clientCpuMs) / wall / cores)} | ${pct(sum((x) => x.processCpuMs) / wall / cores)} | ${cpuRatios.get(s.label)!.toFixed(2)} |`,
      );
    }
    // The engine at the batch sizes adaptive formed: the ratio the target judges.
    const replays = results
      .get('adaptive')!
      .get(saturating)!
      .flatMap((r) => (r.inside ? [r.inside.offline] : []));
    const engineUs = mean(replays.map((o) => o.cpuMsPerItem)) * 1000;
    const offlineRate = mean(replays.map((o) => o.itemsPerSec));
    if (floors.length)
      console.log(
        `\nframework floors: a bare Hono route reading the same body and answering ${DEEP_MLP_OUTPUTS} values (no model, thread, batching or checks), same wrk, ${ROUNDS} rounds. ` +
          `Ceiling ÷ offline: what a server adding nothing to the floor but the engine's ${engineUs.toFixed(0)} µs per item could serve — the least of one core ÷ the floor's event loop ` +
          `and ${cores} cores ÷ (its process + the engine + wrk) per request — over the offline rate.\n` +
          '| floor | req/s | CPU µs per request: event loop / whole process / wrk | ceiling ÷ offline |\n|---|---:|---:|---:|',
      );
    for (const f of floors) {
      const requests = f.cells.reduce((t, c) => t + c.requests, 0);
      const perRequest = (g: (c: FloorCell) => number) => ((f.cells.reduce((t, c) => t + g(c), 0) * 1000) / requests).toFixed(0);
      const ceiling = floorCeilingPerSec(f.cells, engineUs, cores) / offlineRate;
      floorCeiling = Number.isFinite(floorCeiling) ? Math.max(floorCeiling, ceiling) : ceiling;
      console.log(
        `| ${f.label} | ${mean(f.cells.map((c) => c.rps)).toFixed(0)} | ${perRequest((c) => c.mainCpuMs)} / ${perRequest((c) => c.processCpuMs)} / ${perRequest((c) => c.clientCpuMs)} | ${ceiling.toFixed(2)} |`,
      );
    }
    console.log(`(machine load: ${os.loadavg()[0].toFixed(1)} at the end, on ${cores} cores; /proc counts CPU in 10 ms ticks)`);
  }

  // 4. Targets.
  console.log('\ntargets:');
  const adaptive = results.get('adaptive')!;
  const satRps = rps(adaptive.get(saturating)!);
  const ratio = ratios.get('adaptive');
  if (ratio === undefined) {
    console.log(`- saturated throughput (adaptive) ÷ offline at the same batch sizes: not measured (needs wrk for the server's view)`);
  } else {
    console.log(
      `- saturated throughput (adaptive) ÷ offline throughput at the batch sizes it formed: ${ratio.toFixed(2)} (${satRps.toFixed(0)} req/s) (target ≥ 0.9): ${ratio >= 0.9 ? 'met' : 'missed'}`,
    );
    console.log(
      `  from CPU time, which the machine's other load moves less: ${cpuRatios.get('adaptive')!.toFixed(2)} (${cpuRatios.get('adaptive')! >= 0.9 ? 'met' : 'missed'} so measured)`,
    );
    if (Number.isFinite(floorCeiling))
      console.log(
        `  the framework floors' higher ceiling on this machine: ${floorCeiling.toFixed(2)} (${floorCeiling >= 0.9 ? 'the target is within it' : 'the target is beyond what the bare framework allows here'})`,
      );
    const fixed = timeoutsMicros.map((t) => [t, ratios.get(`fixed timeout ${t} µs`) ?? 0] as const).reduce((x, y) => (y[1] > x[1] ? y : x));
    console.log(
      `- the same for the best fixed timeout (${fixed[0]} µs): ${fixed[1].toFixed(2)}; from CPU time ${cpuRatios.get(`fixed timeout ${fixed[0]} µs`)!.toFixed(2)}`,
    );
  }
  const oneUser = meanLatency(adaptive.get(loads[0].label)!);
  console.log(
    `- adaptive at 1 user: ${oneUser.toFixed(2)} ms vs batch-1 latency ${t1.toFixed(2)} ms: +${(oneUser - t1).toFixed(2)} ms (target ≤ +2 ms)`,
  );
  const offOneUser = meanLatency(results.get('batching off')!.get(loads[0].label)!);
  console.log(
    `  (the same request with batching off, i.e. the server's own batch-1 latency over HTTP: ${offOneUser.toFixed(2)} ms; adaptive adds ${(oneUser - offOneUser).toFixed(2)} ms)`,
  );
  console.log(
    `  adaptive ÷ the best fixed timeout, chosen on the even rounds and measured on the odd ones and the other way round; per round: adaptive ÷ the timeout chosen on the other rounds`,
  );
  for (const l of loads) {
    const perRound = (label: string) =>
      results
        .get(label)!
        .get(l.label)!
        .map((r) => r.meanMs);
    const fixed = new Map(timeoutsMicros.map((t) => [`${t} µs`, perRound(`fixed timeout ${t} µs`)]));
    const h = heldOutComparison(perRound('adaptive'), fixed);
    const chosen = h.chosenOnEven === h.chosenOnOdd ? h.chosenOnEven : `${h.chosenOnEven} on even rounds, ${h.chosenOnOdd} on odd`;
    const spread = `per round ${h.perRound.map((x) => x.toFixed(2)).join(' ')}, ${Math.min(...h.perRound).toFixed(2)}–${Math.max(...h.perRound).toFixed(2)}`;
    console.log(
      `- ${l.label}: adaptive mean ${h.adaptiveMean.toFixed(2)} ms, best fixed (${chosen}) ${h.fixedMean.toFixed(2)} ms: ratio ${h.ratio.toFixed(3)} (target ≤ 1.0): ${h.ratio <= 1 ? 'met' : 'missed'}; ${spread}; chosen after the fact: ${h.afterTheFact.setup}, ratio ${h.afterTheFact.ratio.toFixed(3)}`,
    );
  }
  fs.rmSync(dir, { recursive: true, force: true });
}

function cfg(dir: string, timeoutMicros: number): string {
  const file = path.join(dir, `batching_${timeoutMicros}.cfg`);
  fs.writeFileSync(
    file,
    `max_batch_size { value: ${MAX_BATCH} }\nbatch_timeout_micros { value: ${timeoutMicros} }\nmax_enqueued_batches { value: 1000 }\nnum_batch_threads { value: 1 }\n`,
  );
  return file;
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
