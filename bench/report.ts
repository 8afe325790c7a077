// One command for the whole bench report:
//   1. the bench model's offline T(batch) curve;
//   2. the seed article's experiment, time-scaled, against five server set-ups;
//   3. the event-loop experiment (a few-ms model, inline vs tfgate);
//   4. serving overhead (tiny model vs a bare Hono echo);
//   5. latency when traffic is light (bench:latency, on this report's runtime);
// then bench/results/<name>.json, the charts, and bench/RESULTS.md (a --quick smoke run
// writes bench/results/quick.md instead, leaving the committed report alone).
// --runtime picks tfgate's --runtime for every server and the engine of the naive server and
// the offline curve (so the set-ups differ in serving design only); a list (onnx,wasm) runs
// the report once per runtime, in turn, and compares them in bench/results/<name>-runtimes.md.
//   npm run bench:report [-- --quick] [--runtime auto|onnx|wasm|onnx,wasm] [--name full] [--rounds 2] [--seconds 8] [--render bench/results/full.json]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { writeMlpSavedModel } from '../test_util/savedmodel/model_zoo.js';
import { flagArg, numberArg, stringArg } from './load/args.js';
import { measureBatch1AfterThink, measureCurve, mlpFlopsPerItem } from './report/model_curve.js';
import { describeSetups, startSetup, MAX_BATCH, MODEL_NAME, type SetupContext, type StartedSetup } from './report/setups.js';
import { runSeedExperiment } from './report/seed_experiment.js';
import { runEventLoopExperiment } from './report/event_loop_experiment.js';
import { runOverheadExperiment } from './report/overhead_experiment.js';
import { REPO, alone, stopProcess } from './report/processes.js';
import { evaluateTargets } from './report/targets.js';
import { writeReport } from './report/results_markdown.js';
import type { BenchResults } from './report/results.js';
import { selectRuntime } from '../src/runtimes/runtime_selection.js';
import type { RuntimeChoice } from '../src/config/flags.js';
import { writeRuntimeComparison } from './report/runtime_comparison.js';
import { runLatencyBench } from './latency/latency_bench.js';

const QUICK = flagArg('quick');
const NAME = stringArg('name', QUICK ? 'quick' : 'full');
const RUNTIMES = stringArg('runtime', 'auto')
  .split(',')
  .map((r) => r.trim())
  .filter(Boolean) as RuntimeChoice[];
const ROUNDS = numberArg('rounds', QUICK ? 1 : 2);
const CELL_SECONDS = numberArg('seconds', QUICK ? 3 : 8);
const WIDTH = numberArg('width', 256);
// Deep and narrow: per-op dispatch dominates a batch-1 run (~8 ms here) as kernel launches do on a
// GPU, so per-item cost at batch 32 falls to ~0.15 of batch 1; --quick halves the depth.
const FAST_DEPTH = 96;
const DEPTH = numberArg('depth', QUICK ? FAST_DEPTH : 192);
const INPUT = 256;
/** The seed's model time and think time (Locust between(1, 3)). */
const SEED_MODEL_MS = 300;
const SEED_THINK_MS: [number, number] = [1000, 3000];

const log = (line: string) => process.stderr.write(`${line}\n`);

async function main() {
  // --render FILE: write the Markdown and charts again from a results JSON, measuring nothing.
  const render = stringArg('render', '');
  if (render) {
    const results = JSON.parse(fs.readFileSync(render, 'utf8')) as BenchResults;
    results.targets = [...evaluateTargets(results), ...(results.latency?.targets ?? [])];
    const written = await writeReport(results, path.join(REPO, 'bench'));
    log(`wrote ${written.map((f) => path.relative(REPO, f)).join(', ')}`);
    return;
  }
  const all: BenchResults[] = [];
  for (const [i, choice] of RUNTIMES.entries()) {
    log(`==== runtime ${choice}`);
    // The first runtime's report is the main one; the others are written beside it.
    all.push(await report(choice, i === 0 ? NAME : `${NAME}-${choice}`, i === 0));
  }
  if (all.length > 1) {
    const file = writeRuntimeComparison(all, path.join(REPO, 'bench', 'results', `${NAME}-runtimes.md`));
    log(`wrote ${path.relative(REPO, file)}`);
  }
}

