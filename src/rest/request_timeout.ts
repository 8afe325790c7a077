// --rest_api_timeout_in_ms, shared by TF Serving's /v1 routes and the Open Inference Protocol's.
import { Code, ServingError } from '../errors/status.js';

/** Settles as `work` does, or DEADLINE_EXCEEDED after `ms`; `ms` ≤ 0: no timeout. */
export function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  if (!(ms > 0)) return work;
  // One promise and a timer per request (not a race of two promises and a finally).
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new ServingError(Code.DEADLINE_EXCEEDED, `Request timed out after ${ms} ms (--rest_api_timeout_in_ms)`)),
      ms,
    );
    work.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (e: unknown) => {
        clearTimeout(timer);
        reject(e);
      },
    );
  });
}
