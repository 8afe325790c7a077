// A body-parser thread: parses large :predict bodies and writes large answers off the event
// loop (body_parser_protocol.ts has the messages, body_parser_pool.ts the main thread's side).
// The parse and the writer are the same code the main thread runs for a small body
// (predict_body.ts, json_tensor_writer.ts), so the answers, error texts and byte offsets are
// the same.
import { parentPort, workerData } from 'node:worker_threads';
import { ServingError } from '../errors/status.js';
import { markRequestOwned, takeTransferList } from '../tensor/request_owned.js';
import { parsePredictBody, type PredictBody } from './predict_body.js';
import { releaseGrowthScratch } from './json_tensor_reader.js';
import { inferRequestHead, parseInferBody, type InferBody } from './v2/infer_body.js';
import { predictResponseBytes } from './json_tensor_writer.js';
import { releaseBuffer } from '../util/release_buffer.js';
import type { SignatureSpec } from '../savedmodel/signature_spec.js';
import { ownValue } from '../util/own_property.js';
import { DEFAULT_SIGNATURE_KEY } from '../services/prediction_service.js';
import {
  CHARGE_GRANTED,
  CHARGE_PENDING,
  type FromParser,
  type ParserFailure,
  type ToParser,
  type ParserThreadData,
} from './body_parser_protocol.js';

const port = parentPort!;
const cell = new Int32Array((workerData as ParserThreadData).chargeCell);
/** Parsed bodies waiting for their signature, by job, with the signatures they may have been read against. */
const waiting = new Map<number, { bytes: Uint8Array; body: PredictBody | InferBody; served?: Readonly<Record<string, SignatureSpec>> }>();

const post = (m: FromParser, transfer: ArrayBuffer[] = []) => port.postMessage(m, transfer);

/** A marker: the main thread refused a charge and keeps the error to answer with. */
class ChargeRefused extends Error {}

/** Charges `bytes` to `job`'s claim on the main thread, waiting for its answer. */
function charger(job: number): (bytes: number) => void {
  return (bytes) => {
    if (!(bytes > 0)) return;
    Atomics.store(cell, 0, CHARGE_PENDING);
    post({ kind: 'charge', job, bytes });
    Atomics.wait(cell, 0, CHARGE_PENDING);
    if (Atomics.load(cell, 0) !== CHARGE_GRANTED) throw new ChargeRefused();
  };
}

function failure(e: unknown): ParserFailure {
  if (e instanceof ChargeRefused) return {};
  if (e instanceof ServingError) return { status: { code: e.code, message: e.message, hints: e.hints } };
  return { fault: e instanceof Error ? (e.stack ?? e.message) : String(e) };
}

async function handle(m: ToParser): Promise<void> {
  // The body and the outputs were moved here, the job's alone: given up as soon as they are
  // used (once what was built from them is posted: strings are copied into the message). The
  // outputs are freed; the body goes back to be read into again (body_buffers.ts).
  let used: Array<ArrayBufferLike> = [];
  let body: ArrayBufferLike | undefined;
  if (m.kind === 'drop') {
    body = waiting.get(m.job)?.bytes.buffer;
    waiting.delete(m.job);
  }
  try {
    if (m.kind === 'format') {
      used = Object.values(m.outputs).flatMap((t) => (Array.isArray(t.values) ? [] : [t.values.buffer]));
      const answer = predictResponseBytes(m.outputs, m.format);
      post({ kind: 'formatted', job: m.job, body: answer }, [answer.buffer as ArrayBuffer]);
    } else if (m.kind === 'parse') {
      body = m.body.buffer;
      const parsed = await parsePredictBody(m.body, m.limits, charger(m.job), false, m.served);
      waiting.set(m.job, { bytes: m.body, body: parsed, served: m.served });
      body = undefined;
      post({ kind: 'parsed', job: m.job, signatureName: parsed.signatureName });
    } else if (m.kind === 'parseInfer') {
      body = m.body.buffer;
      const parsed = await parseInferBody(m.body, m.headerLength, m.limits, charger(m.job), false);
      waiting.set(m.job, { bytes: m.body, body: parsed });
      body = undefined;
      post({ kind: 'inferParsed', job: m.job, request: inferRequestHead(parsed.request) });
    } else if (m.kind === 'inferTensors') {
      const job = waiting.get(m.job);
      waiting.delete(m.job);
      if (!job || !('request' in job.body)) return;
      body = job.bytes.buffer;
      const inputs = await job.body.tensors();
      const tensors = Object.values(inputs).map(markRequestOwned);
      post({ kind: 'inferTensors', job: m.job, inputs }, takeTransferList(tensors));
    } else if (m.kind === 'tensors') {
      const job = waiting.get(m.job);
      waiting.delete(m.job);
      if (!job || 'request' in job.body) return;
      body = job.bytes.buffer;
      const signature = m.signature ?? (job.served && ownValue(job.served, job.body.signatureName || DEFAULT_SIGNATURE_KEY));
      if (!signature) throw new Error('tensors asked for without a signature');
      const parsed = await job.body.tensors(signature);
      post({ kind: 'tensors', job: m.job, format: parsed.format, inputs: parsed.inputs }, takeTransferList(Object.values(parsed.inputs)));
    }
  } catch (e) {
    const job = waiting.get(m.job);
    if (job) body = job.bytes.buffer;
    waiting.delete(m.job);
    post({ kind: 'failed', job: m.job, failure: failure(e) });
  } finally {
    for (const b of used) releaseBuffer(b);
    // A tensor may have been moved with the body's buffer: then it reads 0 bytes here, and stays away.
    if (body instanceof ArrayBuffer && body.byteLength > 0) post({ kind: 'bodiesFreed', buffers: [body] }, [body]);
  }
}

// One step at a time, in the order they came: the parse's own pauses (it yields when it runs on
// the event loop) do not let another body's work in between, so a body's tensors, asked for
// once its version is resolved, wait only for the steps already queued.
let queue = Promise.resolve();
/** The reader's growth scratch let go once no body has come for this long. */
const SCRATCH_IDLE_MS = 30_000;
const scratchIdle = setTimeout(releaseGrowthScratch, SCRATCH_IDLE_MS).unref();
port.on('message', (m: ToParser) => {
  queue = queue.then(() => handle(m));
  scratchIdle.refresh();
});
