// One saturated cell as the server saw it: wrk against one tfgate with every other server frozen,
// the server's metrics and /proc read before and after, then (optionally) the engine alone
// replaying the batch sizes the server formed, the server frozen meanwhile.
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import { runWrk, type WrkResult } from '../load/wrk.js';
import type { OfflineEngine } from './model_curve.js';
import { mainThreadCpuMs, processCpuMs, setTreeFrozen } from './processes.js';
import { batchesBySize, executorBusySeconds, readCounters } from './server_metrics.js';

/** CPU ms of each thread of a process, by thread id. */
function threadCpuMs(pid: number): Map<string, number> {
  const out = new Map<string, number>();
  for (const tid of fs.readdirSync(`/proc/${pid}/task`)) {
    try {
      const fields = fs.readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8').split(') ')[1].split(' ');
      out.set(tid, (Number(fields[11]) + Number(fields[12])) * 10);
    } catch {
      // The thread ended.
    }
  }
  return out;
}

async function serverSnapshot(metricsUrl: string, pid: number) {
  const text = await fetch(metricsUrl, { headers: { connection: 'close' } }).then((r) => r.text());
  return {
    batches: batchesBySize(text),
    engineMs: executorBusySeconds(text) * 1000,
    main: mainThreadCpuMs(pid),
    threads: threadCpuMs(pid),
    process: processCpuMs(pid),
  };
}

/**
 * Waits until the server has answered what wrk left in flight (its answered-request count still
 * for 100 ms): the requests queued when wrk stopped, and frozen with the server for the replay,
 * would otherwise be served during the next cell and count in its server view.
 */
export async function drained(metricsUrl: string): Promise<void> {
  let last = -1;
  for (let i = 0; i < 50; i++) {
    const { latencyCount } = await readCounters(metricsUrl);
    if (latencyCount === last) return;
    last = latencyCount;
    await new Promise((r) => setTimeout(r, 100));
  }
}

export interface SaturatedServer {
  proc: ChildProcess;
  url: string;
  metricsUrl: string;
}

export interface SaturatedCell {
  wrk: WrkResult;
  wallMs: number;
  /** process.hrtime at wrk's start and end, ms: one clock for every process of the machine (a server's trace aligns to it). */
  startMs: number;
  endMs: number;
  /** Executed batches by size (after padding; as formed when no allowed_batch_sizes). */
  batches: Map<number, number>;
  /** Executor time in the engine on batches (tfgate_executor_busy_seconds_total), ms. */
  engineMs: number;
  /** CPU of the server's main thread (its event loop), of its busiest other thread (the executor), and of the whole process, ms. */
  mainCpuMs: number;
  executorThreadCpuMs: number;
  processCpuMs: number;
  /** The engine alone in this process right after the cell, running `replayMix(batches)`; NaN when not replayed. */
  offline: { itemsPerSec: number; cpuMsPerItem: number };
}

export interface SaturatedCellOptions {
  body: string;
  connections: number;
  seconds: number;
  /** Replays the cell's batch mix on this engine after the cell; none: no replay. */
  offline?: OfflineEngine;
  replayMs: number;
  /** The mix to replay from the batches the server formed, or undefined to skip the replay. */
  replayMix: (batches: Map<number, number>, requests: number) => Map<number, number> | undefined;
}

/** wrk against `server` with every other server frozen, and the server's own view of it. */
export async function saturatedCell(server: SaturatedServer, others: ChildProcess[], o: SaturatedCellOptions): Promise<SaturatedCell> {
  const pid = server.proc.pid!;
  for (const other of others) setTreeFrozen(other.pid!, true);
  try {
    await new Promise((r) => setTimeout(r, 200)); // the frozen ones' last timers out of the way
    const before = await serverSnapshot(server.metricsUrl, pid);
    const startMs = Number(process.hrtime.bigint()) / 1e6;
    const wrk = runWrk(server.url, o.body, o.connections, o.seconds);
    const endMs = Number(process.hrtime.bigint()) / 1e6;
    const after = await serverSnapshot(server.metricsUrl, pid);
    const batches = new Map<number, number>();
    for (const [b, n] of after.batches) if (n - (before.batches.get(b) ?? 0) > 0) batches.set(b, n - (before.batches.get(b) ?? 0));
    let executorThreadCpuMs = 0;
    for (const [tid, ms] of after.threads)
      if (tid !== String(pid)) executorThreadCpuMs = Math.max(executorThreadCpuMs, ms - (before.threads.get(tid) ?? 0));
    let offline = { itemsPerSec: NaN, cpuMsPerItem: NaN };
    const mix = o.offline ? o.replayMix(batches, wrk.requests) : undefined;
    if (o.offline && mix) {
      setTreeFrozen(pid, true);
      try {
        offline = await o.offline.replay(mix, o.replayMs);
      } finally {
        setTreeFrozen(pid, false);
      }
    }
    return {
      wrk,
      wallMs: endMs - startMs,
      startMs,
      endMs,
      batches,
      engineMs: after.engineMs - before.engineMs,
      mainCpuMs: after.main - before.main,
      executorThreadCpuMs,
      processCpuMs: after.process - before.process,
      offline,
    };
  } finally {
    for (const other of others) setTreeFrozen(other.pid!, false);
    await drained(server.metricsUrl);
  }
}
