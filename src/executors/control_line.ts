// The main thread's end of one executor thread's control line (protocol.ts, ThreadLinesOffer):
// loads, unloads, traces and checks, several at once, each answer matched by its seq. When
// the thread dies its port closes and every request it held fails.
import type { MessagePort } from 'node:worker_threads';
import type { ControlAnswer, ControlRequest, ControlTask, ExecutorReply } from './protocol.js';

export class ControlLine {
  private seq = 0;
  private readonly pending = new Map<number, { resolve: (reply: ExecutorReply) => void; reject: (e: Error) => void }>();
  private closed = false;

  constructor(private readonly port: MessagePort) {
    port.on('message', (answer: ControlAnswer) => {
      const p = this.pending.get(answer.seq);
      if (!p) return;
      this.pending.delete(answer.seq);
      if (!this.pending.size) port.unref();
      p.resolve(answer.reply);
    });
    port.once('close', () => {
      this.closed = true;
      for (const p of this.pending.values()) p.reject(new Error('the executor thread exited'));
      this.pending.clear();
    });
    // Idle, the line does not keep the process alive; a request under way does.
    port.unref();
  }

  request(task: ControlTask): Promise<ExecutorReply> {
    if (this.closed) return Promise.reject(new Error('the executor thread exited'));
    return new Promise((resolve, reject) => {
      const seq = ++this.seq;
      this.pending.set(seq, { resolve, reject });
      this.port.ref();
      this.port.postMessage({ seq, task } satisfies ControlRequest);
    });
  }

  close(): void {
    this.port.close();
  }
}
