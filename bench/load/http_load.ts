// A small closed-loop HTTP load generator: `concurrency` keep-alive loops send the same
// request for `durationMs`, recording every latency. Runs in the bench process, which is
// separate from the server processes it measures.
import http from 'node:http';

export interface LoadResult {
  requests: number;
  errors: number;
  seconds: number;
  rps: number;
  latenciesMs: number[];
  /** Set when only a summary is known (wrk), instead of every latency. */
  p99Ms?: number;
}

export function percentile(sorted: number[], p: number): number {
  if (!sorted.length) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

export function summary(r: LoadResult): string {
  const s = [...r.latenciesMs].sort((a, b) => a - b);
  const mean = s.reduce((a, b) => a + b, 0) / Math.max(1, s.length);
  return `${r.rps.toFixed(0)} req/s, mean ${mean.toFixed(2)} ms, p50 ${percentile(s, 50).toFixed(2)} ms, p99 ${percentile(s, 99).toFixed(2)} ms, max ${s[s.length - 1]?.toFixed(2)} ms, errors ${r.errors}`;
}

export interface LoadOptions {
  url: string;
  method: 'GET' | 'POST';
  body?: string;
  concurrency: number;
  durationMs: number;
  /** Pause between a loop's requests (ms), to send at a modest rate instead of flat out. */
  pauseMs?: number;
  /** Think time between a loop's requests, uniform in [min, max] ms (Locust's between(a, b)); overrides pauseMs. */
  thinkMs?: [number, number];
}

export async function runLoad(o: LoadOptions): Promise<LoadResult> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: o.concurrency });
  const url = new URL(o.url);
  const latencies: number[] = [];
  let errors = 0;
  const start = performance.now();
  const end = start + o.durationMs;
  const once = () =>
    new Promise<boolean>((resolve) => {
      const req = http.request(
        { agent, host: url.hostname, port: url.port, path: url.pathname, method: o.method, headers: o.body ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(o.body) } : {} },
        (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode === 200));
        },
      );
      req.on('error', () => resolve(false));
      if (o.body) req.write(o.body);
      req.end();
    });
  await Promise.all(
    Array.from({ length: o.concurrency }, async () => {
      while (performance.now() < end) {
        const t0 = performance.now();
        const ok = await once();
        latencies.push(performance.now() - t0);
        if (!ok) errors++;
        const pause = o.thinkMs ? o.thinkMs[0] + Math.random() * (o.thinkMs[1] - o.thinkMs[0]) : o.pauseMs;
        if (pause) await new Promise((r) => setTimeout(r, pause));
      }
    }),
  );
  agent.destroy();
  const seconds = (performance.now() - start) / 1000;
  return { requests: latencies.length, errors, seconds, rps: latencies.length / seconds, latenciesMs: latencies };
}
