// A batching policy: what a batch queue asks about the things TF Serving's rules leave open.
// The queue itself keeps those rules for every policy (batch_scheduler.ts): a task larger
// than max_batch_size is refused unless it can be split, past max_enqueued_batches the queue
// is full, a full batch runs at once, a task that does not fit closes the open batch, and
// executors pull batches round-robin. A policy decides the rest:
//   admit      may refuse a task early, after those checks (adaptive: a latency target);
//   batchCap   the largest batch to form, at most the queue's own maximum;
//   whenToRun  a free executor asks about the open, partial batch: run it now, or when to
//              wake it (the queue's one wake-up timer serves every policy; a time already
//              past means now);
//   batchDone  what running a batch cost, for a policy that learns.
// The policies, each with a worked example: fixed_timeout_policy.ts (TF Serving's),
// adaptive_batch_policy.ts (tfgate's); batch_policies.ts maps each --batching_mode to one.
import type { ServingError } from '../errors/status.js';
import type { QueueOptions } from './queue_options.js';

export type Decision = { run: true } | { run: false; wakeAt: number };

export const RUN_NOW: Decision = Object.freeze({ run: true });

/** The queue as its policy is asked; each figure is worked out when read, so read only what you need. */
export interface QueueView {
  /** Rows waiting: closed batches and the open one. */
  readonly queuedRows: number;
  /** Largest batch the queue forms now (this policy's batchCap of the queue's maximum). */
  readonly executionBatchSize: number;
  /** The scheduler's clock (ms). */
  readonly now: number;
}

/** The open batch as a policy sees it (clock ms). */
export interface OpenBatch {
  /** Rows in it. */
  readonly size: number;
  /** When its first task entered. */
  readonly openedAt: number;
}

export interface BatchPolicy {
  /** A task of `rows` asks to join `queue`: an error refuses it, undefined admits it. */
  admit(rows: number, queue: QueueView): ServingError | undefined;
  /** Largest batch to form, given the queue's `max` (max_batch_size, or max_execution_batch_size when splitting). */
  batchCap(max: number): number;
  /** A free executor asks about the open batch of `queue` (not full): run it now, or wake it at `wakeAt` (then it runs, or the policy is asked again with more rows). */
  whenToRun(open: OpenBatch, queue: QueueView): Decision;
  /** A batch of `rows` (padded) took `ms` on its executor. */
  batchDone(rows: number, ms: number): void;
}

/**
 * What a policy may read, at each call (never copied): the queue's options, which a
 * batching.cfg edit replaces, and the shared scheduler's executors.
 */
export interface PolicyContext {
  readonly options: QueueOptions;
  /** num_batch_threads now. */
  readonly numBatchThreads: number;
  /** CPUs this process may run on. */
  readonly cores: number;
}

export type PolicyFactory = (context: PolicyContext) => BatchPolicy;
