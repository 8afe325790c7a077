// `fixed`: TF Serving's batch_timeout_micros (shared_batch_scheduler.h). An open batch's
// clock starts with its first task; a free executor runs the batch once batch_timeout_micros
// have passed since then, and a zero timeout runs whatever has gathered. Until then the batch
// grows. It refuses nothing of its own, caps nothing and learns nothing: the queue's own rules
// (full, closed by a task that did not fit, queue full) do the rest.
//
// Worked example: max_batch_size 4, batch_timeout_micros 10000 (10 ms), one executor, each
// batch running 5 ms (the timeline is a test: test/batching/batch_policy.test.ts).
//   t = 0    a arrives (1 row): a batch opens, due at t = 10      open [a]
//   t = 4    b arrives                                            open [a b]
//   t = 10   due: the free executor runs it with 2 rows           runs [a b]
//   t = 11   c d e f arrive: full at 4 rows, the batch goes       ahead [c d e f]
//            ahead to the busy executor, due or not
//   t = 12   g arrives: a new batch, due at t = 22                open [g]
//   t = 15   [a b] done; [c d e f], handed ahead, runs
//   t = 20   [c d e f] done; [g] is not due: the executor idles
//   t = 22   due: [g] runs
// With batch_timeout_micros 0 nothing waits for its timeout: [a] runs at t = 0, b waits
// only while the executor is busy, and then runs with whatever gathered meanwhile.
import { RUN_NOW, type BatchPolicy, type Decision, type OpenBatch, type PolicyContext } from './batch_policy.js';

export class FixedTimeoutPolicy implements BatchPolicy {
  constructor(private readonly context: Pick<PolicyContext, 'options'>) {}

  admit(): undefined {
    return undefined;
  }

  batchCap(max: number): number {
    return max;
  }

  /** Due batch_timeout_micros after the batch opened: the queue runs it when a free executor asks after that. */
  whenToRun(open: OpenBatch): Decision {
    const ms = this.context.options.batchTimeoutMicros / 1000;
    return ms <= 0 ? RUN_NOW : { run: false, wakeAt: open.openedAt + ms };
  }

  batchDone(): void {}
}
