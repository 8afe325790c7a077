// The checks every runtime makes before running a signature, with TF Serving's messages:
// the signature must exist and be servable, and every input and output alias must be the
// signature's own.
import { Code, ServingError, invalidArgument } from '../errors/status.js';
import * as MSG from '../errors/messages.js';

/** The entry for `key`, or the refusal's error, or TF Serving's "not found". */
export function servableSignature<T>(
  key: string,
  served: ReadonlyMap<string, T>,
  refused: ReadonlyMap<string, { error: ServingError }>,
): T {
  const entry = served.get(key);
  if (entry) return entry;
  const refusal = refused.get(key);
  if (refusal) throw new ServingError(refusal.error.code, refusal.error.message);
  throw new ServingError(Code.FAILED_PRECONDITION, MSG.predictSignatureNotFound(key));
}

/** Checks the request's input and output aliases; returns the output keys to fetch (all when none asked). */
export function checkAliases(
  inputs: readonly string[],
  outputs: readonly string[],
  given: Record<string, unknown>,
  outputKeys: readonly string[],
): string[] {
  for (const k of Object.keys(given)) {
    if (!inputs.includes(k)) throw invalidArgument(MSG.inputAliasNotFound(k, inputs));
  }
  const keys = outputKeys.length ? [...outputKeys] : [...outputs];
  for (const k of keys) {
    if (!outputs.includes(k)) throw invalidArgument(MSG.outputAliasNotFound(k, outputs));
  }
  return keys;
}
