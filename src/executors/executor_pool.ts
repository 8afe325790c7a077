// A fixed set of executor threads serving one model version (piscina underneath).
// Each thread loads its own copy of the version when the pool opens; `open` resolves once
// the version loaded (or rejects with the load error, after tearing the threads down).
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Piscina } from 'piscina';
import { Code, ServingError, internal, queuedPastDeadline } from '../errors/status.js';
import type { HostTensor } from '../tensor/host_tensor.js';
import type { MessagePort } from 'node:worker_threads';
import type { ExecutorReply, ExecutorTask, ExecutorWorkerData, LoadReport, ModelDescription, RunLineOffer, RunReply, RunRequest } from './protocol.js';
import { RunLine } from './run_line.js';
import { takeTransferList } from '../tensor/request_owned.js';
import type { VerificationReport } from '../runtimes/verify/verify_signatures.js';
import { AdmissionCount, type Release } from '../core/admission.js';

const here = fileURLToPath(import.meta.url);
// Same extension as this module: .js when compiled, .ts under tsx in development.
const WORKER_FILE = path.join(path.dirname(here), `executor_worker${path.extname(here)}`);

export interface ExecutorPoolOptions extends ExecutorWorkerData {
  threads: number;
  /** Requests that may wait for a thread (not yet handed to piscina); more are refused. Default: unbounded. */
  maxQueued?: number;
  /** The thread's entry module (default: executor_worker). Tests give one that wraps it to inject faults. */
  workerFile?: string;
  /** Aborted when the load ran out of time: opening fails with the signal's reason and the threads are stopped. */
  signal?: AbortSignal;
  /** Told how loading went on the first thread to answer (load and warmup metrics), loaded or not. */
  onLoadReport?: (report: LoadReport) => void;
}

/** The queue of waiting requests is full: UNAVAILABLE (503), as batching's full queue. */
function executorQueueFull(max: number): ServingError {
  return new ServingError(Code.UNAVAILABLE, `The executor queue is full: ${max} requests wait for this model version's threads (--max_executor_queue)`, { retryAfterMs: 1000 });
}

const EXECUTOR_NICE_INCREMENT = 10;

/**
 * Executors run at a lower OS priority only when they take every core: then the event loop
 * would otherwise wait behind them to answer I/O. With a core left to the event loop (the
 * default --num_executors) a lower priority only makes them lose the CPU to whatever else
 * runs, and under overload that is the event loop itself refusing the excess: measured on
 * 2 cores, 200 req/s at 256 connections fell to ~0.7 of those at 16 with it, ~1.0 without.
 */
export function executorNiceIncrement(threads: number, cores = os.availableParallelism()): number {
  return threads >= cores ? EXECUTOR_NICE_INCREMENT : 0;
}

/** Most requests one coalesced message carries. */
const MAX_REQUESTS_PER_MESSAGE = 32;

/** Where a run's time went, as seen from the main thread (each field in ms). */
export interface ExecutorTiming {
  /** The executor thread's own compute time. */
  computeMs?: number;
  /** From run() until the thread began the run: the wait for a thread, the message, the wake-up. */
  handoffMs?: number;
  /** From the end of the run until its answer was back on the main thread. */
  handbackMs?: number;
}

interface Waiting {
  request: RunRequest;
  timing?: ExecutorTiming;
  /** performance.timeOrigin + now() at run(): the clock the executor threads report in. */
  enqueuedAt: number;
  /** performance.now() ms after which nobody waits for the answer: then it is not sent. */
  deadline?: number;
  resolve: (outputs: Record<string, HostTensor>) => void;
  reject: (e: Error) => void;
}

export class ExecutorPool {
  /** Requests of the current event-loop turn, sent together in one message. */
  private waiting: Waiting[] = [];
  private flushScheduled = false;
  /** Messages sent and not yet answered. */
  private inFlight = 0;
  /** Told when inFlight falls to 0 (close waits for it). */
  private drainedWaiters: Array<() => void> = [];
  /** Each loaded thread's own line for runs (see RunLineOffer); piscina's queue until the first. */
  private lines: RunLine[] = [];
  private lined = false;
  private waitHold?: NodeJS.Timeout;
  /** Requests admitted (see admit) and not yet run: they will wait here too. */
  private readonly admitted = new AdmissionCount();
  /** Told of each death (metrics, logs). */
  onThreadDeath?: (error: Error) => void;

  private constructor(
    private readonly pool: Piscina,
    readonly description: ModelDescription,
    readonly threads: number,
    private readonly maxQueued: number,
  ) {}

