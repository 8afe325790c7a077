// What a failed TF.js run means for the caller. tfgate's own kernels throw ServingErrors with
// TF's messages; anything else comes from TF.js itself, and is one of two things:
//   - the engine cannot compute the op at all: a kernel that takes no strings ("Argument 'x'
//     passed to 'reverse' must be numeric tensor, but got string tensor"), a kernel the backend
//     lacks, a WASM abort, a JavaScript TypeError. No request can succeed: UNIMPLEMENTED or
//     INTERNAL, never the client's fault — and what --verify_on_load refuses at load;
//   - anything else: incompatible shapes or values in this request, as TF would also refuse
//     them (in TF.js's words): INVALID_ARGUMENT.
import { Code, ServingError } from '../../errors/status.js';

const CANNOT_COMPUTE: readonly RegExp[] = [
  /passed to '[^']*' must be [a-z0-9]+ tensor, but got [a-z0-9]+ tensor/,
  /^Unknown dtype /,
  /not yet implemented|is not implemented|not registered for backend|is not supported/i,
];

/** The status of an error thrown while TF.js ran a graph. */
export function tfjsRunError(e: unknown): ServingError {
  if (e instanceof ServingError) return e;
  const message = e instanceof Error ? e.message : String(e);
  if (e instanceof TypeError || e instanceof ReferenceError || /^Aborted\(/.test(message)) return new ServingError(Code.INTERNAL, message);
  if (CANNOT_COMPUTE.some((p) => p.test(message))) return new ServingError(Code.UNIMPLEMENTED, message);
  return new ServingError(Code.INVALID_ARGUMENT, message);
}
