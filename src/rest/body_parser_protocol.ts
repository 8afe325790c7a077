// Every message between the event loop and a body-parser thread (body_parser_pool.ts,
// body_parser_thread.ts). A :predict body is one job in two steps, as the request is read on
// the main thread: `parse` (the JSON; its signature_name says which signature to fill), then,
// once PredictionService has resolved the version, `tensors` against that signature, or
// `drop` when the request ends before that. A large :predict answer is written here too, as
// bytes (`format`, a job of its own), so the event loop only sends them. Failures cross as data (class identity does not
// survive postMessage): a ServingError's code, message and hints, or a fault's text.
//
// Memory is charged to the request's claim on the main thread before the thread allocates:
// the thread posts `charge` and waits on the shared cell (Atomics.wait) until the main thread
// has added the bytes to the claim (GRANTED) or refused them (REFUSED), so the count of
// --max_inflight_request_bytes stays exactly what it is when the body is parsed in place.
import type { StatusData, ErrorHints } from '../errors/status.js';
import type { SignatureSpec } from '../savedmodel/signature_spec.js';
import type { HostTensor } from '../tensor/host_tensor.js';
import type { JsonFormat } from './json_tensor.js';
import type { InferRequest } from './v2/infer_request.js';

export interface ParserLimits {
  jsonMaxDepth: number;
  jsonMaxElements: number;
}

/** Main → thread. `body` is moved (transferred), not copied. */
export type ToParser =
  | { kind: 'parse'; job: number; body: Uint8Array; limits: ParserLimits; served?: Readonly<Record<string, SignatureSpec>> }
  /** No signature: the one of `served` the body named (read in one pass when it could be). */
  | { kind: 'tensors'; job: number; signature?: SignatureSpec }
  | { kind: 'drop'; job: number }
  /** A /v2 infer body (v2/infer_body.ts), in the same two steps: the request, then its tensors once its inputs are checked. */
  | { kind: 'parseInfer'; job: number; body: Uint8Array; limits: ParserLimits; headerLength?: string }
  | { kind: 'inferTensors'; job: number }
  /** A :predict answer to write as JSON bytes (a job of its own); the outputs' buffers are moved. */
  | { kind: 'format'; job: number; outputs: Record<string, HostTensor>; format: JsonFormat };

export interface ParserFailure {
  /** A ServingError: what the client is told (code, text, status hints). */
  status?: StatusData & { hints?: ErrorHints };
  /** Anything else: a fault of tfgate's, logged on the main thread with an id. */
  fault?: string;
}

/** Thread → main. Tensors' buffers are moved. */
export type FromParser =
  | { kind: 'charge'; job: number; bytes: number }
  | { kind: 'parsed'; job: number; signatureName?: string }
  | { kind: 'tensors'; job: number; format: JsonFormat; inputs: Record<string, HostTensor> }
  /** The request with its inputs declared only (inferRequestHead). */
  | { kind: 'inferParsed'; job: number; request: InferRequest }
  | { kind: 'inferTensors'; job: number; inputs: Record<string, HostTensor> }
  /** The answer's JSON as UTF-8, moved. */
  | { kind: 'formatted'; job: number; body: Uint8Array }
  | { kind: 'failed'; job: number; failure: ParserFailure }
  /** Bodies the thread is done with, moved back to be read into again (body_buffers.ts); after the job's answer. */
  | { kind: 'bodiesFreed'; buffers: ArrayBuffer[] };

/** The shared cell's values (Int32Array of one element per thread). */
export const CHARGE_PENDING = 0;
export const CHARGE_GRANTED = 1;
export const CHARGE_REFUSED = 2;

export interface ParserThreadData {
  /** SharedArrayBuffer of one Int32: the answer to the thread's pending charge. */
  chargeCell: SharedArrayBuffer;
}
