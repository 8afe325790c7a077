// Runs Debian's `wrk` (C, far lighter than a Node client) when it is installed: on a 2-core
// machine the client's own CPU use otherwise decides the numbers.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export function hasWrk(): boolean {
  return spawnSync('wrk', ['--version']).error === undefined;
}

export interface WrkResult {
  rps: number;
  /** Requests completed. */
  requests: number;
  latency: string;
  meanMs: number;
  p99Ms: number;
  non2xx: number;
  /** wrk's own CPU time (user + system), ms: the client's share of a machine it shares with the server. */
  clientCpuMs: number;
}

/** wrk's durations: `812.00us`, `3.21ms`, `1.02s`. */
function toMs(text: string | undefined): number {
  const m = /^([\d.]+)(us|ms|s|m)$/.exec(text ?? '');
  if (!m) return NaN;
  return Number(m[1]) * { us: 1e-3, ms: 1, s: 1e3, m: 60e3 }[m[2] as 'us' | 'ms' | 's' | 'm'];
}

/** cutime + cstime of a /proc/<pid>/stat line, ms (clock ticks of 10 ms); NaN when absent. */
function childrenCpuMs(stat: string): number {
  const fields = /\) (.*)$/m.exec(stat)?.[1].split(' ');
  return fields ? (Number(fields[13]) + Number(fields[14])) * 10 : NaN;
}

export function runWrk(url: string, body: string, connections: number, seconds: number): WrkResult {
  const script = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'tfgate-wrk-')), 'post.lua');
  fs.writeFileSync(script, `wrk.method = "POST"\nwrk.body = ${JSON.stringify(body)}\nwrk.headers["Content-Type"] = "application/json"\n`);
  // Through a shell that prints its own /proc stat once wrk has exited: its children's times
  // (cutime, cstime) are then wrk's whole CPU time, which nothing else can read after the exit.
  const r = spawnSync(
    'sh',
    ['-c', 'wrk "$@" && cat /proc/$$/stat >&2', 'sh', '-t1', `-c${connections}`, `-d${seconds}s`, '--latency', '-s', script, url],
    { encoding: 'utf8' },
  );
  fs.rmSync(path.dirname(script), { recursive: true, force: true });
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(r.stdout)?.[1]);
  if (!Number.isFinite(rps)) throw new Error(`wrk failed: ${r.stderr || r.stdout}`);
  const latency = /Latency\s+(\S+)\s+(\S+)\s+(\S+)/.exec(r.stdout);
  const non2xx = /Non-2xx or 3xx responses: (\d+)/.exec(r.stdout)?.[1] ?? '0';
  const p99 = /^\s+99%\s+(\S+)/m.exec(r.stdout)?.[1];
  return {
    rps,
    requests: Number(/(\d+) requests in/.exec(r.stdout)?.[1] ?? NaN),
    latency: latency ? `mean ${latency[1]}, stdev ${latency[2]}, max ${latency[3]}, non-2xx ${non2xx}` : r.stdout,
    meanMs: toMs(latency?.[1]),
    p99Ms: toMs(p99),
    non2xx: Number(non2xx),
    clientCpuMs: childrenCpuMs(r.stderr),
  };
}
