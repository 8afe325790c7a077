// The embedded runtime on both of its TF.js backends, for op tests whose answers must not
// depend on the backend: WASM (the one served) and the plain-JS CPU backend (the reference).
import assert from 'node:assert/strict';
import { EmbeddedRuntime } from '../../src/runtimes/embedded/embedded_runtime.js';
import type { HostTensor } from '../../src/tensor/host_tensor.js';

export const EMBEDDED_BACKENDS = [new EmbeddedRuntime('wasm'), new EmbeddedRuntime('cpu')] as const;

/** Runs serving_default on WASM and on CPU, asserts both give the same tensors, returns them. */
export async function runOnBothBackends(dir: string, inputs: Record<string, HostTensor>): Promise<Record<string, HostTensor>> {
  const results: Array<Record<string, HostTensor>> = [];
  for (const runtime of EMBEDDED_BACKENDS) {
    const s = await runtime.load(dir, { tags: ['serve'] });
    try {
      results.push(await s.run('serving_default', inputs));
    } finally {
      s.dispose();
    }
  }
  assert.deepEqual(results[1], results[0], 'cpu and wasm disagree');
  return results[0];
}
