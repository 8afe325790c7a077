// One client, one keep-alive connection, one request at a time: the latency a lone user sees,
// with the server's own account of each request (its Server-Timing header) beside it.
// `gapMs` idles between requests (0: back to back), so a quiet server can be told from a busy one.
import http from 'node:http';

export interface ProbeResult {
  count: number;
  errors: number;
  meanMs: number;
  medianMs: number;
  /** Server-Timing entry → its mean duration over the answered requests (absent entries count as 0). */
  serverMs: Record<string, number>;
}

export interface ProbeSpec {
  url: string;
  body: string;
  requests: number;
  /** Idle time before each request, ms; a [min, max] pair draws it uniformly. */
  gapMs: number | [number, number];
}

/** `parse;dur=0.1, run;dur=2` → { parse: 0.1, run: 2 } (entries without dur are left out). */
function parseServerTiming(header: string | undefined): Record<string, number> {
  const out: Record<string, number> = {};
  for (const part of (header ?? '').split(',')) {
    const m = /^\s*([\w-]+)(?:;.*?dur=([\d.]+))?/.exec(part);
    if (m?.[2] !== undefined) out[m[1]] = Number(m[2]);
  }
  return out;
}

export async function probeSequential(spec: ProbeSpec): Promise<ProbeResult> {
  const url = new URL(spec.url);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const headers = { 'content-type': 'application/json', 'content-length': Buffer.byteLength(spec.body) };
  const once = () =>
    new Promise<{ ms: number; ok: boolean; timing: Record<string, number> }>((resolve) => {
      const t0 = performance.now();
      const req = http.request({ agent, host: url.hostname, port: url.port, path: url.pathname, method: 'POST', headers }, (res) => {
        res.resume();
        res.on('end', () =>
          resolve({
            ms: performance.now() - t0,
            ok: res.statusCode === 200,
            timing: parseServerTiming(res.headers['server-timing'] as string | undefined),
          }),
        );
      });
      req.on('error', () => resolve({ ms: performance.now() - t0, ok: false, timing: {} }));
      req.end(spec.body);
    });
  const gap = () => (Array.isArray(spec.gapMs) ? spec.gapMs[0] + Math.random() * (spec.gapMs[1] - spec.gapMs[0]) : spec.gapMs);
  const latencies: number[] = [];
  const sums: Record<string, number> = {};
  let errors = 0;
  try {
    await once(); // opens the connection, unmeasured
    for (let i = 0; i < spec.requests; i++) {
      const wait = gap();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      const r = await once();
      if (!r.ok) {
        errors++;
        continue;
      }
      latencies.push(r.ms);
      for (const [k, v] of Object.entries(r.timing)) sums[k] = (sums[k] ?? 0) + v;
    }
  } finally {
    agent.destroy();
  }
  const sorted = [...latencies].sort((a, b) => a - b);
  const n = latencies.length;
  return {
    count: n,
    errors,
    meanMs: n ? latencies.reduce((a, b) => a + b, 0) / n : NaN,
    medianMs: n ? (sorted[(n - 1) >> 1] + sorted[n >> 1]) / 2 : NaN,
    serverMs: Object.fromEntries(Object.entries(sums).map(([k, v]) => [k, v / Math.max(1, n)])),
  };
}