  static async open(options: ExecutorPoolOptions): Promise<ExecutorPool> {
    const { threads, maxQueued = Number.POSITIVE_INFINITY, workerFile = WORKER_FILE, signal, onLoadReport, ...workerData } = options;
    const pool = new Piscina({
      filename: workerFile,
      minThreads: threads,
      maxThreads: threads,
      idleTimeout: Number.MAX_SAFE_INTEGER,
      // One message at a time per thread: the rest wait in piscina's queue on the main thread, so a
      // thread that dies loses only the message it was running, not those queued behind it.
      concurrentTasksPerWorker: 1,
      recordTiming: false,
      // Workers idle in their event loop, not in Atomics.wait: measured 1.3–1.5× the REST
      // throughput on small models (messages are handled as they arrive).
      atomics: 'disabled',
      // Via piscina's optional @napi-rs/nice; see executorNiceIncrement.
      niceIncrement: executorNiceIncrement(threads),
      workerData,
    });
    // piscina emits 'error' for a thread that fails with no task on it — e.g. one that cannot
    // start at the fd limit (EMFILE). Unheard, that event would throw and end the process:
    // while opening it fails the load (whose describe tasks might otherwise wait forever);
    // afterwards it counts as a thread death.
    let opened: ExecutorPool | undefined;
    const offered: MessagePort[] = [];
    pool.on('message', (m: RunLineOffer) => {
      if (m?.kind !== 'runLine') return;
      if (opened) opened.addLine(m.port);
      else offered.push(m.port);
    });
    let failOpen: (e: Error) => void = () => {};
    const poolFailed = new Promise<never>((_, reject) => (failOpen = reject));
    poolFailed.catch(() => {});
    pool.on('error', (e: Error) => {
      if (!opened) return failOpen(internal(`executor thread failed to start: ${e.message}`));
      opened.onThreadDeath?.(internal(`executor thread failed: ${e.message}`));
    });
    const onAbort = () => failOpen(signal!.reason as Error);
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      if (signal?.aborted) throw signal.reason;
      // One describe per thread: every thread has loaded before the version serves.
      const describes = Promise.all(Array.from({ length: threads }, () => pool.run({ kind: 'describe' } satisfies ExecutorTask) as Promise<ExecutorReply>));
      describes.catch(() => {});
      const replies = await Promise.race([describes, poolFailed]);
      const first = replies[0];
      const load = 'load' in first ? first.load : undefined;
      if (load) onLoadReport?.(load);
      if (!first.ok) throw ServingError.fromData(first.error);
      if (first.kind !== 'describe') throw internal('executor answered describe with a run reply');
      opened = new ExecutorPool(pool, first.description, threads, maxQueued);
      for (const port of offered) opened.addLine(port);
      return opened;
    } catch (e) {
      // A thread stuck in native code ends only when it returns to JS: do not wait for it after a timeout.
      if (signal?.aborted) void pool.destroy().catch(() => {});
      else await pool.destroy();
      throw e;
    } finally {
      signal?.removeEventListener('abort', onAbort);
    }
  }

  /** Stops every thread now, whatever it runs (a load out of time); runs in flight fail. */
  terminate(): void {
    for (const l of this.lines) l.close();
    clearInterval(this.waitHold);
    void this.pool.destroy().catch(() => {});
  }

  private addLine(port: MessagePort): void {
    this.lined = true;
    this.lines.push(new RunLine(port, (closed) => (this.lines = this.lines.filter((l) => l !== closed))));
    if (this.waiting.length) this.flush();
  }

  /** An executor thread would take a message now. */
  private get threadIdle(): boolean {
    return this.lined ? this.lines.some((l) => l.idle) : this.inFlight < this.threads;
  }

  /**
   * Admission before a request is read: refused (executorQueueFull) when the requests waiting
   * and those admitted but not yet here fill --max_executor_queue; else holds a place.
   */
  admit(): Release {
    if (this.waiting.length + this.admitted.held >= this.maxQueued) throw executorQueueFull(this.maxQueued);
    return this.admitted.hold();
  }

  /**
   * Runs one request on some executor thread. Requests that arrive in the same event-loop
   * turn travel in one message (each still runs on its own, unbatched): under load this
   * removes most of the per-request cost of crossing threads.
   */
  run(
    signature: string,
    inputs: Record<string, HostTensor>,
    outputKeys: string[] = [],
    options: { timing?: ExecutorTiming; deadline?: number } = {},
  ): Promise<Record<string, HostTensor>> {
    // Without batching nothing else bounds what waits here (each request holds its tensors):
    // refuse at once rather than queue without end.
    if (this.waiting.length >= this.maxQueued) return Promise.reject(executorQueueFull(this.maxQueued));
    return new Promise((resolve, reject) => {
      this.waiting.push({ request: { signature, inputs, outputKeys }, timing: options.timing, enqueuedAt: performance.timeOrigin + performance.now(), deadline: options.deadline, resolve, reject });
      // Quiet (nothing in flight) and a thread free: send now. Waiting for the end of the turn
      // to gather company would add a loop turn to a lone request. Under load, requests gather
      // until the end of the turn: one message for many saves the main thread more than the turn costs.
      if (this.inFlight === 0 && this.threadIdle) this.flush();
      else if (!this.flushScheduled) {
        this.flushScheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  /**
   * Sends what waits, one message per idle thread: while the executors are busy, new requests
   * gather into the next message instead of queueing as many small ones (each message costs
   * the main thread about as much as the inference of a tiny model). Until the first thread
   * has offered its line, messages go through piscina's queue, at most two per thread; after,
   * only lines: while a dead thread's replacement loads, its requests wait here (piscina could
   * still hand them to the dead thread, whose exit it hears of after the line's close).
   */
  private flush(): void {
    this.flushScheduled = false;
    for (;;) {
      const line = this.lines.find((l) => l.idle);
      if (!this.waiting.length || (!line && (this.lined || this.inFlight >= this.threads * 2))) return this.holdWhileWaiting();
      const now = performance.now();
      const group = this.waiting.splice(0, MAX_REQUESTS_PER_MESSAGE).filter((w) => {
        if (w.deadline === undefined || w.deadline > now) return true;
        w.reject(queuedPastDeadline());
        return false;
      });
      if (!group.length) continue;
      this.inFlight++;
      const requests = group.map((w) => w.request);
      // Tensors their request alone holds move to the thread; the rest are copied.
      const transferList = takeTransferList(requests.flatMap((r) => Object.values(r.inputs)));
      const reply = line ? line.send(requests, transferList) : (this.pool.run({ kind: 'runMany', requests } satisfies ExecutorTask, { transferList }) as Promise<ExecutorReply>);
      void this.deliver(group, reply).finally(() => {
        if (--this.inFlight === 0) for (const w of this.drainedWaiters.splice(0)) w();
        if (this.waiting.length && !this.flushScheduled) this.flush();
      });
    }
  }

  /**
   * Requests waiting here for a line (a dead thread's replacement still loading) keep the
   * process alive, as a piscina task would: nothing else of the pool is referenced meanwhile.
   */
  private holdWhileWaiting(): void {
    if (this.waiting.length && !this.waitHold) this.waitHold = setInterval(() => {}, 1 << 30);
    else if (!this.waiting.length && this.waitHold) {
      clearInterval(this.waitHold);
      this.waitHold = undefined;
    }
  }

  private async deliver(group: Waiting[], sent: Promise<ExecutorReply>): Promise<void> {
    let reply: ExecutorReply;
    try {
      reply = await sent;
    } catch (e) {
      // The thread died (out of memory, abort): only these requests fail; piscina replaces the thread.
      const err = internal(`executor thread failed: ${(e as Error).message}`);
      this.onThreadDeath?.(err);
      for (const w of group) w.reject(err);
      return;
    }
    if (!reply.ok || reply.kind !== 'runMany') {
      const err = reply.ok ? internal('executor answered runMany with another reply') : ServingError.fromData(reply.error);
      for (const w of group) w.reject(err);
      return;
    }
    const receivedAt = performance.timeOrigin + performance.now();
    group.forEach((w, i) => {
      const r = reply.replies[i] as RunReply;
      if (r.ok) {
        if (w.timing) {
          w.timing.computeMs = r.computeMs;
          w.timing.handoffMs = r.startedAt - w.enqueuedAt;
          w.timing.handbackMs = receivedAt - r.endedAt;
        }
        w.resolve(r.outputs);
      }
      else w.reject(ServingError.fromData(r.error));
    });
  }

  /** Every intermediate tensor of one run of `signature` (see Servable.trace). */
  async trace(signature: string, inputs: Record<string, HostTensor>): Promise<Array<[string, HostTensor]>> {
    const reply = (await this.pool.run({ kind: 'trace', signature, inputs } satisfies ExecutorTask)) as ExecutorReply;
    if (!reply.ok) throw ServingError.fromData(reply.error);
    if (reply.kind !== 'trace') throw internal('executor answered trace with another reply');
    return reply.tensors;
  }

  /** Refuses (rejects) a run the load would make whose tensors exceed its memory bound (Servable.checkLoadRun). */
  async checkLoadRun(signature: string, inputs: Record<string, HostTensor>): Promise<void> {
    const reply = (await this.pool.run({ kind: 'checkLoadRun', signature, inputs } satisfies ExecutorTask)) as ExecutorReply;
    if (!reply.ok) throw ServingError.fromData(reply.error);
  }

  /** --verify_on_load's check of `signatures` against the WASM runtime, inside one executor thread. */
  async verifyInThread(signatures: string[]): Promise<VerificationReport> {
    const reply = (await this.pool.run({ kind: 'verify', signatures } satisfies ExecutorTask)) as ExecutorReply;
    if (!reply.ok) throw ServingError.fromData(reply.error);
    if (reply.kind !== 'verify') throw internal('executor answered verify with another reply');
    return reply.report;
  }

  async close(): Promise<void> {
    // Runs on the lines are not piscina tasks, which close() would wait for: wait for them here.
    while (this.inFlight > 0) await new Promise<void>((r) => this.drainedWaiters.push(r));
    for (const l of this.lines) l.close();
    clearInterval(this.waitHold);
    await this.pool.close();
  }
}
