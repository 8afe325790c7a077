// `adaptive`: tfgate's adaptive batching. Instead of a fixed batch_timeout_micros, a queue
// learns what a batch costs and how fast requests arrive, and waits for more only when
// waiting pays.
//
// The cost of a batch of b rows is modelled as τ(b) = c + a·b (c: what every batch pays
// whatever its size — dispatch, kernel launches, reading the weights; a: the cost per row),
// refitted by least squares over the last batches. With requests arriving at λ rows/ms over
// k executors, an executor that runs a batch every τ(b) keeps up when it collects the rows
// that arrived meanwhile: b = (λ/k)·τ(b), so b* = (λ/k)·c / (1 − (λ/k)·a). A free executor
// runs the open batch at once when it holds b* rows; otherwise it waits for the rows still
// missing, but never longer than c after the batch opened — merging two batches saves one c,
// so waiting longer than that costs the waiting rows more than it can save. A wait is rounded
// to what a timer can time: under 0.5 ms the batch runs at once, from there on the timer's
// 1 ms is taken. When arrivals outpace even full batches ((λ/k)·a ≥ 1) nothing waits: an
// idle executor is lost capacity. k counts the executors that can run at the same time: no
// more than the cores beside the event loop's.
//
// Worked example (test/batching/adaptive_batching.test.ts plays it): one executor, so k = 1;
// the queue has learned c = 20 ms, a = 0.5 ms/row, and rows have been arriving at
// λ = 0.5 per ms: b* = 0.5·20 / (1 − 0.5·0.5) ≈ 13.3 rows.
//   t = 40       r0 arrives; the executor is free. 1 row < b*; the 12.3 rows missing would
//                take ~25 ms, longer than c: wake at t = 40 + c = 60        open [r0]
//   t = 42 … 58  r1 … r9 arrive, one every 2 ms; each time the answer is the same: t = 60
//   t = 60       wake: the batch runs with 10 rows                          runs [r0 … r9]
// A zero fixed timeout would have run r0 alone at t = 40 and paid c again for r1 … r9.
// The same queue with one closed-loop user (a request, its answer, 40 ms of thought) sees λ
// so small that b* < 1: every request runs the moment it arrives. With 2 executors on 3
// cores or more, c = 6 ms, a = 0.5 ms: at λ = 0.35 rows/ms b* ≈ 1.15, so a lone request would
// wait ~0.4 ms for a partner, under half a timer's 1 ms: it runs at once; at λ = 0.6 rows/ms
// (b* ≈ 2.1) it waits up to 1.9 ms. At saturation the executors are never free and batches
// fill as with any pull-based scheduler.
//
// With a latency target, batches are capped at the size whose run fits in half the target,
// and a request whose predicted latency (the batches queued ahead of it, over all executors)
// exceeds the target is refused at once, with a Retry-After, instead of queueing to fail;
// one that would run in the first round is always admitted. Example: target 20 ms, c = 6,
// a = 0.5: batches of at most (20/2 − 6)/0.5 = 8 rows (10 ms each); with one executor busy,
// one full batch handed ahead of it and 16 rows waiting, a new request would run in the third
// batch from now, ~30 ms: refused, retry after 10 ms.
import { Code, ServingError } from '../errors/status.js';
import { RUN_NOW, type BatchPolicy, type Decision, type OpenBatch, type PolicyContext, type QueueView } from './batch_policy.js';

export interface AdaptiveOptions {
  /** Per-request latency the queue aims for (ms); undefined: none. */
  latencyTargetMs?: number;
}

/** Recent (rows, ms) pairs → τ(b) = c + a·b. */
export class BatchCostModel {
  private readonly rows: number[] = [];
  private readonly ms: number[] = [];
  private fit: { c: number; a: number } | undefined;

  constructor(private readonly window = 64) {}

  record(rows: number, ms: number): void {
    if (!(rows > 0) || !(ms >= 0)) return;
    this.rows.push(rows);
    this.ms.push(ms);
    if (this.rows.length > this.window) {
      this.rows.shift();
      this.ms.shift();
    }
    this.fit = undefined;
  }

  get samples(): number {
    return this.rows.length;
  }

