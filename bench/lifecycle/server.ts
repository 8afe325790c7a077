// A tfgate process for the lifecycle benches (models, unload, burst): started on free ports,
// polled for status, measured from /proc (RSS and threads, its probe processes apart).
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import { freePort, REPO, TFGATE_BIN } from '../report/processes.js';

export interface BenchServer {
  proc: ChildProcess;
  restPort: number;
  grpcPort: number;
  url: (p: string) => string;
  /** Milliseconds from spawn until the REST port first answered. */
  portOpenMs: number;
  startedAt: number;
  logs: () => string;
  stop: () => Promise<void>;
}

/** `bin`: another checkout's bin/tfgate, to compare builds (default: this one's). */
export async function startBenchServer(args: string[], bin = TFGATE_BIN): Promise<BenchServer> {
  const [restPort, grpcPort] = [await freePort(), await freePort()];
  const startedAt = performance.now();
  const proc = spawn(
    process.execPath,
    [bin, ...args, `--rest_api_port=${restPort}`, '--rest_api_host=127.0.0.1', `--port=${grpcPort}`, '--grpc_api_host=127.0.0.1'],
    { cwd: REPO, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let out = '';
  proc.stderr!.on('data', (d) => {
    out += d;
    if (out.length > 4e6) out = out.slice(-1e6);
  });
  const url = (p: string) => `http://127.0.0.1:${restPort}${p}`;
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`tfgate exited ${proc.exitCode}: ${out.slice(-3000)}`);
    if (
      await fetch(url('/monitoring/tfgate/status')).then(
        () => true,
        () => false,
      )
    )
      break;
    await new Promise((r) => setTimeout(r, 50));
  }
  const portOpenMs = performance.now() - startedAt;
  return {
    proc,
    restPort,
    grpcPort,
    url,
    portOpenMs,
    startedAt,
    logs: () => out,
    stop: async () => {
      if (proc.exitCode !== null || proc.signalCode !== null) return;
      const ended = new Promise((r) => proc.once('exit', r));
      proc.kill('SIGTERM');
      await ended;
    },
  };
}

function statusField(pid: number, field: string): number {
  return Number(new RegExp(`${field}:\\s+(\\d+)`).exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN);
}

export const rssMb = (pid: number) => statusField(pid, 'VmRSS') / 1024;
export const threadsOf = (pid: number) => statusField(pid, 'Threads');

/** RSS of `pid`'s child processes (its load probes), in MB. */
export function childrenRssMb(pid: number): number {
  let total = 0;
  for (const task of fs.readdirSync(`/proc/${pid}/task`)) {
    const children = fs.readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').trim().split(/\s+/).filter(Boolean);
    for (const c of children)
      total += (() => {
        try {
          return rssMb(Number(c));
        } catch {
          return 0;
        }
      })();
  }
  return total;
}

/** Versions of each model by state, from /monitoring/tfgate/status. */
export async function versionStates(server: BenchServer): Promise<{ starting: boolean; states: Map<string, string[]> }> {
  const status = (await (await fetch(server.url('/monitoring/tfgate/status'))).json()) as {
    starting: boolean;
    models: { name: string; versions: { state: string }[] }[];
  };
  return { starting: status.starting, states: new Map(status.models.map((m) => [m.name, m.versions.map((v) => v.state)])) };
}
