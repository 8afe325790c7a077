// Runs the load generator on a worker thread: its own event loop sends and times requests,
// so the bench's main thread (starting servers, printing progress) never delays a send or
// the reading of an answer.
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import { fileURLToPath } from 'node:url';
import { LatencyRecorder } from './latency_recorder.js';
import { runLoad, type LoadResult, type LoadSpec, type Progress } from './generator.js';

type Message =
  | { kind: 'progress'; progress: Progress }
  | { kind: 'done'; seconds: number; sent: number; rps: number; recorder: ReturnType<LatencyRecorder['encode']> }
  | { kind: 'failed'; message: string };

export function runLoadInWorker(spec: LoadSpec, onProgress?: (p: Progress) => void): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(fileURLToPath(import.meta.url), { workerData: spec });
    worker.on('message', (m: Message) => {
      if (m.kind === 'progress') onProgress?.(m.progress);
      else if (m.kind === 'done') resolve({ recorder: LatencyRecorder.decode(m.recorder), seconds: m.seconds, sent: m.sent, rps: m.rps });
      else reject(new Error(m.message));
    });
    worker.on('error', reject);
  });
}

/** A progress line rewritten in place on stderr. */
export function progressLine(label: string): (p: Progress) => void {
  return (p) =>
    process.stderr.write(`\r${label}: ${p.elapsedS.toFixed(0)} s, ${p.done} answered, ${p.inFlight} in flight, ${p.errors} errors   `);
}

if (!isMainThread && parentPort && (workerData as LoadSpec | undefined)?.url) {
  const port = parentPort;
  runLoad(workerData as LoadSpec, (progress) => port.postMessage({ kind: 'progress', progress } satisfies Message)).then(
    (r) =>
      port.postMessage({ kind: 'done', seconds: r.seconds, sent: r.sent, rps: r.rps, recorder: r.recorder.encode() } satisfies Message),
    (e: Error) => port.postMessage({ kind: 'failed', message: e.message } satisfies Message),
  );
}
