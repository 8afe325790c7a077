// The bench's load generator. Three ways to load a route:
//   closed  — simulated users (Locust-style): each sends, waits for the answer, thinks
//             between(a, b), repeats; users start at `spawnRatePerSec`;
//   open    — a constant rate (wrk2-style): request i is due at t0 + i/rate and its latency
//             counts from then, so a server stall shows as queueing, not as fewer requests;
//   concurrency — N connections sending back to back (wrk-style), for throughput.
// Every latency goes into an HDR histogram (latency_recorder.ts).
import http from 'node:http';
import { LatencyRecorder } from './latency_recorder.js';
import { openLoop } from './open_loop.js';
import { between, noThinkTime } from './think_time.js';
import { seededRandom } from '../../test_util/savedmodel/model_zoo.js';

export type LoadMode =
  | { kind: 'closed'; users: number; spawnRatePerSec?: number; thinkMs?: [number, number] }
  | { kind: 'open'; ratePerSec: number }
  | { kind: 'concurrency'; connections: number };

export interface LoadSpec {
  url: string;
  method?: 'GET' | 'POST';
  body?: string;
  contentType?: string;
  mode: LoadMode;
  durationMs: number;
  /** Seeds think times (same seed, same waits). */
  seed?: number;
  /** Closed loop: add coordinated-omission correction for this expected interval between a user's requests. */
  expectedIntervalMs?: number;
}

export interface Progress {
  elapsedS: number;
  sent: number;
  done: number;
  errors: number;
  inFlight: number;
}

export interface LoadResult {
  recorder: LatencyRecorder;
  seconds: number;
  sent: number;
  /** Completed requests (answered or failed) per second. */
  rps: number;
}

function describe(spec: LoadSpec): string {
  const m = spec.mode;
  return m.kind === 'closed'
    ? `${m.users} users${m.thinkMs ? `, think ${m.thinkMs[0]}-${m.thinkMs[1]} ms` : ''}`
    : m.kind === 'open'
      ? `${m.ratePerSec} req/s open loop`
      : `${m.connections} connections`;
}

export async function runLoad(spec: LoadSpec, onProgress?: (p: Progress) => void): Promise<LoadResult> {
  const url = new URL(spec.url);
  const method = spec.method ?? (spec.body ? 'POST' : 'GET');
  const headers: http.OutgoingHttpHeaders = spec.body
    ? { 'content-type': spec.contentType ?? 'application/json', 'content-length': Buffer.byteLength(spec.body) }
    : {};
  const parallel = spec.mode.kind === 'closed' ? spec.mode.users : spec.mode.kind === 'concurrency' ? spec.mode.connections : 4096;
  // Idle sockets close before a Node server's 5 s keep-alive timeout, so a reuse never races its close.
  const agent = new http.Agent({ keepAlive: true, maxSockets: parallel, timeout: 4000 });
  const recorder = new LatencyRecorder();
  let sent = 0;
  let done = 0;
  const t0 = performance.now();
  const end = t0 + spec.durationMs;

  /** One request; resolves with its end time (it never rejects: failures are counted by kind). */
  const request = () =>
    new Promise<{ ok: boolean; at: number }>((resolve) => {
      sent++;
      const finish = (ok: boolean, kind?: string) => {
        done++;
        if (!ok) recorder.error(kind!);
        resolve({ ok, at: performance.now() });
      };
      const req = http.request({ agent, host: url.hostname, port: url.port, path: url.pathname + url.search, method, headers }, (res) => {
        res.resume();
        res.on('end', () => (res.statusCode === 200 ? finish(true) : finish(false, `HTTP ${res.statusCode}`)));
        res.on('error', (e: NodeJS.ErrnoException) => finish(false, e.code ?? e.message));
      });
      req.on('error', (e: NodeJS.ErrnoException) => finish(false, e.code ?? e.message));
      req.end(spec.body);
    });

  const ticker =
    onProgress &&
    setInterval(
      () => onProgress({ elapsedS: (performance.now() - t0) / 1000, sent, done, errors: recorder.errors, inFlight: sent - done }),
      1000,
    );
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  const m = spec.mode;
  if (m.kind === 'open') {
    await openLoop(m.ratePerSec, spec.durationMs, (due) => request().then((r) => recorder.record(r.at - due)));
  } else {
    const think = m.kind === 'closed' && m.thinkMs ? between(m.thinkMs[0], m.thinkMs[1], seededRandom(spec.seed ?? 1)) : noThinkTime;
    const n = m.kind === 'closed' ? m.users : m.connections;
    const spawnGapMs = m.kind === 'closed' && m.spawnRatePerSec ? 1000 / m.spawnRatePerSec : 0;
    await Promise.all(
      Array.from({ length: n }, async (_, u) => {
        if (spawnGapMs) await sleep(u * spawnGapMs);
        while (performance.now() < end) {
          const start = performance.now();
          const r = await request();
          if (spec.expectedIntervalMs) recorder.recordCorrected(r.at - start, spec.expectedIntervalMs);
          else recorder.record(r.at - start);
          const wait = think();
          if (wait > 0) await sleep(Math.min(wait, Math.max(0, end - performance.now())));
        }
      }),
    );
  }
  if (ticker) clearInterval(ticker);
  agent.destroy();
  const seconds = (performance.now() - t0) / 1000;
  return { recorder, seconds, sent, rps: done / seconds };
}

/** One line: what was run and what it measured. */
export function formatResult(spec: LoadSpec, r: LoadResult): string {
  return `${describe(spec)}: ${summary(r)}`;
}

/** What a run measured, on one line: rate, latency percentiles, errors by kind. */
export function summary(r: LoadResult): string {
  const s = r.recorder.summary();
  const errors = s.errors
    ? ` (${Object.entries(s.errorsByKind)
        .map(([k, v]) => `${k}: ${v}`)
        .join(', ')})`
    : '';
  return `${r.rps.toFixed(1)} req/s, mean ${s.meanMs.toFixed(2)} ms, p50 ${s.p50Ms.toFixed(2)}, p90 ${s.p90Ms.toFixed(2)}, p99 ${s.p99Ms.toFixed(2)}, max ${s.maxMs.toFixed(2)} ms, errors ${s.errors}${errors}`;
}
