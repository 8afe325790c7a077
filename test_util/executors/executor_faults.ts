// Executor-thread faults for tests: the entry module to give the pool (ExecutorPool's
// workerFile, ModelServer's executorWorkerFile) and the value that trips it. Kept apart from
// the worker module itself, which may only be loaded on an executor thread.
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = fileURLToPath(import.meta.url);

/** An executor thread that ends mid-request, as an out-of-memory abort would, on a float input holding POISON. */
export const FAULTY_EXECUTOR_WORKER = path.join(path.dirname(here), `faulty_executor_worker${path.extname(here)}`);

export const POISON = 13;
