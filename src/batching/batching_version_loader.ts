// Puts a BatchingSession in front of every loaded version when --enable_batching is on; all
// versions of all models share one scheduler (TF Serving's shared batch thread pool).
import type { BatchingParameters } from '../config/batching_parameters.js';
import type { VersionLoader } from '../core/aspired_versions_manager.js';
import type { HostTensor } from '../tensor/host_tensor.js';
import type { RunStats, ServableVersion } from '../services/servable_version.js';
import { SharedBatchScheduler, type QueueOptions } from './batch_scheduler.js';
import { BatchingSession, processBatch, type BatchTask } from './batching_session.js';

export function queueOptions(p: BatchingParameters): QueueOptions {
  return {
    maxBatchSize: p.max_batch_size,
    batchTimeoutMicros: p.batch_timeout_micros,
    maxEnqueuedBatches: p.max_enqueued_batches,
    allowedBatchSizes: p.allowed_batch_sizes,
    enableLargeBatchSplitting: p.enable_large_batch_splitting,
    maxExecutionBatchSize: p.max_execution_batch_size,
  };
}

/** A loaded version, batched or not; what the manager holds. */
export interface LoadedVersion<T> extends ServableVersion {
  readonly loaded: T;
}

class Batched<T extends ServableVersion> implements LoadedVersion<T> {
  constructor(
    readonly loaded: T,
    readonly session: BatchingSession | undefined,
  ) {}
  get description() {
    return this.loaded.description;
  }
  run(signature: string, inputs: Record<string, HostTensor>, outputKeys: string[], stats?: RunStats) {
    return (this.session ?? this.loaded).run(signature, inputs, outputKeys, stats);
  }
}

export class BatchingVersionLoader<T extends ServableVersion> implements VersionLoader<LoadedVersion<T>> {
  private readonly scheduler: SharedBatchScheduler<BatchTask> | undefined;

  constructor(
    private readonly inner: VersionLoader<T>,
    private readonly params: BatchingParameters | undefined,
  ) {
    this.scheduler = params ? new SharedBatchScheduler<BatchTask>(params.num_batch_threads, processBatch) : undefined;
  }

  async load(modelName: string, version: number, path: string): Promise<LoadedVersion<T>> {
    const loaded = await this.inner.load(modelName, version, path);
    const session = this.scheduler && this.params ? new BatchingSession(`${modelName}/${version}`, loaded, this.scheduler, queueOptions(this.params)) : undefined;
    return new Batched(loaded, session);
  }

  async unload(v: LoadedVersion<T>): Promise<void> {
    (v as Batched<T>).session?.close();
    await this.inner.unload(v.loaded);
  }
}
