// Batching in front of a loaded version, as TF Serving's batching session does it: requests
// for the same signature, output filter and non-batch input shapes share a queue; a batch's
// inputs are stacked along dimension 0, padded to the next allowed batch size with the first
// row of the last task, run once, and the outputs sliced back (padded rows reach nobody).
// A request split over several batches (large-batch splitting) is reassembled in order.
import { invalidArgument, queuedPastDeadline, ServingError } from '../errors/status.js';
import type { HostTensor } from '../tensor/host_tensor.js';
import { concatRows, padDims, padRows, sliceRows } from '../tensor/batch_rows.js';
import { AdmissionCount, type Release } from '../executors/admission.js';
import type { RunOptions, RunStats, ServableVersion } from '../services/servable_version.js';
import { paddedSize, type Batch, type BatchQueue, type QueueOptions, type SharedBatchScheduler } from './batch_scheduler.js';
import { markRequestOwned } from '../tensor/request_owned.js';
import type { BatchTimes } from './batch_trace.js';

export interface BatchTask {
  /** The loaded version that runs the batch. */
  target: ServableVersion;
  signature: string;
  outputKeys: string[];
  inputs: Record<string, HostTensor>;
  size: number;
  /** A task split over batches: its output slices by the row offset they start at, made with its first slice. */
  parts?: Map<number, Record<string, HostTensor>>;
  received: number;
  done: boolean;
  /** When it was scheduled (performance.now()), and where its stats go. */
  enqueuedAt: number;
  stats?: RunStats;
  /** performance.now() ms after which the caller no longer waits. */
  deadline?: number;
  resolve: (outputs: Record<string, HostTensor>) => void;
  reject: (e: Error) => void;
}

/** Rows in a request: the 0th dimension all its inputs share. */
function taskSize(inputs: Record<string, HostTensor>): number {
  let size: number | undefined;
  for (const t of Object.values(inputs)) {
    if (t.shape.length === 0) throw invalidArgument('Batching session requires all inputs to have a batch (0th) dimension; got a scalar');
    if (size !== undefined && t.shape[0] !== size)
      throw invalidArgument('Batching session requires all inputs to have the same 0th-dimension size');
    size = t.shape[0];
  }
  if (!size) throw invalidArgument('Batching session requires a non-empty batch dimension');
  return size;
}

/**
 * Requests batch together only when this key is equal: same signature and outputs, same
 * inputs with the same dtypes and non-batch shapes (only the same ranks when variable-length
 * inputs are padded).
 */
function queueKey(signature: string, outputKeys: string[], inputs: Record<string, HostTensor>, padVariable: boolean): string {
  // Built for every request: no sort or copy where there is one name, no intermediate arrays.
  const names = Object.keys(inputs);
  if (names.length > 1) names.sort();
  let key = `${signature}|${outputKeys.length > 1 ? [...outputKeys].sort().join(',') : (outputKeys[0] ?? '')}|`;
  for (let i = 0; i < names.length; i++) {
    const t = inputs[names[i]];
    key += `${i ? ',' : ''}${names[i]}:${t.dtype}[${padVariable ? t.shape.length : t.shape.slice(1).join(',')}]`;
  }
  return key;
}

/** What a queue was last chosen by: the next request like it (the common case) takes the same queue without its key built. */
interface QueueChoice {
  signature: string;
  outputKeys: readonly string[];
  inputs: ReadonlyArray<{ name: string; dtype: string; shape: readonly number[] }>;
  queue: BatchQueue<BatchTask>;
}

/** Whether queueKey would give this request the key `choice` was made with: the same names, in any order, with the same dtypes and shapes beyond dimension 0 (ranks, when padded). */
function sameKey(
  choice: QueueChoice,
  signature: string,
  outputKeys: string[],
  inputs: Record<string, HostTensor>,
  padVariable: boolean,
): boolean {
  if (choice.signature !== signature || choice.outputKeys.length !== outputKeys.length) return false;
  for (let i = 0; i < outputKeys.length; i++) if (choice.outputKeys[i] !== outputKeys[i]) return false;
  let count = 0;
  for (const name in inputs) {
    count++;
    const was = choice.inputs.find((c) => c.name === name);
    const t = inputs[name];
    if (!was || was.dtype !== t.dtype || was.shape.length !== t.shape.length) return false;
    if (!padVariable) for (let d = 1; d < t.shape.length; d++) if (was.shape[d] !== t.shape[d]) return false;
  }
  return count === choice.inputs.length;
}

/** Answers a task whose outputs came in slices from several batches, once the last is in. */
function finishSplit(task: BatchTask, parts: Map<number, Record<string, HostTensor>>): void {
  if (task.done) return;
  task.done = true;
  const offsets = [...parts.keys()].sort((a, b) => a - b);
  const keys = Object.keys(parts.get(offsets[0])!);
  task.resolve(Object.fromEntries(keys.map((k) => [k, concatRows(offsets.map((o) => parts.get(o)![k]))])));
}

