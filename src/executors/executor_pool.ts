// One model version on executor threads: its queue of waiting requests, gathered into one
// message per event-loop turn and handed to a free thread that has the version loaded. The
// threads are an ExecutorHost's: the pool's own (open without `host`) or one shared with other
// versions. `open` resolves once every thread has loaded the version (or rejects with the
// load error, after unloading it).
import { Code, ServingError, internal, queuedPastDeadline } from '../errors/status.js';
import type { HostTensor } from '../tensor/host_tensor.js';
import type { ExecutorReply, LoadReport, ModelDescription, RunRequest, VersionLoad } from './protocol.js';
import type { EngineSettings } from '../config/session_config.js';
import { takeTransferList } from '../tensor/request_owned.js';
import type { VerificationReport } from '../runtimes/verify/verify_signatures.js';
import { AdmissionCount, type Release } from './admission.js';
import { ExecutorHost, type ExecutorHostOptions, type HostTenant } from './executor_host.js';
import { NotStarted, type RunLine } from './run_line.js';
import { WidthChoice } from './core_sizing.js';
import { unpackReplies } from './run_wire.js';

export { executorNiceIncrement } from './executor_host.js';

export interface ExecutorPoolOptions extends VersionLoad {
  /** Threads of a host of the pool's own (ignored with `host`). */
  threads: number;
  runtime: ExecutorHostOptions['runtime'];
  /** Threads shared with other versions; none: the pool starts a host of its own and closes it with itself. */
  host?: ExecutorHost;
  /** Requests that may wait for a thread; more are refused. Default: unbounded. */
  maxQueued?: number;
  /** The thread's entry module (default: executor_worker). Tests give one that wraps it to inject faults. */
  workerFile?: string;
  /**
   * Abandons the load: open() rejects with the signal's reason when it is a ServingError (the
   * load ran out of time), else CANCELLED (shutdown).
   */
  signal?: AbortSignal;
  /** Told how loading went on the first thread to answer (load and warmup metrics), loaded or not. */
  onLoadReport?: (report: LoadReport) => void;
  /** Thread counts and GPU options for the runtime's sessions (threads of the pool's own). */
  engine?: EngineSettings;
  /** A wide thread for lone requests beside the pool's own threads, where allowed (ExecutorHostOptions.wide). */
  wide?: boolean;
}

/** The queue of waiting requests is full: UNAVAILABLE (503), as batching's full queue. */
function executorQueueFull(max: number): ServingError {
  return new ServingError(
    Code.UNAVAILABLE,
    `The executor queue is full: ${max} requests wait for this model version's threads (--max_executor_queue)`,
    { retryAfterMs: 1000 },
  );
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
  /** It may wait on a busy thread's line behind the message running there (see run). */
  queueBehind?: boolean;
  resolve: (outputs: Record<string, HostTensor>) => void;
  reject: (e: Error) => void;
}

export class ExecutorPool implements HostTenant {
  /** Requests of the current event-loop turn, sent together in one message. */
  private waiting: Waiting[] = [];
  private flushScheduled = false;
  /** Messages sent and not yet answered. */
  private inFlight = 0;
  /** The lines those messages went to, and how many each holds. */
  private readonly linesInFlight = new Map<RunLine, number>();
  /** Told when inFlight falls to 0 (close waits for it). */
  private drainedWaiters: Array<() => void> = [];
  private waitHold?: NodeJS.Timeout;
  /** Requests admitted (see admit) and not yet run: they will wait here too. */
  private readonly admitted = new AdmissionCount();
  private closed = false;
  /** Whether this version's lone requests go to the wide thread (where the host has one). */
  private readonly width = new WidthChoice();
  /** Told of each death (metrics, logs). */
  onThreadDeath?: (error: Error) => void;

  private constructor(
    private readonly host: ExecutorHost,
    /** The version's id on the host's threads. */
    private readonly id: number,
    readonly description: ModelDescription,
    private readonly maxQueued: number,
    /** The host is the pool's own: it closes with the pool. */
    private readonly ownsHost: boolean,
  ) {}

  get threads(): number {
    return this.host.size;
  }

  static async open(options: ExecutorPoolOptions): Promise<ExecutorPool> {
    const {
      threads,
      runtime,
      engine,
      wide,
      host: shared,
      maxQueued = Number.POSITIVE_INFINITY,
      workerFile,
      signal,
      onLoadReport,
      ...load
    } = options;
    const host = shared ?? ExecutorHost.start({ threads, runtime, engine, workerFile, wide });
    let opened: ExecutorPool | undefined;
    // A thread that fails with nothing on it counts as a death of the pool's own host's version.
    if (!shared) host.onThreadError = (e) => opened?.onThreadDeath?.(e);
    try {
      const { id, description } = await host.open(load, signal, onLoadReport);
      opened = new ExecutorPool(host, id, description, maxQueued, !shared);
      host.attach(id, opened);
      return opened;
    } catch (e) {
      // A load abandoned at shutdown may be stuck in its thread: do not wait for it.
      if (!shared) void host.destroy();
      throw e;
    }
  }

