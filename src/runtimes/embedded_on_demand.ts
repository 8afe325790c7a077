// The embedded runtime imported when first needed. Its module brings TF.js (tfjs-core, the
// CPU and WASM backends, tfjs-converter) and every op tfgate registers on it: ~0.6 s of CPU
// and tens of MB in each thread that imports it. Behind ONNX Runtime it serves only what ONNX
// cannot run, so a thread whose versions are all ONNX's never imports it.
import type { Runtime } from './runtime.js';
import type { BackendPreference } from './shared/tfjs_backend.js';

/** The embedded runtime on `preference`'s backend, its module imported now. */
export async function loadEmbeddedRuntime(preference: BackendPreference, log?: (msg: string) => void): Promise<Runtime> {
  const { EmbeddedRuntime } = await import('./embedded/embedded_runtime.js');
  return new EmbeddedRuntime(preference, log);
}

/** The embedded runtime, its module imported on its first load (or when `ready` is called). */
export interface EmbeddedOnDemand extends Runtime {
  /**
   * Imports the runtime now, its ops registered on tfjs-converter: for an engine in front of it
   * that runs a TF.js graph in this thread (ONNX Runtime's table initializers and tf.Example
   * steps), which then runs with the same ops as when the runtime was there from the start.
   */
  ready(): Promise<unknown>;
}

export function embeddedOnDemand(preference: BackendPreference, log?: (msg: string) => void): EmbeddedOnDemand {
  let runtime: Promise<Runtime> | undefined;
  const ready = () => (runtime ??= loadEmbeddedRuntime(preference, log));
  return {
    name: 'embedded',
    ready,
    load: async (dir, options) => (await ready()).load(dir, options),
  };
}