export class BatchingSession implements ServableVersion {
  private readonly queues = new Map<string, BatchQueue<BatchTask>>();
  /** The queue the last request took, and what it was chosen by. */
  private lastChoice?: QueueChoice;
  /** Requests admitted and not yet scheduled (being read or parsed). */
  private readonly admitted = new AdmissionCount();

  constructor(
    private readonly name: string,
    private readonly inner: ServableVersion,
    private readonly scheduler: SharedBatchScheduler<BatchTask>,
    private options: QueueOptions,
  ) {}

  /** New batching parameters for this version's queues, present and future. */
  reconfigure(options: QueueOptions): void {
    this.options = options;
    // pad_variable_length_inputs may have changed what a key compares.
    this.lastChoice = undefined;
    for (const q of this.queues.values()) q.reconfigure(options);
  }

  get description() {
    return this.inner.description;
  }

  /**
   * Refused (TF Serving's queue-full text) when the rows the version's queues can still take
   * are all promised to requests admitted and still being parsed, one row each at least.
   * Until a request is parsed its queue is unknown: a version batches one signature and
   * shape in the common case, where this is what scheduling would say; with several queues
   * their room is pooled. Before any queue exists nothing is refused.
   */
  admit(): Release {
    let free = 0;
    let fullest: BatchQueue<BatchTask> | undefined;
    for (const q of this.queues.values()) {
      free += q.freeRows;
      if (!fullest || q.enqueuedBatches > fullest.enqueuedBatches) fullest = q;
    }
    if (fullest && this.admitted.held >= free) throw fullest.fullError();
    return this.admitted.hold();
  }

  run(
    signature: string,
    inputs: Record<string, HostTensor>,
    outputKeys: string[],
    options: RunOptions = {},
  ): Promise<Record<string, HostTensor>> {
    const size = taskSize(inputs);
    const queue = this.queueFor(signature, outputKeys, inputs);
    return new Promise((resolve, reject) => {
      const task: BatchTask = {
        target: this.inner,
        signature,
        outputKeys,
        inputs,
        size,
        received: 0,
        done: false,
        enqueuedAt: performance.now(),
        stats: options.stats,
        deadline: options.deadline,
        resolve,
        reject,
      };
      queue.schedule(task, size);
    });
  }

  /** The queue of requests batching with this one, made on first use. */
  private queueFor(signature: string, outputKeys: string[], inputs: Record<string, HostTensor>): BatchQueue<BatchTask> {
    const padVariable = this.options.padVariableLengthInputs ?? false;
    const last = this.lastChoice;
    if (last && sameKey(last, signature, outputKeys, inputs, padVariable)) return last.queue;
    const key = queueKey(signature, outputKeys, inputs, padVariable);
    let queue = this.queues.get(key);
    if (!queue) {
      queue = this.scheduler.addQueue(`${this.name}/${key}`, this.options);
      this.queues.set(key, queue);
    }
    this.lastChoice = {
      signature,
      outputKeys: [...outputKeys],
      inputs: Object.keys(inputs).map((name) => ({ name, dtype: inputs[name].dtype, shape: [...inputs[name].shape] })),
      queue,
    };
    return queue;
  }

  close(): void {
    this.lastChoice = undefined;
    for (const q of this.queues.values()) this.scheduler.removeQueue(q);
    this.queues.clear();
  }
}

/** Zero-pads every part to the largest size in each non-batch dimension (no-op when they agree). */
function padToLargest(parts: HostTensor[]): HostTensor[] {
  const rank = parts[0].shape.length;
  const target = Array.from({ length: rank }, (_, d) => Math.max(...parts.map((p) => p.shape[d])));
  return parts.map((p) => (p.shape.every((s, d) => d === 0 || s === target[d]) ? p : padDims(p, [p.shape[0], ...target.slice(1)])));
}

function failAll(batch: Batch<BatchTask>, e: Error): void {
  for (const p of batch.pieces) {
    if (p.task.done) continue;
    p.task.done = true;
    p.task.reject(e);
  }
}

/**
 * Takes out of the batch the tasks nobody waits for any more: those past their deadline
 * (answered DEADLINE_EXCEEDED; they never run) and the rest of split tasks that already
 * failed. The batch shrinks, and is padded anew.
 */
