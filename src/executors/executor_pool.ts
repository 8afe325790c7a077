// A fixed set of executor threads serving one model version (piscina underneath).
// Each thread loads its own copy of the version when the pool opens; `open` resolves once
// the version loaded (or rejects with the load error, after tearing the threads down).
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Piscina } from 'piscina';
import { Code, ServingError, internal, queuedPastDeadline } from '../core/status.js';
import type { HostTensor } from '../tensor/host_tensor.js';
import type { ExecutorReply, ExecutorTask, ExecutorWorkerData, ModelDescription, RunReply, RunRequest } from './protocol.js';
import type { VerificationReport } from '../runtimes/verify/verify_signatures.js';
import { AdmissionCount, type Release } from '../core/admission.js';

const here = fileURLToPath(import.meta.url);
// Same extension as this module: .js when compiled, .ts under tsx in development.
const WORKER_FILE = path.join(path.dirname(here), `executor_worker${path.extname(here)}`);

export interface ExecutorPoolOptions extends ExecutorWorkerData {
  threads: number;
  /** Requests that may wait for a thread (not yet handed to piscina); more are refused. Default: unbounded. */
  maxQueued?: number;
}

/** The queue of waiting requests is full: UNAVAILABLE (503), as batching's full queue. */
export function executorQueueFull(max: number): ServingError {
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

interface Waiting {
  request: RunRequest;
  /** Receives the executor thread's own compute time. */
  timing?: { computeMs?: number };
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
  /** Requests admitted (see admit) and not yet run: they will wait here too. */
  private readonly admitted = new AdmissionCount();
  /** Executor threads that died (each replaced by piscina). */
  threadDeaths = 0;
  /** Told of each death (metrics, logs). */
  onThreadDeath?: (error: Error) => void;

  private constructor(
    private readonly pool: Piscina,
    readonly description: ModelDescription,
    readonly threads: number,
    private readonly maxQueued: number,
  ) {}

  static async open(options: ExecutorPoolOptions): Promise<ExecutorPool> {
    const { threads, maxQueued = Number.POSITIVE_INFINITY, ...workerData } = options;
    const pool = new Piscina({
      filename: WORKER_FILE,
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
    let failOpen: (e: Error) => void = () => {};
    const poolFailed = new Promise<never>((_, reject) => (failOpen = reject));
    poolFailed.catch(() => {});
    pool.on('error', (e: Error) => {
      if (!opened) return failOpen(internal(`executor thread failed to start: ${e.message}`));
      opened.threadDeaths++;
      opened.onThreadDeath?.(internal(`executor thread failed: ${e.message}`));
    });
    try {
      // One describe per thread: every thread has loaded before the version serves.
      const describes = Promise.all(Array.from({ length: threads }, () => pool.run({ kind: 'describe' } satisfies ExecutorTask) as Promise<ExecutorReply>));
      const replies = await Promise.race([describes, poolFailed]);
      const first = replies[0];
      if (!first.ok) throw ServingError.fromData(first.error);
      if (first.kind !== 'describe') throw internal('executor answered describe with a run reply');
      opened = new ExecutorPool(pool, first.description, threads, maxQueued);
      return opened;
    } catch (e) {
      await pool.destroy();
      throw e;
    }
  }

  /**
   * Admission before a request is read: refused (executorQueueFull) when the requests waiting
   * and those admitted but not yet here fill --max_executor_queue; else holds a place.
   */
  admit(): Release {
    if (this.waiting.length + this.admitted.held >= this.maxQueued) throw executorQueueFull(this.maxQueued);
    return this.admitted.hold();
  }

  /** Tasks running or queued. */
  get pending(): number {
    return this.pool.queueSize + this.pool.threads.length * this.pool.utilization;
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
    options: { timing?: { computeMs?: number }; deadline?: number } = {},
  ): Promise<Record<string, HostTensor>> {
    // Without batching nothing else bounds what waits here (each request holds its tensors):
    // refuse at once rather than queue without end.
    if (this.waiting.length >= this.maxQueued) return Promise.reject(executorQueueFull(this.maxQueued));
    return new Promise((resolve, reject) => {
      this.waiting.push({ request: { signature, inputs, outputKeys }, timing: options.timing, deadline: options.deadline, resolve, reject });
      if (!this.flushScheduled) {
        this.flushScheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  /**
   * Sends what waits, keeping at most two messages in flight per thread: while the executors
   * are busy, new requests gather into the next message instead of queueing as many small
   * ones (each message costs the main thread about as much as the inference of a tiny model).
   */
  private flush(): void {
    this.flushScheduled = false;
    const maxInFlight = this.threads * 2;
    while (this.waiting.length && this.inFlight < maxInFlight) {
      const now = performance.now();
      const group = this.waiting.splice(0, MAX_REQUESTS_PER_MESSAGE).filter((w) => {
        if (w.deadline === undefined || w.deadline > now) return true;
        w.reject(queuedPastDeadline());
        return false;
      });
      if (!group.length) continue;
      this.inFlight++;
      void this.send(group).finally(() => {
        this.inFlight--;
        if (this.waiting.length && !this.flushScheduled) this.flush();
      });
    }
  }

  private async send(group: Waiting[]): Promise<void> {
    let reply: ExecutorReply;
    try {
      reply = (await this.pool.run({ kind: 'runMany', requests: group.map((w) => w.request) } satisfies ExecutorTask)) as ExecutorReply;
    } catch (e) {
      // The thread died (out of memory, abort): only these requests fail; piscina replaces the thread.
      const err = internal(`executor thread failed: ${(e as Error).message}`);
      this.threadDeaths++;
      this.onThreadDeath?.(err);
      for (const w of group) w.reject(err);
      return;
    }
    if (!reply.ok || reply.kind !== 'runMany') {
      const err = reply.ok ? internal('executor answered runMany with another reply') : ServingError.fromData(reply.error);
      for (const w of group) w.reject(err);
      return;
    }
    group.forEach((w, i) => {
      const r = reply.replies[i] as RunReply;
      if (r.ok) {
        if (w.timing) w.timing.computeMs = r.computeMs;
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

  /** --verify_on_load's check of `signatures` against the WASM runtime, inside one executor thread. */
  async verifyInThread(signatures: string[]): Promise<VerificationReport> {
    const reply = (await this.pool.run({ kind: 'verify', signatures } satisfies ExecutorTask)) as ExecutorReply;
    if (!reply.ok) throw ServingError.fromData(reply.error);
    if (reply.kind !== 'verify') throw internal('executor answered verify with another reply');
    return reply.report;
  }

  async close(): Promise<void> {
    await this.pool.close();
  }
}
