// The latency bench, all of it in one run: for each runtime that loads, the light-traffic
// experiment on the bench model and on half_plus_two (latency_experiment.ts) and tfgate beside
// a bare Hono echo one request at a time (back to back, and after 200 ms of idle); then, once,
// REST :predict beside the echo under 32 connections and gRPC's server CPU per call beside
// REST's. Every target is judged on figures of this same run.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describeMlp, writeMlpSavedModel } from '../../test_util/savedmodel/model_zoo.js';
import { RuntimeUnavailableError, selectRuntime } from '../../src/runtimes/runtime_selection.js';
import type { RuntimeChoice } from '../../src/config/flags.js';
import { REPO, alone, startNodeProcess, startTfgate, stopProcess, waitModelAvailable } from '../report/processes.js';
import { roundOrder } from '../report/round_order.js';
import { cpuPerRequestLine, runOverheadExperiment, type OverheadResult } from '../report/overhead_experiment.js';
import type { Target } from '../report/target.js';
import { grpcCpuLine, measureGrpcCpu, type GrpcCpuResult } from './grpc_cpu.js';
import { measureModel, type LatencyModel, type LatencyModelResult } from './latency_experiment.js';
import { probeSequential, type ProbeResult } from './sequential_probe.js';

interface EchoComparison {
  /** Idle before each request, ms (0: back to back). */
  gapMs: number;
  tfgate: ProbeResult;
  echo: ProbeResult;
  /** The echo with one worker-thread round trip per request (hop_echo_server.ts); absent in older results. */
  hopEcho?: ProbeResult;
}

interface RuntimeLatency {
  runtime: { choice: string; resolved: string; reason: string };
  models: LatencyModelResult[];
  echo: EchoComparison[];
}

export interface LatencyResults {
  date: string;
  quick: boolean;
  machine: { cores: number; cpuModel: string; node: string };
  runtimes: RuntimeLatency[];
  /** Skipped runtimes and why. */
  skipped: Record<string, string>;
  overhead?: OverheadResult;
  grpc?: GrpcCpuResult;
  targets: Target[];
}

export interface LatencyBenchOptions {
  quick: boolean;
  runtimes: RuntimeChoice[];
  /** Hidden layers of the bench model (256 wide), as bench:report's. */
  depth: number;
  log: (line: string) => void;
}

const HALF_PLUS_TWO_BODY = JSON.stringify({ instances: [[1.0], [2.0], [5.0]] });
const ECHO_GAPS_MS = [0, 200];

const LOAD_DIR = path.join(REPO, 'dist', 'bench', 'load');

async function compareWithEcho(runtimeChoice: string, requests: number, rounds: number): Promise<EchoComparison[]> {
  const tfgate = await startTfgate('half_plus_two', path.join(REPO, 'model_repository', 'half_plus_two'), [`--runtime=${runtimeChoice}`]);
  const echo = await startNodeProcess([path.join(LOAD_DIR, 'echo_server.js')], /listening (\d+)/);
  const hopEcho = await startNodeProcess([path.join(LOAD_DIR, 'hop_echo_server.js')], /listening (\d+)/);
  const servers = [tfgate, echo, hopEcho];
  try {
    await waitModelAvailable(tfgate.port, 'half_plus_two');
    const urls = new Map([
      [tfgate, `http://127.0.0.1:${tfgate.port}/v1/models/half_plus_two:predict`],
      [echo, `http://127.0.0.1:${echo.port}/echo`],
      [hopEcho, `http://127.0.0.1:${hopEcho.port}/echo`],
    ]);
    const out: EchoComparison[] = [];
    for (const gapMs of ECHO_GAPS_MS) {
      const runs = new Map<unknown, ProbeResult[]>(servers.map((s) => [s, []]));
      // Rounds alternate the servers, forward and backward in turn, so a noisy spell on the machine hits all of them.
      for (let round = 0; round < rounds; round++) {
        for (const s of roundOrder(servers, round))
          runs
            .get(s)!
            .push(
              await alone(servers, s, () =>
                probeSequential({ url: urls.get(s)!, body: HALF_PLUS_TWO_BODY, requests: gapMs ? requests / 4 : requests, gapMs }),
              ),
            );
      }
      const merged = (rs: ProbeResult[]): ProbeResult => {
        const sorted = rs.map((r) => r.medianMs).sort((a, b) => a - b);
        return {
          ...rs[0],
          count: rs.reduce((a, r) => a + r.count, 0),
          meanMs: rs.reduce((a, r) => a + r.meanMs, 0) / rs.length,
          medianMs: sorted[(sorted.length - 1) >> 1],
        };
      };
      out.push({ gapMs, tfgate: merged(runs.get(tfgate)!), echo: merged(runs.get(echo)!), hopEcho: merged(runs.get(hopEcho)!) });
    }
    return out;
  } finally {
    await Promise.all(servers.map((s) => stopProcess(s.proc)));
  }
}

