// How the RunCost estimated from a graph's shapes (src/runtimes/onnx/run_cost_estimate.ts),
// which the in-flight budget charges before each run, compares with what ONNX Runtime takes:
// each model's serving_default is loaded in this process as an executor thread loads it, run
// once at one row, then at growing batches; the peak RSS growth during each run (sampled every
// 2 ms) is printed beside the estimate for that batch (peak + outputs). ONNX Runtime's arena
// keeps what a run took, so each batch is larger than the last. A run estimated past
// --max-mb (default 1500) is left out: the machine may be shared.
//   npm run build && node dist/bench/run_cost.js [-- --rows 250,1000,4000 --max-mb 1500]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { OnnxRuntime } from '../src/runtimes/onnx/onnx_runtime.js';
import { dtypeFromTf } from '../src/tensor/dtype.js';
import { allocValues, numElements, type HostTensor } from '../src/tensor/host_tensor.js';
import { writeConvSavedModel } from '../test_util/savedmodel/model_zoo.js';
import { MODELS as FIXTURE_MODELS } from '../test/helpers/paths.js';

const arg = (name: string, dflt: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : dflt;
};
const ROWS = arg('rows', '250,1000,4000').split(',').map(Number);
const MAX_BYTES = Number(arg('max-mb', '1500')) * 2 ** 20;
const mb = (b: number) => (b / 2 ** 20).toFixed(0);

function inputsAt(spec: { inputs: Record<string, { dtype: string; shape: number[] | null }> }, rows: number): Record<string, HostTensor> {
  const out: Record<string, HostTensor> = {};
  for (const [k, t] of Object.entries(spec.inputs)) {
    const dtype = dtypeFromTf(t.dtype)!;
    const shape = (t.shape ?? [-1]).map((d, i) => (i === 0 ? rows : Math.max(d, 1)));
    out[k] = { dtype, shape, values: allocValues(dtype, numElements(shape)) };
  }
  return out;
}

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'tfgate-bench-runcost-'));
try {
  const conv = path.join(root, 'conv', '1');
  await writeConvSavedModel(conv, { height: 64, width: 64, channels: 3, filters: [32, 64, 128], kernelSize: 3, classes: 10, seed: 5 });
  const models: Array<[string, string]> = [
    ['keras3_mnist_conv', path.join(FIXTURE_MODELS, 'keras3_mnist_conv', '1')],
    ['keras2_traffic_sign_cnn_warmup', path.join(FIXTURE_MODELS, 'keras2_traffic_sign_cnn_warmup', '1')],
    ['conv net 64×64×3, 32/64/128', conv],
  ];
  console.log('| model | per row: peak / out (estimated) | rows | estimate MB | RSS growth during the run MB | growth ÷ estimate |');
  console.log('|---|---|---:|---:|---:|---:|');
  for (const [name, dir] of models) {
    const servable = await new OnnxRuntime({ device: 'cpu' }).load(dir, { tags: ['serve'] });
    const cost = servable.runCosts?.serving_default;
    const spec = servable.signatures.serving_default;
    if (!cost || !spec) {
      console.log(`| ${name} | no estimate | | | | |`);
      continue;
    }
    await servable.run('serving_default', inputsAt(spec, 1));
    for (const rows of ROWS) {
      const estimate = cost.peakFixedBytes + cost.outputFixedBytes + (cost.peakBytesPerRow + cost.outputBytesPerRow) * rows;
      if (estimate > MAX_BYTES) {
        console.log(`| ${name} | | ${rows} | ${mb(estimate)} | (left out: past --max-mb) | |`);
        continue;
      }
      const inputs = inputsAt(spec, rows);
      const before = process.memoryUsage.rss();
      let peak = before;
      const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 2);
      await servable.run('serving_default', inputs);
      clearInterval(timer);
      peak = Math.max(peak, process.memoryUsage.rss());
      console.log(
        `| ${name} | ${(cost.peakBytesPerRow / 1024).toFixed(1)} KB / ${cost.outputBytesPerRow} B | ${rows} | ${mb(estimate)} | ${mb(peak - before)} | ${((peak - before) / estimate).toFixed(2)} |`,
      );
    }
    servable.dispose();
  }
} finally {
  fs.rmSync(root, { recursive: true, force: true });
}
