// Every message between the main thread and executor threads. Failures cross as data
// (StatusData), since class identity does not survive postMessage.
//
// An executor thread hosts any number of model versions, each under an id the main thread
// gives it. Once its modules are loaded it offers the main thread two lines of its own
// (ThreadLinesOffer): a run line, which takes one RunLineRequest at a time, and a control
// line for loads, unloads, traces and checks, which may overlap each other and the runs.
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

/** Given to each executor thread when it starts: the runtime every version on it runs on. */
export interface ExecutorThreadData {
  runtime: RuntimeName;
  /** Thread counts and GPU options for the runtime's sessions. */
  engine?: EngineSettings;
}

/** What a version is loaded from, and how. */
export interface VersionLoad {
  versionDir: string;
  tags: string[];
  /** --enable_model_warmup: times each warmup record is replayed on the thread (0: off). */
  warmupIterations?: number;
  /** --load_memory_floor_mb (savedmodel/load_bounds.ts); the default when absent. */
  memoryFloorMb?: number;
}

/** A runtime already resolved on the main thread (never 'auto'). */
export type RuntimeName = ResolvedRuntime;

export interface RunRequest {
  signature: string;
  inputs: Record<string, HostTensor>;
  outputKeys: string[];
}

/**
 * On the control line. `load` answers `describe` once the version has loaded and replayed its
 * warmup records on this thread; `trace` returns every intermediate tensor of one run
 * (checking engines against each other); `verify` checks signatures against the WASM runtime
 * loaded in this same thread (--verify_on_load).
 */
export type ControlTask =
  | { kind: 'load'; id: number; load: VersionLoad }
  | { kind: 'unload'; id: number }
  | { kind: 'trace'; id: number; signature: string; inputs: Record<string, HostTensor> }
  | { kind: 'verify'; id: number; signatures: string[] }
  /** Refuses a run the load itself would make (verification) when its tensors exceed the load's memory bound (Servable.checkLoadRun). */
  | { kind: 'checkLoadRun'; id: number; signature: string; inputs: Record<string, HostTensor> };

export interface ControlRequest {
  /** Echoed in the answer: several control tasks may be under way at once. */
  seq: number;
  task: ControlTask;
}

export interface ControlAnswer {
  seq: number;
  reply: ExecutorReply;
}

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
export type RunReply =
  | { ok: true; kind: 'run'; outputs: Record<string, HostTensor>; computeMs: number; startedAt: number; endedAt: number }
  | { ok: false; error: StatusData };

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
  | { ok: true; kind: 'unloaded' }
  | RunReply
  /** RunReplies, one per request of the message, packed (run_wire.ts). */
  | { ok: true; kind: 'runMany'; replies: PackedTensors }
  | { ok: true; kind: 'trace'; tensors: Array<[string, HostTensor]> }
  | { ok: true; kind: 'verify'; report: VerificationReport }
  | { ok: true; kind: 'checkLoadRun' };

/**
 * A thread's own lines, posted on its parentPort once its modules have loaded. Runs skip
 * piscina's task bookkeeping, which measured about 3× a bare port's round trip (0.11 vs
 * 0.04 ms back to back, 0.47 vs 0.25 ms after 20 ms idle).
 */
export interface ThreadLinesOffer {
  kind: 'lines';
  /** Takes RunLineRequests one at a time, each answered with an ExecutorReply of kind runMany. */
  run: MessagePort;
  /** Takes ControlRequests, answered with ControlAnswers, in any order. */
  control: MessagePort;
}

/**
 * The requests of one event-loop turn for one version of the thread (run one after another,
 * unbatched), packed (run_wire.ts): the version's id first.
 */
export type RunLineRequest = PackedTensors;

/**
 * What a run line answers: the replies packed in one buffer (run_wire.ts), posted bare; an
 * ExecutorReply when anything travels beside it (runMany) or the message failed as a whole.
 */
export type RunLineReply = ArrayBuffer | ExecutorReply;

/**
 * Tensors and strings of one run-line message, read back in the order written (run_wire.ts):
 * one buffer holding a layout of numbers (counts, string indices, dims, byte offsets, times),
 * the strings it names (signature keys, tensor names, dtypes, output keys) and the numeric
 * tensors' bytes; with it, when there are any, the tensors sent as they are and the errors of
 * failed replies (each named in the layout by index).
 */
export type PackedTensors = ArrayBuffer | { flat: ArrayBuffer; whole: HostTensor[]; errors: StatusData[] };
