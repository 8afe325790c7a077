// Large REST bodies in parallel: --parallel :predict bodies of --rows one-value rows each
// ([[1],[1],…], 4 bytes a row: 5 Mi rows make 20 MB) sent at once to half_plus_two, while a
// client asks GET /v1/models/<name> every 50 ms. Prints, measured in one run, the server's
// peak RSS above its RSS before (target ≤ 4× the bodies' size) and the slowest status probe
// meanwhile (target ≤ 100 ms), each met / missed. --baseline <checkout> runs that checkout's
// build first, the same way, for a before/after in one run.
//   npm run bench:large-bodies [-- --parallel 4 --rows 5242880 --baseline ../other] [--flags extra tfgate flags]
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { numberArg, stringArg } from './load/args.js';
import { startBenchServer } from './lifecycle/server.js';
import { TFGATE_BIN } from './report/processes.js';
import { MODELS } from '../test/helpers/paths.js';
import { rssBytes, rssSampler } from '../test/helpers/rss.js';

const PARALLEL = numberArg('parallel', 4);
const ROWS = numberArg('rows', 5 * 2 ** 20);
const BASELINE = stringArg('baseline', '');
const extra = process.argv.includes('--flags') ? process.argv.slice(process.argv.indexOf('--flags') + 1) : [];
const PROBE_TARGET_MS = 100;
const RSS_TARGET_TIMES = 4;
const MB = 2 ** 20;

function post(url: string, body: Buffer): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': body.length } },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode!));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

async function measure(label: string, bin: string, body: Buffer): Promise<void> {
  // The flags of test/integration/server_memory.test.ts: one executor, a 1 GiB budget.
  const server = await startBenchServer(
    [
      `--model_base_path=${path.join(MODELS, 'saved_model_half_plus_two_cpu')}`,
      '--model_name=default',
      '--num_executors=1',
      `--max_inflight_request_bytes=${2 ** 30}`,
      ...extra,
    ],
    bin,
  );
  try {
    const predict = server.url('/v1/models/default:predict');
    for (;;) {
      if ((await post(predict, Buffer.from('{"instances": [[1.0]]}'))) === 200) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    for (let i = 0; i < 5; i++) await post(predict, Buffer.from('{"instances": [[1.0]]}'));
    const pid = server.proc.pid!;
    const before = rssBytes(pid);
    const sampler = rssSampler(pid, 20);
    let done = false;
    const probes: number[] = [];
    let probeErrors = 0;
    const probing = (async () => {
      while (!done) {
        const t0 = performance.now();
        // A new connection each time, as a health checker opens one.
        const ok = await fetch(server.url('/v1/models/default'), { headers: { connection: 'close' } }).then(
          (r) => r.text().then(() => r.ok),
          () => false,
        );
        if (ok) probes.push(performance.now() - t0);
        else probeErrors++;
        await new Promise((r) => setTimeout(r, 50));
      }
    })();
    const t0 = performance.now();
    const statuses = await Promise.all(Array.from({ length: PARALLEL }, () => post(predict, body).catch((e: Error) => e.message)));
    const ms = performance.now() - t0;
    done = true;
    await probing;
    const growth = sampler.stop() - before;
    const bodies = PARALLEL * body.length;
    const slowest = Math.max(...probes);
    const verdict = (ok: boolean) => (ok ? 'met' : 'missed');
    console.log(
      `${label}: statuses ${statuses.join(' ')} in ${(ms / 1000).toFixed(1)} s${server.proc.exitCode !== null ? `; the server exited ${server.proc.exitCode}` : ''}`,
    );
    console.log(
      `  peak RSS above baseline: ${(growth / MB).toFixed(0)} MB = ${(growth / bodies).toFixed(1)}× the bodies' ${(bodies / MB).toFixed(0)} MB (target ≤ ${RSS_TARGET_TIMES}×: ${verdict(growth <= RSS_TARGET_TIMES * bodies)})`,
    );
    console.log(
      `  status probes meanwhile: ${probes.length}, slowest ${slowest.toFixed(0)} ms, median ${probes.sort((a, b) => a - b)[probes.length >> 1].toFixed(0)} ms (target ≤ ${PROBE_TARGET_MS} ms: ${verdict(slowest <= PROBE_TARGET_MS && probeErrors === 0)})${probeErrors ? `; ${probeErrors} failed` : ''}`,
    );
  } finally {
    await server.stop();
  }
}

async function main() {
  const body = Buffer.from(`{"instances": [${'[1],'.repeat(ROWS - 1)}[1]]}`);
  console.log(
    `${PARALLEL} × ${(body.length / MB).toFixed(0)} MB :predict bodies of ${ROWS} one-value rows at once; ${os.cpus().length} cores, load ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  );
  if (BASELINE) await measure(`baseline (${BASELINE})`, path.resolve(BASELINE, 'bin', 'tfgate'), body);
  await measure('this build', TFGATE_BIN, body);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
