// TF Serving's shared batch scheduler, by its documented semantics (batch_scheduler.h,
// shared_batch_scheduler.h): `numBatchThreads` executors are shared by every queue (one queue
// per model/version/signature); each queue has one open batch whose timer starts with its
// first task; a batch may run when it is full, timed out, or closed (a task that did not fit
// closed it); executors pull the next runnable batch round-robin over the queues, so batches
// keep growing while every executor is busy, and a zero timeout runs whatever has gathered.
// The scheduler knows sizes and tasks, not models: `processBatch` is injected.
// A queue with `adaptive` options replaces the fixed timeout with tfgate's adaptive policy
// (adaptive_batch_policy.ts); without them every decision is TF Serving's.
import { Code, ServingError, invalidArgument } from '../errors/status.js';
import { cpuCount } from '../config/batching_parameters.js';
import { AdaptiveBatchPolicy, type AdaptiveOptions } from './adaptive_batch_policy.js';
import { systemClock, type Clock } from './clock.js';

export interface QueueOptions {
  maxBatchSize: number;
  batchTimeoutMicros: number;
  maxEnqueuedBatches: number;
  /** Sizes a batch is padded up to (ascending; the last equals the largest batch). Empty: no padding. */
  allowedBatchSizes: readonly number[];
  enableLargeBatchSplitting: boolean;
  /** Largest batch run at once when splitting is enabled (defaults to maxBatchSize). */
  maxExecutionBatchSize?: number;
  /** pad_variable_length_inputs: requests whose inputs differ beyond dimension 0 may share a batch, zero-padded to the largest. */
  padVariableLengthInputs?: boolean;
  /** tfgate's adaptive batching: batchTimeoutMicros is then ignored. */
  adaptive?: AdaptiveOptions;
}

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
  /** Set by the batch's timer: it has waited batch_timeout_micros. */
  timedOut?: boolean;
  /** What running it cost the executor (ms), when processBatch learns it. */
  costMs?: number;
}

export type ProcessBatch<T> = (queue: BatchQueue<T>, batch: Batch<T>) => Promise<void>;

function queueFullMessage(enqueued: number, max: number): string {
  return `The batch scheduling queue to which this task was submitted is full; currently ${enqueued} batches enqueued and max_enqueued_batches is ${max}`;
}

function oversizeMessage(size: number, max: number): string {
  return `Task size ${size} is larger than maximum input batch size ${max}`;
}

function latencyTargetMessage(predictedMs: number, targetMs: number): string {
  return `The request would miss the model's latency target: about ${Math.round(predictedMs)} ms predicted for the work queued ahead of it, target ${targetMs} ms; retry later`;
}

export class BatchQueue<T> {
  /** Closed batches waiting for an executor, oldest first. */
  private readonly closed: Batch<T>[] = [];
  private open: Batch<T> | undefined;
  private timer: unknown;
  private stopped = false;
  /** Adaptive mode: the policy, and the timer that wakes the scheduler when a wait ends. */
  private adaptivePolicy: AdaptiveBatchPolicy | undefined;
  private wakeTimer: unknown;
  private current: QueueOptions;

  constructor(
    readonly name: string,
    options: QueueOptions,
    private readonly scheduler: SharedBatchScheduler<T>,
  ) {
    this.current = options;
    if (options.adaptive) this.adaptivePolicy = new AdaptiveBatchPolicy(options.adaptive, scheduler);
  }

  get options(): QueueOptions {
    return this.current;
  }

  get policy(): AdaptiveBatchPolicy | undefined {
    return this.adaptivePolicy;
  }

  /**
   * New parameters (a batching.cfg edit) for the batches formed from now on. Nothing queued
   * is dropped: closed batches run as they are, and an open batch the new size cannot hold
   * is closed as it stands. An adaptive policy keeps what it learned unless its options change.
   */
  reconfigure(options: QueueOptions): void {
    const adaptiveChanged = JSON.stringify(options.adaptive) !== JSON.stringify(this.current.adaptive);
    this.current = options;
    if (adaptiveChanged) {
      this.scheduler.clock.clearTimer(this.wakeTimer);
      this.adaptivePolicy = options.adaptive ? new AdaptiveBatchPolicy(options.adaptive, this.scheduler) : undefined;
    }
    if (this.open && this.open.size >= this.executionBatchSize) this.closeOpen();
    this.scheduler.pump();
  }

