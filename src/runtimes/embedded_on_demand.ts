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

/** The embedded runtime, its module imported on its first load. */
export function embeddedOnDemand(preference: BackendPreference, log?: (msg: string) => void): Runtime {
  let runtime: Promise<Runtime> | undefined;
  return {
    name: 'embedded',
    load: async (dir, options) => (await (runtime ??= loadEmbeddedRuntime(preference, log))).load(dir, options),
  };
}
