// Large :predict and /v2 infer bodies parsed off the event loop. A body of at least `minBytes` goes, as
// bytes moved (not copied), to one of a few parser threads (started when first needed, as
// many as the executors); its tensors come back moved, or its error as data with the same
// text and status. The event loop meanwhile only accepts, admits, reads and writes bytes, so
// a status probe is answered while a 20 MB body is parsed. Every byte the thread allocates is
// charged to the request's claim first (body_parser_protocol.ts), and the claim is released
// by the request's envelope only once the request is answered. An answer of at least
// `minValues` output values is written there too, as JSON bytes moved back to be sent.
import { Worker } from 'node:worker_threads';
import { ServingError } from '../errors/status.js';
import type { MemoryClaim } from '../services/memory_budget.js';
import type { SignatureSpec } from '../savedmodel/signature_spec.js';
import { isReplyAlone, markRequestOwned } from '../tensor/request_owned.js';
import { BodyReadGate, letGoOfBody } from './body_read_gate.js';
import { BodyBuffers } from './body_buffers.js';
import { ownValue } from '../util/own_property.js';
import { DEFAULT_SIGNATURE_KEY } from '../services/prediction_service.js';
import type { JsonFormat, ParsedPredictRequest } from './json_tensor.js';
import type { HostTensor, TensorValues } from '../tensor/host_tensor.js';
import type { PredictBody } from './predict_body.js';
import type { InferBody } from './v2/infer_body.js';
import {
  CHARGE_GRANTED,
  CHARGE_REFUSED,
  type FromParser,
  type ParserFailure,
  type ParserLimits,
  type ParserThreadData,
  type ToParser,
} from './body_parser_protocol.js';

const THREAD_FILE = new URL('./body_parser_thread.js', import.meta.url);

/**
 * Bodies this large or larger are parsed on a thread. Measured on a busy 2-core machine
 * (float rows of 3, median of 15): a 95 KB body parses on the loop in 3.5 ms and through a
 * thread in 4.7 ms (the round trip, two messages each way, is most of it); a 378 KB body takes
 * 38 ms on the loop, long enough that every other client would wait behind it.
 */
const DEFAULT_MIN_BYTES = 256 * 1024;

/**
 * Answers of this many output values or more are written on a thread: the event loop only
 * copies them out (a memcpy) and sends the bytes. Measured on a busy 2-core machine (load 8,
 * float rows of one value, median of 15): 4 096 values took 16 ms to write on the loop and 21
 * through the thread, 16 384 values 74 ms either way; 1 024 values 2.4 against 9.7.
 */
const DEFAULT_MIN_VALUES = 8 * 1024;

interface Job {
  /** What the thread's charges are added to (none: the job allocates nothing it charges). */
  claim?: MemoryClaim;
  thread: ParserThread;
  /** The step under way: its settlement. */
  pending?: { resolve(v: FromParser): void; reject(e: unknown): void };
  /** A charge the main thread refused: the error the request is answered with. */
  refusal?: unknown;
}

interface ParserThread {
  worker: Worker;
  cell: Int32Array;
  jobs: number;
  /** Why the thread ended (it failed or exited): its jobs' next steps fail with it. */
  ended?: unknown;
}

function errorOf(f: ParserFailure): unknown {
  if (f.status) return new ServingError(f.status.code, f.status.message, f.status.hints);
  // A fault of tfgate's own: the error toStatusData logs with an id (its text never reaches the client).
  return new Error(`body parser thread: ${f.fault}`);
}

type NumericValues = Exclude<TensorValues, Uint8Array[]>;

/** Bytes copied per event-loop turn by copyYielding. */
const COPY_SLICE_BYTES = 1 << 20;

/**
 * `values` copied into a buffer of their own, a slice per event-loop turn: at once, 20 MB took
 * the loop 70–150 ms on a busy 2-core machine (page faults and a memory bus shared), long
 * enough to keep a status probe waiting. The buffer is not zeroed first (every byte is written).
 */
async function copyYielding(values: NumericValues): Promise<NumericValues> {
  const Kind = values.constructor as new (buffer: ArrayBuffer, byteOffset: number, length: number) => NumericValues;
  const copy = new Kind(Buffer.allocUnsafeSlow(values.byteLength).buffer, 0, values.length);
  const step = COPY_SLICE_BYTES / values.BYTES_PER_ELEMENT;
  for (let at = 0; at < values.length; at += step) {
    if (at > 0) await new Promise<void>((resolve) => setImmediate(resolve));
    (copy as Float32Array).set((values as Float32Array).subarray(at, at + step), at);
  }
  return copy;
}

