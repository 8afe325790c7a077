// The bench model's offline cost curve T(batch), measured in this process on the runtime the
// servers use (the same code the executors run), with no server in the way.
import { createRuntime } from '../../src/runtimes/index.js';
import type { ResolvedRuntime } from '../../src/runtimes/runtime_selection.js';
import type { MlpDescription } from '../../test_util/savedmodel/model_zoo.js';

export interface CurvePoint {
  batch: number;
  /** Mean time of one run at this batch size. */
  ms: number;
  msPerItem: number;
  itemsPerSec: number;
  gflops: number;
}

/** Multiply-adds ×2 of one row through the MLP (activations and biases are noise beside them). */
export function mlpFlopsPerItem(model: MlpDescription): number {
  return model.layers.reduce((sum, l) => sum + 2 * l.kernelShape[0] * l.kernelShape[1], 0);
}

export async function measureCurve(
  versionDir: string,
  model: MlpDescription,
  batches: number[],
  msPerBatch: number,
  runtime: ResolvedRuntime,
): Promise<{ backend: string; curve: CurvePoint[] }> {
  const servable = await (await createRuntime(runtime)).load(versionDir, { tags: ['serve'] });
  const flops = mlpFlopsPerItem(model);
  const curve: CurvePoint[] = [];
  try {
    for (const batch of batches) {
      const x = {
        dtype: 'float32' as const,
        shape: [batch, model.inputDim],
        values: new Float32Array(batch * model.inputDim).map((_, i) => Math.sin(i)),
      };
      for (let i = 0; i < 5; i++) await servable.run('serving_default', { x });
      const t0 = performance.now();
      let runs = 0;
      while (performance.now() - t0 < msPerBatch) {
        await servable.run('serving_default', { x });
        runs++;
      }
      const ms = (performance.now() - t0) / runs;
      curve.push({ batch, ms, msPerItem: ms / batch, itemsPerSec: (1000 * batch) / ms, gflops: (flops * batch) / (ms * 1e6) });
    }
    return { backend: servable.backend, curve };
  } finally {
    servable.dispose();
  }
}

/**
 * Mean batch-1 time when runs are spaced by the users' think time (uniform in `thinkMs`), as a
 * lone user's requests are: after an idle gap this machine's caches and cores are cold, so a
 * run costs more than back to back. In-process, no server: the model's own share of a 1-user
 * latency.
 */
export async function measureBatch1AfterThink(
  versionDir: string,
  model: MlpDescription,
  thinkMs: [number, number],
  runs: number,
  runtime: ResolvedRuntime,
): Promise<number> {
  const servable = await (await createRuntime(runtime)).load(versionDir, { tags: ['serve'] });
  try {
    const x = {
      dtype: 'float32' as const,
      shape: [1, model.inputDim],
      values: new Float32Array(model.inputDim).map((_, i) => Math.sin(i)),
    };
    for (let i = 0; i < 5; i++) await servable.run('serving_default', { x });
    let total = 0;
    for (let i = 0; i < runs; i++) {
      await new Promise((r) => setTimeout(r, thinkMs[0] + Math.random() * (thinkMs[1] - thinkMs[0])));
      const t0 = performance.now();
      await servable.run('serving_default', { x });
      total += performance.now() - t0;
    }
    return total / runs;
  } finally {
    servable.dispose();
  }
}
