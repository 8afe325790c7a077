// Checks the load generator against wrk on the same route (a bare Hono JSON echo in its own
// process): fixed concurrency, same connections and duration, rounds interleaved, best of
// each kept. The generator passes when its requests/s is within 10 % of wrk's.
//   npm run bench:load-check [-- --seconds 5 --connections 16]
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { formatResult, type LoadResult, type LoadSpec } from './load/generator.js';
import { runLoadInWorker } from './load/load_worker.js';
import { hasWrk, runWrk, type WrkResult } from './load/wrk.js';
import { numberArg } from './load/args.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const SECONDS = numberArg('seconds', 5);
const CONNECTIONS = numberArg('connections', 16);

async function main() {
  if (!hasWrk()) {
    console.log('wrk is not installed (apt-get install wrk): nothing to check against');
    return;
  }
  const echo = spawn(process.execPath, [path.join(here, 'load', 'echo_server.js')], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<number>((resolve) =>
    echo.stdout!.on('data', (d) => resolve(Number(/listening (\d+)/.exec(String(d))?.[1]))),
  );
  const url = `http://127.0.0.1:${port}/echo`;
  const body = JSON.stringify({ instances: [1.0, 2.0, 5.0] });
  const spec: LoadSpec = { url, body, mode: { kind: 'concurrency', connections: CONNECTIONS }, durationMs: SECONDS * 1000 };
  const ours: LoadResult[] = [];
  const wrks: WrkResult[] = [];
  for (let round = 0; round < 2; round++) {
    wrks.push(runWrk(url, body, CONNECTIONS, SECONDS));
    ours.push(await runLoadInWorker(spec));
  }
  echo.kill();
  const w = wrks.reduce((a, b) => (b.rps > a.rps ? b : a));
  const o = ours.reduce((a, b) => (b.rps > a.rps ? b : a));
  console.log(`wrk (1 thread):       ${w.rps.toFixed(0)} req/s, ${w.latency}`);
  console.log(`tfgate bench client:  ${formatResult(spec, o)}`);
  const ratio = o.rps / w.rps;
  console.log(
    `ratio ${ratio.toFixed(3)}: ${Math.abs(1 - ratio) <= 0.1 ? 'within' : 'NOT within'} 10 % of wrk (both clients share the machine's cores with the server)`,
  );
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
