// TF Serving's shared batch scheduler, by its documented semantics (batch_scheduler.h,
// shared_batch_scheduler.h): `numBatchThreads` executors are shared by every queue (one queue
// per model/version/signature); each queue has one open batch; a batch may run when it is
// full, closed (a task that did not fit closed it), or when its policy says so; executors
// pull the next runnable batch round-robin over the queues, so batches keep growing while
// every executor is busy. The scheduler knows sizes and tasks, not models: `processBatch` is
// injected. What those rules leave open — when a partial batch runs, how large a batch may
// grow, a refusal of its own — each queue asks its batching policy (batch_policy.ts), the
// one its options' `mode` names in the scheduler's policy table (batch_policies.ts): TF
// Serving's batch_timeout_micros (fixed_timeout_policy.ts) unless told otherwise.
import { Code, ServingError, invalidArgument } from '../errors/status.js';
import { cpuCount } from '../config/batching_parameters.js';
import type { BatchPolicy, PolicyContext } from './batch_policy.js';
import type { QueueOptions } from './queue_options.js';
import { BATCH_POLICIES, type PolicyTable } from './batch_policies.js';
import { systemClock, type Clock } from './clock.js';
import { batchTrace, type BatchTimes } from './batch_trace.js';

export type { QueueOptions } from './queue_options.js';

/** One task, or a contiguous slice of it when splitting spread it over batches. */
export interface TaskPiece<T> {
  task: T;
  /** First row of the task in this piece. */
  offset: number;
  size: number;
  /** The task's full size; a piece with size < taskSize is part of a split. */
  taskSize: number;
}

export interface Batch<T> {
  pieces: TaskPiece<T>[];
  /** Rows of real work. */
  size: number;
  /** Rows after padding to the next allowed batch size. */
  paddedSize: number;
  /** When the first task entered (clock ms). */
  openedAt: number;
  /** Set by the queue's wake-up timer: the wait its policy asked for is over. */
  waitOver?: boolean;
  /** What running it cost the executor (ms), when processBatch learns it. */
  costMs?: number;
  /** Its times, when the batch trace is on (batch_trace.ts). */
  trace?: BatchTimes;
}

/**
 * Runs a batch. `executorFree`, when called, says the batch no longer holds its executor (its
 * outputs are back): the next batch may start while this one's tasks are still being answered.
 * The scheduler takes the promise's end for it when it is not called.
 */
export type ProcessBatch<T> = (queue: BatchQueue<T>, batch: Batch<T>, executorFree: () => void) => Promise<void>;

function queueFullMessage(enqueued: number, max: number): string {
  return `The batch scheduling queue to which this task was submitted is full; currently ${enqueued} batches enqueued and max_enqueued_batches is ${max}`;
}

function oversizeMessage(size: number, max: number): string {
  return `Task size ${size} is larger than maximum input batch size ${max}`;
}

export class BatchQueue<T> {
  /** Closed batches waiting for an executor, oldest first. */
  private readonly closed: Batch<T>[] = [];
  private open: Batch<T> | undefined;
  private stopped = false;
  private current: QueueOptions;
  private currentPolicy: BatchPolicy;
  /** The one timer of the queue: it wakes the open batch when the wait its policy asked for ends. */
  private wake: { timer: unknown; batch: Batch<T>; at: number } | undefined;
  /** What the policy reads: these options and the scheduler's executors, as they are at each call. */
  private readonly context: PolicyContext;

  constructor(
    readonly name: string,
    options: QueueOptions,
    private readonly scheduler: SharedBatchScheduler<T>,
  ) {
    this.current = options;
    const queue = this;
    this.context = {
      get options() {
        return queue.current;
      },
      get numBatchThreads() {
        return scheduler.numBatchThreads;
      },
      cores: scheduler.cores,
    };
    this.currentPolicy = scheduler.createPolicy(options.mode, this.context);
  }

  get options(): QueueOptions {
    return this.current;
  }

  get policy(): BatchPolicy {
    return this.currentPolicy;
  }

  /**
   * New parameters (a batching.cfg edit) for the batches formed from now on. Nothing queued
   * is dropped: closed batches run as they are, and an open batch the new size cannot hold
   * is closed as it stands. The policy reads the new options at its next decision, and keeps
   * what it learned unless the mode changes.
   */
  reconfigure(options: QueueOptions): void {
    const modeChanged = (options.mode ?? 'fixed') !== (this.current.mode ?? 'fixed');
    const policy = modeChanged ? this.scheduler.createPolicy(options.mode, this.context) : this.currentPolicy;
    this.current = options;
    if (modeChanged) {
      this.disarm();
      this.currentPolicy = policy;
    }
    if (this.open && this.open.size >= this.executionBatchSize) this.closeOpen();
    this.scheduler.pump();
  }