  /** { c, a } in ms and ms/row; both ≥ 0. Zeros before any batch ran. */
  coefficients(): { c: number; a: number } {
    if (this.fit) return this.fit;
    const n = this.rows.length;
    if (n === 0) return { c: 0, a: 0 };
    const mb = this.rows.reduce((s, x) => s + x, 0) / n;
    const mt = this.ms.reduce((s, x) => s + x, 0) / n;
    let cov = 0;
    let varb = 0;
    for (let i = 0; i < n; i++) {
      cov += (this.rows[i] - mb) * (this.ms[i] - mt);
      varb += (this.rows[i] - mb) ** 2;
    }
    // One batch size seen so far: the split between c and a is unknown, and taking it all as
    // per-row cost (c = 0) makes the policy greedy until sizes vary — the safe side.
    let a = varb > 1e-9 ? cov / varb : mt / mb;
    let c = mt - a * mb;
    if (a < 0) {
      a = 0;
      c = mt;
    }
    if (c < 0) {
      c = 0;
      a = mt / mb;
    }
    this.fit = { c, a };
    return this.fit;
  }

  predict(rows: number): number {
    const { c, a } = this.coefficients();
    return c + a * rows;
  }
}

/** Rows per ms over the last arrivals, decaying as the time since the newest grows. */
export class ArrivalRate {
  // A ring of the last `window` arrivals, and the sum of their rows: one is recorded for every
  // request, so neither recording nor reading walks the window.
  private readonly at: Float64Array;
  private readonly rows: Float64Array;
  /** Arrivals held (≤ window), and where the oldest is. */
  private count = 0;
  private oldest = 0;
  private rowSum = 0;

  constructor(private readonly window = 64) {
    this.at = new Float64Array(window);
    this.rows = new Float64Array(window);
  }

  record(now: number, rows: number): void {
    let slot: number;
    if (this.count < this.window) slot = (this.oldest + this.count++) % this.window;
    else {
      slot = this.oldest;
      this.rowSum -= this.rows[slot];
      this.oldest = (this.oldest + 1) % this.window;
    }
    this.at[slot] = now;
    this.rows[slot] = rows;
    this.rowSum += rows;
  }

  rowsPerMs(now: number): number {
    if (this.count < 2) return 0;
    const span = now - this.at[this.oldest];
    if (span <= 0) return 0;
    // The oldest arrival opens the interval; the rows after it arrived within it.
    return (this.rowSum - this.rows[this.oldest]) / span;
  }
}

/**
 * The shortest wait worth deciding. A Node timer cannot fire sooner than 1 ms, and fires late:
 * a wanted wait is rounded to what a timer gives, under half of it the batch runs at once.
 * Seed experiment on 2 cores (5 s × 3–6 rounds, set-ups interleaved, three runs), this
 * rounding with the executor count below against neither (waits under 1 ms ran at once):
 * 20 users 9.26 vs 9.92, 7.82 vs 8.34, 8.54 vs 8.86 ms; 40 users 11.26 vs 13.53, 10.55 vs
 * 10.49, 11.13 vs 12.08, and in a fourth run 11.32 vs 11.17 (80 users there 17.08 vs 17.11:
 * the same within noise); against the executor count alone, 20 users 9.26 vs 9.02 and 8.54 vs
 * 8.70, 40 users 11.26 vs 13.53 and 11.13 vs 11.69.
 * Re-checking every event-loop turn instead took CPU from the executors, and was slower.
 */
const MIN_WAIT_MS = 0.5;

/**
 * Executors that can run batches at the same time: the event loop parses and answers every
 * request, and under load keeps a core busy, so executors beyond the other cores share them
 * with it. Counting those as parallel capacity made batches smaller than the host can afford:
 * each batch's fixed cost c is CPU the event loop and the other executor then lack. On
 * 2 cores with 2 executors, counting one (seed experiment, 5 s × 5 rounds, three runs):
 * 20 users 9.02 vs 9.92, 8.70 vs 8.86 ms; 40 users 13.53 vs 13.53, 11.69 vs 12.08; 80 users
 * 17.36 vs 17.64, 17.04 vs 17.66.
 */
export function parallelExecutors(executors: number, cores: number): number {
  return Math.max(1, Math.min(executors, cores - 1));
}

function latencyTargetMessage(predictedMs: number, targetMs: number): string {
  return `The request would miss the model's latency target: about ${Math.round(predictedMs)} ms predicted for the work queued ahead of it, target ${targetMs} ms; retry later`;
}

/**
 * Where the policy reads its target and executors, at each decision, never copied: an edit of
 * the target or of num_batch_threads applies at once, and what was learned stays.
 */
type AdaptiveHost = Pick<PolicyContext, 'numBatchThreads' | 'cores'> & { readonly options: AdaptiveOptions };

export class AdaptiveBatchPolicy implements BatchPolicy {
  readonly cost = new BatchCostModel();
  readonly arrivals = new ArrivalRate();

  constructor(private readonly host: AdaptiveHost) {}