export function dropUnwanted(queue: BatchQueue<BatchTask>, batch: Batch<BatchTask>): void {
  const now = performance.now();
  for (const p of batch.pieces) {
    if (!p.task.done && p.task.deadline !== undefined && p.task.deadline <= now) {
      p.task.done = true;
      p.task.reject(queuedPastDeadline());
    }
  }
  const live = batch.pieces.filter((p) => !p.task.done);
  if (live.length === batch.pieces.length) return;
  batch.pieces = live;
  batch.size = live.reduce((n, p) => n + p.size, 0);
  batch.paddedSize = paddedSize(batch.size, queue.options.allowedBatchSizes);
}

/**
 * Runs one batch: stack, pad, run on the version's executors, slice the outputs back. The
 * executor is given back (`executorFree`) as soon as the outputs are in, before any task is
 * answered: the next batch is on its way to the executor while the event loop writes this
 * one's answers, which for a batch of 32 small requests takes it milliseconds.
 */
export async function processBatch(queue: BatchQueue<BatchTask>, batch: Batch<BatchTask>, executorFree?: () => void): Promise<void> {
  dropUnwanted(queue, batch);
  const pieces = batch.pieces;
  if (!pieces.length) return;
  const first = pieces[0].task;
  const last = pieces[pieces.length - 1];
  // Padding rows repeat the first row of the last task, at its row in the stacked batch.
  const padRow = batch.size - last.size;
  let outputs: Record<string, HostTensor>;
  const started = performance.now();
  for (const p of pieces) {
    if (!p.task.stats) continue;
    p.task.stats.queueMs = Math.max(p.task.stats.queueMs ?? 0, started - p.task.enqueuedAt);
    p.task.stats.batchSize = batch.size;
    p.task.stats.paddedBatchSize = batch.paddedSize;
  }
  try {
    const stacked = Object.fromEntries(
      Object.keys(first.inputs).map((n) => {
        const parts = pieces.map((p) => (p.size === p.taskSize ? p.task.inputs[n] : sliceRows(p.task.inputs[n], p.offset, p.size)));
        const rows = concatRows(padToLargest(parts));
        // Stacked for this batch alone: it may be moved to the executor thread.
        return [n, markRequestOwned(padRows(rows, batch.paddedSize, padRow))];
      }),
    );
    const batchStats: RunStats = {};
    // The batch is wanted while any of its tasks is: until the last deadline (none if one has none).
    const deadlines = pieces.map((p) => p.task.deadline);
    const deadline = deadlines.includes(undefined) ? undefined : Math.max(...(deadlines as number[]));
    if (batch.trace) batch.trace.sentAt = performance.now();
    outputs = await first.target.run(first.signature, stacked, first.outputKeys, { stats: batchStats, deadline, queueBehind: true });
    batch.costMs = batchStats.computeMs;
    if (batch.trace) traceRun(batch.trace, batchStats);
    executorFree?.();
    const inferMs = performance.now() - started;
    for (const p of pieces) {
      if (!p.task.stats) continue;
      p.task.stats.inferMs = (p.task.stats.inferMs ?? 0) + inferMs;
      // The batch's own split, for each of its requests' Server-Timing.
      p.task.stats.handoffMs = batchStats.handoffMs;
      p.task.stats.computeMs = batchStats.computeMs;
      p.task.stats.handbackMs = batchStats.handbackMs;
    }
    for (const [k, t] of Object.entries(outputs)) {
      if (t.shape[0] !== batch.paddedSize) {
        throw invalidArgument(
          `Batched output tensor '${k}' has 0th dimension ${t.shape[0] ?? 'none'}, but the batch has ${batch.paddedSize} rows: the signature cannot be batched`,
        );
      }
    }
  } catch (e) {
    failAll(batch, e instanceof Error ? e : new ServingError(2, String(e)));
    return;
  }
  const names = Object.keys(outputs);
  let row = 0;
  for (const p of pieces) {
    const slice: Record<string, HostTensor> = {};
    for (const k of names) slice[k] = sliceRows(outputs[k], row, p.size);
    row += p.size;
    const task = p.task;
    if (p.size === p.taskSize) {
      // The whole task in this batch (the common case): answered with its slice at once.
      if (!task.done) {
        task.done = true;
        task.resolve(slice);
      }
      continue;
    }
    (task.parts ??= new Map()).set(p.offset, slice);
    task.received += p.size;
    if (task.received === task.size) finishSplit(task, task.parts);
  }
  if (batch.trace) traceAnswered(batch.trace);
}

/** The run's times on the thread, from its hand-off and hand-back as the pool measured them. */
function traceRun(t: BatchTimes, stats: RunStats): void {
  t.outputsAt = performance.now();
  t.threadStart = t.sentAt + (stats.handoffMs ?? NaN);
  t.threadEnd = t.outputsAt - (stats.handbackMs ?? NaN);
}

function traceAnswered(t: BatchTimes): void {
  t.answeredAt = performance.now();
  setImmediate(() => (t.afterAnswersAt = performance.now()));
}
