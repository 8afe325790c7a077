// tensorflow_model_server's command line (main.cc's flag table), plus tfgate's own flags.
// Every TF Serving flag is accepted in the forms TF's flag parser takes (--flag=value,
// --flag value, bare --flag for booleans), so scripts that start TF Serving start tfgate.
// Flags without meaning here (TPU, TFLite, ALTS, XLA, profiler …) are accepted and ignored.
import os from 'node:os';

export class FlagError extends Error {}

type FlagType = 'int' | 'float' | 'bool' | 'string';

interface FlagSpec {
  type: FlagType;
  default: number | boolean | string;
  help: string;
  /** false: accepted for compatibility, no effect in tfgate. */
  acted: boolean;
}

const cpus = Math.max(1, os.availableParallelism?.() ?? os.cpus().length);
type TypedSpec<T extends FlagType> = FlagSpec & { type: T };
const acted = <T extends FlagType>(type: T, def: number | boolean | string, help: string): TypedSpec<T> => ({ type, default: def, help, acted: true });
const ignored = <T extends FlagType>(type: T, def: number | boolean | string, help: string): TypedSpec<T> => ({ type, default: def, help, acted: false });

export const FLAGS = {
  port: acted('int', 8500, 'Port to listen on for gRPC API (gRPC is not served by tfgate yet; a start-up line says so)'),
  grpc_socket_path: acted('string', '', 'If non-empty, listen to a UNIX socket for gRPC API on the given path (not served yet)'),
  rest_api_port: acted('int', 0, 'Port to listen on for HTTP/REST API. 0 disables it, as in TF Serving; with no flags at all tfgate serves ./model_repository on 8501'),
  rest_api_num_threads: ignored('int', 4 * cpus, 'Number of threads for HTTP/REST API processing (Node serves HTTP on its event loop)'),
  rest_api_timeout_in_ms: acted('int', 30000, 'Timeout for HTTP/REST API calls'),
  rest_api_enable_cors_support: acted('bool', false, 'Enable CORS headers in response'),
  enable_batching: acted('bool', false, 'enable batching'),
  allow_version_labels_for_unavailable_models: acted('bool', false, 'If true, allows assigning unused version labels to models that are not available yet'),
  batching_parameters_file: acted('string', '', 'If non-empty, read an ascii BatchingParameters protobuf from the supplied file name'),
  enable_per_model_batching_parameters: acted('bool', false, 'Enables model specific batching params like batch sizes, timeouts, batching feature flags to be read from batching_params.pbtxt file inside the model version directory'),
  model_config_file: acted('string', '', 'If non-empty, read an ascii ModelServerConfig protobuf from the supplied file name, and serve the models in that file'),
  model_config_file_poll_wait_seconds: acted('int', 0, 'Interval in seconds between each poll of the filesystem for model_config_file. If unset or set to zero, poll will be done exactly once'),
  model_name: acted('string', 'default', 'name of model (ignored if --model_config_file flag is set)'),
  model_base_path: acted('string', '', 'path to export (ignored if --model_config_file flag is set, otherwise required)'),
  num_load_threads: acted('int', 0, 'The number of threads in the thread-pool used to load servables. If set as 0, loads serially'),
  num_unload_threads: ignored('int', 0, 'The number of threads in the thread-pool used to unload servables'),
  max_num_load_retries: acted('int', 5, 'maximum number of times it retries loading a model after the first failure, before giving up'),
  load_retry_interval_micros: acted('int', 60_000_000, 'The interval, in microseconds, between each servable load retry'),
  file_system_poll_wait_seconds: acted('int', 1, 'Interval in seconds between each poll of the filesystem for new model version. If set to zero poll will be exactly done once and not periodically. Setting this to negative value will disable polling entirely'),
  flush_filesystem_caches: ignored('bool', true, 'Flush filesystem caches after initial load'),
  tensorflow_session_parallelism: ignored('int', 0, 'Number of threads to use for running a Tensorflow session'),
  tensorflow_session_config_file: ignored('string', '', 'A file containing a ConfigProto for the TensorFlow session'),
  tensorflow_intra_op_parallelism: ignored('int', 0, 'Number of threads to use to parallelize the execution of an individual op'),
  tensorflow_inter_op_parallelism: ignored('int', 0, 'Controls the number of operators that can be executed simultaneously'),
  use_alts_credentials: ignored('bool', false, 'Use Google ALTS credentials'),
  ssl_config_file: ignored('string', '', 'If non-empty, read an ascii SSLConfig protobuf from the supplied file name'),
  platform_config_file: ignored('string', '', 'If non-empty, read an ascii PlatformConfigMap protobuf'),
  per_process_gpu_memory_fraction: ignored('float', 0, 'Fraction that each process occupies of the GPU memory space'),
  saved_model_tags: acted('string', 'serve', 'Comma-separated set of tags corresponding to the meta graph def to load from SavedModel'),
  grpc_channel_arguments: ignored('string', '', 'A comma separated list of arguments to be passed to the grpc server (until gRPC is served)'),
  grpc_max_threads: ignored('int', 4 * cpus, 'Max grpc server threads to handle grpc messages'),
  enable_model_warmup: acted('bool', true, 'Enables model warmup, which triggers lazy initializations (such as TF optimizations) at load time, to reduce first request latency'),
  num_request_iterations_for_warmup: acted('int', 0, 'Number of times a request is iterated during warmup replay. This value is used only if > 0'),
  version: acted('bool', false, 'Display version'),
  monitoring_config_file: acted('string', '', 'If non-empty, read an ascii MonitoringConfig protobuf from the supplied file name'),
  remove_unused_fields_from_bundle_metagraph: ignored('bool', true, 'Removes unused fields from MetaGraphDef proto message to save memory'),
  prefer_tflite_model: ignored('bool', false, 'EXPERIMENTAL; CAN BE REMOVED ANYTIME! Prefer TensorFlow Lite model from model.tflite file'),
  num_tflite_pools: ignored('int', cpus, 'EXPERIMENTAL; number of TFLite interpreter pools'),
  num_tflite_interpreters_per_pool: ignored('int', 1, 'EXPERIMENTAL; number of TFLite interpreters per pool'),
  enable_signature_method_name_check: acted('bool', false, 'Enable method_name check for SignatureDef. Disable this if serving native TF2 regression/classification models'),
  xla_cpu_compilation_enabled: ignored('bool', false, 'EXPERIMENTAL; enable XLA:CPU JIT'),
  xla_gpu_compilation_enabled: ignored('bool', false, 'EXPERIMENTAL; enable XLA:GPU JIT'),
  enable_profiler: ignored('bool', true, 'Enable profiler service'),
  thread_pool_factory_config_file: ignored('string', '', 'If non-empty, read an ascii ThreadPoolConfig protobuf'),
  mixed_precision: ignored('string', '', 'specify mixed_precision mode'),
  skip_initialize_tpu: ignored('bool', false, 'Whether to skip auto initializing TPU'),
  enable_grpc_healthcheck_service: ignored('bool', false, 'Enable the standard gRPC healthcheck service (with gRPC)'),
  enable_serialization_as_tensor_content: ignored('bool', false, 'Enable serialization of predict response as tensor content (gRPC)'),
  // tfgate's own
  rest_api_host: acted('string', '0.0.0.0', 'tfgate: address the REST API binds to'),
  runtime: acted('string', 'auto', 'tfgate: auto | wasm | cpu | tfjs-node — the runtime that executes models'),
  config: acted('string', '', 'tfgate: a YAML file with the model config (same content as --model_config_file)'),
  num_executors: acted('int', Math.max(1, Math.min(cpus - 1, 4)), 'tfgate: executor threads per loaded model version (default: one core left to the event loop, at most 4)'),
  max_request_body_bytes: acted('int', 64 * 1024 * 1024, 'tfgate: largest accepted request body (413 above it)'),
  json_max_depth: acted('int', 64, 'tfgate: deepest JSON nesting accepted in a request'),
  json_max_elements: acted('int', 16 * 1024 * 1024, 'tfgate: most JSON values (list items + object members) accepted in a request'),
  help: acted('bool', false, 'Print this help and exit'),
} satisfies Record<string, FlagSpec>;

