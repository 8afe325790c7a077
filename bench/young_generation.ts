// V8's young generation under load: the same tfgate build started once per node heap setting
// (default, then `--max-semi-space-size=<MiB>` for each size asked for), each saturated by wrk in
// turn (the others frozen), rounds alternating. Per request it prints the event loop thread's
// scavenges and their pause, the main thread's and the whole process's CPU, and the process's
// RSS under load and at its peak. The collections are tallied in the server by a preloaded
// observer (bench/gc/gc_tally.ts), with the bytes the event loop allocated per request.
// `--other-bin` adds other builds (comma-separated, e.g. a checkout of main) to the same rounds,
// each at every heap setting, to tell a change's effect from the machine's noise.
// A server that answers thousands of requests a second allocates tens of KB of short-lived
// objects per request on its main thread; V8's semi-space (16 MiB at most by default on 64-bit)
// then fills every few hundred requests, and each scavenge copies what requests in flight still
// hold. A larger semi-space means fewer scavenges for the same garbage. It can only be set when
// node starts (`node --max-semi-space-size=…` or NODE_OPTIONS): V8 sizes a heap when it makes it.
// The semi-space grows to that maximum only as objects survive, so each set-up is warmed up
// (`--warmup` seconds under wrk) before its rounds. Each server waits (stopped) while the others
// run: here the default semi-space then stayed below its maximum (42–49 scavenges per 10 000
// requests, against ~21 in one continuous run of the same load), so these are the figures of a
// load that pauses, not of one that never stops.
//   npm run bench:gc [-- --sizes 32,64 --rounds 3 --seconds 5 --warmup 10 --connections 32 --mlp --other-bin ../main/bin/tfgate --tfgate --enable_batching]
// (`--sizes ''`: the default heap setting only.)
// `--mlp`: the deep MLP and 5 KB body of bench:batching (256 inputs, 16 layers of 512) instead of half_plus_two.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { flagArg, numberArg, stringArg } from './load/args.js';
import { hasWrk, runWrk } from './load/wrk.js';
import { sinRowBody, writeDeepMlp } from './report/deep_mlp.js';
import {
  REPO,
  TFGATE_BIN,
  alone,
  freePort,
  mainThreadCpuMs,
  processCpuMs,
  stopProcess,
  waitModelAvailable,
  type RunningServer,
} from './report/processes.js';
import { roundOrder } from './report/round_order.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const SIZES = stringArg('sizes', '32,64')
  .split(',')
  .filter((s) => s.length > 0)
  .map(Number);
const ROUNDS = numberArg('rounds', 3);
const SECONDS = numberArg('seconds', 5);
const WARMUP_SECONDS = numberArg('warmup', 10);
const CONNECTIONS = numberArg('connections', 32);
const MLP = flagArg('mlp');
const MLP_INPUT = 256;
const OTHER_BINS = stringArg('other-bin', '')
  .split(',')
  .filter((b) => b.length > 0);
const TFGATE_FLAGS = process.argv.includes('--tfgate') ? process.argv.slice(process.argv.indexOf('--tfgate') + 1) : [];

interface SetUp {
  label: string;
  bin: string;
  nodeFlags: string[];
  server?: RunningServer;
  output?: ServerOutput;
  cells: Cell[];
}

interface Cell {
  rps: number;
  requests: number;
  scavenges: number;
  scavengeMs: number;
  markCompacts: number;
  loopCpuMs: number;
  processCpuMs: number;
  rssMb: number;
  allocatedBytes: number;
}

/** What bench/gc/gc_tally.ts reports: the main thread's collections so far. */
interface Tally {
  scavenges: number;
  scavengeMs: number;
  markCompacts: number;
  markCompactMs: number;
  /** Bytes the main thread allocated so far (since the observer started). */
  allocatedBytes: number;
}

/** Reads a server's stderr: its log (where it listens) and the tallies it writes on SIGUSR2. */
class ServerOutput {
  private rest = '';
  private waiting?: (t: Tally) => void;
  readonly listening: Promise<number>;