  /**
   * Stops the version now, whatever its threads run (a load out of time): threads of its own
   * are ended; on shared threads it is unloaded without waiting for them.
   */
  terminate(): void {
    if (this.ownsHost) void this.host.destroy().catch(() => {});
    else void this.host.unload(this.id);
  }

  /** A line may have become free for this version, or it lost its threads: send what waits. */
  wake(): void {
    if (this.waiting.length) this.flush();
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
   *
   * `queueBehind` (a batch, which can no longer grow): with no thread free, it is sent at
   * once to wait on a thread's line behind the message running there, so that the thread
   * starts it the moment it is done, not once the event loop has taken that answer and sent
   * the next message — which under load waits for whatever the loop is doing, then for the
   * thread to wake. Saturated, the engine idled between batches for that hand-off.
   */
  run(
    signature: string,
    inputs: Record<string, HostTensor>,
    outputKeys: string[] = [],
    options: { timing?: ExecutorTiming; deadline?: number; queueBehind?: boolean } = {},
  ): Promise<Record<string, HostTensor>> {
    // Without batching nothing else bounds what waits here (each request holds its tensors):
    // refuse at once rather than queue without end.
    if (this.waiting.length >= this.maxQueued) return Promise.reject(executorQueueFull(this.maxQueued));
    return new Promise((resolve, reject) => {
      this.waiting.push({
        request: { signature, inputs, outputKeys },
        timing: options.timing,
        enqueuedAt: performance.timeOrigin + performance.now(),
        deadline: options.deadline,
        queueBehind: options.queueBehind,
        resolve,
        reject,
      });
      if (options.queueBehind) this.flush();
      // Quiet (nothing in flight) and a thread free: send now. Waiting for the end of the turn
      // to gather company would add a loop turn to a lone request. Under load, requests gather
      // until the end of the turn: one message for many saves the main thread more than the turn costs.
      else if (this.inFlight === 0 && this.host.idleLine(this.id)) this.flush();
      else if (!this.flushScheduled) {
        this.flushScheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  /**
   * Sends what waits, one message per free line: while the executors are busy, new requests
   * gather into the next message instead of queueing as many small ones (each message costs
   * the main thread about as much as the inference of a tiny model). With no line free the
   * pool asks the host to be woken when one is; while a dead thread's replacement loads, its
   * requests wait here.
   */
  private flush(): void {
    this.flushScheduled = false;
    for (;;) {
      if (!this.waiting.length) return this.holdWhileWaiting();
      // A message sent while nothing runs anywhere may take the wide thread, if it has proved the faster here.
      const lone = this.host.processIdle();
      const idle = this.host.idleLine(this.id, !lone || this.width.tryWide());
      const line = idle ?? (this.waiting[0].queueBehind ? this.lineToQueueOn() : undefined);
      if (!line) {
        const why = this.host.unservable(this.id);
        if (why) for (const w of this.waiting.splice(0)) w.reject(why);
        else this.host.waitForLine(this);
        return this.holdWhileWaiting();
      }
      const now = performance.now();
      const take = idle ? MAX_REQUESTS_PER_MESSAGE : this.leadingQueueBehind();
      const group = this.waiting.splice(0, take).filter((w) => {
        if (w.deadline === undefined || w.deadline > now) return true;
        w.reject(queuedPastDeadline());
        return false;
      });
      if (!group.length) continue;
      this.inFlight++;
      this.linesInFlight.set(line, (this.linesInFlight.get(line) ?? 0) + 1);
      const requests: RunRequest[] = [];
      const inputs: HostTensor[] = [];
      for (const w of group) {
        requests.push(w.request);
        for (const name in w.request.inputs) inputs.push(w.request.inputs[name]);
      }
      // Tensors their request alone holds move to the thread; the rest are copied.
      const transferList = takeTransferList(inputs);
      this.host.countRuns(line, requests.length);
      void this.deliver(group, line, line.send(this.id, requests, transferList), lone ? line : undefined);
    }
  }

  /** A line of this version's running one message and none behind it. */
  private lineToQueueOn(): RunLine | undefined {
    for (const line of this.linesInFlight.keys()) if (line.canQueue) return line;
    return undefined;
  }

  /** How many of the first waiting requests may wait behind a running message (at most a message's worth). */
  private leadingQueueBehind(): number {
    let n = 0;
    while (n < this.waiting.length && n < MAX_REQUESTS_PER_MESSAGE && this.waiting[n].queueBehind) n++;
    return n;
  }

  /** A message on `line` was answered: what waits goes, and close() is told when nothing is in flight. */
  private delivered(line: RunLine): void {
    const left = (this.linesInFlight.get(line) ?? 1) - 1;
    if (left > 0) this.linesInFlight.set(line, left);
    else this.linesInFlight.delete(line);
    if (--this.inFlight === 0) for (const w of this.drainedWaiters.splice(0)) w();
    if (this.waiting.length && !this.flushScheduled) this.flush();
    this.host.lineFreed();
  }

  /**
   * Requests waiting here for a line (a dead thread's replacement still loading) keep the
   * process alive: nothing else of the pool is referenced meanwhile. One interval, made once,
   * ref'd while requests wait and unref'd when none do: under load requests wait for the busy
   * line at every flush, and an interval set and cleared each time was a timer list made,
   * queued and dropped again.
   */
  private holdWhileWaiting(): void {
    if (this.waiting.length) (this.waitHold ??= setInterval(() => {}, 1 << 30)).ref();
    else this.waitHold?.unref();
  }

  /** `loneLine`: the line of a lone message, whose run's compute time WidthChoice learns from. */
  private async deliver(group: Waiting[], line: RunLine, sent: Promise<ExecutorReply>, loneLine?: RunLine): Promise<void> {
    try {
      let reply: ExecutorReply;
      try {
        reply = await sent;
      } catch (e) {
        // The thread died (out of memory, abort): only these requests fail; piscina replaces the
        // thread. A batch that waited behind the message it died on fails with it (its inputs
        // were moved there); the death is counted once.
        const err = internal(`executor thread failed: ${(e as Error).message}`);
        if (!(e instanceof NotStarted)) this.onThreadDeath?.(err);
        for (const w of group) w.reject(err);
        return;
      }
      if (!reply.ok || reply.kind !== 'runMany') {
        const err = reply.ok ? internal('executor answered runMany with another reply') : ServingError.fromData(reply.error);
        for (const w of group) w.reject(err);
        return;
      }
      const receivedAt = performance.timeOrigin + performance.now();
      const replies = unpackReplies(reply.replies);
      for (let i = 0; i < group.length; i++) {
        const w = group[i];
        const r = replies[i];
        if (r.ok) {
          if (loneLine) this.width.record(this.host.widthOf(loneLine), r.computeMs);
          if (w.timing) {
            w.timing.computeMs = r.computeMs;
            w.timing.handoffMs = r.startedAt - w.enqueuedAt;
            w.timing.handbackMs = receivedAt - r.endedAt;
          }
          w.resolve(r.outputs);
        } else w.reject(ServingError.fromData(r.error));
      }
    } finally {
      this.delivered(line);
    }
  }

  /** Every intermediate tensor of one run of `signature` (see Servable.trace). */
  async trace(signature: string, inputs: Record<string, HostTensor>): Promise<Array<[string, HostTensor]>> {
    const reply = await this.host.control(this.id, { kind: 'trace', id: this.id, signature, inputs });
    if (!reply.ok) throw ServingError.fromData(reply.error);
    if (reply.kind !== 'trace') throw internal('executor answered trace with another reply');
    return reply.tensors;
  }

  /** Refuses (rejects) a run the load would make whose tensors exceed its memory bound (Servable.checkLoadRun). */
  async checkLoadRun(signature: string, inputs: Record<string, HostTensor>): Promise<void> {
    const reply = await this.host.control(this.id, { kind: 'checkLoadRun', id: this.id, signature, inputs });
    if (!reply.ok) throw ServingError.fromData(reply.error);
  }

  /** --verify_on_load's check of `signatures` against the WASM runtime, inside one executor thread. */
  async verifyInThread(signatures: string[]): Promise<VerificationReport> {
    const reply = await this.host.control(this.id, { kind: 'verify', id: this.id, signatures });
    if (!reply.ok) throw ServingError.fromData(reply.error);
    if (reply.kind !== 'verify') throw internal('executor answered verify with another reply');
    return reply.report;
  }

  /** Waits for the runs under way, then unloads the version (and ends the threads when they are the pool's own). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    while (this.inFlight > 0) await new Promise<void>((r) => this.drainedWaiters.push(r));
    clearInterval(this.waitHold);
    this.waitHold = undefined;
    if (this.ownsHost) await this.host.close();
    else await this.host.unload(this.id);
  }
}
