// What --verify_on_load adds to a version's load: the bench MLP (256 wide, 192 deep) and a
// conv net (3 conv/pool stages over 64×64×3), each loaded as the server loads it (executor
// threads on ONNX Runtime with WASM behind it), then checked against the reference engine as
// the server checks it. Loads alternate with and without the check; medians of a few rounds.
//   npm run bench:verify [-- --rounds 3]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ExecutorPool } from '../src/executors/executor_pool.js';
import { verifyVersion } from '../src/servables/version_verifier.js';
import { versionInventory } from '../src/savedmodel/version_files.js';
import { writeConvSavedModel, writeMlpSavedModel } from '../test_util/savedmodel/model_zoo.js';
import { numberArg } from './load/args.js';

const ROUNDS = numberArg('rounds', 3);
const THREADS = numberArg('threads', 1);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'tfgate-bench-verify-'));
try {
  const models: Array<[string, string]> = [];
  const mlp = path.join(root, 'mlp', '1');
  await writeMlpSavedModel(mlp, { inputDim: 256, hiddenSizes: new Array(192).fill(256), outputDim: 16, activation: 'relu', seed: 3 });
  models.push(['MLP 256-256×192-16', mlp]);
  const conv = path.join(root, 'conv', '1');
  await writeConvSavedModel(conv, { height: 64, width: 64, channels: 3, filters: [32, 64, 128], kernelSize: 3, classes: 10, seed: 5 });
  models.push(['conv net 64×64×3, 32/64/128', conv]);

  console.log(
    `| model | size MB | load ms (${THREADS} executor thread${THREADS > 1 ? 's' : ''}) | check ms | load + check ÷ load | result |`,
  );
  console.log('|---|---:|---:|---:|---:|---|');
  for (const [name, dir] of models) {
    const loads: number[] = [];
    const checks: number[] = [];
    let result = '';
    for (let r = 0; r < ROUNDS; r++) {
      const t0 = performance.now();
      const pool = await ExecutorPool.open({
        versionDir: dir,
        tags: ['serve'],
        runtime: 'onnx+embedded',
        threads: THREADS,
        warmupIterations: 0,
      });
      const t1 = performance.now();
      const report = await verifyVersion(pool, 'onnx+embedded', dir, ['serve']);
      const t2 = performance.now();
      await pool.close();
      loads.push(t1 - t0);
      checks.push(t2 - t1);
      result = Object.keys(report.refused).length
        ? `refused: ${JSON.stringify(report.refused)}`
        : `agree: ${Object.entries(report.verified)
            .map(([k, e]) => `${k} vs ${e}`)
            .join(', ')}`;
    }
    const [load, check] = [median(loads), median(checks)];
    const mb = (await versionInventory(dir)).bytes / 2 ** 20;
    console.log(
      `| ${name} | ${mb.toFixed(1)} | ${load.toFixed(0)} | ${check.toFixed(0)} | ${((load + check) / load).toFixed(2)} | ${result} |`,
    );
  }
} finally {
  fs.rmSync(root, { recursive: true, force: true });
}
