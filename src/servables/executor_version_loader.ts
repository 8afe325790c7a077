// Loads a model version onto executor threads; unloading drains them. With load probes on, a
// version is first loaded, checked and run in a probe process (load_probe.ts), and only then
// in the serving executors. Small versions share one set of executor threads (ExecutorHost);
// larger ones get threads of their own.
import { ExecutorPool } from '../executors/executor_pool.js';
import { ExecutorHost } from '../executors/executor_host.js';
import { Code, ServingError } from '../errors/status.js';
import { verifyVersion, type VerificationReport } from './version_verifier.js';
import { versionInventory } from '../savedmodel/version_files.js';
import { DEFAULT_LOAD_TIMEOUT_SECONDS, loadTimeoutMs } from '../savedmodel/load_bounds.js';
import type { LoadReport, ModelDescription, RuntimeName } from '../executors/protocol.js';
import type { HostTensor } from '../tensor/host_tensor.js';
import type { Release, RunOptions, ServableVersion } from '../services/servable_version.js';
import { LoadProbes } from './load_probe.js';
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
  /** Executor threads per loaded version (and of the set small versions share). */
  threadsPerVersion: number;
  /** Versions up to this size on disk share one set of executor threads (0: none do). */
  sharedMaxBytes?: number;
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
  /** --enable_load_probe: load, check and run each version in a probe process first. */
  probe?: boolean;
  /** Probe processes at once (default: the cores). */
  maxProbeProcesses?: number;
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
  private shared?: ExecutorHost;
  private readonly probes?: LoadProbes;

  constructor(private readonly options: ExecutorLoaderOptions) {
    if (options.probe) this.probes = new LoadProbes({ runtime: options.runtime, workerFile: options.workerFile, engine: options.engine, maxProcesses: options.maxProbeProcesses });
  }

  /** Starts a probe process and the shared threads ahead of the first load: their start-up overlaps the server's. */
  prewarm(): void {
    this.probes?.prewarm();
    if ((this.options.sharedMaxBytes ?? 0) > 0) this.sharedHost();
  }

  /** The threads small versions share, started with the first of them. */
  private sharedHost(): ExecutorHost {
    if (!this.shared) {
      this.shared = ExecutorHost.start({ threads: this.options.threadsPerVersion, runtime: this.options.runtime, engine: this.options.engine, workerFile: this.options.workerFile });
      this.shared.onThreadError = (e) => this.options.onThreadDeath?.('(shared executor threads)', 0, e);
    }
    return this.shared;
  }

  /**
   * Refuses a folder that is not a model (a FIFO, a device, a link out of it: version_files.ts)
   * before any thread starts; then probes, loads, verifies and warms up within the load's time
   * bound. `signal` abandons the load (shutdown).
   */
  async load(modelName: string, version: number, versionDir: string, signal?: AbortSignal): Promise<ExecutorServableVersion> {
    const { bytes } = await versionInventory(versionDir);
    const timeoutSeconds = this.options.loadBounds?.timeoutSeconds ?? DEFAULT_LOAD_TIMEOUT_SECONDS;
    const ms = loadTimeoutMs(bytes, timeoutSeconds);
    const deadline = new AbortController();
    const timer = ms > 0 ? setTimeout(() => deadline.abort(loadTimedOut(versionDir, ms, timeoutSeconds)), ms) : undefined;
    const abandon = signal ? AbortSignal.any([deadline.signal, signal]) : deadline.signal;
    const load = { versionDir, tags: this.options.tags, warmupIterations: this.options.warmupIterations ?? 0, memoryFloorMb: this.options.loadBounds?.memoryFloorMb };
    const verify = this.verifyPlan(bytes);
    let pool: ExecutorPool | undefined;
    try {
      const probed = this.probes ? await this.probes.probe({ load, verify: verify === true }, abandon) : undefined;
      const small = bytes <= (this.options.sharedMaxBytes ?? 0);
      pool = await ExecutorPool.open({
        ...load,
        runtime: this.options.runtime,
        threads: this.options.threadsPerVersion,
        host: small ? this.sharedHost() : undefined,
        maxQueued: this.options.maxQueued,
        workerFile: this.options.workerFile,
        signal: abandon,
        onLoadReport: (report) => this.options.onLoadReport?.(modelName, version, versionDir, report),
        ...(this.options.engine && { engine: this.options.engine }),
      });
      if (typeof verify === 'string') this.options.onVerified?.(modelName, version, { skipped: verify });
      else if (verify) this.applyVerification(modelName, version, versionDir, pool, probed ?? (await abortable(verifyVersion(pool, this.options.runtime, versionDir, this.options.tags, abandon), abandon)));
    } catch (e) {
      if (pool && abandon.aborted) pool.terminate();
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

  /** --verify_on_load for a version of `size` bytes: check it (true), not (false), or why it is skipped. */
  private verifyPlan(size: number): boolean | string {
    const v = this.options.verify;
    if (!v || v.mode === 'false') return false;
    if (v.mode === 'auto' && size > v.maxBytes) return `${(size / 2 ** 20).toFixed(1)} MB on disk, over --verify_on_load_max_mb=${v.maxBytes / 2 ** 20}`;
    return true;
  }

  /**
   * Signatures whose engines disagree, or that their engine cannot run, move from the
   * description's engines to its refusals. A version left with none fails to load.
   */
  private applyVerification(modelName: string, version: number, versionDir: string, pool: ExecutorPool, report: VerificationReport): void {
    for (const [key, why] of Object.entries(report.refused)) {
      delete pool.description.engines[key];
      pool.description.refusals[key] = `refused by --verify_on_load: ${why}`;
    }
    this.options.onVerified?.(modelName, version, report);
    if (Object.keys(pool.description.engines).length === 0) {
      throw new ServingError(Code.FAILED_PRECONDITION, `${versionDir}: no signature can be served (${Object.entries(pool.description.refusals).map(([k, r]) => `${k}: ${r}`).join('; ')})`);
    }
  }

  async unload(loaded: ExecutorServableVersion): Promise<void> {
    await loaded.pool.close();
  }

  /**
   * Ends the probe processes and the shared threads (shutdown, after the unloads). Their end
   * is not awaited: a thread stuck in an abandoned load never ends (the process's exit then
   * needs its watchdog, see server/exit_watchdog.ts).
   */
  stop(): void {
    this.probes?.stop();
    void this.shared?.destroy();
  }
}