  private get options(): AdaptiveOptions {
    return this.host.options;
  }

  admit(rows: number, queue: QueueView): ServingError | undefined {
    const miss =
      this.options.latencyTargetMs === undefined ? undefined : this.predictedMiss(rows, queue.queuedRows, queue.executionBatchSize);
    if (miss)
      return new ServingError(Code.UNAVAILABLE, latencyTargetMessage(miss.predictedMs, miss.targetMs), {
        retryAfterMs: miss.predictedMs - miss.targetMs,
      });
    this.recordArrival(queue.now, rows);
    return undefined;
  }

  whenToRun(open: OpenBatch, queue: QueueView): Decision {
    return this.decide(queue.now, open.size, open.openedAt, queue.executionBatchSize);
  }

  batchDone(rows: number, ms: number): void {
    this.recordBatch(rows, ms);
  }

  recordArrival(now: number, rows: number): void {
    this.arrivals.record(now, rows);
  }

  recordBatch(rows: number, ms: number): void {
    this.cost.record(rows, ms);
  }

  /** Largest batch to form: `max`, or less when a latency target bounds a batch's run time. */
  batchCap(max: number): number {
    const target = this.options.latencyTargetMs;
    if (target === undefined || this.cost.samples < 2) return max;
    const { c, a } = this.cost.coefficients();
    if (a <= 0) return max;
    return Math.max(1, Math.min(max, Math.floor((target / 2 - c) / a)));
  }

  /** Rows a batch should hold before a free executor runs it (< 1: run anything; Infinity: saturated). */
  targetRows(now: number, cap: number): number {
    const { c, a } = this.cost.coefficients();
    const perExecutor = this.arrivals.rowsPerMs(now) / parallelExecutors(this.host.numBatchThreads, this.host.cores);
    // Batches cost c measured on the executor thread, where the main thread's own delays do not count.
    // Adding what a batch holds its executor beyond its run (the hops, the answers: 1.4–2× the run
    // on the bench MLP on a crowded 2-core host) made it wait more and serve no better: at 32 users
    // 2.82 ms in the batch queue against a zero timeout's 2.19 and 10.20 against 8.15 ms in tfgate
    // (the server's metrics, 4 interleaved rounds); with the real scheduler on a fake clock and an
    // executor of its own (hold 0.3–3 ms), no fixed wait beat greedy (a zero timeout) by more than
    // 0.5 % at 1–64 users.
    if (c <= 0 || perExecutor <= 0) return 0;
    if (perExecutor * a >= 1) return Infinity; // saturated: see decide()
    return Math.min(cap, (perExecutor * c) / (1 - perExecutor * a));
  }

  /** A free executor asks: run the open batch of `rows` (opened at `openedAt`) now, or wait? */
  decide(now: number, rows: number, openedAt: number, cap: number): Decision {
    if (rows >= cap) return RUN_NOW;
    const want = this.targetRows(now, cap);
    // Saturated (arrivals outpace even full batches): an idle executor is lost capacity, and
    // in a closed loop the rows it would wait for are the replies it is holding back.
    if (rows >= want || want === Infinity) return RUN_NOW;
    const { c } = this.cost.coefficients();
    const rate = this.arrivals.rowsPerMs(now);
    let wakeAt = Math.min(openedAt + c, now + (want - rows) / rate);
    const target = this.options.latencyTargetMs;
    if (target !== undefined) wakeAt = Math.min(wakeAt, openedAt + target - this.cost.predict(Math.ceil(want)));
    return wakeAt - now < MIN_WAIT_MS ? RUN_NOW : { run: false, wakeAt };
  }

  /**
   * With a latency target: the predicted latency of a task of `rows` joining a queue holding
   * `queuedRows`, if it exceeds the target (undefined: admit). Predicts nothing until a few
   * batches have taught the cost model.
   */
  predictedMiss(rows: number, queuedRows: number, cap: number): { predictedMs: number; targetMs: number } | undefined {
    const target = this.options.latencyTargetMs;
    if (target === undefined || this.cost.samples < 4) return undefined;
    const size = this.batchCap(cap);
    const batchesUntilOurs = Math.floor(queuedRows / size) + Math.ceil(rows / size);
    const rounds = Math.ceil(batchesUntilOurs / this.host.numBatchThreads);
    // A request that runs in the first round cannot be served sooner anywhere: admit it, so
    // a target below the model's own run time slows nobody down to zero.
    if (rounds <= 1) return undefined;
    const predictedMs = rounds * this.cost.predict(size);
    return predictedMs > target ? { predictedMs, targetMs: target } : undefined;
  }
}
