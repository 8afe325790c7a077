// The saturated framework floor: a bare Hono route on @hono/node-server (load/echo_server.ts)
// that reads the same :predict body as the model server (with JSON.parse, or its bytes only, not
// parsed) and answers as many values as the model has outputs, under the same wrk, with every
// other server frozen. Its CPU per request is what
// any server on this framework spends before it runs a model; with the engine's own CPU per item
// and wrk's, it bounds the served ÷ offline ratio any such server can reach on this machine.
import type { ChildProcess } from 'node:child_process';
import path from 'node:path';
import { runWrk } from '../load/wrk.js';
import { REPO, alone, mainThreadCpuMs, processCpuMs, startNodeProcess, type RunningServer } from './processes.js';

export interface FloorCell {
  rps: number;
  requests: number;
  wallMs: number;
  /** CPU ms of the floor's event loop and whole process, and of wrk, over the cell. */
  mainCpuMs: number;
  processCpuMs: number;
  clientCpuMs: number;
}

/**
 * Starts the floor answering `answerWidth` values of each row; POST `${url}` with the model
 * server's body. `unread`: the body's bytes are taken but not parsed (the HTTP path alone).
 */
export async function startFrameworkFloor(answerWidth: number, unread = false): Promise<RunningServer & { url: string }> {
  const args = [path.join(REPO, 'dist', 'bench', 'load', 'echo_server.js'), '0', String(answerWidth), ...(unread ? ['unread'] : [])];
  const s = await startNodeProcess(args, /listening (\d+)/);
  return { ...s, url: `http://127.0.0.1:${s.port}/echo` };
}

export async function frameworkFloorCell(
  floor: { proc: ChildProcess; url: string },
  others: ChildProcess[],
  body: string,
  connections: number,
  seconds: number,
): Promise<FloorCell> {
  const pid = floor.proc.pid!;
  return alone([...others.map((proc) => ({ proc })), floor], floor, async () => {
    const main0 = mainThreadCpuMs(pid);
    const proc0 = processCpuMs(pid);
    const t0 = performance.now();
    const wrk = runWrk(floor.url, body, connections, seconds);
    const wallMs = performance.now() - t0;
    return {
      rps: wrk.rps,
      requests: wrk.requests,
      wallMs,
      mainCpuMs: mainThreadCpuMs(pid) - main0,
      processCpuMs: processCpuMs(pid) - proc0,
      clientCpuMs: wrk.clientCpuMs,
    };
  });
}

/**
 * What the floor's CPU allows a server that adds nothing to it but the engine (on a thread of
 * its own, batches free): the least of one core ÷ the floor's event loop per request, and
 * `cores` ÷ (the floor's process + the engine's CPU per item + wrk's per request), in items/s.
 */
export function floorCeilingPerSec(cells: FloorCell[], engineCpuUsPerItem: number, cores: number): number {
  const requests = cells.reduce((t, c) => t + c.requests, 0);
  const perRequestUs = (f: (c: FloorCell) => number) => (cells.reduce((t, c) => t + f(c), 0) * 1000) / requests;
  return Math.min(
    1e6 / perRequestUs((c) => c.mainCpuMs),
    (cores * 1e6) / (perRequestUs((c) => c.processCpuMs + c.clientCpuMs) + engineCpuUsPerItem),
  );
}
