// --rest_api_timeout_in_ms, shared by TF Serving's /v1 routes and the Open Inference Protocol's.
import { Code, ServingError } from '../errors/status.js';

/** A call not yet settled: its place in the list of calls given the same timeout. */
interface Waiting {
  /** performance.now() ms past which it is answered DEADLINE_EXCEEDED. */
  readonly deadline: number;
  readonly reject: (e: unknown) => void;
  prev?: Waiting;
  next?: Waiting;
}

/**
 * The calls given one timeout, oldest first: they were given it in that order, so their
 * deadlines come in it too, and one timer, set for the oldest, serves them all. A call
 * settled leaves the list and leaves the timer as it is: when it fires it answers whatever
 * has passed its deadline and is set again for the oldest left. Under load that is one timer
 * for many calls, where a timer each cost every request a Timeout made, listed and unlisted.
 */
class TimeoutList {
  private head?: Waiting;
  private tail?: Waiting;
  private timer?: NodeJS.Timeout;

  constructor(private readonly ms: number) {}

  add(w: Waiting): void {
    if (this.tail) {
      this.tail.next = w;
      w.prev = this.tail;
    } else {
      this.head = w;
      this.timer?.ref();
    }
    this.tail = w;
    if (!this.timer) this.arm(w.deadline);
  }

  remove(w: Waiting): void {
    if (w.prev) w.prev.next = w.next;
    else if (this.head === w) this.head = w.next;
    else return; // not listed (answered by the timer already)
    if (w.next) w.next.prev = w.prev;
    else this.tail = w.prev;
    w.prev = w.next = undefined;
    if (!this.head) this.timer?.unref();
  }

  /**
   * Ref'd while a call waits (as a timer each was), unref'd when none does: a timer left set
   * after the last call must not keep the process up until its time.
   */
  private arm(deadline: number): void {
    this.timer = setTimeout(() => this.fire(), Math.max(1, Math.ceil(deadline - performance.now())));
  }

  private fire(): void {
    this.timer = undefined;
    const now = performance.now();
    while (this.head && this.head.deadline <= now) {
      const w = this.head;
      this.remove(w);
      w.reject(new ServingError(Code.DEADLINE_EXCEEDED, `Request timed out after ${this.ms} ms (--rest_api_timeout_in_ms)`));
    }
    if (this.head) this.arm(this.head.deadline);
  }
}

/** One list per timeout given (in practice one: --rest_api_timeout_in_ms). */
const lists = new Map<number, TimeoutList>();

/** Settles as `work` does, or DEADLINE_EXCEEDED after `ms`; `ms` ≤ 0: no timeout. */
export function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  if (!(ms > 0)) return work;
  let list = lists.get(ms);
  if (!list) lists.set(ms, (list = new TimeoutList(ms)));
  const timeouts = list;
  return new Promise<T>((resolve, reject) => {
    const waiting: Waiting = { deadline: performance.now() + ms, reject };
    timeouts.add(waiting);
    work.then(
      (value) => {
        timeouts.remove(waiting);
        resolve(value);
      },
      (e: unknown) => {
        timeouts.remove(waiting);
        reject(e);
      },
    );
  });
}
