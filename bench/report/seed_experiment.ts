// The seed article's experiment, time-scaled: closed-loop users with Locust think times
// against every set-up, users swept up to saturation; then each set-up saturated (no think
// time) for its throughput. Rounds interleave the set-ups so that a noisy spell on this
// shared machine hits all of them, not whichever ran during it, forward and backward in turn
// (round_order.ts); a cell's latencies are the union of its rounds.
import { LatencyRecorder, type LatencySummary } from '../load/latency_recorder.js';
import { runLoadInWorker, progressLine } from '../load/load_worker.js';
import type { LoadSpec } from '../load/generator.js';
import { hasWrk, runWrk } from '../load/wrk.js';
import { alone, peakRssSampler } from './processes.js';
import { roundOrder } from './round_order.js';
import type { StartedSetup } from './setups.js';
import { withBatchSizes, withServerView, type ServerView } from './server_metrics.js';

export interface SeedOptions {
  users: number[];
  thinkMs: [number, number];
  cellSeconds: number;
  rounds: number;
  saturatingConnections: number;
  body: string;
}

export interface SeedCell {
  setup: string;
  users: number;
  rps: number;
  latency: LatencySummary;
  /** Each round's mean latency (ms), in round order: what a comparison held out from its choice reads (held_out.ts). */
  roundMeansMs?: number[];
  /** tfgate's own figures for the cell (single-process tfgate set-ups only). */
  server?: ServerView;
}

interface SaturationCell {
  setup: string;
  client: string;
  rps: number;
  meanMs: number;
  p99Ms: number;
  errors: number;
  /** Batches the server ran during the cell, by size (tfgate set-ups with batching): what the offline comparison runs. */
  batches?: Record<string, number>;
}

export interface SeedResults {
  cells: SeedCell[];
  saturation: SaturationCell[];
  /** The Node generator beside wrk on the same saturated route (the generator's own check). */
  generatorCheck?: { route: string; wrkRps: number; generatorRps: number; ratio: number };
  peakRssMb: Record<string, number>;
}

