// A light closed-loop HTTP/1.1 client for overload runs: each connection sends one request
// (pre-encoded bytes), reads the answer's status line and Content-Length, records the latency
// under its status, and sends again at once. Node's http client costs about as much CPU per
// request as the server's refusal does; on a small machine it would take the cores the
// server's executors need and decide the figures (wrk is as light, but cannot split
// latencies by status). Runs on a worker thread: `runRawLoadInWorker`.
import net from 'node:net';
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import { fileURLToPath } from 'node:url';
import { LatencyRecorder } from './latency_recorder.js';

export interface RawLoadSpec {
  host: string;
  port: number;
  path: string;
  body: string;
  connections: number;
  durationMs: number;
}

export interface RawLoadResult {
  seconds: number;
  /** Latencies by outcome: the HTTP status ("200", "503" …) or the socket error's code. */
  byOutcome: Map<string, LatencyRecorder>;
}

const HEADER_END = Buffer.from('\r\n\r\n');

/** Bytes up to and including the first complete answer in `buf`, with its status; undefined while incomplete. */
function completeAnswer(buf: Buffer): { status: string; length: number } | undefined {
  const end = buf.indexOf(HEADER_END);
  if (end < 0) return undefined;
  const head = buf.toString('latin1', 0, end);
  const status = head.slice(9, 12);
  const m = /\r\ncontent-length:\s*(\d+)/i.exec(head);
  // tfgate answers every :predict with a Content-Length; without one the answer is only the head.
  const length = end + 4 + (m ? Number(m[1]) : 0);
  return buf.length >= length ? { status, length } : undefined;
}

async function runRawLoad(spec: RawLoadSpec): Promise<RawLoadResult> {
  const body = Buffer.from(spec.body);
  const request = Buffer.concat([
    Buffer.from(
      `POST ${spec.path} HTTP/1.1\r\nHost: ${spec.host}:${spec.port}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`,
    ),
    body,
  ]);
  const byOutcome = new Map<string, LatencyRecorder>();
  const record = (outcome: string, ms: number) => {
    let r = byOutcome.get(outcome);
    if (!r) byOutcome.set(outcome, (r = new LatencyRecorder()));
    r.record(ms);
  };
  const t0 = performance.now();
  const end = t0 + spec.durationMs;

  /** One connection's loop; a connection the server closes is opened again. */
  const connection = () =>
    new Promise<void>((resolve) => {
      const open = () => {
        if (performance.now() >= end) return resolve();
        const socket = net.connect({ host: spec.host, port: spec.port, noDelay: true });
        let pending: Buffer = Buffer.alloc(0);
        let sentAt = 0;
        const send = () => {
          sentAt = performance.now();
          socket.write(request);
        };
        socket.once('connect', send);
        socket.on('data', (chunk: Buffer) => {
          pending = pending.length ? Buffer.concat([pending, chunk]) : chunk;
          const answer = completeAnswer(pending);
          if (!answer) return;
          record(answer.status, performance.now() - sentAt);
          pending = pending.subarray(answer.length);
          if (performance.now() < end) send();
          else socket.end();
        });
        socket.once('error', (e: NodeJS.ErrnoException) => {
          if (sentAt) record(e.code ?? e.message, performance.now() - sentAt);
          sentAt = 0;
        });
        socket.once('close', () => {
          if (performance.now() < end) setTimeout(open, 10);
          else resolve();
        });
      };
      open();
    });
  await Promise.all(Array.from({ length: spec.connections }, connection));
  return { seconds: (performance.now() - t0) / 1000, byOutcome };
}

type Message = { ok: true; seconds: number; byOutcome: [string, ReturnType<LatencyRecorder['encode']>][] } | { ok: false; message: string };

/** runRawLoad on a worker thread: its event loop times nothing but the load. */
export function runRawLoadInWorker(spec: RawLoadSpec): Promise<RawLoadResult> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(fileURLToPath(import.meta.url), { workerData: spec });
    worker.once('message', (m: Message) => {
      if (m.ok) resolve({ seconds: m.seconds, byOutcome: new Map(m.byOutcome.map(([k, r]) => [k, LatencyRecorder.decode(r)])) });
      else reject(new Error(m.message));
    });
    worker.once('error', reject);
  });
}

if (!isMainThread && parentPort && (workerData as RawLoadSpec | undefined)?.connections) {
  const port = parentPort;
  runRawLoad(workerData as RawLoadSpec).then(
    (r) =>
      port.postMessage({
        ok: true,
        seconds: r.seconds,
        byOutcome: [...r.byOutcome].map(([k, rec]) => [k, rec.encode()]),
      } satisfies Message),
    (e: Error) => port.postMessage({ ok: false, message: e.message } satisfies Message),
  );
}
