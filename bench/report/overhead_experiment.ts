// Serving overhead: tfgate's :predict on the tiny half_plus_two model against a bare Hono
// JSON echo route (the floor any Hono server pays), same body, same client, rounds
// interleaved, best of each kept. Beside the rates, each server's CPU per request, on its
// event-loop thread and in the whole process: with the client on the same cores the rates
// are noisy, and CPU per request says where the difference is spent.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runLoadInWorker } from '../load/load_worker.js';
import { hasWrk, runWrk } from '../load/wrk.js';
import { REPO, mainThreadCpuMs, processCpuMs, startNodeProcess, startTfgate, stopProcess, waitModelAvailable } from './processes.js';

const here = path.dirname(fileURLToPath(import.meta.url));

/** Server CPU per request answered, µs (least of the rounds). */
interface CpuPerRequest {
  /** The event-loop thread: HTTP, routing, JSON, hand-offs. */
  mainUs: number;
  /** Every thread of the process (executors, GC helpers included). */
  processUs: number;
}

export interface OverheadResult {
  client: string;
  echoRps: number;
  predictRps: number;
  /** predict ÷ echo requests/s. */
  ratio: number;
  /** Absent in result files written before it was measured. */
  echoCpu?: CpuPerRequest;
  predictCpu?: CpuPerRequest;
}

export async function runOverheadExperiment(seconds: number, rounds: number, connections: number): Promise<OverheadResult> {
  const body = JSON.stringify({ instances: [1.0, 2.0, 5.0] });
  const echo = await startNodeProcess([path.join(here, '..', 'load', 'echo_server.js')], /listening (\d+)/);
  const tfgate = await startTfgate('half_plus_two', path.join(REPO, 'model_repository', 'half_plus_two'), []);
  try {
    await waitModelAvailable(tfgate.port, 'half_plus_two');
    const urls = { echo: `http://127.0.0.1:${echo.port}/echo`, predict: `http://127.0.0.1:${tfgate.port}/v1/models/half_plus_two:predict` };
    const useWrk = hasWrk();
    const load = async (url: string) => {
      if (useWrk) return runWrk(url, body, connections, seconds);
      const r = await runLoadInWorker({ url, body, mode: { kind: 'concurrency', connections }, durationMs: seconds * 1000 });
      return { rps: r.rps, requests: r.recorder.count };
    };
    const measure = async (url: string, pid: number) => {
      const [main0, all0] = [mainThreadCpuMs(pid), processCpuMs(pid)];
      const { rps, requests } = await load(url);
      const perRequestUs = (ms: number) => (requests > 0 ? (ms * 1000) / requests : NaN);
      return { rps, cpu: { mainUs: perRequestUs(mainThreadCpuMs(pid) - main0), processUs: perRequestUs(processCpuMs(pid) - all0) } };
    };
    const least = (a: CpuPerRequest | undefined, b: CpuPerRequest): CpuPerRequest =>
      a ? { mainUs: Math.min(a.mainUs, b.mainUs), processUs: Math.min(a.processUs, b.processUs) } : b;
    // Unmeasured first: JIT, the runtime's first-shape sessions and the connections' set-up
    // otherwise land in the first round, which a quick run (one round) would report.
    const warmUp = (url: string) => runLoadInWorker({ url, body, mode: { kind: 'concurrency', connections }, durationMs: 1000 });
    await warmUp(urls.echo);
    await warmUp(urls.predict);
    let echoRps = 0;
    let predictRps = 0;
    let echoCpu: CpuPerRequest | undefined;
    let predictCpu: CpuPerRequest | undefined;
    for (let round = 0; round < rounds; round++) {
      const e = await measure(urls.echo, echo.proc.pid!);
      const p = await measure(urls.predict, tfgate.proc.pid!);
      echoRps = Math.max(echoRps, e.rps);
      predictRps = Math.max(predictRps, p.rps);
      echoCpu = least(echoCpu, e.cpu);
      predictCpu = least(predictCpu, p.cpu);
    }
    return {
      client: `${useWrk ? 'wrk' : 'tfgate generator'}, ${connections} connections`,
      echoRps,
      predictRps,
      ratio: predictRps / echoRps,
      echoCpu: echoCpu!,
      predictCpu: predictCpu!,
    };
  } finally {
    await Promise.all([stopProcess(echo.proc), stopProcess(tfgate.proc)]);
  }
}

/** The CPU figures as one sentence of the reports; none for a result file without them. */
export function cpuPerRequestLine(o: OverheadResult): string | undefined {
  const { echoCpu: echo, predictCpu: tfgate } = o;
  if (!echo || !tfgate) return undefined;
  const us = (v: number) => (Number.isFinite(v) ? `${v.toFixed(1)} µs` : '–');
  return (
    `Server CPU per request (least of the rounds): tfgate ${us(tfgate.mainUs)} on its event loop, ${us(tfgate.processUs)} in all its threads; ` +
    `the echo ${us(echo.mainUs)} and ${us(echo.processUs)}. With the client on the same cores, the event loop's share bounds the rate: ` +
    `echo ÷ tfgate event-loop CPU ${Number.isFinite(tfgate.mainUs) && tfgate.mainUs > 0 ? (echo.mainUs / tfgate.mainUs).toFixed(2) : '–'}.`
  );
}
