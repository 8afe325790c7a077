// Starting and measuring the servers a bench run compares: each set-up is its own process
// (or process tree), started by the bench, found by a line it prints, sampled for RSS.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
/** The checkout (bench files run from dist/bench/report). */
export const REPO = path.resolve(here, '..', '..', '..');
export const TFGATE_BIN = path.join(REPO, 'bin', 'tfgate');

export interface RunningServer {
  proc: ChildProcess;
  port: number;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
    srv.on('error', reject);
  });
}

/** Spawns `node args…` and resolves once its output shows the port it listens on. */
export function startNodeProcess(args: string[], portPattern: RegExp): Promise<RunningServer> {
  const proc = spawn(process.execPath, args, { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'] });
  return new Promise((resolve, reject) => {
    let out = '';
    let found = false;
    const onData = (d: Buffer) => {
      if (found) return;
      out += d;
      const m = portPattern.exec(out);
      if (m) {
        found = true;
        out = '';
        resolve({ proc, port: Number(m[1]) });
      } else if (out.length > 1e6) out = out.slice(-1e5);
    };
    proc.stdout!.on('data', onData);
    proc.stderr!.on('data', onData);
    proc.once('exit', (code) => {
      if (!found) reject(new Error(`${path.basename(args[0])} exited ${code} before listening: ${out.slice(-2000)}`));
    });
  });
}

/** A tfgate process serving `modelBase` as `modelName` on a free loopback port, REST only; `bin`: another build's. */
export async function startTfgate(modelName: string, modelBase: string, extraArgs: string[], bin = TFGATE_BIN): Promise<RunningServer> {
  const port = await freePort();
  const args = [
    bin,
    `--model_name=${modelName}`,
    `--model_base_path=${modelBase}`,
    '--rest_api_host=127.0.0.1',
    `--rest_api_port=${port}`,
    '--port=0',
    ...extraArgs,
  ];
  return startNodeProcess(args, /Exporting HTTP\/REST API at:[\d.]+:(\d+)/);
}

/** Polls GET /v1/models/{name} until a version is AVAILABLE. */
export async function waitModelAvailable(port: number, modelName: string, timeoutMs = 300_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    const status = (await fetch(`http://127.0.0.1:${port}/v1/models/${modelName}`, { headers: { connection: 'close' } })
      .then((r) => r.json())
      .catch(() => ({}))) as { model_version_status?: { state: string }[] };
    if (status.model_version_status?.some((v) => v.state === 'AVAILABLE')) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${modelName} on port ${port} not AVAILABLE after ${timeoutMs} ms`);
}

export async function stopProcess(proc: ChildProcess): Promise<void> {
  if (proc.exitCode !== null || proc.signalCode !== null) return;
  setTreeFrozen(proc.pid!, false); // a frozen process would not act on SIGTERM
  const exited = new Promise((r) => proc.once('exit', r));
  proc.kill('SIGTERM');
  const timer = setTimeout(() => proc.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}

/** User + system CPU ms in a /proc stat line; /proc counts in clock ticks of 10 ms. */
function statCpuMs(statPath: string): number {
  const fields = fs.readFileSync(statPath, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** CPU time (user + system, all threads) a process has used, ms. */
export function processCpuMs(pid: number): number {
  return statCpuMs(`/proc/${pid}/stat`);
}

/** CPU time a process's main thread (its event loop, for Node) has used, ms. */
export function mainThreadCpuMs(pid: number): number {
  return statCpuMs(`/proc/${pid}/task/${pid}/stat`);
}

function childrenOf(pid: number): number[] {
  try {
    return fs
      .readdirSync(`/proc/${pid}/task`)
      .flatMap((tid) => fs.readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').trim().split(/\s+/))
      .filter(Boolean)
      .map(Number);
  } catch {
    return [];
  }
}

function rssOfMb(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

/** Resident memory of a process and all its descendants (a cluster's primary and workers), MB. */
export function treeRssMb(pid: number): number {
  let total = 0;
  const stack = [pid];
  while (stack.length) {
    const p = stack.pop()!;
    total += rssOfMb(p);
    stack.push(...childrenOf(p));
  }
  return total;
}

/** Samples a process tree's RSS every `everyMs` until stopped; returns the peak. */
export function peakRssSampler(pid: number, everyMs = 200): { stop(): number } {
  let peak = treeRssMb(pid);
  const timer = setInterval(() => (peak = Math.max(peak, treeRssMb(pid))), everyMs);
  return {
    stop() {
      clearInterval(timer);
      return Math.max(peak, treeRssMb(pid));
    },
  };
}

function treePids(pid: number): number[] {
  const pids: number[] = [];
  const stack = [pid];
  while (stack.length) {
    const p = stack.pop()!;
    pids.push(p);
    stack.push(...childrenOf(p));
  }
  return pids;
}

/**
 * Freezes (SIGSTOP) or thaws (SIGCONT) a process tree. The bench freezes the idle set-ups
 * while it measures one: each then has the machine to itself, as it would in production,
 * instead of sharing two cores with the timers and collectors of a dozen idle servers.
 */
export function setTreeFrozen(pid: number, frozen: boolean): void {
  for (const p of treePids(pid)) {
    try {
      process.kill(p, frozen ? 'SIGSTOP' : 'SIGCONT');
    } catch {
      // Gone already.
    }
  }
}

/**
 * Runs `measure` with every other set-up frozen, so that `only` has the machine to itself.
 * `settle` runs first, unmeasured: a process just thawed fires its overdue timers and
 * collections, which must not land in the measurement.
 */
export async function alone<T>(
  servers: { proc: { pid?: number } }[],
  only: { proc: { pid?: number } },
  measure: () => Promise<T>,
  settle?: () => Promise<unknown>,
): Promise<T> {
  const others = servers.filter((s) => s !== only);
  for (const s of others) setTreeFrozen(s.proc.pid!, true);
  try {
    await new Promise((r) => setTimeout(r, 200));
    await settle?.();
    return await measure();
  } finally {
    for (const s of others) setTreeFrozen(s.proc.pid!, false);
  }
}
