// Loads a model version onto its own executor threads; unloading drains them.
import { ExecutorPool } from '../executors/executor_pool.js';
import { Code, ServingError } from '../errors/status.js';
import { verifyVersion, type VerificationReport } from './version_verifier.js';
import { versionInventory } from '../savedmodel/version_files.js';
import { DEFAULT_LOAD_TIMEOUT_SECONDS, loadTimeoutMs } from '../savedmodel/load_bounds.js';
import type { LoadReport, ModelDescription, RuntimeName } from '../executors/protocol.js';
import type { HostTensor } from '../tensor/host_tensor.js';
import type { Release, RunOptions, ServableVersion } from './servable_version.js';
import type { EngineSettings } from '../config/session_config.js';

/** `work`, or the signal's reason as soon as it aborts (what `work` holds is the caller's to stop). */
function abortable<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

export interface ExecutorLoaderOptions {
  tags: string[];
  runtime: RuntimeName;
  /** Executor threads per loaded version. */
  threadsPerVersion: number;
  /** --max_executor_queue: requests that may wait for a version's threads (default: unbounded). */
  maxQueued?: number;
  /** Warmup replays per record on every thread (0: --enable_model_warmup=false). */
  warmupIterations?: number;
  /** An executor thread of this version died (it is replaced; its message's requests failed). */
  onThreadDeath?: (modelName: string, version: number, error: Error) => void;
  /** A version's threads have loaded: which engine runs each signature, which are refused. */
  onLoaded?: (modelName: string, version: number, description: ModelDescription) => void;
  /** --verify_on_load: check signatures on a second engine before the version serves. */
  verify?: { mode: 'auto' | 'true' | 'false'; maxBytes: number };
  /** What the check found (or why it was skipped: `skipped` set). */
  onVerified?: (modelName: string, version: number, report: VerificationReport | { skipped: string }) => void;
  /** How loading went (TensorFlow's load metrics, TF Serving's warmup metrics), loaded or not. */
  onLoadReport?: (modelName: string, version: number, versionDir: string, report: LoadReport) => void;
  /** The executor threads' entry module (default: the production one); tests give one that injects faults. */
  workerFile?: string;
  /** Thread counts and GPU options for the runtime's sessions (--tensorflow_*_parallelism, session config). */
  engine?: EngineSettings;
  /** --load_memory_floor_mb, --load_timeout_seconds (savedmodel/load_bounds.ts); defaults when absent. */
  loadBounds?: { memoryFloorMb: number; timeoutSeconds: number };
}

/** A load that passed its time bound: its threads are stopped, the version fails to load. */
function loadTimedOut(versionDir: string, ms: number, timeoutSeconds: number): ServingError {
  return new ServingError(
    Code.DEADLINE_EXCEEDED,
    `${versionDir}: loading took longer than its time bound of ${ms / 1000} s (--load_timeout_seconds=${timeoutSeconds} plus 1 s per 4 MB on disk); its executor threads were stopped`,
  );
}

export class ExecutorServableVersion implements ServableVersion {
  constructor(readonly pool: ExecutorPool) {}

  get description() {
    return this.pool.description;
  }

  admit(): Release {
    return this.pool.admit();
  }

  async run(signature: string, inputs: Record<string, HostTensor>, outputKeys: string[], options: RunOptions = {}): Promise<Record<string, HostTensor>> {
    const t0 = performance.now();
    const outputs = await this.pool.run(signature, inputs, outputKeys, { timing: options.stats, deadline: options.deadline });
    if (options.stats) options.stats.inferMs = performance.now() - t0;
    return outputs;
  }
}

export class ExecutorVersionLoader {
  constructor(private readonly options: ExecutorLoaderOptions) {}

  /**
   * Refuses a folder that is not a model (a FIFO, a device, a link out of it: version_files.ts)
   * before any thread starts; then loads, verifies and warms up within the load's time bound.
   */
  async load(modelName: string, version: number, versionDir: string): Promise<ExecutorServableVersion> {
    const { bytes } = await versionInventory(versionDir);
    const timeoutSeconds = this.options.loadBounds?.timeoutSeconds ?? DEFAULT_LOAD_TIMEOUT_SECONDS;
    const ms = loadTimeoutMs(bytes, timeoutSeconds);
    const deadline = new AbortController();
    const timer = ms > 0 ? setTimeout(() => deadline.abort(loadTimedOut(versionDir, ms, timeoutSeconds)), ms) : undefined;
    let pool: ExecutorPool | undefined;
    try {
      pool = await ExecutorPool.open({
        versionDir,
        tags: this.options.tags,
        runtime: this.options.runtime,
        threads: this.options.threadsPerVersion,
        maxQueued: this.options.maxQueued,
        warmupIterations: this.options.warmupIterations ?? 0,
        workerFile: this.options.workerFile,
        memoryFloorMb: this.options.loadBounds?.memoryFloorMb,
        signal: deadline.signal,
        onLoadReport: (report) => this.options.onLoadReport?.(modelName, version, versionDir, report),
        ...(this.options.engine && { engine: this.options.engine }),
      });
      await abortable(this.verify(modelName, version, versionDir, pool, deadline.signal, bytes), deadline.signal);
    } catch (e) {
      if (pool && deadline.signal.aborted) pool.terminate();
      else if (pool) await pool.close().catch(() => {});
      throw deadline.signal.aborted ? (deadline.signal.reason as ServingError) : e;
    } finally {
      clearTimeout(timer);
    }
    this.options.onLoaded?.(modelName, version, pool.description);
    const onDeath = this.options.onThreadDeath;
    if (onDeath) pool.onThreadDeath = (e) => onDeath(modelName, version, e);
    return new ExecutorServableVersion(pool);
  }

  /**
   * Runs --verify_on_load's check; signatures whose engines disagree move from the
   * description's engines to its refusals. A version left with none fails to load.
   */
  private async verify(modelName: string, version: number, versionDir: string, pool: ExecutorPool, signal: AbortSignal, size: number): Promise<void> {
    const v = this.options.verify;
    if (!v || v.mode === 'false') return;
    if (v.mode === 'auto') {
      if (size > v.maxBytes) {
        this.options.onVerified?.(modelName, version, { skipped: `${(size / 2 ** 20).toFixed(1)} MB on disk, over --verify_on_load_max_mb=${v.maxBytes / 2 ** 20}` });
        return;
      }
    }
    const report = await verifyVersion(pool, this.options.runtime, versionDir, this.options.tags, signal);
    for (const [key, why] of Object.entries(report.refused)) {
      delete pool.description.engines[key];
      pool.description.refusals[key] = `the engines disagree (--verify_on_load): ${why}`;
    }
    this.options.onVerified?.(modelName, version, report);
    if (Object.keys(pool.description.engines).length === 0) {
      await pool.close();
      throw new ServingError(Code.FAILED_PRECONDITION, `${versionDir}: no signature can be served (${Object.entries(pool.description.refusals).map(([k, r]) => `${k}: ${r}`).join('; ')})`);
    }
  }

  async unload(loaded: ExecutorServableVersion): Promise<void> {
    await loaded.pool.close();
  }
}
