// The production executor thread, except that a message carrying a float input that holds
// POISON ends the thread before it answers: the whole message is lost, as with a real abort;
// a load of a version folder holding ABORT_ON_LOAD aborts the process; and a load of one
// holding HANG_ON_LOAD blocks the thread reading the FIFO that file names. Work reaches a thread on its own
// lines (protocol.ts, ThreadLinesOffer), so the lines offered to the main thread are swapped
// for ones that pass through here first.
import fs from 'node:fs';
import path from 'node:path';
import { MessageChannel, parentPort, type MessagePort, type TransferListItem } from 'node:worker_threads';
import type {
  ControlAnswer,
  ControlRequest,
  RunLineReply,
  RunLineRequest,
  RunRequest,
  ThreadLinesOffer,
} from '../../src/executors/protocol.js';
import { ABORT_ON_LOAD, HANG_ON_LOAD, POISON } from './executor_faults.js';
import { unpackRequests } from '../../src/executors/run_wire.js';

const poisoned = (r: RunRequest) => Object.values(r.inputs).some((t) => t.values instanceof Float32Array && t.values.includes(POISON));

const isLinesOffer = (m: unknown): m is ThreadLinesOffer => typeof m === 'object' && m !== null && (m as ThreadLinesOffer).kind === 'lines';

/** A line to the real one that ends the thread on a poisoned message before passing it on. */
function watchedLine(real: MessagePort): MessagePort {
  const { port1, port2 } = new MessageChannel();
  port1.on('message', (m: RunLineRequest) => {
    if (unpackRequests(m).requests.some(poisoned)) process.exit(70);
    real.postMessage(m);
  });
  real.on('message', (reply: RunLineReply) => port1.postMessage(reply));
  return port2;
}

/** A control line to the real one that trips the load faults before passing a load on. */
function watchedControl(real: MessagePort): MessagePort {
  const { port1, port2 } = new MessageChannel();
  port1.on('message', (m: ControlRequest) => {
    if (m.task.kind === 'load') {
      const dir = m.task.load.versionDir;
      // What abort() in native code does (process.abort() itself is refused in a worker).
      if (fs.existsSync(path.join(dir, ABORT_ON_LOAD))) process.kill(process.pid, 'SIGABRT');
      // Synchronous, in this thread: neither the thread's end nor the process's exit can interrupt it.
      if (fs.existsSync(path.join(dir, HANG_ON_LOAD))) fs.readFileSync(fs.readFileSync(path.join(dir, HANG_ON_LOAD), 'utf8'));
    }
    real.postMessage(m);
  });
  real.on('message', (answer: ControlAnswer) => port1.postMessage(answer));
  return port2;
}

const parent = parentPort!;
const post = parent.postMessage.bind(parent);
parent.postMessage = (message: unknown, transfer?: readonly TransferListItem[]) => {
  if (!isLinesOffer(message)) return post(message, transfer);
  const run = watchedLine(message.run);
  const control = watchedControl(message.control);
  return post({ kind: 'lines', run, control } satisfies ThreadLinesOffer, [run, control]);
};

// Imported after the watch is in place: the production module offers its lines as it loads.
const worker = await import('../../src/executors/executor_worker.js');
export default worker.default;
