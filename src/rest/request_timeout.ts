// --rest_api_timeout_in_ms, shared by TF Serving's /v1 routes and the Open Inference Protocol's.
import { Code, ServingError } from '../errors/status.js';

/** Settles as `work` does, or DEADLINE_EXCEEDED after `ms`; `ms` ≤ 0: no timeout. */
export function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  if (!(ms > 0)) return work;
  let timer: NodeJS.Timeout;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new ServingError(Code.DEADLINE_EXCEEDED, `Request timed out after ${ms} ms (--rest_api_timeout_in_ms)`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}
