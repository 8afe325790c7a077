// Issue 2 bench: the embedded runtime (SavedModel → prepared graph → TF.js GraphModel) on a
// writer-made MLP, next to the same computation written directly with TF.js ops, in the same
// process and backend. Prints ms/batch, ms/item, GFLOP/s and the runtime's overhead per batch size.
//   npm run bench:runtime [-- --min-ms 900]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as tf from '@tensorflow/tfjs-core';
import { EmbeddedRuntime } from '../src/runtimes/embedded/embedded_runtime.js';
import { writeMlpSavedModel } from '../src/savedmodel/model_zoo.js';
import type { HostTensor } from '../src/tensor/host_tensor.js';
import { numberArg } from './load/args.js';

const INPUT = 1024;
const HIDDEN = [4096, 4096];
const OUTPUT = 16;
const BATCHES = [1, 2, 4, 8, 16, 32, 64];
const arg = numberArg;
const MIN_MS = arg('min-ms', 900); // time spent per batch size, both paths together

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/**
 * Times two paths call by call, alternating A, B, A, B…: on a shared, noisy machine a slow
 * spell then hits both paths alike instead of whichever ran during it. Returns each path's
 * median ms per call.
 */
async function timeAlternating(a: () => Promise<void>, b: () => Promise<void>): Promise<[number, number]> {
  for (let i = 0; i < 3; i++) {
    await a(); // warm up kernels and allocations
    await b();
  }
  const ta: number[] = [];
  const tb: number[] = [];
  const t0 = performance.now();
  while (performance.now() - t0 < MIN_MS || ta.length < 11) {
    let t = performance.now();
    await a();
    ta.push(performance.now() - t);
    t = performance.now();
    await b();
    tb.push(performance.now() - t);
  }
  return [median(ta), median(tb)];
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tfgate-bench-'));
const version = path.join(dir, 'mlp', '1');
const model = await writeMlpSavedModel(version, { inputDim: INPUT, hiddenSizes: HIDDEN, outputDim: OUTPUT, activation: 'relu', seed: 7 });
const servable = await new EmbeddedRuntime('auto').load(version, { tags: ['serve'] });
const layers = model.layers.map((l) => ({ w: tf.tensor(l.kernel, l.kernelShape), b: tf.tensor(l.bias, [l.bias.length]) }));

function direct(x: tf.Tensor): tf.Tensor {
  return tf.tidy(() => {
    let h = x;
    layers.forEach((l, i) => {
      h = tf.add(tf.matMul(h, l.w), l.b);
      if (i < layers.length - 1) h = tf.relu(h);
    });
    return h;
  });
}

const flopsPerItem = 2 * [INPUT, ...HIDDEN, OUTPUT].slice(1).reduce((s, n, i, dims) => s + n * [INPUT, ...HIDDEN][i], 0);
console.log(`backend ${servable.backend}; MLP ${INPUT}-${HIDDEN.join('-')}-${OUTPUT} relu; ${(flopsPerItem / 1e6).toFixed(2)} MFLOP per item`);
console.log('| batch | runtime ms/batch | runtime ms/item | runtime GFLOP/s | direct TF.js ms/batch | overhead |');
console.log('|---:|---:|---:|---:|---:|---:|');
for (const batch of BATCHES) {
  const values = Float32Array.from({ length: batch * INPUT }, (_, i) => Math.sin(i));
  const input: HostTensor = { dtype: 'float32', shape: [batch, INPUT], values };
  // Both paths include building the input tensor and reading the output back to JS memory.
  const [runtimeMs, directMs] = await timeAlternating(
    async () => {
      await servable.run('serving_default', { x: input });
    },
    async () => {
      const x = tf.tensor(values, [batch, INPUT]);
      const y = direct(x);
      await y.data();
      x.dispose();
      y.dispose();
    },
  );
  const gflops = (flopsPerItem * batch) / (runtimeMs / 1e3) / 1e9;
  const overhead = ((runtimeMs - directMs) / directMs) * 100;
  console.log(`| ${batch} | ${runtimeMs.toFixed(3)} | ${(runtimeMs / batch).toFixed(4)} | ${gflops.toFixed(2)} | ${directMs.toFixed(3)} | ${overhead >= 0 ? '+' : ''}${overhead.toFixed(1)} % |`);
}
servable.dispose();
fs.rmSync(dir, { recursive: true, force: true });
