// Chooses the TF.js backend for this thread: WASM (fast, no native code) unless it cannot
// start, then the pure-JS CPU backend. Each executor thread makes this choice once. The
// embedded runtime runs its graphs there; ONNX Runtime its ParseExample step.
import tf from '../tfjs_packages/tfjs_core.cjs';
import '../tfjs_packages/tfjs_backend_cpu.cjs';
import '../tfjs_packages/tfjs_backend_wasm.cjs';
import { patchWasmBackend } from '../tfjs_patches/index.js';

// Kernels of tfjs-backend-wasm that give wrong numbers, replaced before any use, and the ones
// it lacks (tfjs_patches/). Importing this module registers both backends: tests that call
// tf.setBackend themselves import it for that.
patchWasmBackend();

export type BackendPreference = 'auto' | 'wasm' | 'cpu';

let chosen: Promise<string> | undefined;

export function initBackend(preference: BackendPreference, log: (msg: string) => void = () => {}): Promise<string> {
  chosen ??= (async () => {
    // TF.js prints a banner about tfjs-node on first use; the server logs its own choice.
    tf.env().set('IS_TEST', true);
    if (preference !== 'cpu') {
      try {
        if (await tf.setBackend('wasm')) {
          await tf.ready();
          return 'wasm';
        }
        log('WASM backend did not start; using the CPU backend');
      } catch (e) {
        if (preference === 'wasm') throw e;
        log(`WASM backend failed (${(e as Error).message}); using the CPU backend`);
      }
    }
    await tf.setBackend('cpu');
    await tf.ready();
    return 'cpu';
  })();
  return chosen;
}
