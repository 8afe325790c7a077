// Many small models (copies of half_plus_two, 40 KB each) from one models.config: when the
// port opens, when the first model answers a predict, when all are AVAILABLE; the server's RSS
// per model and its threads once they are, and its load probes' RSS apart.
//   npm run bench:models [-- --models 100] [--load-threads N] [-- extra tfgate flags after --flags]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { numberArg } from './load/args.js';
import { REPO } from './report/processes.js';
import { childrenRssMb, rssMb, startBenchServer, threadsOf, versionStates } from './lifecycle/server.js';

const MODELS = numberArg('models', 100);
const extra = process.argv.includes('--flags') ? process.argv.slice(process.argv.indexOf('--flags') + 1) : [];

async function main() {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'tfgate-models-'));
  try {
    const names = Array.from({ length: MODELS }, (_, i) => `m${i}`);
    for (const n of names)
      fs.cpSync(path.join(REPO, 'model_repository', 'half_plus_two', '1'), path.join(root, n, '1'), { recursive: true });
    const config = path.join(root, 'models.config');
    fs.writeFileSync(
      config,
      `model_config_list {\n${names.map((n) => `  config { name: "${n}" base_path: "${path.join(root, n)}" model_platform: "tensorflow" }\n`).join('')}}\n`,
    );
    const server = await startBenchServer([`--model_config_file=${config}`, ...extra]);
    const pid = server.proc.pid!;
    let firstAnswerMs: number | undefined;
    let peakRss = 0;
    for (;;) {
      peakRss = Math.max(peakRss, rssMb(pid));
      if (firstAnswerMs === undefined) {
        for (const n of names.slice(0, 4)) {
          const r = await fetch(server.url(`/v1/models/${n}:predict`), { method: 'POST', body: '{"instances":[1]}' }).catch(
            () => undefined,
          );
          if (r?.ok) {
            firstAnswerMs = performance.now() - server.startedAt;
            break;
          }
        }
      }
      const { states } = await versionStates(server);
      if (names.every((n) => states.get(n)?.includes('AVAILABLE'))) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    const allMs = performance.now() - server.startedAt;
    const rss = rssMb(pid);
    const probes = childrenRssMb(pid);
    const threads = threadsOf(pid);
    console.log(`${MODELS} models (${os.availableParallelism()} cores, tfgate ${extra.join(' ') || 'defaults'}):`);
    console.log(
      `  port open after ${(server.portOpenMs / 1000).toFixed(1)} s; first predict answered after ${((firstAnswerMs ?? NaN) / 1000).toFixed(1)} s; all AVAILABLE after ${(allMs / 1000).toFixed(1)} s`,
    );
    console.log(
      `  server RSS ${rss.toFixed(0)} MB (${(rss / MODELS).toFixed(1)} MB per model; peak ${peakRss.toFixed(0)} MB), ${threads} threads; load probe processes ${probes.toFixed(0)} MB`,
    );
    await server.stop();
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