  constructor(private readonly proc: ChildProcess) {
    let listen!: (port: number) => void;
    let tail = '';
    this.listening = new Promise<number>((resolve, reject) => {
      listen = resolve;
      proc.once('exit', (code) => reject(new Error(`tfgate exited ${code} before listening: ${tail}`)));
    });
    proc.stdout!.resume();
    proc.stderr!.on('data', (d: Buffer) => {
      const lines = (this.rest + d.toString('latin1')).split('\n');
      this.rest = lines.pop() ?? '';
      for (const line of lines) {
        tail = (tail + line + '\n').slice(-2000);
        const port = /Exporting HTTP\/REST API at:[\d.]+:(\d+)/.exec(line);
        if (port) listen(Number(port[1]));
        const tally = /^gc-tally (.*)$/.exec(line);
        if (tally && this.waiting) this.waiting(JSON.parse(tally[1]) as Tally);
      }
    });
  }

  tally(): Promise<Tally> {
    return new Promise((resolve) => {
      this.waiting = resolve;
      this.proc.kill('SIGUSR2');
    });
  }
}

function procStatusMb(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const m = new RegExp(`${field}:\\s+(\\d+) kB`).exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? (s[(s.length - 1) >> 1] + s[s.length >> 1]) / 2 : NaN;
};

