// The production executor thread, except that a message carrying a float input that holds
// POISON ends the thread before it answers: the whole message is lost, as with a real abort.
// Runs reach a thread two ways — piscina tasks until it has loaded, then its own run line
// (protocol.ts, RunLineOffer) — so both are watched: the line offered to the main thread is
// swapped for one that passes through here first.
import { MessageChannel, parentPort, type MessagePort, type TransferListItem } from 'node:worker_threads';
import handle from '../../src/executors/executor_worker.js';
import type { ExecutorReply, ExecutorTask, RunLineOffer, RunLineRequest, RunRequest } from '../../src/executors/protocol.js';
import { POISON } from './executor_faults.js';

const poisoned = (r: RunRequest) => Object.values(r.inputs).some((t) => t.values instanceof Float32Array && t.values.includes(POISON));

const isRunLineOffer = (m: unknown): m is RunLineOffer => typeof m === 'object' && m !== null && (m as RunLineOffer).kind === 'runLine';

/** A line to the real one that ends the thread on a poisoned message before passing it on. */
function watchedLine(real: MessagePort): MessagePort {
  const { port1, port2 } = new MessageChannel();
  port1.on('message', (m: RunLineRequest) => {
    if (m.requests.some(poisoned)) process.exit(70);
    real.postMessage(m);
  });
  real.on('message', (reply: ExecutorReply) => port1.postMessage(reply));
  return port2;
}

const parent = parentPort!;
const post = parent.postMessage.bind(parent);
parent.postMessage = (message: unknown, transfer?: readonly TransferListItem[]) => {
  if (!isRunLineOffer(message)) return post(message, transfer);
  const port = watchedLine(message.port);
  return post({ kind: 'runLine', port } satisfies RunLineOffer, [port]);
};

export default async function faultyHandle(task: ExecutorTask): Promise<ExecutorReply> {
  if (task.kind === 'runMany' && task.requests.some(poisoned)) process.exit(70);
  return handle(task);
}
