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

/**
 * Advice that travels with an error to the transport, as plain data (it crosses threads):
 * REST turns it into its status and headers in one place (rest/http_status.ts).
 */
export interface ErrorHints {
  /** The client should not retry sooner (an overloaded queue's estimate): Retry-After. */
  retryAfterMs?: number;
  /**
   * Which of its code's causes the error is, where HTTP has a status of its own for it: a body
   * over the limit (413), a full memory budget (503, not the code's 429), a method the
   * route does not take (405).
   */
  cause?: 'body_too_large' | 'memory_budget' | 'method_not_allowed';
  /** The methods the route takes, for method_not_allowed: Allow. */
  allow?: string;
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

/**
 * Where the details of an internal error go (the server's log); each thread sets its own.
 * The default writes them with console.error, which executor threads route into the JSON log.
 */
let reportInternalError: (id: string, e: unknown) => void = (id, e) => console.error(`internal error ${id}:`, e);

export function setInternalErrorReporter(report: (id: string, e: unknown) => void): void {
  reportInternalError = report;
}

/** What a client is told of an error in tfgate's own code (or an engine's): no JS text, an id to find it in the log. */
export const internalErrorMessage = (id: string) => `Internal error ${id} in tfgate; the server log has its details`;

/**
 * Any thrown value as StatusData. A ServingError (or its data) is kept; anything else is a
 * fault of tfgate or an engine, not of the request: INTERNAL with a generic message, its
 * details logged under the id the message gives — no JS error text ever reaches a client.
 */
export function toStatusData(e: unknown): StatusData {
  if (e instanceof ServingError) return e.toData();
  if (e && typeof e === 'object' && 'code' in e && 'message' in e && typeof (e as StatusData).code === 'number') {
    return { code: (e as StatusData).code, message: String((e as StatusData).message) };
  }
  // The same error asked again (a metric, then the answer) keeps its id and is logged once.
  const known = e && typeof e === 'object' ? internalErrors.get(e) : undefined;
  if (known) return known;
  const id = Math.floor(Math.random() * 2 ** 32)
    .toString(16)
    .padStart(8, '0');
  try {
    reportInternalError(id, e);
  } catch {
    // Reporting must never turn one failure into another.
  }
  const data = { code: Code.INTERNAL, message: internalErrorMessage(id) };
  if (e && typeof e === 'object') internalErrors.set(e, data);
  return data;
}

const internalErrors = new WeakMap<object, StatusData>();

/**
 * An error's text for a load's refusal: a ServingError's message, a library's own text (ONNX
 * Runtime's, libtensorflow's), but never JS's own (see toStatusData).
 */
export function errorText(e: unknown): string {
  if (e instanceof Error && !(e instanceof ServingError) && !isJsFault(e)) return e.message;
  return toStatusData(e).message;
}

/** Errors of JS itself (a bug: reading a property of undefined, a stack overflow), as opposed to a library's refusal. */
export function isJsFault(e: unknown): boolean {
  return e instanceof TypeError || e instanceof RangeError || e instanceof ReferenceError || e instanceof SyntaxError;
}