  /** Largest batch this queue runs at once (its policy may cap it lower). */
  get executionBatchSize(): number {
    const max = this.options.enableLargeBatchSplitting
      ? (this.options.maxExecutionBatchSize ?? this.options.maxBatchSize)
      : this.options.maxBatchSize;
    return this.policy.batchCap(max);
  }

  /** The scheduler's clock (ms). */
  get now(): number {
    return this.scheduler.clock.now();
  }

  /** Rows waiting: closed batches and the open one. */
  get queuedRows(): number {
    return this.closed.reduce((s, b) => s + b.size, 0) + (this.open?.size ?? 0);
  }

  /** Batches enqueued: waiting closed ones plus a non-empty open one. */
  get enqueuedBatches(): number {
    return this.closed.length + (this.open ? 1 : 0);
  }

  /** Rows this queue can still take: room in the open batch and in the batches it may add. */
  get freeRows(): number {
    const cap = this.executionBatchSize;
    const room = this.open ? cap - this.open.size : 0;
    return room + Math.max(0, this.options.maxEnqueuedBatches - this.enqueuedBatches) * cap;
  }

  /** The refusal of a full queue as it stands now (TF Serving's text). */
  fullError(): ServingError {
    return new ServingError(Code.UNAVAILABLE, queueFullMessage(this.enqueuedBatches, this.options.maxEnqueuedBatches));
  }

  /**
   * Adds a task of `size` rows. Throws INVALID_ARGUMENT for a task larger than the batch
   * size (without splitting) and UNAVAILABLE when the queue is full; TF Serving's texts.
   */
  schedule(task: T, size: number): void {
    if (this.stopped) throw new ServingError(Code.UNAVAILABLE, `batch queue ${this.name} is closed`);
    if (size < 1) throw invalidArgument(`Task size ${size} must be at least 1`);
    const max = this.options.maxBatchSize;
    if (size > max && !this.options.enableLargeBatchSplitting) throw invalidArgument(oversizeMessage(size, max));
    const cap = this.executionBatchSize;
    const room = this.open ? cap - this.open.size : 0;
    // Batches this task would add beyond the open one; checked before anything changes.
    const spill = this.options.enableLargeBatchSplitting ? Math.max(0, size - room) : size <= room ? 0 : size;
    const newBatches = spill === 0 ? 0 : Math.ceil(spill / cap);
    if (newBatches > 0 && this.closed.length + (this.open ? 1 : 0) + newBatches > this.options.maxEnqueuedBatches) {
      throw new ServingError(Code.UNAVAILABLE, queueFullMessage(this.enqueuedBatches, this.options.maxEnqueuedBatches));
    }
    const refusal = this.policy.admit(size, this);
    if (refusal) throw refusal;
    let offset = 0;
    if (this.options.enableLargeBatchSplitting) {
      while (offset < size) {
        if (!this.open || this.open.size === cap) this.startBatch();
        const take = Math.min(size - offset, cap - this.open!.size);
        this.add({ task, offset, size: take, taskSize: size });
        offset += take;
      }
    } else {
      if (!this.open || this.open.size + size > cap) this.startBatch();
      this.add({ task, offset: 0, size, taskSize: size });
    }
    if (batchTrace) batchTrace.arrived();
    this.scheduler.pump();
  }

  private startBatch(): void {
    if (this.open) this.closeOpen();
    this.open = { pieces: [], size: 0, paddedSize: 0, openedAt: this.scheduler.clock.now() };
  }

  private add(piece: TaskPiece<T>): void {
    this.open!.pieces.push(piece);
    this.open!.size += piece.size;
  }

  private closeOpen(): void {
    if (!this.open) return;
    this.disarm();
    this.closed.push(this.open);
    this.open = undefined;
  }

  /** The next batch an idle executor may run, or undefined. */
  take(): Batch<T> | undefined {
    let batch = this.closed.shift();
    if (!batch && this.open) {
      if (this.open.size >= this.executionBatchSize || this.stopped || this.runsNow(this.open)) {
        batch = this.open;
        this.disarm();
        this.open = undefined;
      }
    }
    if (batch) batch.paddedSize = paddedSize(batch.size, this.options.allowedBatchSizes);
    return batch;
  }

  /**
   * Executors all busy: the next batch if it can no longer grow — a closed one, or the open
   * one when full — so that it starts the moment an executor frees. A partial open batch
   * stays, to grow until a batch thread is free, as in TF Serving.
   */
  takeFullAhead(): Batch<T> | undefined {
    if (!this.closed.length && (!this.open || this.open.size < this.executionBatchSize)) return undefined;
    return this.take();
  }

