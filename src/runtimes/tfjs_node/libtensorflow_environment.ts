// What libtensorflow reads from the environment, for the engine settings tfjs-node cannot
// pass otherwise: it makes its TensorFlow context and sessions with no ConfigProto. TF reads
// TF_NUM_INTRAOP_THREADS / TF_NUM_INTEROP_THREADS (process_util.cc, local_device.cc) once,
// when its first device is made, and TF_FORCE_GPU_ALLOW_GROWTH when its GPU allocator is.
// So the main thread sets them before any package is imported (runtime selection imports
// tfjs-node to see whether it loads); ONNX Runtime and the embedded runtime read none.
import type { EngineSettings } from '../../config/session_config.js';

export function libtensorflowEnvironment(engine: EngineSettings): Record<string, string> {
  const env: Record<string, string> = {};
  if (engine.intraOpThreads > 0) env.TF_NUM_INTRAOP_THREADS = String(engine.intraOpThreads);
  if (engine.interOpThreads > 0) env.TF_NUM_INTEROP_THREADS = String(engine.interOpThreads);
  if (engine.gpuAllowGrowth) env.TF_FORCE_GPU_ALLOW_GROWTH = 'true';
  return env;
}
