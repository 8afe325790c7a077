// A fixed set of executor threads serving one model version (piscina underneath).
// Each thread loads its own copy of the version when the pool opens; `open` resolves once
// the version loaded (or rejects with the load error, after tearing the threads down).
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Piscina } from 'piscina';
import { ServingError, internal } from '../core/status.js';
import type { HostTensor } from '../tensor/host_tensor.js';
import type { ExecutorReply, ExecutorTask, ExecutorWorkerData, ModelDescription } from './protocol.js';

const here = fileURLToPath(import.meta.url);
// Same extension as this module: .js when compiled, .ts under tsx in development.
const WORKER_FILE = path.join(path.dirname(here), `executor_worker${path.extname(here)}`);

export interface ExecutorPoolOptions extends ExecutorWorkerData {
  threads: number;
}

export class ExecutorPool {
  private constructor(
    private readonly pool: Piscina,
    readonly description: ModelDescription,
    readonly threads: number,
  ) {}

  static async open(options: ExecutorPoolOptions): Promise<ExecutorPool> {
    const { threads, ...workerData } = options;
    const pool = new Piscina({
      filename: WORKER_FILE,
      minThreads: threads,
      maxThreads: threads,
      idleTimeout: Number.MAX_SAFE_INTEGER,
      workerData,
    });
    try {
      // One describe per thread: every thread has loaded before the version serves.
      const replies = await Promise.all(Array.from({ length: threads }, () => pool.run({ kind: 'describe' } satisfies ExecutorTask) as Promise<ExecutorReply>));
      const first = replies[0];
      if (!first.ok) throw ServingError.fromData(first.error);
      if (first.kind !== 'describe') throw internal('executor answered describe with a run reply');
      return new ExecutorPool(pool, first.description, threads);
    } catch (e) {
      await pool.destroy();
      throw e;
    }
  }

  /** Tasks running or queued. */
  get pending(): number {
    return this.pool.queueSize + this.pool.threads.length * this.pool.utilization;
  }

  async run(signature: string, inputs: Record<string, HostTensor>, outputKeys: string[] = []): Promise<Record<string, HostTensor>> {
    let reply: ExecutorReply;
    try {
      reply = (await this.pool.run({ kind: 'run', signature, inputs, outputKeys } satisfies ExecutorTask)) as ExecutorReply;
    } catch (e) {
      // The thread died (out of memory, abort): only this task fails; piscina replaces the thread.
      throw internal(`executor thread failed: ${(e as Error).message}`);
    }
    if (!reply.ok) throw ServingError.fromData(reply.error);
    if (reply.kind !== 'run') throw internal('executor answered run with a describe reply');
    return reply.outputs;
  }

  async close(): Promise<void> {
    await this.pool.close();
  }
}
