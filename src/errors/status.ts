// Canonical error codes (absl / gRPC numbering) and the one error type tfgate throws.
// Transports map codes to their own statuses in one place each (REST: http_status.ts).

export enum Code {
  OK = 0,
  CANCELLED = 1,
  UNKNOWN = 2,
  INVALID_ARGUMENT = 3,
  DEADLINE_EXCEEDED = 4,
  NOT_FOUND = 5,
  ALREADY_EXISTS = 6,
  PERMISSION_DENIED = 7,
  RESOURCE_EXHAUSTED = 8,
  FAILED_PRECONDITION = 9,
  ABORTED = 10,
  OUT_OF_RANGE = 11,
  UNIMPLEMENTED = 12,
  INTERNAL = 13,
  UNAVAILABLE = 14,
  DATA_LOSS = 15,
  UNAUTHENTICATED = 16,
}

/** Failures as plain data, e.g. to cross a worker-thread boundary (class identity does not survive postMessage). */
export interface StatusData {
  code: Code;
  message: string;
}

/** Advice that travels with an error to the transport (REST: a Retry-After header). */
export interface ErrorHints {
  /** The client should not retry sooner (an overloaded queue's estimate). */
  retryAfterMs?: number;
}

export class ServingError extends Error {
  constructor(
    readonly code: Code,
    message: string,
    readonly hints: ErrorHints = {},
  ) {
    super(message);
    this.name = 'ServingError';
  }

  toData(): StatusData {
    return { code: this.code, message: this.message };
  }

  static fromData(d: StatusData): ServingError {
    return new ServingError(d.code, d.message);
  }
}

export const invalidArgument = (m: string) => new ServingError(Code.INVALID_ARGUMENT, m);

/** A request whose caller stopped waiting (REST timeout, gRPC deadline) before it could run. */
export const QUEUED_PAST_DEADLINE = 'Deadline exceeded while the request waited to run; it was not run';
export const queuedPastDeadline = () => new ServingError(Code.DEADLINE_EXCEEDED, QUEUED_PAST_DEADLINE);
export const notFound = (m: string) => new ServingError(Code.NOT_FOUND, m);
export const failedPrecondition = (m: string) => new ServingError(Code.FAILED_PRECONDITION, m);
export const unimplemented = (m: string) => new ServingError(Code.UNIMPLEMENTED, m);
export const internal = (m: string) => new ServingError(Code.INTERNAL, m);
export const dataLoss = (m: string) => new ServingError(Code.DATA_LOSS, m);

/** Any thrown value as StatusData; non-ServingErrors become UNKNOWN with their message. */
export function toStatusData(e: unknown): StatusData {
  if (e instanceof ServingError) return e.toData();
  if (e && typeof e === 'object' && 'code' in e && 'message' in e && typeof (e as StatusData).code === 'number') {
    return { code: (e as StatusData).code, message: String((e as StatusData).message) };
  }
  return { code: Code.UNKNOWN, message: e instanceof Error ? e.message : String(e) };
}