async function report(choice: RuntimeChoice, name: string, main: boolean): Promise<BenchResults> {
  const selection = await selectRuntime(choice);
  const runtime = { choice, resolved: selection.runtime, reason: selection.reason };
  log(`  ${selection.reason}`);
  const started = performance.now();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tfgate-bench-report-'));
  const modelBase = path.join(dir, MODEL_NAME);
  const description = { inputDim: INPUT, hiddenSizes: new Array(DEPTH).fill(WIDTH), outputDim: 16, activation: 'relu' as const, seed: 3 };
  const model = await writeMlpSavedModel(path.join(modelBase, '1'), description);

  log('1/5 the bench model, offline');
  const batches = [1, 2, 4, 8, 16, 32, 64];
  const { backend, curve } = await measureCurve(path.join(modelBase, '1'), model, batches, QUICK ? 400 : 1500, runtime.resolved);
  const t1 = curve[0].ms;
  const atMax = curve.find((p) => p.batch === MAX_BATCH)!;
  for (const p of curve) log(`  batch ${p.batch}: ${p.ms.toFixed(2)} ms, ${p.msPerItem.toFixed(3)} ms/item`);

  log('2/5 the seed experiment, time-scaled');
  const scale = t1 / SEED_MODEL_MS;
  const thinkMs: [number, number] = [SEED_THINK_MS[0] * scale, SEED_THINK_MS[1] * scale];
  const batch1AfterThinkMs = await measureBatch1AfterThink(path.join(modelBase, '1'), model, thinkMs, QUICK ? 20 : 60, runtime.resolved);
  log(`  batch 1 with ${thinkMs[0].toFixed(0)}-${thinkMs[1].toFixed(0)} ms think time between runs: ${batch1AfterThinkMs.toFixed(2)} ms`);
  const users = QUICK ? [1, 5, 20] : [1, 5, 20, 40, 80];
  // TF Serving-style timeouts scaled to the model; 1.67 × T(1) is the seed's 500 ms on its 300 ms model.
  const timeoutFactors = QUICK ? [0, 500 / SEED_MODEL_MS] : [0, 0.5, 1, 500 / SEED_MODEL_MS, 3];
  const ctx: SetupContext = { runtime, modelBase, workDir: dir, executors: os.cpus().length, processes: 5 };
  const setups = describeSetups(
    ctx,
    timeoutFactors.map((f) => Math.round(f * t1 * 1000)),
  );
  const servers: StartedSetup[] = [];
  try {
    for (const s of setups) servers.push(await startSetup(s, ctx));
    const body = JSON.stringify({ instances: [Array.from({ length: INPUT }, (_, i) => Math.sin(i))] });
    const seedResults = await runSeedExperiment(
      servers,
      { users, thinkMs, cellSeconds: CELL_SECONDS, rounds: ROUNDS, saturatingConnections: 64, body },
      log,
    );

    await Promise.all(servers.splice(0).map((s) => stopProcess(s.proc)));

    log('3/5 the event-loop experiment');
    // A model of a few milliseconds, as in the seed's FastAPI article: the quick bench model
    // already is one; a full run writes a half-depth twin of the bench model.
    let fastBase = modelBase;
    let fastMs = t1;
    if (DEPTH !== FAST_DEPTH) {
      fastBase = path.join(dir, 'fast', MODEL_NAME);
      const fast = await writeMlpSavedModel(path.join(fastBase, '1'), { ...description, hiddenSizes: new Array(FAST_DEPTH).fill(WIDTH) });
      fastMs = (await measureCurve(path.join(fastBase, '1'), fast, [1], 1500, runtime.resolved)).curve[0].ms;
    }
    const fastCtx: SetupContext = { ...ctx, modelBase: fastBase };
    for (const s of setups.filter((x) => x.kind === 'naive' || x.kind === 'executors')) servers.push(await startSetup(s, fastCtx));
    const eventLoopSeconds = QUICK ? 3 : 10;
    const eventLoopRows = await runEventLoopExperiment(
      servers.map((s) => ({
        setup: s.setup.key,
        predictUrl: s.url,
        statusUrl: `http://127.0.0.1:${s.port}/v1/models/${MODEL_NAME}`,
        isolate: <T>(measure: () => Promise<T>, settle?: () => Promise<unknown>) => alone(servers, s, measure, settle),
      })),
      QUICK ? [2, 20, 100] : [2, 20, 100, 200],
      eventLoopSeconds,
      body,
    );
    await Promise.all(servers.splice(0).map((s) => stopProcess(s.proc)));

    log('4/5 serving overhead');
    const overhead = await runOverheadExperiment(QUICK ? 2 : 5, QUICK ? 1 : 2, 64);

    log('5/5 latency when traffic is light');
    const latency = await runLatencyBench({ quick: QUICK, runtimes: [choice], depth: DEPTH, log });

    const results: BenchResults = {
      name,
      runtime,
      date: new Date().toISOString(),
      quick: QUICK,
      command: ['npm run bench:report', ...(process.argv.length > 2 ? ['--', ...process.argv.slice(2)] : [])].join(' '),
      durationSeconds: 0,
      machine: {
        cores: os.cpus().length,
        cpuModel: os.cpus()[0]?.model ?? 'unknown',
        node: process.version,
        platform: `${os.platform()} ${os.release()}`,
        totalMemoryGiB: Math.round(os.totalmem() / 2 ** 30),
      },
      model: {
        description: `MLP ${INPUT}-${WIDTH}×${DEPTH}-16, relu, float32 (tfgate's SavedModel writer, seed 3)`,
        backend,
        flopsPerItem: mlpFlopsPerItem(model),
        maxBatchSize: MAX_BATCH,
        curve,
        batch1Ms: t1,
        batch1AfterThinkMs,
        offlineItemsPerSecAtMaxBatch: atMax.itemsPerSec,
      },
      seed: { scale, thinkMs, users, cellSeconds: CELL_SECONDS, rounds: ROUNDS, setups, ...seedResults },
      eventLoop: { modelMs: fastMs, seconds: eventLoopSeconds, rows: eventLoopRows },
      overhead,
      latency,
      targets: [],
    };
    results.targets = [...evaluateTargets(results), ...latency.targets];
    results.durationSeconds = Math.round((performance.now() - started) / 1000);
    const written = await writeReport(results, path.join(REPO, 'bench'), main);
    for (const t of results.targets) log(`${t.met ? 'met    ' : 'MISSED '} ${t.name}: ${t.measured} (goal ${t.goal})`);
    log(`wrote ${written.map((f) => path.relative(REPO, f)).join(', ')} in ${results.durationSeconds} s`);
    return results;
  } finally {
    await Promise.all(servers.map((s) => stopProcess(s.proc)));
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
