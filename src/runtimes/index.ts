// Creates the runtime an executor thread was told to use (resolved once on the main thread
// by runtime_selection.ts). Engines are imported only here, only when chosen, and the embedded
// runtime (TF.js, its backends and ops: ~0.6 s of CPU and tens of MB per thread) only when a
// version needs it: an ONNX-only version never loads TF.js (see embedded_on_demand.ts).
import { OnnxRuntime } from './onnx/onnx_runtime.js';
import type { Runtime } from './runtime.js';
import { CompositeRuntime } from './composite_runtime.js';
import { importPackage, TFJS_NODE_PACKAGES, type PackageImporter, type ResolvedRuntime } from './runtime_selection.js';
import type { TfjsNodeModule } from './tfjs_node/tfjs_node_module.js';
import type { EngineSettings } from '../config/session_config.js';
import { embeddedOnDemand, loadEmbeddedRuntime } from './embedded_on_demand.js';

export type { Runtime } from './runtime.js';

/** `engine`: thread counts and the CUDA device for ONNX Runtime's sessions (libtensorflow takes them from its environment). */
export async function createRuntime(
  name: ResolvedRuntime,
  log?: (msg: string) => void,
  importer: PackageImporter = importPackage,
  engine?: EngineSettings,
): Promise<Runtime> {
  switch (name) {
    case 'embedded':
      return loadEmbeddedRuntime('auto', log);
    case 'onnx+embedded': {
      const embedded = embeddedOnDemand('wasm', log);
      return new CompositeRuntime(new OnnxRuntime({ device: 'cpu', engine, beforeTfjs: embedded.ready }), embedded, log);
    }
    case 'onnx':
      return new OnnxRuntime({ device: 'cpu', log, engine });
    case 'onnx-cuda':
      return new OnnxRuntime({ device: 'cuda', log, engine });
    case 'wasm':
    case 'cpu':
      return loadEmbeddedRuntime(name, log);
    case 'tfjs-node':
    case 'tfjs-node-gpu': {
      const [mod, { TfjsNodeRuntime }] = await Promise.all([
        importer(TFJS_NODE_PACKAGES[name]) as Promise<TfjsNodeModule & { default?: TfjsNodeModule }>,
        import('./tfjs_node/tfjs_node_runtime.js'),
      ]);
      // The packages are CommonJS: `import()` may put the API under `default`.
      return new TfjsNodeRuntime(mod.node ? mod : mod.default!, name);
    }
  }
}
