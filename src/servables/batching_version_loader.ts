// Puts a BatchingSession in front of every loaded version when --enable_batching is on; all
// versions of all models share one scheduler (TF Serving's shared batch thread pool).
import { readVersionFile, versionPathExists } from '../savedmodel/version_files.js';
import { failedPrecondition } from '../errors/status.js';
import { join } from 'node:path';
import { parseBatchingParametersText, type BatchingParameters } from '../config/batching_parameters.js';
import type { BatchingMode } from '../config/batching_modes.js';
import type { VersionLoader } from '../core/aspired_versions_manager.js';
import type { HostTensor } from '../tensor/host_tensor.js';
import type { RunOptions, ServableVersion } from '../services/servable_version.js';
import { SharedBatchScheduler, type Batch, type QueueOptions } from '../batching/batch_scheduler.js';
import { BatchingSession, dropUnwanted, processBatch, type BatchTask } from '../batching/batching_session.js';

/** tfgate's flags for parameters that set no mode / latency target of their own. */
interface BatchingDefaults {
  mode: BatchingMode;
  /** 0: no target. */
  latencyTargetMs: number;
}

const FIXED: BatchingDefaults = { mode: 'fixed', latencyTargetMs: 0 };

function queueOptions(p: BatchingParameters, defaults: BatchingDefaults = FIXED): QueueOptions {
  const mode = p.mode ?? defaults.mode;
  // A section without a mode takes --batching_mode's; fixed batching never reads a target, so one set here is refused, not ignored.
  if (mode === 'fixed' && p.latency_target_ms !== undefined) {
    throw failedPrecondition(
      `latency_target_ms is read by adaptive batching only, and this model's batching section sets no mode while --batching_mode is fixed: set mode: adaptive beside it`,
    );
  }
  const target = p.latency_target_ms ?? (defaults.latencyTargetMs > 0 ? defaults.latencyTargetMs : undefined);
  return {
    mode,
    ...(target !== undefined && { latencyTargetMs: target }),
    maxBatchSize: p.max_batch_size,
    batchTimeoutMicros: p.batch_timeout_micros,
    maxEnqueuedBatches: p.max_enqueued_batches,
    allowedBatchSizes: p.allowed_batch_sizes,
    enableLargeBatchSplitting: p.enable_large_batch_splitting,
    maxExecutionBatchSize: p.max_execution_batch_size,
    padVariableLengthInputs: p.pad_variable_length_inputs,
  };
}

/**
 * What the manager holds for each loaded version: the version itself (`unbatched`), run
 * through its BatchingSession when batching is on for it, directly when not.
 */
export interface MaybeBatchedVersion<T> extends ServableVersion {
  readonly unbatched: T;
}

class MaybeBatched<T extends ServableVersion> implements MaybeBatchedVersion<T> {
  constructor(
    readonly unbatched: T,
    readonly session: BatchingSession | undefined,
  ) {}
  get description() {
    return this.unbatched.description;
  }
  run(signature: string, inputs: Record<string, HostTensor>, outputKeys: string[], options?: RunOptions) {
    return (this.session ?? this.unbatched).run(signature, inputs, outputKeys, options);
  }
  admit() {
    const inner = this.session ?? this.unbatched;
    return inner.admit ? inner.admit() : () => {};
  }
}

const PER_MODEL_BATCHING_FILE = 'batching_params.pbtxt';

/** Queue names are `<model>/<version>/…`; model names hold no '/'. */
const modelOf = (queueName: string) => queueName.slice(0, queueName.indexOf('/'));

export interface BatchingSetup {
  /** The global parameters (--batching_parameters_file or defaults); their thread pool is shared. */
  global: BatchingParameters;
  /** --enable_per_model_batching_parameters: a version folder's batching_params.pbtxt replaces them. */
  perVersionFiles: boolean;
  /** Per-model parameters from the YAML config, looked up at each load. */
  perModel: () => Readonly<Record<string, BatchingParameters>>;
  /** --batching_mode / --batching_latency_target_ms (default: fixed, no target). */
  defaults?: BatchingDefaults;
  /** Sees every batch as it starts, and as it ends (metrics). */
  onBatch?: (modelName: string, batch: Batch<BatchTask>) => void;
  onBatchDone?: (modelName: string, batch: Batch<BatchTask>) => void;
}

