// Latency when traffic is light, for one runtime: on the bench model and on half_plus_two,
// the model's in-process batch-1 time; tfgate (executors, no batching) beside the naive inline
// server on the same engine — one user with think time (closed loop), then open loop at a few
// rates — and tfgate's own breakdown of a request from its Server-Timing header. Set-ups are
// measured in turn at each point (interleaved), each with the machine to itself.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { LatencySummary } from '../load/latency_recorder.js';
import { runLoadInWorker } from '../load/load_worker.js';
import { measureBatch1AfterThink, measureCurve } from '../report/model_curve.js';
import { alone, startNodeProcess, startTfgate, stopProcess, waitModelAvailable, type RunningServer } from '../report/processes.js';
import type { MlpDescription } from '../../test_util/savedmodel/model_zoo.js';
import type { ResolvedRuntime } from '../../src/runtimes/runtime_selection.js';
import { probeSequential, type ProbeResult } from './sequential_probe.js';

export interface LatencyModel {
  /** Shown in the report. */
  label: string;
  /** Served as this name; the base path holds version 1. */
  name: string;
  base: string;
  body: string;
  /** For the in-process timing (any model whose input is x: [batch, inputDim]). */
  mlp: Pick<MlpDescription, 'inputDim' | 'layers'>;
}

interface LatencyPoint {
  /** 'one user' or the open-loop rate. */
  ratePerSec?: number;
  tfgate: LatencySummary;
  naive: LatencySummary;
}

export interface LatencyModelResult {
  label: string;
  batch1Ms: number;
  batch1AfterThinkMs: number;
  thinkMs: [number, number];
  oneUser: LatencyPoint;
  open: LatencyPoint[];
  /** tfgate, one request at a time with the think time between: client latency and Server-Timing means. */
  breakdown: ProbeResult;
}

export interface LatencyRunOptions {
  runtime: { choice: string; resolved: ResolvedRuntime };
  executors: number;
  /** Between a user's requests, uniform in [min, max] ms. */
  thinkMs: [number, number];
  /** Take the think time from this model instead: the seed's, scaled to its batch-1 time. */
  scaleThink?: boolean;
  rates: number[];
  seconds: number;
  probeRequests: number;
  log: (line: string) => void;
}

const NAIVE_SERVER = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'report', 'naive_server.js');

/** The seed's think time between(1, 3) s on its 300 ms model, scaled to a model's batch-1 time. */
const seedThinkMs = (batch1Ms: number): [number, number] => [(1000 * batch1Ms) / 300, (3000 * batch1Ms) / 300];

export async function measureModel(model: LatencyModel, o: LatencyRunOptions): Promise<LatencyModelResult> {
  const versionDir = path.join(model.base, '1');
  const { curve } = await measureCurve(versionDir, model.mlp as MlpDescription, [1], o.seconds * 200, o.runtime.resolved);
  const batch1Ms = curve[0].ms;
  o = { ...o, thinkMs: o.scaleThink ? seedThinkMs(batch1Ms) : o.thinkMs };
  const batch1AfterThinkMs = await measureBatch1AfterThink(
    versionDir,
    model.mlp as MlpDescription,
    o.thinkMs,
    Math.max(20, o.probeRequests / 2),
    o.runtime.resolved,
  );
  o.log(`  ${model.label}: batch 1 in-process ${batch1Ms.toFixed(3)} ms, ${batch1AfterThinkMs.toFixed(3)} ms after think time`);
  const servers: RunningServer[] = [];
  try {
    const tfgate = await startTfgate(model.name, model.base, [`--runtime=${o.runtime.choice}`, `--num_executors=${o.executors}`]);
    servers.push(tfgate);
    await waitModelAvailable(tfgate.port, model.name);
    const naive = await startNodeProcess([NAIVE_SERVER, versionDir, '0', o.runtime.resolved], /listening (\d+)/);
    servers.push(naive);
    const url = (s: RunningServer) => `http://127.0.0.1:${s.port}/v1/models/${model.name}:predict`;
    const warm = (s: RunningServer) => () =>
      runLoadInWorker({ url: url(s), body: model.body, mode: { kind: 'concurrency', connections: 2 }, durationMs: 400 });
    const both = async (spec: (s: RunningServer) => Parameters<typeof runLoadInWorker>[0]) => {
      const [t, n] = [
        await alone(servers, tfgate, () => runLoadInWorker(spec(tfgate)), warm(tfgate)),
        await alone(servers, naive, () => runLoadInWorker(spec(naive)), warm(naive)),
      ];
      return { tfgate: t.recorder.summary(), naive: n.recorder.summary() };
    };
    const durationMs = o.seconds * 1000;
    const oneUser = await both((s) => ({
      url: url(s),
      body: model.body,
      mode: { kind: 'closed', users: 1, thinkMs: o.thinkMs },
      durationMs,
    }));
    o.log(`    1 user: tfgate ${oneUser.tfgate.meanMs.toFixed(2)} ms, naive ${oneUser.naive.meanMs.toFixed(2)} ms`);
    const open: LatencyPoint[] = [];
    for (const rate of o.rates) {
      const p = await both((s) => ({ url: url(s), body: model.body, mode: { kind: 'open', ratePerSec: rate }, durationMs }));
      open.push({ ratePerSec: rate, ...p });
      o.log(`    ${rate} req/s: tfgate ${p.tfgate.meanMs.toFixed(2)} ms, naive ${p.naive.meanMs.toFixed(2)} ms`);
    }
    const breakdown = await alone(servers, tfgate, () =>
      probeSequential({ url: url(tfgate), body: model.body, requests: o.probeRequests, gapMs: o.thinkMs }),
    );
    o.log(
      `    breakdown: ${Object.entries(breakdown.serverMs)
        .map(([k, v]) => `${k} ${v.toFixed(3)}`)
        .join(', ')} ms of ${breakdown.meanMs.toFixed(3)} ms`,
    );
    return { label: model.label, batch1Ms, batch1AfterThinkMs, thinkMs: o.thinkMs, oneUser, open, breakdown };
  } finally {
    await Promise.all(servers.map((s) => stopProcess(s.proc)));
  }
}
