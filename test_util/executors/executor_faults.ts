// Executor-thread faults for tests: the entry module to give the pool (ExecutorPool's
// workerFile, ModelServer's executorWorkerFile), the tfgate binary that runs on it, and what
// trips it. Kept apart from the worker module itself, which may only be loaded on an executor
// thread.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = fileURLToPath(import.meta.url);
const ext = path.extname(here);

/**
 * An executor thread that ends mid-request, as an out-of-memory abort would, on a float input
 * holding POISON; whose load of a version folder holding ABORT_ON_LOAD aborts the process
 * (a native abort nobody foresaw); and whose load of one holding HANG_ON_LOAD reads the FIFO
 * that file names and so never ends, nor can the thread be stopped. (The FIFO lives outside
 * the version folder: tfgate refuses a folder holding one before any thread reads it.)
 */
export const FAULTY_EXECUTOR_WORKER = path.join(path.dirname(here), `faulty_executor_worker${ext}`);

/** The tfgate binary (src/main.ts) with its executor threads on FAULTY_EXECUTOR_WORKER. */
export const TFGATE_WITH_FAULTS_BIN = path.join(path.dirname(here), `tfgate_with_faults${ext}`);

export const POISON = 13;
export const ABORT_ON_LOAD = 'abort_on_load';
export const HANG_ON_LOAD = 'hang_on_load';

/** Makes the load of `<root>/<model>/<version>` hang: a FIFO in `<root>`, named by the version's HANG_ON_LOAD file. */
export function hangOnLoad(versionDir: string): void {
  const modelDir = path.dirname(versionDir);
  const fifo = path.join(path.dirname(modelDir), `${path.basename(modelDir)}.hang.fifo`);
  execFileSync('mkfifo', [fifo]);
  fs.writeFileSync(path.join(versionDir, HANG_ON_LOAD), fifo);
}
