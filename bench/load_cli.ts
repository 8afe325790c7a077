// The load generator from the command line:
//   npm run bench:load -- --url http://127.0.0.1:8501/v1/models/m:predict --body '{"instances":[[1]]}' \
//     --mode closed --users 20 --spawn-rate 5 --think 1000,3000 --seconds 60
//   … --mode open --rate 200        (constant rate, latency from each request's due time)
//   … --mode concurrency --connections 32
// Runs on a worker thread, prints a live progress line on stderr, then one summary line and
// the summary as JSON on stdout.
import fs from 'node:fs';
import { formatResult, type LoadMode, type LoadSpec } from './load/generator.js';
import { progressLine, runLoadInWorker } from './load/load_worker.js';

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : undefined;
}

function usage(message: string): never {
  process.stderr.write(
    `${message}\nusage: bench:load -- --url URL [--body JSON | --body-file F] [--seconds S] --mode closed --users N [--spawn-rate R] [--think A,B] | --mode open --rate R | --mode concurrency --connections N\n`,
  );
  process.exit(2);
}

async function main() {
  const url = arg('url') ?? usage('--url is required');
  const kind = arg('mode') ?? 'concurrency';
  let mode: LoadMode;
  if (kind === 'closed') {
    const think = arg('think')?.split(',').map(Number);
    mode = {
      kind,
      users: Number(arg('users') ?? 1),
      spawnRatePerSec: arg('spawn-rate') ? Number(arg('spawn-rate')) : undefined,
      thinkMs: think && think.length === 2 ? [think[0], think[1]] : undefined,
    };
  } else if (kind === 'open') mode = { kind, ratePerSec: Number(arg('rate') ?? usage('--rate is required in open mode')) };
  else if (kind === 'concurrency') mode = { kind, connections: Number(arg('connections') ?? 16) };
  else usage(`unknown --mode ${kind}`);
  const bodyFile = arg('body-file');
  const spec: LoadSpec = {
    url,
    body: bodyFile ? fs.readFileSync(bodyFile, 'utf8') : arg('body'),
    mode,
    durationMs: Number(arg('seconds') ?? 10) * 1000,
    seed: Number(arg('seed') ?? 1),
  };
  const r = await runLoadInWorker(spec, progressLine(kind));
  process.stderr.write('\n');
  console.log(formatResult(spec, r));
  console.log(JSON.stringify({ rps: r.rps, seconds: r.seconds, ...r.recorder.summary() }));
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
