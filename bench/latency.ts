// Latency when traffic is light: what tfgate adds to a lone request beside the model's own
// time, the naive inline server and a bare Hono echo, with tfgate's own breakdown (see
// bench/latency/latency_bench.ts). Prints each target met / missed and writes
// bench/results/latency.{json,md} (--quick: quick-latency.*).
//   npm run bench:latency [-- --quick] [--runtime onnx,wasm] [--depth 192]
import fs from 'node:fs';
import path from 'node:path';
import { flagArg, numberArg, stringArg } from './load/args.js';
import { REPO } from './report/processes.js';
import { runLatencyBench } from './latency/latency_bench.js';
import { latencyMarkdown } from './latency/latency_markdown.js';
import type { RuntimeChoice } from '../src/config/flags.js';

const QUICK = flagArg('quick');
const log = (line: string) => process.stderr.write(`${line}\n`);

async function main() {
  const started = performance.now();
  const runtimes = stringArg('runtime', 'onnx,wasm')
    .split(',')
    .map((r) => r.trim())
    .filter(Boolean) as RuntimeChoice[];
  const results = await runLatencyBench({ quick: QUICK, runtimes, depth: numberArg('depth', QUICK ? 96 : 192), log });
  const name = QUICK ? 'quick-latency' : 'latency';
  const dir = path.join(REPO, 'bench', 'results');
  fs.mkdirSync(dir, { recursive: true });
  const command = ['npm run bench:latency', ...(process.argv.length > 2 ? ['--', ...process.argv.slice(2)] : [])].join(' ');
  fs.writeFileSync(path.join(dir, `${name}.json`), `${JSON.stringify({ command, ...results }, null, 1)}\n`);
  fs.writeFileSync(
    path.join(dir, `${name}.md`),
    `# tfgate latency bench\n\n\`${command}\`, ${results.date}, ${results.machine.cores} cores (${results.machine.cpuModel}), Node ${results.machine.node}\n\n${latencyMarkdown(results)}`,
  );
  for (const t of results.targets) log(`${t.met ? 'met    ' : 'MISSED '} ${t.name}: ${t.measured} (goal ${t.goal})`);
  log(`wrote bench/results/${name}.json, bench/results/${name}.md in ${Math.round((performance.now() - started) / 1000)} s`);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