/** Each target met or missed, from one run's results. */
export function evaluate(r: LatencyResults): Target[] {
  const targets: Target[] = [];
  const ms = (v: number) => `${v >= 0 ? '+' : ''}${v.toFixed(2)} ms`;
  for (const rt of r.runtimes) {
    const tag = `[${rt.runtime.resolved}]`;
    for (const e of rt.echo) {
      const d = e.tfgate.medianMs - e.echo.medianMs;
      targets.push({
        name: `${tag} half_plus_two one at a time${e.gapMs ? `, after ${e.gapMs} ms idle` : ', back to back'}: median tfgate − bare Hono echo`,
        measured: `${ms(d)} (${e.tfgate.medianMs.toFixed(3)} vs ${e.echo.medianMs.toFixed(3)} ms)`,
        goal: '≤ +0.3 ms',
        met: d <= 0.3,
      });
    }
    const bench = rt.models[0];
    if (bench) {
      const d = bench.oneUser.tfgate.meanMs - bench.batch1Ms;
      targets.push({
        name: `${tag} ${bench.label}: tfgate 1-user mean − model batch-1 (in-process)`,
        measured: `${ms(d)} (${bench.oneUser.tfgate.meanMs.toFixed(2)} vs ${bench.batch1Ms.toFixed(2)} ms; ${bench.batch1AfterThinkMs.toFixed(2)} ms in-process with the think time)`,
        goal: '≤ +1.0 ms',
        met: d <= 1,
      });
      const at2 = bench.open.find((p) => p.ratePerSec === 2);
      if (at2) {
        const ratio = at2.tfgate.meanMs / at2.naive.meanMs;
        targets.push({
          name: `${tag} ${bench.label}: open loop at 2 req/s, tfgate mean ÷ naive mean`,
          measured: `${ratio.toFixed(2)} (${at2.tfgate.meanMs.toFixed(2)} / ${at2.naive.meanMs.toFixed(2)} ms)`,
          goal: '≤ 1.15',
          met: ratio <= 1.15,
        });
      }
    }
  }
  if (r.overhead)
    targets.push({
      name: `REST :predict on half_plus_two ÷ bare Hono echo, req/s (${r.overhead.client})`,
      measured: `${r.overhead.ratio.toFixed(2)} (${r.overhead.predictRps.toFixed(0)} / ${r.overhead.echoRps.toFixed(0)})`,
      goal: '≥ 0.8',
      met: r.overhead.ratio >= 0.8,
    });
  if (r.grpc) {
    // Older result files measured with 32 callers only.
    const g = r.grpc.sameRate ?? r.grpc;
    const how = r.grpc.sameRate ? `both at ${r.grpc.sameRate.ratePerSec} req/s` : `${r.grpc.callers ?? 32} callers`;
    targets.push({
      name: `gRPC Predict server CPU per call ÷ REST :predict (half_plus_two, ${how})`,
      measured: `${g.ratio.toFixed(2)} (${g.grpcCpuMsPerCall.toFixed(3)} / ${g.restCpuMsPerCall.toFixed(3)} ms)`,
      goal: '≤ 1.1',
      met: g.ratio <= 1.1,
    });
  }
  return targets;
}

