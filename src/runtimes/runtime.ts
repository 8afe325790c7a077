// The contract every runtime (embedded WASM/CPU, tfjs-node, TF.js graph model) fulfils.
// A Servable is one loaded model version inside one thread; it is not shared between threads.
// A new engine is one file: it implements SignatureEngine (signature_loading.ts: open the
// version, prepare one signature, wrap the prepared ones in a Servable) and loads through
// loadSignatures; createRuntime (index.ts) builds it, alone or first in a CompositeRuntime.
import type { HostTensor } from '../tensor/host_tensor.js';
import type { SignatureDefObject } from '../savedmodel/saved_model_reader.js';
import type { SignatureSpec } from '../savedmodel/signature_spec.js';
import type { RunCost } from './run_cost.js';

/** Which engine answers a signature, and why not a faster one when that was tried first. */
export interface EngineChoice {
  /** 'onnxruntime', 'wasm', 'cpu', 'tensorflow' … */
  engine: string;
  reason?: string;
  /**
   * A part of the signature every engine tfgate has runs on one and the same implementation
   * (a decision forest on Yggdrasil's WASM engine), said in a few words: --verify_on_load can
   * compare only the rest, and says so instead of calling the signature verified.
   */
  singleEngine?: string;
}

export interface Servable {
  /** Backend(s) that actually run the graphs: 'wasm', 'cpu', 'tensorflow', 'onnxruntime+wasm' … */
  readonly backend: string;
  /** Served signature key → the engine that runs it. */
  readonly engines: Record<string, EngineChoice>;
  readonly signatures: Record<string, SignatureSpec>;
  /** The SignatureDefs as stored (for GetModelMetadata), including ones that cannot be served. */
  readonly signatureDefs: Record<string, SignatureDefObject>;
  /** Signature key → why it cannot be served (absent when all serve). */
  readonly refusals: Record<string, string>;
  /** Signature key → what a run holds, where the engine can tell from the graph (absent: unknown). */
  readonly runCosts?: Record<string, RunCost>;
  /**
   * Runs one signature. `inputs` are keyed by signature input key; `outputKeys` selects outputs
   * (all when empty). Rejects with ServingError (INVALID_ARGUMENT for bad inputs).
   * Not re-entrant: callers serialise calls on one Servable.
   */
  run(signatureKey: string, inputs: Record<string, HostTensor>, outputKeys?: string[]): Promise<Record<string, HostTensor>>;
  /**
   * As run, but answered at once where the engine can (a promise where it cannot), a refusal
   * thrown rather than rejected: the executor thread's path, with no promise and no microtask
   * turn per run when the engine answers synchronously.
   */
  runNow?(
    signatureKey: string,
    inputs: Record<string, HostTensor>,
    outputKeys?: string[],
  ): Record<string, HostTensor> | Promise<Record<string, HostTensor>>;
  /**
   * Every intermediate tensor of a run ('node:0' → value, in the prepared graph's dependency
   * order), for locating where two engines part ways. Costly; used only on a disagreement.
   */
  trace?(signatureKey: string, inputs: Record<string, HostTensor>): Promise<Array<[string, HostTensor]>>;
  /**
   * For the runs a load makes itself (verification, warmup): refuses, before anything is
   * allocated, a run whose known tensor sizes exceed the load's memory bound
   * (RESOURCE_EXHAUSTED naming the op and node; savedmodel/graph/tensor_sizes.ts).
   */
  checkLoadRun?(signatureKey: string, inputs: Record<string, HostTensor>): void;
  dispose(): void;
}

export interface LoadOptions {
  /** Tag set of the MetaGraphDef to load; TF Serving's default is ['serve']. */
  tags: string[];
  /** Load only these signature keys (another engine serves the rest); all when absent. */
  signatures?: readonly string[];
  /** --load_memory_floor_mb: the memory bound of a small version's load (load_bounds.ts). */
  memoryFloorMb?: number;
}

export interface Runtime {
  readonly name: string;
  /** Loads the version folder; rejects with a ServingError naming the file, op or name at fault. */
  load(versionDir: string, options: LoadOptions): Promise<Servable>;
}