export class BodyParserPool {
  private readonly threads: ParserThread[] = [];
  private readonly jobs = new Map<number, Job>();
  private nextJob = 1;
  /** Large bodies are read one per thread (body_read_gate.ts); none without threads. */
  readonly gate?: BodyReadGate;
  /** What large bodies are read into: the buffers of bodies the threads are done with. */
  readonly buffers = new BodyBuffers();

  constructor(
    /** Most threads (--num_executors). */
    private readonly size: number,
    /** Bodies at least this large are parsed on a thread. */
    private readonly minBytes = DEFAULT_MIN_BYTES,
    /** Answers of at least this many output values are written on a thread. */
    private readonly minValues = DEFAULT_MIN_VALUES,
  ) {
    if (size > 0) this.gate = new BodyReadGate(size, minBytes);
  }

  /** Whether a body of `bytes` is parsed here. */
  takes(bytes: number): boolean {
    return this.size > 0 && bytes >= this.minBytes;
  }

  /**
   * A job for `body` on the least busy thread: the bytes to move there (the body itself when it
   * owns its whole buffer, else a copy), `done`, which ends the job once, and `use`/`drop`.
   */
  private open(body: Uint8Array, claim: MemoryClaim) {
    const thread = this.pick();
    const job = this.nextJob++;
    const state: Job = { claim, thread };
    this.jobs.set(job, state);
    thread.jobs++;
    const done = () => {
      if (!this.jobs.delete(job)) return;
      thread.jobs--;
      // The thread has freed the body: the next one may be read.
      letGoOfBody(body);
    };
    // A Buffer from Node's pool shares its ArrayBuffer with others: never move that one. One of
    // `buffers` is the body's alone, past its end too.
    const whole =
      (body.byteOffset === 0 && body.byteLength === body.buffer.byteLength && body.buffer instanceof ArrayBuffer) ||
      this.buffers.lentBuffer(body);
    const bytes = whole ? body : body.slice();
    // The job's result is used (its tensors asked for) or dropped, whichever comes first.
    let used = false;
    const use = () => {
      used = true;
    };
    const drop = () => {
      if (used) return;
      used = true;
      thread.worker.postMessage({ kind: 'drop', job } satisfies ToParser);
      done();
    };
    return { job, state, bytes, done, use, drop };
  }

  /**
   * parsePredictBody on a thread; `body` is moved there when it owns its whole buffer (else
   * copied). `served`: the signatures the body may be read against in one pass (a copy goes
   * with the body; tensors() for one of these very objects then takes what was read).
   */
  async parsePredict(
    body: Uint8Array,
    limits: ParserLimits,
    claim: MemoryClaim,
    served?: Readonly<Record<string, SignatureSpec>>,
  ): Promise<PredictBody> {
    const { job, state, bytes, done, use, drop } = this.open(body, claim);
    let parsed: FromParser;
    try {
      parsed = await this.step(state, { kind: 'parse', job, body: bytes, limits, served }, [bytes.buffer as ArrayBuffer]);
    } catch (e) {
      done();
      throw e;
    }
    return {
      signatureName: parsed.kind === 'parsed' ? parsed.signatureName : undefined,
      tensors: async (signature: SignatureSpec): Promise<ParsedPredictRequest> => {
        use();
        try {
          const signatureName = parsed.kind === 'parsed' ? parsed.signatureName : undefined;
          // The signature the thread read ahead for: not sent again (its copy there is the one it compares).
          const ahead = served !== undefined && signature === ownValue(served, signatureName || DEFAULT_SIGNATURE_KEY);
          const r = await this.step(state, ahead ? { kind: 'tensors', job } : { kind: 'tensors', job, signature });
          if (r.kind !== 'tensors') throw new Error(`body parser thread answered ${r.kind} to tensors`);
          // Each came over as its own buffer, the request's alone: moved again to the executor.
          for (const t of Object.values(r.inputs)) markRequestOwned(t);
          return { format: r.format, inputs: r.inputs };
        } finally {
          done();
        }
      },
      drop,
    };
  }

  /**
   * parseInferBody (a /v2 infer body) on a thread, `body` moved there as parsePredict moves it;
   * its tensors are built there too, once the request's inputs have been checked.
   */
  async parseInfer(body: Uint8Array, headerLength: string | undefined, limits: ParserLimits, claim: MemoryClaim): Promise<InferBody> {
    const { job, state, bytes, done, use, drop } = this.open(body, claim);
    let parsed: FromParser;
    try {
      parsed = await this.step(state, { kind: 'parseInfer', job, body: bytes, limits, headerLength }, [bytes.buffer as ArrayBuffer]);
      if (parsed.kind !== 'inferParsed') throw new Error(`body parser thread answered ${parsed.kind} to parseInfer`);
    } catch (e) {
      done();
      throw e;
    }
    return {
      request: parsed.request,
      tensors: async () => {
        use();
        try {
          const r = await this.step(state, { kind: 'inferTensors', job });
          if (r.kind !== 'inferTensors') throw new Error(`body parser thread answered ${r.kind} to inferTensors`);
          return r.inputs;
        } finally {
          done();
        }
      },
      drop,
    };
  }

