// Entry of an executor thread: loads one model version once, then runs tasks on it.
// Inference happens here, never on the main thread's event loop.
import { workerData } from 'node:worker_threads';
import { toStatusData } from '../core/status.js';
import { createRuntime } from '../runtimes/index.js';
import type { Servable } from '../runtimes/runtime.js';
import type { ExecutorReply, ExecutorTask, ExecutorWorkerData } from './protocol.js';

const data = workerData as ExecutorWorkerData;
const loading: Promise<Servable> = (async () => createRuntime(data.runtime).load(data.versionDir, { tags: data.tags }))();
// Keep a load failure from becoming an unhandled rejection; tasks report it.
loading.catch(() => {});

export default async function handle(task: ExecutorTask): Promise<ExecutorReply> {
  try {
    const servable = await loading;
    if (task.kind === 'describe') {
      const { backend, signatures, refusals, signatureDefs } = servable;
      return { ok: true, kind: 'describe', description: { backend, signatures, refusals, signatureDefs } };
    }
    const outputs = await servable.run(task.signature, task.inputs, task.outputKeys);
    return { ok: true, kind: 'run', outputs };
  } catch (e) {
    return { ok: false, error: toStatusData(e) };
  }
}