export class BatchingVersionLoader<T extends ServableVersion> implements VersionLoader<MaybeBatchedVersion<T>> {
  private readonly scheduler: SharedBatchScheduler<BatchTask> | undefined;
  /** Sessions batching with the global parameters: a batching.cfg edit reaches them. */
  private readonly globalSessions = new Set<BatchingSession>();

  constructor(
    private readonly inner: VersionLoader<T>,
    private readonly setup: BatchingSetup | undefined,
  ) {
    const onBatch = setup?.onBatch;
    const onBatchDone = setup?.onBatchDone;
    this.scheduler = setup
      ? new SharedBatchScheduler<BatchTask>(setup.global.num_batch_threads, async (queue, batch, executorFree) => {
          const model = modelOf(queue.name);
          // Tasks past their deadline leave first: metrics see only batches that run.
          dropUnwanted(queue, batch);
          if (!batch.size) return;
          onBatch?.(model, batch);
          await processBatch(queue, batch, executorFree);
          onBatchDone?.(model, batch);
        })
      : undefined;
  }

  /** Rows waiting in batch queues, by model (empty without batching). */
  queuedRowsByModel(): Map<string, number> {
    const byModel = new Map<string, number>();
    for (const [name, rows] of this.scheduler?.queuedRows() ?? []) byModel.set(modelOf(name), (byModel.get(modelOf(name)) ?? 0) + rows);
    return byModel;
  }

  /** Which parameters a version batches with: its own file, its model's YAML section, or the global ones. */
  private async paramsFor(modelName: string, versionDir: string): Promise<{ params: BatchingParameters; global: boolean } | undefined> {
    const s = this.setup;
    if (!s) return undefined;
    if (s.perVersionFiles) {
      const file = join(versionDir, PER_MODEL_BATCHING_FILE);
      // Read as every file of a version folder is (a FIFO there must not block a libuv thread).
      const text = (await versionPathExists(file)) ? (await readVersionFile(versionDir, file)).toString('utf8') : undefined;
      // Only the thread pool (name and size) comes from the global config, as in TF Serving.
      if (text !== undefined)
        return {
          params: {
            ...parseBatchingParametersText(text, file),
            num_batch_threads: s.global.num_batch_threads,
            thread_pool_name: s.global.thread_pool_name,
          },
          global: false,
        };
    }
    const own = s.perModel()[modelName];
    return own ? { params: own, global: false } : { params: s.global, global: true };
  }

  async load(modelName: string, version: number, path: string, signal?: AbortSignal): Promise<MaybeBatchedVersion<T>> {
    const chosen = await this.paramsFor(modelName, path);
    const options = this.scheduler && chosen ? queueOptions(chosen.params, this.setup?.defaults) : undefined;
    const loaded = await this.inner.load(modelName, version, path, signal);
    const session = this.scheduler && options ? new BatchingSession(`${modelName}/${version}`, loaded, this.scheduler, options) : undefined;
    if (session && chosen?.global) this.globalSessions.add(session);
    return new MaybeBatched(loaded, session);
  }

  async unload(v: MaybeBatchedVersion<T>): Promise<void> {
    const session = (v as MaybeBatched<T>).session;
    if (session) this.globalSessions.delete(session);
    session?.close();
    await this.inner.unload(v.unbatched);
  }

  /**
   * New global parameters (the --batching_parameters_file was edited): versions batching with
   * them form their next batches with the new ones; requests already queued stay queued.
   */
  reloadGlobal(params: BatchingParameters): void {
    if (!this.setup || !this.scheduler) return;
    this.setup.global = params;
    this.scheduler.setNumBatchThreads(params.num_batch_threads);
    const options = queueOptions(params, this.setup.defaults);
    for (const session of this.globalSessions) session.reconfigure(options);
  }
}
