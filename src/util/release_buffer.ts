// Gives a buffer's memory back now instead of at its thread's next garbage collection. A
// buffer moved (transferred) into a message whose port is closed is freed when the message is
// dropped; left to the GC, a thread that allocates little holds tens of MB of dead buffers
// (V8 collects for external memory only every 64 MB or so, in each thread apart).
import { MessageChannel } from 'node:worker_threads';

let sink: MessageChannel['port1'] | undefined;

/** Frees `buffer` (it is detached: anything still viewing it reads nothing). */
export function releaseBuffer(buffer: ArrayBufferLike): void {
  if (!(buffer instanceof ArrayBuffer) || buffer.byteLength === 0) return;
  if (!sink) {
    const channel = new MessageChannel();
    channel.port2.close();
    sink = channel.port1;
    sink.unref();
  }
  sink.postMessage(null, [buffer]);
}
