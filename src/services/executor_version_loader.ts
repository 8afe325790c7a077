// Loads a model version onto its own executor threads; unloading drains them.
import { ExecutorPool } from '../executors/executor_pool.js';
import type { ModelDescription, RuntimeName } from '../executors/protocol.js';
import type { HostTensor } from '../tensor/host_tensor.js';
import type { RunOptions, ServableVersion } from './servable_version.js';

export interface ExecutorLoaderOptions {
  tags: string[];
  runtime: RuntimeName;
  /** Executor threads per loaded version. */
  threadsPerVersion: number;
  /** Warmup replays per record on every thread (0: --enable_model_warmup=false). */
  warmupIterations?: number;
  /** An executor thread of this version died (it is replaced; its message's requests failed). */
  onThreadDeath?: (modelName: string, version: number, error: Error) => void;
  /** A version's threads have loaded: which engine runs each signature, which are refused. */
  onLoaded?: (modelName: string, version: number, description: ModelDescription) => void;
}

export class ExecutorServableVersion implements ServableVersion {
  constructor(readonly pool: ExecutorPool) {}

  get description() {
    return this.pool.description;
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

  async load(modelName: string, version: number, versionDir: string): Promise<ExecutorServableVersion> {
    const pool = await ExecutorPool.open({
      versionDir,
      tags: this.options.tags,
      runtime: this.options.runtime,
      threads: this.options.threadsPerVersion,
      warmupIterations: this.options.warmupIterations ?? 0,
    });
    this.options.onLoaded?.(modelName, version, pool.description);
    const onDeath = this.options.onThreadDeath;
    if (onDeath) pool.onThreadDeath = (e) => onDeath(modelName, version, e);
    return new ExecutorServableVersion(pool);
  }

  async unload(loaded: ExecutorServableVersion): Promise<void> {
    await loaded.pool.close();
  }
}