export async function runLatencyBench(o: LatencyBenchOptions): Promise<LatencyResults> {
  const { quick, log } = o;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tfgate-bench-latency-'));
  const results: LatencyResults = {
    date: new Date().toISOString(),
    quick,
    machine: { cores: os.cpus().length, cpuModel: os.cpus()[0]?.model ?? 'unknown', node: process.version },
    runtimes: [],
    skipped: {},
    targets: [],
  };
  try {
    const options = { inputDim: 256, hiddenSizes: new Array(o.depth).fill(256), outputDim: 16, activation: 'relu' as const, seed: 3 };
    const benchBase = path.join(dir, 'mlp');
    await writeMlpSavedModel(path.join(benchBase, '1'), options);
    const models: LatencyModel[] = [
      {
        label: `bench model (MLP 256-256×${o.depth}-16)`,
        name: 'mlp',
        base: benchBase,
        body: JSON.stringify({ instances: [Array.from({ length: 256 }, (_, i) => Math.sin(i))] }),
        mlp: describeMlp(options),
      },
      {
        label: 'half_plus_two',
        name: 'half_plus_two',
        base: path.join(REPO, 'model_repository', 'half_plus_two'),
        body: HALF_PLUS_TWO_BODY,
        mlp: { inputDim: 1, layers: [] },
      },
    ];
    for (const choice of o.runtimes) {
      let selection;
      try {
        selection = await selectRuntime(choice);
      } catch (e) {
        if (!(e instanceof RuntimeUnavailableError)) throw e;
        results.skipped[choice] = (e as Error).message;
        log(`==== runtime ${choice}: skipped (${(e as Error).message})`);
        continue;
      }
      log(`==== runtime ${choice}: ${selection.reason}`);
      const runtime = { choice, resolved: selection.runtime, reason: selection.reason };
      const measured: LatencyModelResult[] = [];
      let thinkMs: [number, number] | undefined;
      for (const m of models) {
        // Think time as in the seed experiment, scaled to the bench model (the first), for both models.
        const r = await measureModel(m, {
          runtime,
          executors: os.cpus().length,
          thinkMs: thinkMs ?? [0, 0],
          rates: [2, 20, 100],
          seconds: quick ? 3 : 10,
          probeRequests: quick ? 60 : 200,
          log,
          scaleThink: thinkMs === undefined,
        });
        thinkMs ??= r.thinkMs;
        measured.push(r);
      }
      log('  half_plus_two one at a time beside a bare Hono echo, and the echo through a worker thread');
      const echo = await compareWithEcho(choice, quick ? 400 : 2000, quick ? 2 : 4);
      for (const e of echo)
        log(
          `    gap ${e.gapMs} ms: median tfgate ${e.tfgate.medianMs.toFixed(3)} ms, echo ${e.echo.medianMs.toFixed(3)} ms, echo through a thread ${e.hopEcho?.medianMs.toFixed(3)} ms`,
        );
      results.runtimes.push({ runtime, models: measured, echo });
    }
    log('REST :predict beside the echo, 32 connections');
    results.overhead = await runOverheadExperiment(quick ? 2 : 5, quick ? 1 : 2, 32);
    log(
      `  ${results.overhead.predictRps.toFixed(0)} / ${results.overhead.echoRps.toFixed(0)} req/s; ${cpuPerRequestLine(results.overhead)}`,
    );
    log('gRPC Predict beside REST :predict, server CPU per call');
    results.grpc = await measureGrpcCpu(o.runtimes[0] ?? 'auto', 32, quick ? 2 : 5, quick ? 1 : 2);
    log(`  ${grpcCpuLine(results.grpc)}`);
    results.targets = evaluate(results);
    return results;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
