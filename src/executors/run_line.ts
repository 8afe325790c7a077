// The main thread's end of one executor thread's run line (protocol.ts, ThreadLinesOffer): one
// message running at a time, and at most one more waiting behind it on the thread, which
// starts it the moment the first is answered (the thread runs its messages in order). When the
// thread dies its port closes: the message it held fails as a thread death; one waiting
// behind it never started, and fails as NotStarted (the same death, not another). piscina
// starts a replacement, which offers a line of its own.
import type { MessagePort } from 'node:worker_threads';
import type { ExecutorReply, RunLineReply, RunRequest } from './protocol.js';
import { packRequests } from './run_wire.js';

type Answer = { resolve: (reply: ExecutorReply) => void; reject: (e: Error) => void };

/** A message that waited behind the one the thread died on: it never ran. */
export class NotStarted extends Error {
  constructor() {
    super('the executor thread exited before it started this message');
  }
}

export class RunLine {
  /** The messages sent and not yet answered, oldest (the running one) first. */
  private readonly answers: Answer[] = [];
  private closed = false;

  constructor(
    private readonly port: MessagePort,
    /** Told once, when the line closes (its thread exited). */
    onClose: (line: RunLine) => void,
  ) {
    port.on('message', (reply: RunLineReply) => {
      const a = this.answers.shift();
      if (!this.answers.length && !this.closed) this.port.unref();
      a?.resolve(reply instanceof ArrayBuffer ? { ok: true, kind: 'runMany', replies: reply } : reply);
    });
    port.once('close', () => {
      this.closed = true;
      const [running, ...behind] = this.answers.splice(0);
      running?.reject(new Error('the executor thread exited'));
      for (const a of behind) a.reject(new NotStarted());
      onClose(this);
    });
    // Idle, the line does not keep the process alive; a message in flight does.
    port.unref();
  }

  get idle(): boolean {
    return !this.answers.length && !this.closed;
  }

  /** One message running and none waiting behind it: one more may wait there. */
  get canQueue(): boolean {
    return this.answers.length === 1 && !this.closed;
  }

  /**
   * Runs `requests` on version `id` of the thread; only when idle, or (canQueue) behind the
   * message it runs. `transfer`: buffers moved, not copied (detached here).
   */
  send(id: number, requests: RunRequest[], transfer: ArrayBuffer[] = []): Promise<ExecutorReply> {
    if (!this.idle && !this.canQueue) return Promise.reject(new Error('run line busy or closed'));
    return new Promise((resolve, reject) => {
      this.answers.push({ resolve, reject });
      this.port.ref();
      const { packed, transfer: moved } = packRequests(id, requests, transfer);
      this.port.postMessage(packed, moved);
    });
  }

  close(): void {
    this.port.close();
  }
}
