// Picks the runtime for a --runtime value. tfjs-node (libtensorflow) is an optional
// dependency that cannot install on machines without access to its download; 'auto'
// therefore means the embedded runtime until the tfjs-node runtime lands.
import { unimplemented } from '../core/status.js';
import { EmbeddedRuntime } from './embedded/embedded_runtime.js';
import type { Runtime } from './runtime.js';

export type { Runtime, Servable, SignatureSpec, TensorSpec, LoadOptions } from './runtime.js';

export function createRuntime(name: 'auto' | 'wasm' | 'cpu' | 'tfjs-node', log?: (msg: string) => void): Runtime {
  switch (name) {
    case 'auto':
    case 'wasm':
    case 'cpu':
      return new EmbeddedRuntime(name, log);
    case 'tfjs-node':
      throw unimplemented('--runtime=tfjs-node is not available in this build: @tensorflow/tfjs-node is not installed');
  }
}