  /** A free executor asks whether the open, partial batch runs now; if its policy says not yet, the queue wakes it then. */
  private runsNow(open: Batch<T>): boolean {
    if (open.waitOver) return true;
    const decision = this.policy.whenToRun(open, this);
    if (decision.run) return true;
    // Already set for that time: the timer firing, not a reading of the clock, says when.
    if (this.wake?.batch === open && this.wake.at === decision.wakeAt) return false;
    const clock = this.scheduler.clock;
    const now = clock.now();
    if (decision.wakeAt <= now) return true;
    this.disarm();
    const timer = clock.setTimer(decision.wakeAt - now, () => {
      // The timer firing ends the wait: timers and clocks differ in granularity, so a check
      // of the clock could find it "not yet" and never look again.
      open.waitOver = true;
      if (this.open === open) this.scheduler.pump();
    });
    this.wake = { timer, batch: open, at: decision.wakeAt };
    return false;
  }

  private disarm(): void {
    if (this.wake) this.scheduler.clock.clearTimer(this.wake.timer);
    this.wake = undefined;
  }

  /** A batch of this queue finished after `ms` (what a learning policy learns from). */
  batchDone(batch: Batch<T>, ms: number): void {
    this.policy.batchDone(batch.paddedSize, ms);
  }

  /** Stops accepting tasks; what is enqueued still runs (open batch included, at once). */
  close(): void {
    this.stopped = true;
    this.closeOpen();
    this.scheduler.pump();
  }
}

/** The smallest allowed size that holds `size` rows (no allowed sizes: no padding). */
export function paddedSize(size: number, allowed: readonly number[]): number {
  for (const a of allowed) if (a >= size) return a;
  return size;
}

export class SharedBatchScheduler<T> {
  private readonly queues: BatchQueue<T>[] = [];
  private next = 0;
  private busy = 0;

  constructor(
    private threads: number,
    private readonly processBatch: ProcessBatch<T>,
    readonly clock: Clock = systemClock,
    /** CPUs the executors and the event loop share (adaptive queues weigh their executors by it). */
    readonly cores: number = cpuCount(),
    /** The policy of each mode a queue may name. */
    private readonly policies: PolicyTable = BATCH_POLICIES,
  ) {}

  /** The policy `mode` names (unset: TF Serving's fixed timeout), reading `context`. */
  createPolicy(mode: string | undefined, context: PolicyContext): BatchPolicy {
    const factory = Object.hasOwn(this.policies, mode ?? 'fixed') ? this.policies[mode ?? 'fixed'] : undefined;
    if (!factory) throw new Error(`no batching policy for mode '${mode}' (known: ${Object.keys(this.policies).join(', ')})`);
    return factory(context);
  }

  get numBatchThreads(): number {
    return this.threads;
  }

  /** num_batch_threads changed: more executors start at once; fewer take effect as batches end. */
  setNumBatchThreads(n: number): void {
    this.threads = n;
    this.pump();
  }

  addQueue(name: string, options: QueueOptions): BatchQueue<T> {
    const q = new BatchQueue(name, options, this);
    this.queues.push(q);
    return q;
  }

  removeQueue(q: BatchQueue<T>): void {
    q.close();
    const i = this.queues.indexOf(q);
    if (i >= 0) this.queues.splice(i, 1);
  }

  /** Rows waiting, by queue name. */
  queuedRows(): Map<string, number> {
    return new Map(this.queues.map((q) => [q.name, q.queuedRows]));
  }

  /** Executors busy now. */
  get busyThreads(): number {
    return this.busy;
  }

  /**
   * Hands runnable batches to free executors, visiting queues round-robin, and one batch that
   * can no longer grow ahead to busy executors, so that it starts the moment one frees instead
   * of after the main thread has answered the last batch and formed the next. In TF Serving a
   * batch thread is free as soon as its batch has run; here the batch is also carried to an
   * executor thread and back through the event loop, and under overload that loop is busy
   * refusing the excess: without a batch ahead the executor would idle on every turnaround.
   */
  pump(): void {
    for (;;) {
      const free = this.busy < this.numBatchThreads;
      if (!this.queues.length || (!free && this.busy >= this.numBatchThreads + 1)) return;
      let batch: Batch<T> | undefined;
      let queue: BatchQueue<T> | undefined;
      for (let k = 0; k < this.queues.length && !batch; k++) {
        queue = this.queues[(this.next + k) % this.queues.length];
        batch = free ? queue.take() : queue.takeFullAhead();
        if (batch) this.next = (this.next + k + 1) % this.queues.length;
      }
      if (!batch || !queue) return;
      this.busy++;
      const q = queue;
      const b = batch;
      if (batchTrace) b.trace = batchTrace.taken(b.size, b.openedAt, !free, q.queuedRows);
      const started = this.clock.now();
      let freed = false;
      // What the batch held its executor: until its outputs are back (processBatch says so), or its end.
      const executorFree = () => {
        if (freed) return;
        freed = true;
        if (b.trace) b.trace.freedAt = performance.now();
        this.busy--;
        q.batchDone(b, b.costMs ?? this.clock.now() - started);
        this.pump();
      };
      void this.processBatch(q, b, executorFree)
        .catch(() => {})
        .finally(executorFree);
    }
  }
}
