// The options each ONNX Runtime session is made with, from the engine settings
// (--tensorflow_*_parallelism, a session config's thread counts and visible_device_list).
// Defaults: one intra-op thread and sequential execution, since tfgate runs one session per
// executor thread (measured: two single-threaded sessions in two threads give 2.0× one,
// one session with two threads 1.5×), and every graph optimisation on (it folds the
// NHWC↔NCHW transposes away).
//
// The CUDA provider gets its deviceId only: onnxruntime-node's binding passes nothing else
// to it (js/node/src/session_options_helper.cc), which is why a GPU memory fraction is
// refused with --runtime=onnx-cuda rather than given here (config/session_config.ts).
import type { OrtSessionOptions } from './ort_session_runner.js';
import type { EngineSettings } from '../../config/session_config.js';

export type OnnxDevice = 'cpu' | 'cuda';

export function ortSessionOptions(device: OnnxDevice, engine?: EngineSettings): OrtSessionOptions {
  const intra = engine?.intraOpThreads || 1;
  const inter = engine?.interOpThreads || 1;
  return {
    executionProviders: device === 'cuda' ? [{ name: 'cuda', deviceId: engine?.gpuDeviceId ?? 0 }] : ['cpu'],
    intraOpNumThreads: intra,
    interOpNumThreads: inter,
    // ONNX Runtime uses inter-op threads only in parallel mode.
    executionMode: inter > 1 ? 'parallel' : 'sequential',
    graphOptimizationLevel: 'all',
    // No CPU arena: ONNX Runtime's arena keeps the peak of every session's intermediates for
    // the process's life (measured: four parallel 15 MB conv requests left 2.8 GB resident 60 s
    // later with it, 0.37 GB without), and a session per signature per thread holds its own.
    enableCpuMemArena: false,
    // ONNX Runtime writes its log lines, ANSI-coloured, straight to stderr, into the
    // server's JSON-lines log: fatal only. Its errors still arrive as rejections, which
    // tfgate reports in its own log and answers.
    logSeverityLevel: 4,
  };
}