export async function runSeedExperiment(servers: StartedSetup[], o: SeedOptions, log: (line: string) => void): Promise<SeedResults> {
  const samplers = new Map(servers.map((s) => [s.setup.key, peakRssSampler(s.proc.pid!, 500)]));
  const recorders = new Map<string, LatencyRecorder>();
  const rates = new Map<string, number[]>();
  const roundMeans = new Map<string, number[]>();
  const views = new Map<string, ServerView[]>();
  const thinkMean = (o.thinkMs[0] + o.thinkMs[1]) / 2;

  for (const s of servers)
    await alone(servers, s, () =>
      runLoadInWorker({ url: s.url, body: o.body, mode: { kind: 'concurrency', connections: 16 }, durationMs: 1500 }),
    ); // warm up (and let adaptive learn)

  for (let round = 0; round < o.rounds; round++) {
    for (const users of o.users) {
      for (const s of roundOrder(servers, round)) {
        // Users start spread over one think time, as Locust's spawn rate would spread them.
        const spec: LoadSpec = {
          url: s.url,
          body: o.body,
          mode: { kind: 'closed', users, thinkMs: o.thinkMs, spawnRatePerSec: (users * 1000) / thinkMean },
          durationMs: o.cellSeconds * 1000,
          seed: round * 1000 + users,
        };
        const settle = () => runLoadInWorker({ url: s.url, body: o.body, mode: { kind: 'concurrency', connections: 4 }, durationMs: 400 });
        const { result: r, server } = await alone(
          servers,
          s,
          () =>
            withServerView(s.metricsUrl, () =>
              runLoadInWorker(spec, progressLine(`round ${round + 1}/${o.rounds} ${s.setup.key}, ${users} users`)),
            ),
          settle,
        );
        const key = `${s.setup.key}|${users}`;
        if (server) views.set(key, [...(views.get(key) ?? []), server]);
        if (recorders.has(key)) recorders.get(key)!.add(r.recorder);
        else recorders.set(key, r.recorder);
        rates.set(key, [...(rates.get(key) ?? []), r.rps]);
        roundMeans.set(key, [...(roundMeans.get(key) ?? []), r.recorder.summary().meanMs]);
      }
    }
  }
  process.stderr.write('\n');
  const cells = servers.flatMap((s) =>
    o.users.map((users): SeedCell => {
      const key = `${s.setup.key}|${users}`;
      const rs = rates.get(key)!;
      return {
        setup: s.setup.key,
        users,
        rps: rs.reduce((a, b) => a + b, 0) / rs.length,
        latency: recorders.get(key)!.summary(),
        roundMeansMs: roundMeans.get(key),
        server: combineViews(views.get(key)),
      };
    }),
  );

  // Saturation: wrk (C, far lighter than a Node client on 2 shared cores) when installed.
  const useWrk = hasWrk();
  const saturation: SaturationCell[] = [];
  let generatorCheck: SeedResults['generatorCheck'];
  for (const s of servers) {
    const settle = () => runLoadInWorker({ url: s.url, body: o.body, mode: { kind: 'concurrency', connections: 4 }, durationMs: 400 });
    await alone(
      servers,
      s,
      async () => {
        const best: SaturationCell[] = [];
        for (let round = 0; round < o.rounds; round++) {
          if (useWrk) {
            const { result: w, batches } = await withBatchSizes(s.metricsUrl, async () =>
              runWrk(s.url, o.body, o.saturatingConnections, o.cellSeconds),
            );
            best.push({
              setup: s.setup.key,
              client: `wrk, ${o.saturatingConnections} connections`,
              rps: w.rps,
              meanMs: w.meanMs,
              p99Ms: w.p99Ms,
              errors: w.non2xx,
              ...(batches && { batches }),
            });
          } else {
            const r = await runLoadInWorker({
              url: s.url,
              body: o.body,
              mode: { kind: 'concurrency', connections: o.saturatingConnections },
              durationMs: o.cellSeconds * 1000,
            });
            const sum = r.recorder.summary();
            best.push({
              setup: s.setup.key,
              client: `tfgate generator, ${o.saturatingConnections} connections`,
              rps: r.rps,
              meanMs: sum.meanMs,
              p99Ms: sum.p99Ms,
              errors: sum.errors,
            });
          }
        }
        const kept = best.reduce((a, b) => (b.rps > a.rps ? b : a));
        saturation.push(kept);
        log(`saturated ${s.setup.key}: ${kept.rps.toFixed(0)} req/s`);
        if (useWrk && s.setup.kind === 'adaptive') {
          // The generator checked against wrk where the server, not the client, is the limit:
          // generator runs between two wrk runs, compared with their mean (drift cancels).
          const wrkBefore = best[best.length - 1].rps;
          const r = await runLoadInWorker({
            url: s.url,
            body: o.body,
            mode: { kind: 'concurrency', connections: o.saturatingConnections },
            durationMs: o.cellSeconds * 1000,
          });
          const wrkAfter = runWrk(s.url, o.body, o.saturatingConnections, o.cellSeconds).rps;
          const wrkRps = (wrkBefore + wrkAfter) / 2;
          generatorCheck = { route: `${s.setup.label} :predict`, wrkRps, generatorRps: r.rps, ratio: r.rps / wrkRps };
        }
      },
      settle,
    );
  }
  const peakRssMb = Object.fromEntries([...samplers].map(([k, sampler]) => [k, sampler.stop()]));
  return { cells, saturation, generatorCheck, peakRssMb };
}

/** Rounds' server views as one, weighted by their request counts. */
function combineViews(vs: ServerView[] | undefined): ServerView | undefined {
  if (!vs?.length) return undefined;
  const requests = vs.reduce((n, v) => n + v.requests, 0);
  const mean = (k: 'requestMs' | 'queueingMs' | 'meanBatchSize') =>
    vs.reduce((sum, v) => sum + v[k] * v.requests, 0) / Math.max(1, requests);
  return { requests, requestMs: mean('requestMs'), queueingMs: mean('queueingMs'), meanBatchSize: mean('meanBatchSize') };
}
