// What an ONNX Runtime run costs after idle, against the same run warm, on a worker thread as an
// executor thread runs it: runs spaced by --idle ms of nothing (several: comma-separated); each
// message runs the model twice, the first cold, the second at once after it. Printed per set-up,
// medians over --runs, µs: the thread's wake (posted → its handler starts), the cold run, the
// warm run, and the hand-back (the warm run's end → the main thread's handler). One clock for
// both threads: performance.timeOrigin differs per thread, so each side adds its own.
// Set-ups: one intra-op thread and every core, on half_plus_two and the benches' MLP.
// --prewarm-ms N: N ms before each measured message, a message that runs the model once,
// unanswered: what a replay sent as a lone request's headers arrive would buy the run after it.
//   node dist/bench/cold_run.js [--runs 40 --idle 1,5,200 --model half_plus_two|mlp|both --prewarm-ms 1]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { createRuntime } from '../src/runtimes/index.js';
import { selectRuntime } from '../src/runtimes/runtime_selection.js';
import { DEFAULT_ENGINE_SETTINGS } from '../src/config/session_config.js';
import type { HostTensor } from '../src/tensor/host_tensor.js';
import type { Servable } from '../src/runtimes/runtime.js';
import { REPO } from './report/processes.js';
import { sinRow, writeDeepMlp } from './report/deep_mlp.js';
import { numberArg, stringArg } from './load/args.js';

const PREWARM_MS = numberArg('prewarm-ms', -1);
const here = fileURLToPath(import.meta.url);
const now = () => performance.timeOrigin + performance.now();

interface Setup {
  versionDir: string;
  intra: number;
  input: HostTensor;
}

interface Times {
  posted: number;
  woke: number;
  coldEnd: number;
  warmStart: number;
  warmEnd: number;
  back: number;
}

function runOnce(servable: Servable, x: HostTensor): unknown {
  return servable.runNow ? servable.runNow('serving_default', { x }) : servable.run('serving_default', { x });
}

async function worker(): Promise<void> {
  const s = workerData as Setup;
  const { runtime } = await selectRuntime('auto');
  const engine = { ...DEFAULT_ENGINE_SETTINGS, intraOpThreads: s.intra };
  const servable = await (await createRuntime(runtime, undefined, undefined, engine)).load(s.versionDir, { tags: ['serve'] });
  for (let i = 0; i < 200; i++) await runOnce(servable, s.input);
  parentPort!.on('message', (posted: number | 'prewarm') => {
    if (posted === 'prewarm') return void runOnce(servable, s.input);
    const woke = now();
    runOnce(servable, s.input);
    const coldEnd = now();
    const warmStart = now();
    runOnce(servable, s.input);
    const warmEnd = now();
    parentPort!.postMessage({ posted, woke, coldEnd, warmStart, warmEnd });
  });
  parentPort!.postMessage('ready');
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function measure(setup: Setup, runs: number, idleMs: number): Promise<Times[]> {
  const w = new Worker(here, { workerData: setup });
  await new Promise<void>((r) => w.once('message', () => r()));
  const out: Times[] = [];
  for (let i = 0; i < runs; i++) {
    await sleep(idleMs);
    if (PREWARM_MS >= 0) {
      w.postMessage('prewarm');
      await sleep(PREWARM_MS);
    }
    out.push(
      await new Promise<Times>((resolve) => {
        w.once('message', (m: Omit<Times, 'back'>) => resolve({ ...m, back: now() }));
        w.postMessage(now());
      }),
    );
  }
  await w.terminate();
  return out;
}

async function main(): Promise<void> {
  const runs = numberArg('runs', 40);
  const idles = stringArg('idle', '200').split(',').map(Number);
  const which = stringArg('model', 'both');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tfgate-cold-run-'));
  const models: Array<[string, string, HostTensor]> = [];
  if (which !== 'mlp')
    models.push([
      'half_plus_two',
      path.join(REPO, 'model_repository', 'half_plus_two', '1'),
      { dtype: 'float32', shape: [3], values: Float32Array.of(1, 2, 5) },
    ]);
  if (which !== 'half_plus_two') {
    const v = path.join(dir, 'mlp', '1');
    await writeDeepMlp(v, { input: 256, width: 512, depth: 16 });
    models.push(['MLP 256-512×16-16', v, { dtype: 'float32', shape: [1, 256], values: Float32Array.from(sinRow(256)) }]);
  }
  console.log(
    `${runs} runs each; load average ${os.loadavg()[0].toFixed(1)}; ${PREWARM_MS >= 0 ? `prewarm ${PREWARM_MS} ms ahead; ` : ''}medians, µs`,
  );
  for (const idle of idles)
    for (const [label, versionDir, input] of models)
      for (const intra of [1, os.availableParallelism()]) {
        const ts = await measure({ versionDir, intra, input }, runs, idle);
        const us = (f: (t: Times) => number) => (median(ts.map(f)) * 1000).toFixed(0).padStart(6);
        console.log(
          `idle ${String(idle).padStart(4)} ms, ${label.padEnd(18)} intra-op ${intra}: wake ${us((t) => t.woke - t.posted)}  cold run ${us((t) => t.coldEnd - t.woke)}  warm run ${us((t) => t.warmEnd - t.warmStart)}  hand-back ${us((t) => t.back - t.warmEnd)}`,
        );
      }
  fs.rmSync(dir, { recursive: true, force: true });
}

if (isMainThread)
  main().catch((e) => {
    console.error(e);
    process.exit(1);
  });
else void worker();
