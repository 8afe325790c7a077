// A request body under the binary tensor data extension: the JSON object, then the inputs'
// binary data. The Inference-Header-Content-Length header gives the JSON's length in bytes;
// without it the whole body is JSON.
import { invalidArgument } from '../../errors/status.js';

export const HEADER_LENGTH = 'inference-header-content-length';

export interface SplitBody {
  json: Uint8Array;
  binary: Uint8Array;
}

export function splitInferenceBody(body: Uint8Array, headerLength: string | undefined): SplitBody {
  if (headerLength === undefined) return { json: body, binary: new Uint8Array(0) };
  const n = /^\d+$/.test(headerLength.trim()) ? Number(headerLength.trim()) : NaN;
  if (!Number.isSafeInteger(n) || n > body.byteLength) {
    throw invalidArgument(`Inference-Header-Content-Length: ${headerLength} is not a length within the body's ${body.byteLength} bytes`);
  }
  return { json: body.subarray(0, n), binary: body.subarray(n) };
}
