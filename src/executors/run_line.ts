// The main thread's end of one executor thread's run line (protocol.ts, ThreadLinesOffer): one
// message in flight at a time. When the thread dies its port closes, and the message it held
// fails as a thread death; piscina starts a replacement, which offers a line of its own.
import type { MessagePort } from 'node:worker_threads';
import type { ExecutorReply, RunLineReply, RunRequest } from './protocol.js';
import { packRequests, takeFromRoom } from './run_wire.js';

export class RunLine {
  private answer?: { resolve: (reply: ExecutorReply) => void; reject: (e: Error) => void };
  private closed = false;

  constructor(
    private readonly port: MessagePort,
    /** Told once, when the line closes (its thread exited). */
    onClose: (line: RunLine) => void,
    /** The line's room (protocol.ts, ThreadLinesOffer); none: every message travels as buffers. */
    private readonly room?: SharedArrayBuffer,
  ) {
    port.on('message', (reply: RunLineReply) => {
      // Replies in the room are copied out now, before anything else can send on the line.
      if (typeof reply === 'number') reply = takeFromRoom(this.room!, reply);
      this.settle((a) => a.resolve(reply instanceof ArrayBuffer ? { ok: true, kind: 'runMany', replies: reply } : reply));
    });
    port.once('close', () => {
      this.closed = true;
      this.settle((a) => a.reject(new Error('the executor thread exited')));
      onClose(this);
    });
    // Idle, the line does not keep the process alive; a message in flight does.
    port.unref();
  }

  get idle(): boolean {
    return !this.answer && !this.closed;
  }

  /** Runs `requests` on version `id` of the thread; only when idle. `transfer`: buffers moved, not copied (detached here). */
  send(id: number, requests: RunRequest[], transfer: ArrayBuffer[] = []): Promise<ExecutorReply> {
    if (!this.idle) return Promise.reject(new Error('run line busy or closed'));
    return new Promise((resolve, reject) => {
      this.answer = { resolve, reject };
      this.port.ref();
      const { packed, transfer: moved } = packRequests(id, requests, transfer, this.room);
      this.port.postMessage(packed, moved);
    });
  }

  close(): void {
    this.port.close();
  }

  private settle(how: (a: { resolve: (reply: ExecutorReply) => void; reject: (e: Error) => void }) => void): void {
    const a = this.answer;
    if (!a) return;
    this.answer = undefined;
    if (!this.closed) this.port.unref();
    how(a);
  }
}
