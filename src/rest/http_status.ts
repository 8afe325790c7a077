// Canonical code → HTTP status: the one table, as TF Serving's http_server.cc maps them.
import { Code, toStatusData } from '../errors/status.js';
import { BodyTooLarge } from './request_body.js';
import { MemoryBudgetExceeded } from '../services/memory_budget.js';

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

export function httpStatusFor(code: Code): number {
  return HTTP_STATUS[code] ?? 500;
}

/**
 * The status an error is answered with: the table, except a body over the limit, which HTTP
 * has 413 for, and a full memory budget: 503 (the server is busy; the same request may fit
 * later), not the table's 429 (which blames the client's rate).
 */
export function httpStatusOf(e: unknown): number {
  if (e instanceof BodyTooLarge) return 413;
  if (e instanceof MemoryBudgetExceeded) return 503;
  return httpStatusFor(toStatusData(e).code);
}
