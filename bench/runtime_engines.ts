// The engines side by side, in one process on one core each: the embedded runtime on TF.js's
// WASM backend and the ONNX Runtime executor, on the bench report's MLP (256 wide, 192 deep)
// and on a conv net (3 conv/pool stages over 64×64×3), at batch 1, 8 and 32. Calls alternate
// (WASM, ORT, WASM, ORT …) so that a noisy spell hits both; each row is the median ms per
// call, with GFLOP/s and ORT ÷ WASM, and the targets (≤ 0.4 at batch 32, ≤ 0.7 at batch 1).
//   npm run bench:engines [-- --min-ms 1500]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { EmbeddedRuntime } from '../src/runtimes/embedded/embedded_runtime.js';
import { OnnxRuntime } from '../src/runtimes/onnx/onnx_runtime.js';
import type { Servable } from '../src/runtimes/runtime.js';
import { writeConvSavedModel, writeMlpSavedModel } from '../test_util/savedmodel/model_zoo.js';
import type { HostTensor } from '../src/tensor/host_tensor.js';
import { numberArg } from './load/args.js';

const MIN_MS = numberArg('min-ms', 1500);
const BATCHES = [1, 8, 32];
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

interface BenchModel {
  name: string;
  dir: string;
  input: string;
  itemShape: number[];
  flopsPerItem: number;
}

async function models(root: string): Promise<BenchModel[]> {
  const width = 256;
  const depth = 192;
  const mlpDir = path.join(root, 'mlp', '1');
  await writeMlpSavedModel(mlpDir, {
    inputDim: 256,
    hiddenSizes: new Array(depth).fill(width),
    outputDim: 16,
    activation: 'relu',
    seed: 3,
  });
  const mlpFlops = 2 * (256 * width + (depth - 1) * width * width + width * 16);
  const convDir = path.join(root, 'conv', '1');
  const filters = [32, 64, 128];
  const conv = await writeConvSavedModel(convDir, { height: 64, width: 64, channels: 3, filters, kernelSize: 3, classes: 10, seed: 5 });
  // SAME 3×3 convs at full resolution, each followed by a 2×2 pool: 64², 32², 16².
  let hw = 64;
  let c = 3;
  let convFlops = 0;
  for (const f of filters) {
    convFlops += 2 * hw * hw * 9 * c * f;
    hw /= 2;
    c = f;
  }
  convFlops += 2 * conv.flatDim * 10;
  return [
    { name: `MLP 256-${width}×${depth}-16 relu`, dir: mlpDir, input: 'x', itemShape: [256], flopsPerItem: mlpFlops },
    {
      name: `conv net 64×64×3, 3×3 convs ${filters.join('/')} + 2×2 pools, dense 10`,
      dir: convDir,
      input: 'images',
      itemShape: [64, 64, 3],
      flopsPerItem: convFlops,
    },
  ];
}

function input(shape: number[]): HostTensor {
  const n = shape.reduce((a, b) => a * b, 1);
  return { dtype: 'float32', shape, values: Float32Array.from({ length: n }, (_, i) => Math.sin(i * 0.37)) };
}

/** Median ms per call of each path, alternating calls. */
async function timeAlternating(paths: Array<() => Promise<unknown>>): Promise<number[]> {
  for (let i = 0; i < 3; i++) for (const p of paths) await p();
  const times: number[][] = paths.map(() => []);
  const t0 = performance.now();
  while (performance.now() - t0 < MIN_MS || times[0].length < 9) {
    for (let k = 0; k < paths.length; k++) {
      const t = performance.now();
      await paths[k]();
      times[k].push(performance.now() - t);
    }
  }
  return times.map(median);
}

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'tfgate-bench-engines-'));
try {
  const wasm = new EmbeddedRuntime('wasm');
  const onnx = new OnnxRuntime({ device: 'cpu' });
  console.log(`| model | batch | WASM ms | WASM GFLOP/s | ORT ms | ORT GFLOP/s | ORT ÷ WASM | target |`);
  console.log(`|---|---:|---:|---:|---:|---:|---:|---|`);
  const verdicts: string[] = [];
  for (const m of await models(root)) {
    const servables: Servable[] = [await wasm.load(m.dir, { tags: ['serve'] }), await onnx.load(m.dir, { tags: ['serve'] })];
    if (servables[1].engines.serving_default?.engine !== 'onnxruntime')
      throw new Error(`${m.name} does not run on ONNX Runtime: ${JSON.stringify(servables[1].refusals)}`);
    for (const batch of BATCHES) {
      const x = input([batch, ...m.itemShape]);
      const [tw, to] = await timeAlternating(servables.map((s) => () => s.run('serving_default', { [m.input]: x })));
      const gflops = (ms: number) => ((m.flopsPerItem * batch) / (ms / 1000) / 1e9).toFixed(1);
      const ratio = to / tw;
      const limit = batch === 1 ? 0.7 : batch === 32 ? 0.4 : undefined;
      const verdict = limit === undefined ? '' : ratio <= limit ? `≤ ${limit}: met` : `≤ ${limit}: missed`;
      if (verdict) verdicts.push(`${m.name}, batch ${batch}: ${ratio.toFixed(2)} (${verdict})`);
      console.log(
        `| ${m.name} | ${batch} | ${tw.toFixed(2)} | ${gflops(tw)} | ${to.toFixed(2)} | ${gflops(to)} | ${ratio.toFixed(2)} | ${verdict} |`,
      );
    }
    for (const s of servables) s.dispose();
  }
  console.log('');
  for (const v of verdicts) console.log(v);
} finally {
  fs.rmSync(root, { recursive: true, force: true });
}
