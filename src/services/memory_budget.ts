// Admission by bytes: what requests in flight have made the server hold (bodies, parsed JSON,
// decoded tensors) is counted against one budget (--max_inflight_request_bytes). A request
// whose next allocation would pass it is refused at once (RESOURCE_EXHAUSTED; REST answers
// 503), instead of the process running out of heap with every other request in it.
import { Code, ServingError } from '../errors/status.js';

/** Over the budget: gRPC RESOURCE_EXHAUSTED, REST 503 (a retry later may fit). */
export class MemoryBudgetExceeded extends ServingError {
  constructor(wanted: number, inFlight: number, limit: number) {
    super(
      Code.RESOURCE_EXHAUSTED,
      `Request refused: it needs ${wanted} more bytes of server memory while requests in flight hold ${inFlight} of the ${limit} allowed (--max_inflight_request_bytes)`,
      { retryAfterMs: 1000, cause: 'memory_budget' },
    );
  }
}

export class MemoryBudget {
  private used = 0;

  constructor(readonly limitBytes: number) {}

  /** Bytes held by requests in flight now. */
  get inFlightBytes(): number {
    return this.used;
  }

  /** A request's share; grows as its size becomes known, released once when it is answered. */
  claim(): MemoryClaim {
    return new MemoryClaim(this);
  }

  /** @internal */
  take(bytes: number): void {
    if (this.used + bytes > this.limitBytes) throw new MemoryBudgetExceeded(bytes, this.used, this.limitBytes);
    this.used += bytes;
  }

  /** @internal */
  give(bytes: number): void {
    this.used -= bytes;
  }
}

export class MemoryClaim {
  private held = 0;
  private released = false;
  private readonly onRelease: Array<() => void> = [];

  constructor(private readonly budget: MemoryBudget) {}

  get bytes(): number {
    return this.held;
  }

  /** Adds `bytes` to the claim; throws MemoryBudgetExceeded (taking nothing) when they do not fit. */
  add(bytes: number): void {
    if (this.released || !(bytes > 0)) return;
    this.budget.take(bytes);
    this.held += bytes;
  }

  /** Calls `fn` when the claim is released (at once if it is): what the request holds besides bytes. */
  whenReleased(fn: () => void): void {
    if (this.released) fn();
    else this.onRelease.push(fn);
  }

  release(): void {
    if (this.released) return;
    this.released = true;
    this.budget.give(this.held);
    this.held = 0;
    for (const fn of this.onRelease.splice(0)) fn();
  }
}

/** A budget that never refuses (tests and tools that build services without a server). */
export const UNLIMITED_BUDGET = new MemoryBudget(Number.POSITIVE_INFINITY);
