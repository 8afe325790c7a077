// What TF Serving's server.cc builds into the SessionBundleConfig of the "tensorflow"
// platform, in ServerOptions' terms: from the flags and --tensorflow_session_config_file,
// or — replacing all of those — from --platform_config_file. The files are read by the
// caller (server/engine_config_files.ts); these functions only combine.
import type { ServerOptions } from './flags.js';
import type { PlatformConfig } from './platform_config.js';
import type { EngineSettings, SessionConfig } from './session_config.js';

/** Engine settings from a ConfigProto (`file`, fields under `prefix`), over `base` where the file leaves a setting unset. */
function engineFrom(base: EngineSettings, session: SessionConfig, file: string, prefix: string): EngineSettings {
  const at = (field: string) => `${file}: ${prefix}${field}`;
  const threadsFromFlags = base.from.threads !== undefined;
  const fileThreads = !threadsFromFlags && (session.intraOpThreads > 0 || session.interOpThreads > 0);
  const fractionFromFile = base.gpuMemoryFraction === 0 && session.gpuMemoryFraction > 0;
  const deviceId = session.gpuVisibleDevices[0] ?? 0;
  const disabled = session.gpuDeviceCount === 0;
  return Object.freeze({
    intraOpThreads: fileThreads ? session.intraOpThreads : base.intraOpThreads,
    interOpThreads: fileThreads ? session.interOpThreads : base.interOpThreads,
    gpuMemoryFraction: fractionFromFile ? session.gpuMemoryFraction : base.gpuMemoryFraction,
    gpuAllowGrowth: session.gpuAllowGrowth,
    gpuDeviceId: deviceId,
    gpuDisabled: disabled,
    from: Object.freeze({
      ...base.from,
      ...(fileThreads && { threads: at(session.intraOpThreads > 0 ? 'intra_op_parallelism_threads' : 'inter_op_parallelism_threads') }),
      ...(fractionFromFile && { gpuMemoryFraction: at('gpu_options.per_process_gpu_memory_fraction') }),
      ...(session.gpuAllowGrowth && { gpuAllowGrowth: at('gpu_options.allow_growth') }),
      ...(deviceId !== 0 && { gpuDeviceId: at('gpu_options.visible_device_list') }),
      ...(disabled && { gpuDisabled: at('device_count') }),
    }),
  });
}

/**
 * --tensorflow_session_config_file applied: its thread counts and GPU fraction stand unless
 * a flag sets them (TF Serving lets even the flags' defaults overwrite them, so that a file
 * alone never sets threads there: tfgate honours what the file says instead).
 */
export function applySessionConfig(options: ServerOptions, session: SessionConfig, file: string): ServerOptions {
  return Object.freeze({
    ...options,
    engine: engineFrom(options.engine, session, file, ''),
    harmlessSettingsGiven: Object.freeze([...options.harmlessSettingsGiven, ...session.harmlessSet]),
  });
}

/** --platform_config_file applied: it replaces batching, session config, tags and warmup (the flags for them were refused beside it). */
export function applyPlatformConfig(options: ServerOptions, platform: PlatformConfig, file: string): ServerOptions {
  const { parametersFile: _file, parameters: _parameters, ...batching } = options.batching;
  return Object.freeze({
    ...options,
    batching: Object.freeze({
      ...batching,
      enabled: platform.batching !== undefined,
      parametersFile: null,
      perModel: platform.enablePerModelBatchingParams,
      ...(platform.batching && { parameters: platform.batching }),
    }),
    savedModelTags: platform.savedModelTags,
    enableModelWarmup: platform.enableModelWarmup,
    numRequestIterationsForWarmup: platform.numRequestIterationsForWarmup,
    engine: engineFrom(options.engine, platform.session, file, 'session_config.'),
    harmlessSettingsGiven: Object.freeze([...options.harmlessSettingsGiven, ...platform.harmlessSet]),
  });
}
