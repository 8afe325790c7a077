// The options each ONNX Runtime session is made with, from the engine settings
// (--tensorflow_*_parallelism, a session config's thread counts and visible_device_list).
// Defaults: one intra-op thread and sequential execution, since tfgate runs one session per
// executor thread (measured: two single-threaded sessions in two threads give 2.0× one,
// one session with two threads 1.5×); the wide executor thread, which runs lone requests,
// is given every core as intra-op threads (executors/core_sizing.ts). Every graph
// optimisation on (it folds the NHWC↔NCHW transposes away).
//
// No spinning: ONNX Runtime's intra-op threads spin after each parallel section by default,
// burning a core each until their next work or a timeout. On shared CPUs that time is taken
// from whatever else runs (other executors, the event loop, other processes). Measured on
// 2 busy shared cores (load 17), MCUNet batch 1 with two intra-op threads: 15–22 ms of CPU
// per request with spinning against 6.6–8.5 without (one thread: 5.5), and slower answers
// with it (median 48 ms against 18 back to back, 32 against 15 with 20 ms between requests),
// as the spinning thread keeps the core its partner needs. Nor does it pay a lone user who
// thinks between requests: the bench MLP (256-512×16-16) at batch 1 with two intra-op threads,
// runs 7.5–22.5 ms apart in one process (2 shared cores, load 9–11): 12.1 ms of CPU per run
// with spinning against 3.1 without, answers no sooner (median 2.59 ms against 2.64, mean
// 4.89 against 3.40) — the spinning threads spin through most of the think time.
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
    ...((intra > 1 || inter > 1) && { extra: { session: { intra_op: { allow_spinning: '0' }, inter_op: { allow_spinning: '0' } } } }),
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
