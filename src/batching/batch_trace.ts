// A trace of the batches a server runs, for finding where a saturated executor idles: per batch,
// when it opened, was taken for an executor (and whether ahead of a busy one), was sent, started
// and ended on the thread, had its outputs back on the event loop, gave its executor back and
// had its tasks answered; and when each task reached its queue. Off unless TFGATE_BATCH_TRACE
// names a file, which is written (JSON, times in performance.now() ms, with the matching
// process.hrtime so other clocks can be aligned) when the process exits. Every hook in the
// batching path is behind one `if (batchTrace)`: off, nothing is recorded or allocated.
// bench/saturated_trace.ts reads it.
import fs from 'node:fs';

/** One batch's times (performance.now() ms; NaN: did not happen). */
export interface BatchTimes {
  rows: number;
  openedAt: number;
  /** The scheduler took it for an executor; `ahead`: while every executor was busy. */
  takenAt: number;
  ahead: boolean;
  /** Rows still queued behind it when it was taken. */
  queuedBehind: number;
  /** Handed to the executor pool (stacked). */
  sentAt: number;
  /** Start and end of its run on the thread (the thread's clock, via the run's reported hand-off and hand-back). */
  threadStart: number;
  threadEnd: number;
  /** Its outputs back in processBatch on the event loop. */
  outputsAt: number;
  /** It gave its executor back. */
  freedAt: number;
  /** Every task resolved (their answers are written in the microtasks that follow). */
  answeredAt: number;
  /** The next check phase of the loop after answering: answers written, and whatever I/O the loop met meanwhile. */
  afterAnswersAt: number;
}

/** Most batches and arrivals kept: the last ones (a saturated minute is ~10⁵ batches). */
const MAX_BATCHES = 200_000;
const MAX_ARRIVALS = 2_000_000;

export class BatchTrace {
  private readonly batches: BatchTimes[] = [];
  private readonly arrivals = new Float64Array(MAX_ARRIVALS);
  private arrivalCount = 0;

  constructor(private readonly file: string) {
    process.once('exit', () => this.write());
  }

  /** A batch taken for an executor: its record, filled in as it goes. */
  taken(rows: number, openedAt: number, ahead: boolean, queuedBehind: number): BatchTimes {
    const t: BatchTimes = {
      rows,
      openedAt,
      takenAt: performance.now(),
      ahead,
      queuedBehind,
      sentAt: NaN,
      threadStart: NaN,
      threadEnd: NaN,
      outputsAt: NaN,
      freedAt: NaN,
      answeredAt: NaN,
      afterAnswersAt: NaN,
    };
    if (this.batches.length < MAX_BATCHES) this.batches.push(t);
    return t;
  }

  /** A task reached a batch queue. */
  arrived(): void {
    if (this.arrivalCount < MAX_ARRIVALS) this.arrivals[this.arrivalCount++] = performance.now();
  }

  private write(): void {
    const clock = { performanceNow: performance.now(), hrtimeMs: Number(process.hrtime.bigint()) / 1e6 };
    fs.writeFileSync(
      this.file,
      JSON.stringify({ clock, batches: this.batches, arrivals: Array.from(this.arrivals.subarray(0, this.arrivalCount)) }),
    );
  }
}

const traceFile = process.env.TFGATE_BATCH_TRACE;
/** The process's trace; undefined (the default) when TFGATE_BATCH_TRACE is unset. */
export const batchTrace: BatchTrace | undefined = traceFile ? new BatchTrace(traceFile) : undefined;
