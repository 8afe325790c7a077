// Canonical code → HTTP status: the one table, as TF Serving's http_server.cc maps them, and
// the headers an error's hints ask for. Nothing here asks what class an error is: what an
// answer needs travels with the error as data (ErrorHints), so an error rebuilt from a worker
// thread's message is answered as the original would be.
import { Code, toStatusData, type ErrorHints } from '../errors/status.js';

const HTTP_STATUS: Record<Code, number> = {
  [Code.OK]: 200,
  [Code.CANCELLED]: 499,
  [Code.UNKNOWN]: 500,
  [Code.INVALID_ARGUMENT]: 400,
  [Code.DEADLINE_EXCEEDED]: 504,
  [Code.NOT_FOUND]: 404,
  [Code.ALREADY_EXISTS]: 409,
  [Code.PERMISSION_DENIED]: 403,
  [Code.RESOURCE_EXHAUSTED]: 429,
  [Code.FAILED_PRECONDITION]: 400,
  [Code.ABORTED]: 409,
  [Code.OUT_OF_RANGE]: 400,
  [Code.UNIMPLEMENTED]: 501,
  [Code.INTERNAL]: 500,
  [Code.UNAVAILABLE]: 503,
  [Code.DATA_LOSS]: 500,
  [Code.UNAUTHENTICATED]: 401,
};

/**
 * Causes HTTP answers apart from their code: a body over the limit has 413; a full memory
 * budget is 503 (the server is busy; the same request may fit later), not the table's 429
 * (which blames the client's rate); a method the route does not take, 405.
 */
const HTTP_STATUS_BY_CAUSE: Record<NonNullable<ErrorHints['cause']>, number> = {
  body_too_large: 413,
  memory_budget: 503,
  method_not_allowed: 405,
};

export function httpStatusFor(code: Code): number {
  return HTTP_STATUS[code] ?? 500;
}

/** An error's hints, whatever carries them (a ServingError, or its data from another thread). */
function hintsOf(e: unknown): ErrorHints {
  const hints = e && typeof e === 'object' ? (e as { hints?: unknown }).hints : undefined;
  return hints && typeof hints === 'object' ? (hints as ErrorHints) : {};
}

/** The status an error is answered with: its cause's, else its code's. */
export function httpStatusOf(e: unknown): number {
  const cause = hintsOf(e).cause;
  return (cause && HTTP_STATUS_BY_CAUSE[cause]) || httpStatusFor(toStatusData(e).code);
}

/** The headers an error's hints ask for. Retry-After counts whole seconds (RFC 9110): an estimate under one second still says 1. */
export function errorHeaders(e: unknown): Record<string, string> {
  const { retryAfterMs, allow } = hintsOf(e);
  const headers: Record<string, string> = {};
  if (retryAfterMs !== undefined) headers['Retry-After'] = String(Math.max(1, Math.ceil(retryAfterMs / 1000)));
  if (allow !== undefined) headers.Allow = allow;
  return headers;
}
