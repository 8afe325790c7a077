// The lone-request floor: tfgate's REST :predict on half_plus_two beside the floor of any
// server that keeps work off its event loop — a bare Hono route on @hono/node-server that
// hands each parsed body to a worker thread and back (load/hop_echo_server.ts). Same run,
// rounds alternating the two, each measured with the other frozen:
//   - requests/s under wrk with 32 connections (target: tfgate ≥ 0.8 × the floor), with each
//     server's event-loop and whole-process CPU per request;
//   - one request at a time on one connection, back to back and after 200 ms idle
//     (target: tfgate's median ≤ the floor's + 0.2 ms).
// `--other-bin` adds other builds (e.g. a checkout of main; several, comma-separated, to bisect)
// to the same rounds, to tell a change's effect from the machine's noise. Extra tfgate flags after `--tfgate`.
// Each server first takes --warmup-seconds of wrk (JIT), the others frozen.
//   npm run bench:floor [-- --rounds 3 --seconds 5 --requests 1000 --idle-requests 60 --warmup-seconds 8 --other-bin ../main/bin/tfgate --tfgate --enable_batching]
import os from 'node:os';
import path from 'node:path';
import { numberArg, stringArg } from './load/args.js';
import { hasWrk, runWrk } from './load/wrk.js';
import { probeSequential, type ProbeResult } from './latency/sequential_probe.js';
import {
  REPO,
  TFGATE_BIN,
  alone,
  mainThreadCpuMs,
  processCpuMs,
  startNodeProcess,
  startTfgate,
  stopProcess,
  waitModelAvailable,
  type RunningServer,
} from './report/processes.js';
import { roundOrder } from './report/round_order.js';

const ROUNDS = numberArg('rounds', 3);
const SECONDS = numberArg('seconds', 5);
const REQUESTS = numberArg('requests', 1000);
const IDLE_REQUESTS = numberArg('idle-requests', 60);
const CONNECTIONS = 32;
const IDLE_MS = 200;
const MODEL_BASE = stringArg('model-base', path.join(REPO, 'model_repository', 'half_plus_two'));
const TFGATE_FLAGS = process.argv.includes('--tfgate') ? process.argv.slice(process.argv.indexOf('--tfgate') + 1) : [];
const OTHER_BINS = stringArg('other-bin', '')
  .split(',')
  .filter((b) => b.length > 0);
const BODY = JSON.stringify({ instances: [1.0, 2.0, 5.0] });
/**
 * wrk on each server before the rounds: V8 keeps optimising a request path for tens of
 * thousands of requests, and tfgate's path is longer than the floor's, so a short warm-up
 * measures tfgate's JIT warm-up more than the floor's. 0: only each round's 200 requests.
 */
const WARMUP_SECONDS = numberArg('warmup-seconds', 8);

interface Cell {
  rps: number[];
  /** Event-loop (main thread) and whole-process CPU µs per request under wrk. */
  loopUs: number[];
  cpuUs: number[];
  backToBack: number[];
  afterIdle: number[];
  /** tfgate's own account (Server-Timing, mean per round) of the requests after idle: where the time went. */
  afterIdleParts: Array<Record<string, number>>;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? (s[(s.length - 1) >> 1] + s[s.length >> 1]) / 2 : NaN;
};

async function measure(server: RunningServer, url: string, cell: Cell): Promise<void> {
  const pid = server.proc.pid!;
  const loop0 = mainThreadCpuMs(pid);
  const cpu0 = processCpuMs(pid);
  const wrk = runWrk(url, BODY, CONNECTIONS, SECONDS);
  if (wrk.non2xx) throw new Error(`${url}: ${wrk.non2xx} answers were not 2xx`);
  cell.rps.push(wrk.rps);
  cell.loopUs.push(((mainThreadCpuMs(pid) - loop0) * 1000) / wrk.requests);
  cell.cpuUs.push(((processCpuMs(pid) - cpu0) * 1000) / wrk.requests);
  const probe = async (requests: number, gapMs: number): Promise<ProbeResult> => {
    const r = await probeSequential({ url, body: BODY, requests, gapMs });
    if (r.errors) throw new Error(`${url}: ${r.errors} requests failed`);
    return r;
  };
  cell.backToBack.push((await probe(REQUESTS, 0)).medianMs);
  const idle = await probe(IDLE_REQUESTS, IDLE_MS);
  cell.afterIdle.push(idle.medianMs);
  cell.afterIdleParts.push(idle.serverMs);
}