async function startSetUp(s: SetUp, model: { name: string; base: string }): Promise<void> {
  const args = [
    `--import=${pathToFileURL(path.join(here, 'gc', 'gc_tally.js')).href}`,
    ...s.nodeFlags,
    s.bin,
    `--model_name=${model.name}`,
    `--model_base_path=${model.base}`,
    '--rest_api_host=127.0.0.1',
    `--rest_api_port=${await freePort()}`,
    '--port=0',
    ...TFGATE_FLAGS,
  ];
  // Spawned here rather than by startTfgate: node flags of its own, and the tallies on stderr.
  const proc = spawn(process.execPath, args, { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'] });
  s.output = new ServerOutput(proc);
  s.server = { proc, port: await s.output.listening };
  await waitModelAvailable(s.server.port, model.name);
}

async function measure(s: SetUp, url: string, body: string): Promise<Cell> {
  const pid = s.server!.proc.pid!;
  const gc0 = await s.output!.tally();
  const loop0 = mainThreadCpuMs(pid);
  const cpu0 = processCpuMs(pid);
  const wrk = runWrk(url, body, CONNECTIONS, SECONDS);
  if (wrk.non2xx) throw new Error(`${s.label}: ${wrk.non2xx} answers were not 2xx`);
  const loopCpuMs = mainThreadCpuMs(pid) - loop0;
  const cpuMs = processCpuMs(pid) - cpu0;
  const gc = await s.output!.tally();
  return {
    rps: wrk.rps,
    requests: wrk.requests,
    scavenges: gc.scavenges - gc0.scavenges,
    scavengeMs: gc.scavengeMs - gc0.scavengeMs,
    markCompacts: gc.markCompacts - gc0.markCompacts,
    loopCpuMs,
    processCpuMs: cpuMs,
    rssMb: procStatusMb(pid, 'VmRSS'),
    allocatedBytes: gc.allocatedBytes - gc0.allocatedBytes,
  };
}

async function main() {
  if (!hasWrk()) throw new Error('wrk is not installed (Debian: apt-get install wrk)');
  let model = { name: 'half_plus_two', base: path.join(REPO, 'model_repository', 'half_plus_two') };
  let body = JSON.stringify({ instances: [1.0, 2.0, 5.0] });
  let dir: string | undefined;
  if (MLP) {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tfgate-bench-gc-'));
    await writeDeepMlp(path.join(dir, 'mlp', '1'), { input: MLP_INPUT, width: 512, depth: 16 });
    model = { name: 'mlp', base: path.join(dir, 'mlp') };
    body = sinRowBody(MLP_INPUT);
  }
  const heaps = [
    { label: 'default', nodeFlags: [] as string[] },
    ...SIZES.map((mb) => ({ label: `--max-semi-space-size=${mb}`, nodeFlags: [`--max-semi-space-size=${mb}`] })),
  ];
  const bins = [TFGATE_BIN, ...OTHER_BINS.map((b) => path.resolve(b))];
  const setUps: SetUp[] = bins.flatMap((bin) =>
    heaps.map((h) => ({ label: bins.length > 1 ? `${bin} ${h.label}` : h.label, bin, nodeFlags: h.nodeFlags, cells: [] })),
  );
  const servers = () => setUps.map((s) => s.server!);
  try {
    for (const s of setUps) await startSetUp(s, model);
    const url = (s: SetUp) => `http://127.0.0.1:${s.server!.port}/v1/models/${model.name}:predict`;
    const idleRss = new Map(setUps.map((s) => [s, procStatusMb(s.server!.proc.pid!, 'VmRSS')]));
    // Warm-up, unmeasured: the JIT, the connections, and the semi-space's growth to its maximum.
    for (const s of setUps) await alone(servers(), s.server!, async () => runWrk(url(s), body, CONNECTIONS, WARMUP_SECONDS));
    const load0 = os.loadavg()[0];
    for (let round = 0; round < ROUNDS; round++)
      for (const s of roundOrder(setUps, round)) s.cells.push(await alone(servers(), s.server!, () => measure(s, url(s), body)));
    console.log(
      `${model.name}, wrk ${CONNECTIONS} connections, ${ROUNDS} rounds of ${SECONDS} s after ${WARMUP_SECONDS} s of warm-up each, ${os.availableParallelism()} cores, load average ${load0.toFixed(1)} → ${os.loadavg()[0].toFixed(1)}; tfgate flags: ${TFGATE_FLAGS.join(' ') || '(defaults)'}`,
    );
    console.log('medians of rounds; scavenges and mark-compacts: the event loop thread’s (Node’s gc performance entries); CPU from /proc');
    for (const s of setUps) {
      const per = (f: (c: Cell) => number, scale: number) => median(s.cells.map((c) => (f(c) * scale) / c.requests));
      // Each round's figures, for the spread behind the medians.
      const rounds = (f: (c: Cell) => number, digits: number) => s.cells.map((c) => f(c).toFixed(digits)).join(' ');
      console.log(
        `  node ${s.label}: ${median(s.cells.map((c) => c.rps)).toFixed(0)} req/s; ` +
          `scavenges ${per((c) => c.scavenges, 1e4).toFixed(1)} per 10 000 requests, their pause ${per((c) => c.scavengeMs, 1e3).toFixed(1)} µs/request; ` +
          `mark-compacts ${per((c) => c.markCompacts, 1e4).toFixed(1)} per 10 000; ` +
          `allocated ${per((c) => c.allocatedBytes, 1 / 1024).toFixed(1)} KB/request; ` +
          `CPU: event loop ${per((c) => c.loopCpuMs, 1e3).toFixed(1)} µs/request, process ${per((c) => c.processCpuMs, 1e3).toFixed(1)}; ` +
          `RSS idle ${idleRss.get(s)!.toFixed(0)} MB, under load ${median(s.cells.map((c) => c.rssMb)).toFixed(0)} MB, peak ${procStatusMb(s.server!.proc.pid!, 'VmHWM').toFixed(0)} MB`,
      );
      console.log(
        `    rounds: req/s ${rounds((c) => c.rps, 0)}; KB/request ${rounds((c) => c.allocatedBytes / 1024 / c.requests, 1)}; ` +
          `event loop µs/request ${rounds((c) => (c.loopCpuMs * 1e3) / c.requests, 1)}; scavenges per 10 000 ${rounds((c) => (c.scavenges * 1e4) / c.requests, 1)}`,
      );
    }
  } finally {
    await Promise.all(setUps.filter((s) => s.server).map((s) => stopProcess(s.server!.proc)));
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
