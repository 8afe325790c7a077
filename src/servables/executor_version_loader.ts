// Loads a model version onto executor threads; unloading drains them. With load probes on, a
// version is first loaded, run (and, when asked, checked: verifying_version_loader.ts) in a
// probe process (load_probe.ts), and only then in the serving executors. Small versions share
// one set of executor threads (ExecutorHost); larger ones get threads of their own. The
// load's time bound is load_time_bound.ts, around this loader and the verifying one.
import { ExecutorPool } from '../executors/executor_pool.js';
import { ExecutorHost } from '../executors/executor_host.js';
import type { VersionLoader } from '../core/aspired_versions_manager.js';
import type { VerificationReport } from './version_verifier.js';
import { versionInventory } from '../savedmodel/version_files.js';
import type { LoadReport, RuntimeName } from '../executors/protocol.js';
import type { HostTensor } from '../tensor/host_tensor.js';
import type { Release, RunOptions, ServableVersion } from '../services/servable_version.js';
import { LoadProbes } from './load_probe.js';
import type { EngineSettings } from '../config/session_config.js';

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
  /** With probes on: whether the probe also runs --verify_on_load's check on a version of this size (its report then travels with the loaded version). */
  verifyInProbe?: (bytesOnDisk: number) => boolean;
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
  /** --load_memory_floor_mb (savedmodel/load_bounds.ts); the default when absent. */
  memoryFloorMb?: number;
}

export class ExecutorServableVersion implements ServableVersion {
  constructor(
    readonly pool: ExecutorPool,
    /** The version's size on disk (--verify_on_load=auto compares it with its limit). */
    readonly bytesOnDisk: number,
    /** --verify_on_load's report, when the load probe ran the check. */
    readonly probeReport?: VerificationReport,
  ) {}

  get description() {
    return this.pool.description;
  }

  admit(): Release {
    return this.pool.admit();
  }

  async run(
    signature: string,
    inputs: Record<string, HostTensor>,
    outputKeys: string[],
    options: RunOptions = {},
  ): Promise<Record<string, HostTensor>> {
    const t0 = performance.now();
    const outputs = await this.pool.run(signature, inputs, outputKeys, {
      timing: options.stats,
      deadline: options.deadline,
      queueBehind: options.queueBehind,
    });
    if (options.stats) options.stats.inferMs = performance.now() - t0;
    return outputs;
  }
}

export class ExecutorVersionLoader implements VersionLoader<ExecutorServableVersion> {
  private shared?: ExecutorHost;
  private readonly probes?: LoadProbes;

  constructor(private readonly options: ExecutorLoaderOptions) {
    if (options.probe)
      this.probes = new LoadProbes({
        runtime: options.runtime,
        workerFile: options.workerFile,
        engine: options.engine,
        maxProcesses: options.maxProbeProcesses,
      });
  }

  /** Starts a probe process and the shared threads ahead of the first load: their start-up overlaps the server's. */
  prewarm(): void {
    this.probes?.prewarm();
    if ((this.options.sharedMaxBytes ?? 0) > 0) this.sharedHost();
  }

  /** The threads small versions share, started with the first of them. */
  private sharedHost(): ExecutorHost {
    if (!this.shared) {
      this.shared = ExecutorHost.start({
        threads: this.options.threadsPerVersion,
        runtime: this.options.runtime,
        engine: this.options.engine,
        workerFile: this.options.workerFile,
        // Small versions gain nothing from intra-op threads, and each wide session would start
        // an ONNX Runtime thread pool of its own: 30 shared versions made 46 threads.
        wide: false,
      });
      this.shared.onThreadError = (e) => this.options.onThreadDeath?.('(shared executor threads)', 0, e);
    }
    return this.shared;
  }

  /**
   * Refuses a folder that is not a model (a FIFO, a device, a link out of it: version_files.ts)
   * before any thread starts; then probes, loads and warms up. `signal` abandons the load (the
   * time bound, shutdown): threads already started are stopped.
   */
  async load(modelName: string, version: number, versionDir: string, signal?: AbortSignal): Promise<ExecutorServableVersion> {
    const { bytes } = await versionInventory(versionDir);
    const load = {
      versionDir,
      tags: this.options.tags,
      warmupIterations: this.options.warmupIterations ?? 0,
      memoryFloorMb: this.options.memoryFloorMb,
    };
    let pool: ExecutorPool | undefined;
    let probeReport: VerificationReport | undefined;
    try {
      if (this.probes) probeReport = await this.probes.probe({ load, verify: this.options.verifyInProbe?.(bytes) ?? false }, signal);
      const small = bytes <= (this.options.sharedMaxBytes ?? 0);
      pool = await ExecutorPool.open({
        ...load,
        runtime: this.options.runtime,
        threads: this.options.threadsPerVersion,
        wide: !small,
        host: small ? this.sharedHost() : undefined,
        maxQueued: this.options.maxQueued,
        workerFile: this.options.workerFile,
        signal,
        onLoadReport: (report) => this.options.onLoadReport?.(modelName, version, versionDir, report),
        ...(this.options.engine && { engine: this.options.engine }),
      });
    } catch (e) {
      if (pool && signal?.aborted) pool.terminate();
      else if (pool) await pool.close().catch(() => {});
      throw e;
    }
    const onDeath = this.options.onThreadDeath;
    if (onDeath) pool.onThreadDeath = (e) => onDeath(modelName, version, e);
    return new ExecutorServableVersion(pool, bytes, probeReport);
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
