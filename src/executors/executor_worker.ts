// Entry of an executor thread: loads one model version once, then runs tasks on it.
// Inference happens here, never on the main thread's event loop.
import { workerData } from 'node:worker_threads';
import { toStatusData } from '../core/status.js';
import { createRuntime } from '../runtimes/index.js';
import type { Servable } from '../runtimes/runtime.js';
import type { ExecutorReply, ExecutorTask, ExecutorWorkerData, RunReply, RunRequest } from './protocol.js';

const data = workerData as ExecutorWorkerData;
const loading: Promise<Servable> = (async () => createRuntime(data.runtime).load(data.versionDir, { tags: data.tags }))();
// Keep a load failure from becoming an unhandled rejection; tasks report it.
loading.catch(() => {});

async function runOne(servable: Servable, r: RunRequest): Promise<RunReply> {
  try {
    const t0 = performance.now();
    const outputs = await servable.run(r.signature, r.inputs, r.outputKeys);
    return { ok: true, kind: 'run', outputs, computeMs: performance.now() - t0 };
  } catch (e) {
    return { ok: false, error: toStatusData(e) };
  }
}

export default async function handle(task: ExecutorTask): Promise<ExecutorReply> {
  try {
    const servable = await loading;
    if (task.kind === 'describe') {
      const { backend, signatures, refusals, signatureDefs } = servable;
      return { ok: true, kind: 'describe', description: { backend, signatures, refusals, signatureDefs } };
    }
    if (task.kind === 'runMany') {
      const replies: RunReply[] = [];
      for (const r of task.requests) replies.push(await runOne(servable, r));
      return { ok: true, kind: 'runMany', replies };
    }
    return await runOne(servable, task);
  } catch (e) {
    return { ok: false, error: toStatusData(e) };
  }
}
