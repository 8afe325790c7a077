// How wide the executor threads run: how many intra-op threads their sessions have, and which
// thread takes a request. TF Serving sizes its batch threads to the machine's cores and runs
// every session over all of them. Here each executor thread runs one request at a time, so the
// cores are put to work two ways, switched by load:
//  - under load, one narrow executor per core (--num_executors), each session on one intra-op
//    thread: requests (and batching's batches) run side by side, no thread pool to wake;
//  - a lone request, on one extra wide executor whose sessions use every core as intra-op
//    threads: chosen only while no executor thread of the process runs anything, so its threads
//    never compete with narrow runs for the cores (a request arriving meanwhile takes a narrow one).
// ONNX Runtime fixes a session's thread count when it is made, hence a thread of its own (its
// own copy of each version) rather than a session resized per run.
import os from 'node:os';
import type { EngineSettings } from '../config/session_config.js';

/** Runtimes whose sessions take an intra-op thread count per thread (ONNX Runtime's CPU sessions). */
const WIDE_RUNTIMES: ReadonlySet<string> = new Set(['onnx', 'onnx+embedded']);

/**
 * Intra-op threads of the wide executor thread's sessions, or 0 for none: none when the thread
 * counts were set (--tensorflow_intra_op_parallelism / _inter_op_ / _session_parallelism or a
 * session config: they hold for every thread), on one core, or on a runtime that cannot size
 * a session per thread (the embedded runtime runs ops on one thread; libtensorflow's counts are
 * per process; a GPU does the work on CUDA).
 */
export function wideThreadWidth(
  runtime: string,
  engine: Pick<EngineSettings, 'intraOpThreads' | 'interOpThreads'> | undefined,
  cores = os.availableParallelism(),
): number {
  if ((engine?.intraOpThreads ?? 0) > 0 || (engine?.interOpThreads ?? 0) > 0) return 0;
  if (cores < 2 || !WIDE_RUNTIMES.has(runtime)) return 0;
  return cores;
}

/** One executor thread as the choice sees it. */
export interface LineView {
  wide: boolean;
  /** Free to take a message now. */
  idle: boolean;
  /** Has the version loaded. */
  loaded: boolean;
}

/**
 * Which thread takes the next message of a version (its index in `lines`), or undefined to
 * wait for one. `busyLines`: executor threads of the whole process running a message now. The
 * wide thread only when nothing runs anywhere (a lone request gets every core); else a narrow
 * one (one core each), and never the wide one beside them: its sessions' threads would take
 * the cores the narrow runs have. `wideAllowed` false: a narrow one even then (WidthChoice).
 */
export function chooseLine(lines: readonly LineView[], busyLines: number, wideAllowed = true): number | undefined {
  if (busyLines === 0 && wideAllowed) {
    const wide = lines.findIndex((l) => l.wide && l.idle && l.loaded);
    if (wide >= 0) return wide;
  }
  const narrow = lines.findIndex((l) => !l.wide && l.idle && l.loaded);
  return narrow >= 0 ? narrow : undefined;
}

/** Lone requests that try the wide thread before its time is compared with a narrow one's. */
const FIRST_WIDE = 8;
/** One lone request in this many tries the width not preferred, so that the comparison stays current. */
const EXPLORE_EVERY = 8;
/** Weight of the newest run in each width's moving average of compute time. */
const ALPHA = 0.2;

/**
 * Learns, per model version, whether its lone requests run faster on the wide thread than on a
 * narrow one. On a machine whose cores other processes keep busy they may not: measured on 2
 * shared cores at load 17–22, MCUNet batch 1 took 22 ms with two intra-op threads against 21
 * with one, the bench MLP 31 against 21 (a parallel section waits for its slowest thread, and
 * that thread waits for a core). So the wide thread is tried first; then one lone request in
 * EXPLORE_EVERY runs on the other width, and the faster on average (compute time on the
 * thread) takes the rest. That time spans the run, which returns only once its intra-op threads
 * have finished their shares, so waking them is in it; the executor thread's own wake is not, and
 * costs both widths alike. After idle the wide thread lost on this machine too: the bench MLP's
 * first run after 200 ms idle took 1.40 ms on two intra-op threads against 1.26 on one
 * (bench/cold_run.ts, load 7), so the average learns it from lone requests spaced by think time.
 */
export class WidthChoice {
  private wideMs?: number;
  private narrowMs?: number;
  private lone = 0;

  /** Whether the next lone request should go to the wide thread (called once per lone message). */
  tryWide(): boolean {
    const k = this.lone++;
    if (k < FIRST_WIDE) return true;
    const wideFaster = this.narrowMs === undefined || (this.wideMs !== undefined && this.wideMs < this.narrowMs);
    return k % EXPLORE_EVERY === EXPLORE_EVERY - 1 ? !wideFaster : wideFaster;
  }

  /** A lone request's compute time on a thread of `width`. */
  record(width: 'wide' | 'narrow', ms: number): void {
    if (width === 'wide') this.wideMs = this.wideMs === undefined ? ms : this.wideMs + ALPHA * (ms - this.wideMs);
    else this.narrowMs = this.narrowMs === undefined ? ms : this.narrowMs + ALPHA * (ms - this.narrowMs);
  }
}
