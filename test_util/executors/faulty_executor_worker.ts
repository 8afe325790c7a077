// The production executor thread, except that a message carrying a float input that holds
// POISON ends the thread before it answers: the whole message is lost, as with a real abort.
import handle from '../../src/executors/executor_worker.js';
import type { ExecutorReply, ExecutorTask, RunRequest } from '../../src/executors/protocol.js';
import { POISON } from './executor_faults.js';

const poisoned = (r: RunRequest) => Object.values(r.inputs).some((t) => t.values instanceof Float32Array && t.values.includes(POISON));

export default async function faultyHandle(task: ExecutorTask): Promise<ExecutorReply> {
  if (task.kind === 'runMany' && task.requests.some(poisoned)) process.exit(70);
  return handle(task);
}
