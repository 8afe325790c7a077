// The bench model's offline cost curve T(batch), measured in this process on the runtime the
// servers use (the same code and session settings the executors run), with no server in the way.
import { createRuntime } from '../../src/runtimes/index.js';
import type { ResolvedRuntime } from '../../src/runtimes/runtime_selection.js';
import type { HostTensor } from '../../src/tensor/host_tensor.js';
import type { MlpDescription } from '../../test_util/savedmodel/model_zoo.js';
import { DEFAULT_ENGINE_SETTINGS, type EngineSettings } from '../../src/config/session_config.js';

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

/** The model on the runtime and session settings one executor thread has, timed in this process with nothing else in the way. */
export interface OfflineEngine {
  backend: string;
  /**
   * Runs of a batch of `batch` rows, back to back for about `ms` (after a few unmeasured
   * runs): their mean time, and their median (which a busy spell on a shared machine moves less).
   */
  timeBatch(batch: number, ms: number): Promise<{ meanMs: number; medianMs: number }>;
  /**
   * Runs the batches of `mix` (size → count) in those proportions, back to back, for about
   * `ms`: items per second of wall time, and this process's CPU ms per item (the engine runs
   * on the calling thread, so on a shared machine the CPU figure holds where the wall one does not).
   */
  replay(mix: ReadonlyMap<number, number>, ms: number): Promise<{ itemsPerSec: number; cpuMsPerItem: number }>;
  dispose(): void;
}

/** About `n` batch sizes in the proportions of `mix` (size → count), interleaved, each size at least once. */
function spread(mix: ReadonlyMap<number, number>, n: number): number[] {
  const total = [...mix.values()].reduce((t, c) => t + c, 0);
  const order: Array<[number, number]> = [];
  for (const [b, c] of mix) {
    const k = Math.max(1, Math.round((n * c) / total));
    for (let i = 0; i < k; i++) order.push([(i + 0.5) / k, b]);
  }
  return order.sort((x, y) => x[0] - y[0]).map(([, b]) => b);
}

export async function openOfflineEngine(
  versionDir: string,
  inputDim: number,
  runtime: ResolvedRuntime,
  engine: EngineSettings = DEFAULT_ENGINE_SETTINGS,
): Promise<OfflineEngine> {
  const servable = await (await createRuntime(runtime, undefined, undefined, engine)).load(versionDir, { tags: ['serve'] });
  const inputs = new Map<number, { x: HostTensor }>();
  const input = (batch: number) => {
    let x = inputs.get(batch);
    if (!x) {
      x = { x: { dtype: 'float32', shape: [batch, inputDim], values: new Float32Array(batch * inputDim).map((_, i) => Math.sin(i)) } };
      inputs.set(batch, x);
    }
    return x;
  };
  return {
    backend: servable.backend,
    async timeBatch(batch, ms) {
      const x = input(batch).x;
      for (let i = 0; i < 5; i++) await servable.run('serving_default', { x });
      const t0 = performance.now();
      const times: number[] = [];
      for (let t = t0; t - t0 < ms;) {
        await servable.run('serving_default', { x });
        const now = performance.now();
        times.push(now - t);
        t = now;
      }
      times.sort((a, b) => a - b);
      return { meanMs: (performance.now() - t0) / times.length, medianMs: times[times.length >> 1] };
    },
    async replay(mix, ms) {
      // Interleaved, so that stopping part-way through still runs the sizes in about their proportions.
      const order = spread(mix, 128);
      for (const b of new Set(order)) await servable.run('serving_default', input(b));
      const cpu0 = process.cpuUsage();
      const t0 = performance.now();
      let items = 0;
      for (let i = 0; performance.now() - t0 < ms; i = (i + 1) % order.length) {
        await servable.run('serving_default', input(order[i]));
        items += order[i];
      }
      const wall = performance.now() - t0;
      const cpu = process.cpuUsage(cpu0);
      return { itemsPerSec: (items * 1000) / wall, cpuMsPerItem: (cpu.user + cpu.system) / 1000 / items };
    },
    dispose: () => servable.dispose(),
  };
}

export async function measureCurve(
  versionDir: string,
  model: MlpDescription,
  batches: number[],
  msPerBatch: number,
  runtime: ResolvedRuntime,
): Promise<{ backend: string; curve: CurvePoint[] }> {
  const offline = await openOfflineEngine(versionDir, model.inputDim, runtime);
  const flops = mlpFlopsPerItem(model);
  const curve: CurvePoint[] = [];
  try {
    for (const batch of batches) {
      const ms = (await offline.timeBatch(batch, msPerBatch)).meanMs;
      curve.push({ batch, ms, msPerItem: ms / batch, itemsPerSec: (1000 * batch) / ms, gflops: (flops * batch) / (ms * 1e6) });
    }
    return { backend: offline.backend, curve };
  } finally {
    offline.dispose();
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
