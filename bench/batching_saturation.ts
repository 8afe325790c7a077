// Issue 4 bench (first figures): on an MLP whose per-item cost falls with batch size, the
// server at saturation with one-row requests — batching off vs TF Serving-style batching
// (max_batch_size 32, timeout 0) — against the model's offline throughput at batch 32.
//   npm run bench:batching [-- --seconds 5 --clients 64]
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeMlpSavedModel } from '../src/savedmodel/model_zoo.js';
import { EmbeddedRuntime } from '../src/runtimes/embedded/embedded_runtime.js';
import { runLoad, summary } from './load/http_load.js';
import { numberArg } from './load/args.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const REPO = path.resolve(here, '..', '..');
const arg = numberArg;
const SECONDS = arg('seconds', 5);
const CLIENTS = arg('clients', 64);
const INPUT = 1024;
const MAX_BATCH = 32;

function start(args: string[]): Promise<{ proc: ChildProcess; port: number }> {
  const proc = spawn(process.execPath, [path.join(REPO, 'bin', 'tfgate'), ...args], { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'] });
  return new Promise((resolve, reject) => {
    let out = '';
    const on = (d: Buffer) => {
      out += d;
      const m = /Exporting HTTP\/REST API at:[\d.]+:(\d+)/.exec(out);
      if (m) resolve({ proc, port: Number(m[1]) });
    };
    proc.stdout!.on('data', on);
    proc.stderr!.on('data', on);
    proc.once('exit', (c) => reject(new Error(`exited ${c}: ${out}`)));
  });
}

async function main() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tfgate-bench-batching-'));
  const version = path.join(dir, 'mlp', '1');
  await writeMlpSavedModel(version, { inputDim: INPUT, hiddenSizes: [4096, 4096], outputDim: 16, activation: 'relu', seed: 3 });

  // Offline: the model alone, batch 1 and batch 32, in this process.
  const servable = await new EmbeddedRuntime('auto').load(version, { tags: ['serve'] });
  const offline = async (batch: number) => {
    const x = { dtype: 'float32' as const, shape: [batch, INPUT], values: new Float32Array(batch * INPUT).fill(0.5) };
    for (let i = 0; i < 3; i++) await servable.run('serving_default', { x });
    const t0 = performance.now();
    let n = 0;
    while (performance.now() - t0 < 2000) {
      await servable.run('serving_default', { x });
      n++;
    }
    return (n * batch) / ((performance.now() - t0) / 1000);
  };
  const offline1 = await offline(1);
  const offline32 = await offline(MAX_BATCH);
  servable.dispose();
  console.log(`offline (in-process, WASM): batch 1 ${offline1.toFixed(0)} items/s, batch ${MAX_BATCH} ${offline32.toFixed(0)} items/s`);

  fs.writeFileSync(path.join(dir, 'batching.cfg'), `max_batch_size { value: ${MAX_BATCH} }\nbatch_timeout_micros { value: 0 }\nmax_enqueued_batches { value: 1000 }\nnum_batch_threads { value: 1 }\n`);
  const body = JSON.stringify({ instances: [new Array(INPUT).fill(0.5)] });
  const common = [`--model_base_path=${path.join(dir, 'mlp')}`, '--model_name=mlp', '--rest_api_port=18531', '--rest_api_host=127.0.0.1', '--port=0', '--num_executors=1'];
  for (const [label, extra] of [
    ['batching off', []],
    [`batching (max ${MAX_BATCH}, timeout 0)`, ['--enable_batching', `--batching_parameters_file=${path.join(dir, 'batching.cfg')}`]],
  ] as const) {
    const s = await start([...common, ...extra]);
    await runLoad({ url: `http://127.0.0.1:${s.port}/v1/models/mlp:predict`, method: 'POST', body, concurrency: CLIENTS, durationMs: 1000 });
    const r = await runLoad({ url: `http://127.0.0.1:${s.port}/v1/models/mlp:predict`, method: 'POST', body, concurrency: CLIENTS, durationMs: SECONDS * 1000 });
    console.log(`${label}, ${CLIENTS} closed-loop clients of 1 row: ${summary(r)}; ${(r.rps / offline32).toFixed(2)} × offline batch-${MAX_BATCH} throughput`);
    s.proc.kill();
    await new Promise((res) => s.proc.once('exit', res));
  }
  fs.rmSync(dir, { recursive: true, force: true });
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
