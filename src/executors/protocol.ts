// Every message between the main thread and executor threads. Failures cross as data
// (StatusData), since class identity does not survive postMessage.
import type { MessagePort } from 'node:worker_threads';
import type { StatusData } from '../errors/status.js';
import type { EngineChoice } from '../runtimes/runtime.js';
import type { SignatureSpec } from '../savedmodel/signature_spec.js';
import type { ResolvedRuntime } from '../runtimes/runtime_selection.js';
import type { SignatureDefObject } from '../savedmodel/saved_model_reader.js';
import type { HostTensor } from '../tensor/host_tensor.js';
import type { VerificationReport } from '../runtimes/verify/verify_signatures.js';
import type { RunCost } from '../runtimes/run_cost.js';
import type { EngineSettings } from '../config/session_config.js';

/** Given to each executor thread when the pool starts: which version to load, and how. */
export interface ExecutorWorkerData {
  versionDir: string;
  tags: string[];
  runtime: RuntimeName;
  /** --enable_model_warmup: times each warmup record is replayed on this thread (0: off). */
  warmupIterations?: number;
  /** --load_memory_floor_mb (savedmodel/load_bounds.ts); the default when absent. */
  memoryFloorMb?: number;
  /** Thread counts and GPU options for the runtime's sessions. */
  engine?: EngineSettings;
}

/** A runtime already resolved on the main thread (never 'auto'). */
export type RuntimeName = ResolvedRuntime;

export interface RunRequest {
  signature: string;
  inputs: Record<string, HostTensor>;
  outputKeys: string[];
}

/**
 * `runMany` carries the requests that arrived in one event-loop turn: one message, not N.
 * `trace` returns every intermediate tensor of one run (checking engines against each other).
 */
export type ExecutorTask =
  | { kind: 'describe' }
  | { kind: 'runMany'; requests: RunRequest[] }
  | { kind: 'trace'; signature: string; inputs: Record<string, HostTensor> }
  /** Checks these signatures against the WASM runtime loaded in this same thread (--verify_on_load). */
  | { kind: 'verify'; signatures: string[] }
  /** Refuses a run the load itself would make (verification) when its tensors exceed the load's memory bound (Servable.checkLoadRun). */
  | { kind: 'checkLoadRun'; signature: string; inputs: Record<string, HostTensor> };

export interface ModelDescription {
  backend: string;
  /** Served signature key → the engine that runs it (and why not ONNX Runtime, when it was tried). */
  engines: Record<string, EngineChoice>;
  signatures: Record<string, SignatureSpec>;
  /** Signature key → why it cannot be served. */
  refusals: Record<string, string>;
  /** Signature key → what a run holds on the executor thread, where the engine can tell (the in-flight budget charges it). */
  runCosts?: Record<string, RunCost>;
  /** SignatureDefs as stored, for GetModelMetadata. */
  signatureDefs: Record<string, SignatureDefObject>;
  /** Warmup records replayed on the thread that answered (0 without a warmup file). */
  warmupRecords: number;
}

/**
 * computeMs: the run's own time on the executor thread (what adaptive batching learns from).
 * startedAt / endedAt: when the run began and ended, as performance.timeOrigin + now() —
 * a clock every thread shares (each thread's now() counts from its own origin) — so the main
 * thread can tell the hand-off and the hand-back apart from the run.
 */
export type RunReply = { ok: true; kind: 'run'; outputs: Record<string, HostTensor>; computeMs: number; startedAt: number; endedAt: number } | { ok: false; error: StatusData };

/**
 * How loading the version went on a thread (TensorFlow's SavedModel load metrics, TF
 * Serving's warmup metrics): sent with its answer to `describe`, whether it loaded or not.
 */
export interface LoadReport {
  /** The SavedModel read and its runtime built (false: the load failed). */
  loaded: boolean;
  loadMs: number;
  /** Present when a warmup file was read: records replayed in full, time taken, and the error that stopped it. */
  warmup?: { records: number; ms: number; error?: StatusData };
}

export type ExecutorReply =
  | { ok: true; kind: 'describe'; description: ModelDescription; load?: LoadReport }
  | { ok: false; error: StatusData; load?: LoadReport }
  | RunReply
  | { ok: true; kind: 'runMany'; replies: RunReply[] }
  | { ok: true; kind: 'trace'; tensors: Array<[string, HostTensor]> }
  | { ok: true; kind: 'verify'; report: VerificationReport }
  | { ok: true; kind: 'checkLoadRun' };

/**
 * A thread's own line for runs, posted on its parentPort once its version has loaded: a
 * MessagePort on which it takes `RunLineRequest`s one at a time and answers each with an
 * `ExecutorReply` of kind runMany. Runs then skip piscina's task bookkeeping, which measured
 * about 3× a bare port's round trip (0.11 vs 0.04 ms back to back, 0.47 vs 0.25 ms after 20 ms idle).
 */
export interface RunLineOffer {
  kind: 'runLine';
  port: MessagePort;
}

export interface RunLineRequest {
  requests: RunRequest[];
}