export type FlagName = keyof typeof FLAGS;
type ValueOf<T extends FlagType> = T extends 'bool' ? boolean : T extends 'string' ? string : number;
export type FlagValues = { [K in FlagName]: ValueOf<(typeof FLAGS)[K]['type']> };

export interface ParsedFlags {
  values: FlagValues;
  /** Flags given explicitly on the command line. */
  given: Set<FlagName>;
}

function convert(name: string, spec: FlagSpec, raw: string): number | boolean | string {
  switch (spec.type) {
    case 'bool':
      if (['true', '1'].includes(raw)) return true;
      if (['false', '0'].includes(raw)) return false;
      throw new FlagError(`Illegal value '${raw}' specified for bool flag '${name}'`);
    case 'int': {
      if (!/^[-+]?\d+$/.test(raw.trim())) throw new FlagError(`Illegal value '${raw}' specified for int flag '${name}'`);
      return Number(raw);
    }
    case 'float': {
      const v = Number(raw);
      if (raw.trim() === '' || Number.isNaN(v)) throw new FlagError(`Illegal value '${raw}' specified for float flag '${name}'`);
      return v;
    }
    case 'string':
      return raw;
  }
}

export function parseFlags(argv: readonly string[]): ParsedFlags {
  const values = Object.fromEntries(Object.entries(FLAGS).map(([k, s]) => [k, s.default])) as Record<string, number | boolean | string>;
  const given = new Set<FlagName>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const m = /^--?([A-Za-z0-9_]+)(?:=([\s\S]*))?$/.exec(arg);
    if (!m) throw new FlagError(`Unknown command line argument: ${arg}`);
    let name = m[1];
    let raw = m[2];
    let spec = (FLAGS as Record<string, FlagSpec>)[name];
    if (!spec && name.startsWith('no') && raw === undefined && (FLAGS as Record<string, FlagSpec>)[name.slice(2)]?.type === 'bool') {
      name = name.slice(2);
      spec = (FLAGS as Record<string, FlagSpec>)[name];
      raw = 'false';
    }
    if (!spec) throw new FlagError(`Unknown command line flag '${name}'`);
    if (raw === undefined) {
      if (spec.type === 'bool' && !(i + 1 < argv.length && ['true', 'false'].includes(argv[i + 1]))) raw = 'true';
      else if (i + 1 < argv.length) raw = argv[++i];
      else throw new FlagError(`Missing value for flag '${name}'`);
    }
    values[name] = convert(name, spec, raw);
    given.add(name as FlagName);
  }
  return { values: values as FlagValues, given };
}

export function helpText(): string {
  const fmt = ([name, s]: [string, FlagSpec]) => `  --${name}=${JSON.stringify(s.default)}\t${s.type}\t${s.help}`;
  const entries = Object.entries(FLAGS) as Array<[string, FlagSpec]>;
  return [
    'usage: tfgate [flags]            (also installed as tensorflow_model_server)',
    '       tfgate show --dir DIR [--all | --tag_set TAGS [--signature_def KEY]]',
    '       tfgate run --dir DIR --signature_def KEY --input_exprs "x=[1,2]"',
    '',
    'Flags:',
    ...entries.filter(([, s]) => s.acted).map(fmt),
    '',
    'Accepted and ignored (no meaning for tfgate):',
    ...entries.filter(([, s]) => !s.acted).map(fmt),
    '',
  ].join('\n');
}
