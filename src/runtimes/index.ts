// Creates the runtime an executor thread was told to use (resolved once on the main thread
// by runtime_selection.ts). The tfjs-node packages are imported only here, only when chosen.
import { EmbeddedRuntime } from './embedded/embedded_runtime.js';
import { OnnxRuntime } from './onnx/onnx_runtime.js';
import type { Runtime } from './runtime.js';
import { CompositeRuntime } from './composite_runtime.js';
import { importPackage, TFJS_NODE_PACKAGES, type PackageImporter, type ResolvedRuntime } from './runtime_selection.js';
import { TfjsNodeRuntime } from './tfjs_node/tfjs_node_runtime.js';
import type { TfjsNodeModule } from './tfjs_node/tfjs_node_module.js';
import type { EngineSettings } from '../config/session_config.js';

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
      return new EmbeddedRuntime('auto', log);
    case 'onnx+embedded':
      return new CompositeRuntime(new OnnxRuntime({ device: 'cpu', engine }), new EmbeddedRuntime('wasm', log), log);
    case 'onnx':
      return new OnnxRuntime({ device: 'cpu', log, engine });
    case 'onnx-cuda':
      return new OnnxRuntime({ device: 'cuda', log, engine });
    case 'wasm':
    case 'cpu':
      return new EmbeddedRuntime(name, log);
    case 'tfjs-node':
    case 'tfjs-node-gpu': {
      const mod = (await importer(TFJS_NODE_PACKAGES[name])) as TfjsNodeModule & { default?: TfjsNodeModule };
      // The packages are CommonJS: `import()` may put the API under `default`.
      return new TfjsNodeRuntime(mod.node ? mod : mod.default!, name);
    }
  }
}