  /** Largest batch this queue runs at once (adaptive with a latency target: maybe fewer rows). */
  get executionBatchSize(): number {
    const max = this.options.enableLargeBatchSplitting ? this.options.maxExecutionBatchSize ?? this.options.maxBatchSize : this.options.maxBatchSize;
    return this.policy ? this.policy.batchCap(max) : max;
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
    if (this.policy) {
      const miss = this.policy.predictedMiss(size, this.queuedRows, cap);
      if (miss) {
        throw new ServingError(Code.UNAVAILABLE, latencyTargetMessage(miss.predictedMs, miss.targetMs), { retryAfterMs: miss.predictedMs - miss.targetMs });
      }
      this.policy.recordArrival(this.scheduler.clock.now(), size);
    }
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
    this.scheduler.pump();
  }

  private startBatch(): void {
    if (this.open) this.closeOpen();
    this.open = { pieces: [], size: 0, paddedSize: 0, openedAt: this.scheduler.clock.now() };
    const ms = this.options.batchTimeoutMicros / 1000;
    if (ms > 0 && !this.policy) {
      const batch = this.open;
      // The timer firing is the timeout: timers and clocks differ in granularity, so
      // comparing clock readings could find it "not yet due" and never look again.
      this.timer = this.scheduler.clock.setTimer(ms, () => {
        batch.timedOut = true;
        if (this.open === batch) this.scheduler.pump();
      });
    }
  }

  private add(piece: TaskPiece<T>): void {
    this.open!.pieces.push(piece);
    this.open!.size += piece.size;
  }

  private closeOpen(): void {
    if (!this.open) return;
    this.scheduler.clock.clearTimer(this.timer);
    this.closed.push(this.open);
    this.open = undefined;
  }

  /** The next batch an idle executor may run, or undefined. */
  take(): Batch<T> | undefined {
    let batch = this.closed.shift();
    if (!batch && this.open) {
      const full = this.open.size >= this.executionBatchSize;
      const timedOut = this.policy ? this.adaptiveRunsNow(this.open) : this.open.timedOut || this.options.batchTimeoutMicros <= 0;
      if (full || timedOut || this.stopped) {
        batch = this.open;
        this.scheduler.clock.clearTimer(this.timer);
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

  /** Adaptive mode: whether a free executor should run the open batch now; if not, wake it later. */
  private adaptiveRunsNow(open: Batch<T>): boolean {
    const clock = this.scheduler.clock;
    clock.clearTimer(this.wakeTimer);
    if (open.timedOut) return true;
    const decision = this.policy!.decide(clock.now(), open.size, open.openedAt, this.executionBatchSize);
    if (decision.run) return true;
    this.wakeTimer = clock.setTimer(decision.wakeAt - clock.now(), () => {
      // The wait is over: the decision depends on the clock, so a late check must not say "not yet".
      open.timedOut = true;
      if (this.open === open) this.scheduler.pump();
    });
    return false;
  }

  /** A batch of this queue finished after `ms` (what the adaptive policy learns from). */
  batchDone(batch: Batch<T>, ms: number): void {
    this.policy?.recordBatch(batch.paddedSize, ms);
  }

  /** Stops accepting tasks; what is enqueued still runs (open batch included, at once). */
  close(): void {
    this.stopped = true;
    this.scheduler.clock.clearTimer(this.wakeTimer);
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
  ) {}

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
      const started = this.clock.now();
      void this.processBatch(q, b)
        .catch(() => {})
        .finally(() => {
          this.busy--;
          q.batchDone(b, b.costMs ?? this.clock.now() - started);
          this.pump();
        });
    }
  }
}