  /** Whether an answer of `values` output values is written here. */
  writes(values: number): boolean {
    return this.size > 0 && values >= this.minValues;
  }

  /**
   * predictResponseBytes on a thread; the bytes come back moved. The outputs go to it moved when
   * `movable` (nothing reads them here afterwards) and each owns its whole buffer or is a view into
   * the packed reply of its request alone (run_wire.ts), else copied: the request log may still read them, and a view would take its
   * message's other replies along.
   */
  async formatPredict(outputs: Record<string, HostTensor>, format: JsonFormat, movable = false): Promise<Uint8Array> {
    const copies: Record<string, HostTensor> = {};
    const transfer: ArrayBuffer[] = [];
    for (const [name, t] of Object.entries(outputs)) {
      const v = t.values;
      // Its own buffer, or the packed reply of this request alone (its outputs are views into it).
      const own =
        !Array.isArray(v) &&
        v.buffer instanceof ArrayBuffer &&
        ((v.byteOffset === 0 && v.byteLength === v.buffer.byteLength) || isReplyAlone(v.buffer));
      const values = Array.isArray(v) || (movable && own) ? v : await copyYielding(v);
      // Two outputs may be one tensor: its buffer is listed once.
      if (!Array.isArray(values) && !transfer.includes(values.buffer as ArrayBuffer)) transfer.push(values.buffer as ArrayBuffer);
      copies[name] = { ...t, values };
    }
    const thread = this.pick();
    const job = this.nextJob++;
    const state: Job = { thread };
    this.jobs.set(job, state);
    thread.jobs++;
    try {
      const r = await this.step(state, { kind: 'format', job, outputs: copies, format }, transfer);
      if (r.kind !== 'formatted') throw new Error(`body parser thread answered ${r.kind} to format`);
      return r.body;
    } finally {
      if (this.jobs.delete(job)) thread.jobs--;
    }
  }

  /** Ends the threads (server shutdown). */
  close(): void {
    for (const t of this.threads.splice(0)) void t.worker.terminate();
    this.buffers.clear();
  }

  private step(job: Job, m: ToParser, transfer: ArrayBuffer[] = []): Promise<FromParser> {
    return new Promise((resolve, reject) => {
      if (job.thread.ended) return reject(job.thread.ended);
      job.pending = { resolve, reject };
      job.thread.worker.postMessage(m, transfer);
    });
  }

  /** The least busy thread; a new one while there are fewer than `size` and all are busy. */
  private pick(): ParserThread {
    let best: ParserThread | undefined;
    for (const t of this.threads) if (!best || t.jobs < best.jobs) best = t;
    if (best && (best.jobs === 0 || this.threads.length >= this.size)) return best;
    return this.start();
  }

  private start(): ParserThread {
    const chargeCell = new SharedArrayBuffer(4);
    const worker = new Worker(THREAD_FILE, { workerData: { chargeCell } satisfies ParserThreadData });
    // Idle threads do not hold the process open.
    worker.unref();
    const thread: ParserThread = { worker, cell: new Int32Array(chargeCell), jobs: 0 };
    worker.on('message', (m: FromParser) => this.received(thread, m));
    const failAll = (e: unknown) => {
      thread.ended ??= e;
      const i = this.threads.indexOf(thread);
      if (i >= 0) this.threads.splice(i, 1);
      for (const [id, job] of this.jobs) {
        if (job.thread !== thread) continue;
        this.jobs.delete(id);
        job.pending?.reject(e);
      }
    };
    worker.on('error', failAll);
    worker.on('exit', (code) => failAll(new Error(`body parser thread exited with code ${code}`)));
    this.threads.push(thread);
    return thread;
  }

  private received(thread: ParserThread, m: FromParser): void {
    if (m.kind === 'bodiesFreed') {
      for (const b of m.buffers) this.buffers.give(b);
      return;
    }
    const job = this.jobs.get(m.job);
    if (m.kind === 'charge') {
      // Answered at once: the thread waits on the cell.
      let answer = CHARGE_REFUSED;
      if (job?.claim) {
        try {
          job.claim.add(m.bytes);
          answer = CHARGE_GRANTED;
        } catch (e) {
          job.refusal = e;
        }
      }
      Atomics.store(thread.cell, 0, answer);
      Atomics.notify(thread.cell, 0);
      return;
    }
    const pending = job?.pending;
    if (!job || !pending) return;
    job.pending = undefined;
    if (m.kind === 'failed') pending.reject(job.refusal ?? errorOf(m.failure));
    else pending.resolve(m);
  }
}