async function main() {
  if (!hasWrk()) throw new Error('wrk is not installed (Debian: apt-get install wrk)');
  const tfgate = await startTfgate('half_plus_two', MODEL_BASE, TFGATE_FLAGS);
  const others: RunningServer[] = [];
  for (const bin of OTHER_BINS) others.push(await startTfgate('half_plus_two', MODEL_BASE, TFGATE_FLAGS, path.resolve(bin)));
  const floor = await startNodeProcess([path.join(REPO, 'dist', 'bench', 'load', 'hop_echo_server.js')], /listening (\d+)/);
  const builds = [tfgate, ...others];
  const servers = [...builds, floor];
  try {
    for (const b of builds) await waitModelAvailable(b.port, 'half_plus_two');
    const urls = new Map([
      ...builds.map((b): [RunningServer, string] => [b, `http://127.0.0.1:${b.port}/v1/models/half_plus_two:predict`]),
      [floor, `http://127.0.0.1:${floor.port}/echo`],
    ]);
    const cells = new Map<RunningServer, Cell>(
      servers.map((s) => [s, { rps: [], loopUs: [], cpuUs: [], backToBack: [], afterIdle: [], afterIdleParts: [] }]),
    );
    for (const s of servers) await alone(servers, s, async () => void runWrk(urls.get(s)!, BODY, CONNECTIONS, WARMUP_SECONDS));
    const load0 = os.loadavg()[0];
    for (let round = 0; round < ROUNDS; round++) {
      for (const s of roundOrder(servers, round)) {
        // Unmeasured warm-up: JIT, connections, the first runs.
        await alone(
          servers,
          s,
          () => measure(s, urls.get(s)!, cells.get(s)!),
          () => probeSequential({ url: urls.get(s)!, body: BODY, requests: 200, gapMs: 0 }),
        );
      }
    }
    const f = cells.get(floor)!;
    const verdict = (met: boolean) => (met ? 'met' : 'MISSED');
    const signed = (ms: number) => `${ms >= 0 ? '+' : ''}${ms.toFixed(3)} ms`;
    console.log(
      `${ROUNDS} rounds, ${os.availableParallelism()} cores, load average ${load0.toFixed(1)} → ${os.loadavg()[0].toFixed(1)}; tfgate flags: ${TFGATE_FLAGS.join(' ') || '(defaults)'}`,
    );
    console.log(`floor = bare Hono route handing each body to a worker thread and back; medians of rounds`);
    const names = new Map<RunningServer, string>([
      [tfgate, `tfgate ${path.relative(process.cwd(), TFGATE_BIN) || TFGATE_BIN}`],
      ...others.map((o, i): [RunningServer, string] => [o, `tfgate ${OTHER_BINS[i]}`]),
      [floor, 'floor'],
    ]);
    for (const [s, name] of names) {
      const c = cells.get(s)!;
      console.log(
        `  ${name}: ${median(c.rps).toFixed(0)} req/s (wrk, ${CONNECTIONS} connections; rounds ${c.rps.map((r) => r.toFixed(0)).join(' ')}), event loop ${median(c.loopUs).toFixed(1)} µs/request, process ${median(c.cpuUs).toFixed(1)} µs/request; one at a time: back to back ${median(c.backToBack).toFixed(3)} ms (rounds ${c.backToBack.map((m) => m.toFixed(3)).join(' ')}), after ${IDLE_MS} ms idle ${median(c.afterIdle).toFixed(3)} ms (rounds ${c.afterIdle.map((m) => m.toFixed(3)).join(' ')})`,
      );
    }
    for (const b of builds) {
      const t = cells.get(b)!;
      const ratio = median(t.rps.map((r, i) => r / f.rps[i]));
      const b2b = median(t.backToBack) - median(f.backToBack);
      const idle = median(t.afterIdle) - median(f.afterIdle);
      console.log(`${names.get(b)}:`);
      console.log(`  req/s ÷ floor (per round, median): ${ratio.toFixed(2)}  (goal ≥ 0.8)  ${verdict(ratio >= 0.8)}`);
      console.log(`  back to back, median − floor: ${signed(b2b)}  (goal ≤ +0.2 ms)  ${verdict(b2b <= 0.2)}`);
      console.log(`  after ${IDLE_MS} ms idle, median − floor: ${signed(idle)}  (goal ≤ +0.2 ms)  ${verdict(idle <= 0.2)}`);
      const parts = Object.keys(t.afterIdleParts[0] ?? {});
      if (parts.length)
        console.log(
          `  after idle, its own account (Server-Timing, median of rounds' means): ${parts.map((k) => `${k} ${median(t.afterIdleParts.map((p) => p[k] ?? 0)).toFixed(3)}`).join(', ')} ms`,
        );
    }
  } finally {
    await Promise.all(servers.map((s) => stopProcess(s.proc)));
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
