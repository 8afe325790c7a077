// tensorflow_model_server's command line: every flag of main.cc's table, with the type and
// default of server.h's Server::Options, plus tfgate's own flags. A script that starts TF
// Serving starts tfgate. What tfgate does with each flag is in the table itself
// (setting_handling.ts): honoured, refused when set, decided by the runtime in force, or
// harmless (accepted with one log line saying why); `--help` groups them so.
//
// Forms accepted (TF's parser, tsl/util/command_line_flags.cc, takes the first and the last
// two; `--flag value` is tfgate's addition):
//   --flag=value            any type
//   --flag value            non-boolean flags
//   --flag                  booleans: true
//   --flag=true|false|1|0   booleans (true/false in any case)
// Not accepted, as in TF: `--noflag` (the error suggests --flag=false), single-dash flags,
// positional arguments. A repeated flag: the last one wins. `--help` (or -h) asks for help.
//
// parseFlags() gives the raw values by flag name; resolveServerOptions() turns them into
// the frozen ServerOptions the server runs with: camelCase keys, units in the names.
//
// Defaults that differ from TF Serving:
// - rest_api_port: 8501 (TF Serving: 0 = REST off). REST is what tfgate serves, so a
//   TF Serving command line without --rest_api_port would otherwise serve nothing.
//   --rest_api_port=0 still means "REST off", as in TF Serving (refused only when gRPC is
//   off too: nothing would be served).
// - No --model_config_file, --config or --model_base_path at all: tfgate serves every model
//   folder under ./model_repository (TF Serving refuses to start); --model_name alone is
//   still TF Serving's error.
import os from 'node:os';
import path from 'node:path';
import { cpuCount } from './batching_parameters.js';
import { BATCHING_MODE_NAMES, batchingModesHelp, isBatchingMode, type BatchingMode } from './batching_modes.js';
import { defaultMaxConnections, openFileSoftLimit } from './connection_limit.js';
import { parseAllowedBasePaths } from './allowed_base_paths.js';
import { resolveLocation, unsupportedLocation, uriScheme } from './storage_uri.js';
import { getHeapStatistics } from 'node:v8';
import { byRuntime, harmless, refused, type HarmlessSetting, type SettingHandling } from './setting_handling.js';
import type { BatchingParameters } from './batching_parameters.js';
import { DEFAULT_ENGINE_SETTINGS, type EngineSettings } from './session_config.js';

/**
 * --max_inflight_request_bytes=0: a quarter of V8's heap limit. Parsed JSON lives on that
 * heap; the rest stays for the server's own state and for garbage not yet collected (a heap
 * driven near its limit spends its time in GC, then dies).
 */
function defaultInflightBudgetBytes(): number {
  return Math.floor(getHeapStatistics().heap_size_limit / 4);
}

/** A bad command line; the message names the flag. The CLI prints it and exits 2. */
export class FlagError extends Error {
  constructor(
    message: string,
    readonly flag?: string,
  ) {
    super(message);
    this.name = 'FlagError';
  }
}

export type FlagType = 'int32' | 'int64' | 'float' | 'bool' | 'string';
type FlagDefault = number | boolean | string;

/**
 * A flag tfgate accepts and does not act on: neither honoured nor refused. None is left (the
 * two TLS flags were the last); the kind stays so that the table's test keeps the list empty.
 */
type Ignored = { readonly kind: 'ignored'; readonly why: string };

export interface FlagSpec {
  readonly type: FlagType;
  readonly default: FlagDefault;
  /** TF Serving's help text (tfgate's for its own flags). */
  readonly help: string;
  /** What tfgate does with it. */
  readonly handling: SettingHandling | Ignored;
  /** tfgate's own flag (not in TF Serving). */
  readonly own?: boolean;
  /** What tfgate does differently, for --help. */
  readonly note?: string;
}

type Spec<T extends FlagType> = FlagSpec & { readonly type: T };
/** Honoured; `note`: what tfgate does differently. */
const acted = <T extends FlagType>(type: T, def: FlagDefault, help: string, note?: string): Spec<T> => ({
  type,
  default: def,
  help,
  handling: { kind: 'honoured' },
  ...(note ? { note } : {}),
});
/** Refused when given a value other than its default; `why` is said in the refusal. */
const refusedFlag = <T extends FlagType>(type: T, def: FlagDefault, help: string, why: string): Spec<T> => ({
  type,
  default: def,
  help,
  handling: refused(why),
});
/** Honoured or refused once the runtime is chosen (session_config.ts checkEngineForRuntime). */
const runtimeFlag = <T extends FlagType>(type: T, def: FlagDefault, help: string, how: string): Spec<T> => ({
  type,
  default: def,
  help,
  handling: byRuntime(how),
});
/** Accepted; given, it is logged once with `why`. */
const harmlessFlag = <T extends FlagType>(type: T, def: FlagDefault, help: string, why: string): Spec<T> => ({
  type,
  default: def,
  help,
  handling: harmless(why),
});
const own = <T extends FlagType>(type: T, def: FlagDefault, help: string): Spec<T> => ({
  type,
  default: def,
  help,
  handling: { kind: 'honoured' },
  own: true,
});

const cpus = cpuCount();
const DEFAULT_REST_API_PORT = 8501;
const DEFAULT_REPOSITORY_DIR = 'model_repository';
const RUNTIMES = ['auto', 'onnx', 'onnx-cuda', 'wasm', 'cpu', 'tfjs-node', 'tfjs-node-gpu'] as const;
export type RuntimeChoice = (typeof RUNTIMES)[number];
const VERIFY_ON_LOAD_MODES = ['auto', 'true', 'false'] as const;
type VerifyOnLoadMode = (typeof VERIFY_ON_LOAD_MODES)[number];
/** Verification loads the version a second time and runs it once on the slowest engine: about as long as the load itself (bench:verify). */
const VERIFY_ON_LOAD_DEFAULT_MAX_MB = 64;
/** load_bounds.ts' defaults (config imports nothing else: the values are repeated there). */
const LOAD_MEMORY_FLOOR_MB = 256;
const LOAD_TIMEOUT_SECONDS = 120;

/** The flag table, in main.cc's order, then tfgate's own flags. */
export const FLAGS = {
  port: acted(
    'int32',
    8500,
    'TCP port to listen on for gRPC/HTTP API. Disabled if port set to zero.',
    'gRPC: PredictionService, ModelService (and Health with --enable_grpc_healthcheck_service)',
  ),
  grpc_socket_path: acted(
    'string',
    '',
    'If non-empty, listen to a UNIX socket for gRPC API on the given path. Can be either relative or absolute path.',
  ),
  rest_api_port: acted(
    'int32',
    DEFAULT_REST_API_PORT,
    'Port to listen on for HTTP/REST API. If set to zero HTTP/REST API will not be exported. This port must be different than the one specified in --port.',
    'tfgate default 8501 (TF Serving: 0)',
  ),
  rest_api_num_threads: harmlessFlag(
    'int32',
    4 * cpus,
    'Number of threads for HTTP/REST API processing. If not set, will be auto set based on number of CPUs.',
    'Node serves HTTP on its event loop; model execution threads are --num_executors',
  ),
  rest_api_timeout_in_ms: acted('int32', 30000, 'Timeout for HTTP/REST API calls.'),
  rest_api_enable_cors_support: acted('bool', false, 'Enable CORS headers in response'),
  enable_batching: acted('bool', false, 'enable batching'),
  allow_version_labels_for_unavailable_models: acted(
    'bool',
    false,
    'If true, allows assigning unused version labels to models that are not available yet.',
  ),
  batching_parameters_file: acted(
    'string',
    '',
    'If non-empty, read an ascii BatchingParameters protobuf from the supplied file name and use the contained values instead of the defaults.',
  ),
  enable_per_model_batching_parameters: acted(
    'bool',
    false,
    'Enables model specific batching params like batch sizes, timeouts, batching feature flags to be read from `batching_params.pbtxt` file present in SavedModel dir of the model. Associated params in the global config from --batching_parameters_file are *ignored*. Only threadpool (name and size) related params are used from the global config, as this threadpool is shared across all the models that want to batch requests. This option is only applicable when --enable_batching flag is set.',
  ),
  model_config_file: acted(
    'string',
    '',
    'If non-empty, read an ascii ModelServerConfig protobuf from the supplied file name, and serve the models in that file. This config file can be used to specify multiple models to serve and other advanced parameters including non-default version policy. (If used, --model_name, --model_base_path are ignored.)',
    "relative base paths resolve against the file's folder; s3://bucket/file and gs://bucket/file are read from the bucket (see --model_cache_dir)",
  ),
  model_config_file_poll_wait_seconds: acted(
    'int32',
    0,
    'Interval in seconds between each poll of the filesystem for model_config_file. If unset or set to zero, poll will be done exactly once and not periodically. Setting this to negative is reserved for testing purposes only.',
    'also applies to --config',
  ),
  model_name: acted('string', 'default', 'name of model (ignored if --model_config_file flag is set)'),
  model_base_path: acted(
    'string',
    '',
    'path to export (ignored if --model_config_file flag is set, otherwise required)',
    'a local path, s3://bucket/prefix or gs://bucket/prefix (other schemes are refused); without any model flag tfgate serves ./model_repository',
  ),
  num_load_threads: acted(
    'int32',
    0,
    "The number of threads in the thread-pool used to load servables. If set as 0, we don't use a thread-pool, and servable loads are performed serially in the manager's main work loop, may casue the Serving request to be delayed. Default: 0",
    'at most N version loads run at once; 0: one at a time, as TF Serving (loads run in a probe process and on executor threads, never on the main loop)',
  ),
  num_unload_threads: harmlessFlag(
    'int32',
    0,
    "The number of threads in the thread-pool used to unload servables. If set as 0, we don't use a thread-pool, and servable loads are performed serially in the manager's main work loop, may casue the Serving request to be delayed. Default: 0",
    'unloading only releases executor threads',
  ),
  max_num_load_retries: acted(
    'int32',
    5,
    'maximum number of times it retries loading a model after the first failure, before giving up. If set to 0, a load is attempted only once. Default: 5',
  ),
  load_retry_interval_micros: acted(
    'int64',
    60_000_000,
    "The interval, in microseconds, between each servable load retry. If set negative, it doesn't wait. Default: 1 minute",
  ),
  file_system_poll_wait_seconds: acted(
    'int32',
    1,
    'Interval in seconds between each poll of the filesystem for new model version. If set to zero poll will be exactly done once and not periodically. Setting this to negative value will disable polling entirely causing ModelServer to indefinitely wait for a new model at startup. Negative values are reserved for testing purposes only.',
  ),
  flush_filesystem_caches: harmlessFlag(
    'bool',
    true,
    'If true (the default), filesystem caches will be flushed after the initial load of all servables, and after each subsequent individual servable reload (if the number of load threads is 1). This reduces memory consumption of the model server, at the potential cost of cache misses if model files are accessed after servables are loaded.',
    'tfgate keeps no file-system caches to flush',
  ),
  tensorflow_session_parallelism: acted(
    'int64',
    0,
    'Number of threads to use for running a Tensorflow session. Auto-configured by default.Note that this option is ignored if --platform_config_file is non-empty.',
    'sets intra and inter together (below); refused beside either of them',
  ),
  tensorflow_session_config_file: acted(
    'string',
    '',
    'If non-empty, read an ascii TensorFlow Session ConfigProto protobuf from the supplied file name. Note, parts of the session config (threads, parallelism etc.) can be overridden if needed, via corresponding command line flags.',
    'a ConfigProto text proto read field by field: thread counts and GPU options honoured or refused by the runtime, the rest refused or harmless by name; a missing file stops start-up. Its values stand unless a flag sets them (TF Serving lets the flags overwrite them)',
  ),
  tensorflow_intra_op_parallelism: acted(
    'int64',
    0,
    'Number of threads to use to parallelize the executionof an individual op. Auto-configured by default.Note that this option is ignored if --platform_config_file is non-empty.',
    'threads per op: ONNX Runtime intraOpNumThreads per session (one per executor thread), libtensorflow TF_NUM_INTRAOP_THREADS; the embedded runtime runs an op on one thread. 0: tfgate default (1 per executor under load, every core for a lone request on ONNX Runtime); set, it holds for every executor',
  ),
  tensorflow_inter_op_parallelism: acted(
    'int64',
    0,
    'Controls the number of operators that can be executed simultaneously. Auto-configured by default.Note that this option is ignored if --platform_config_file is non-empty.',
    'ops at once: ONNX Runtime interOpNumThreads (parallel mode above 1), libtensorflow TF_NUM_INTEROP_THREADS; the embedded runtime runs ops one at a time. 0: tfgate default (1); set, the intra-op default is 1 on every executor',
  ),
  use_alts_credentials: refusedFlag(
    'bool',
    false,
    'Use Google ALTS credentials',
    "tfgate's gRPC library (grpc-js) has no ALTS credentials; use --ssl_config_file for TLS (mutual TLS with client_verify)",
  ),
  ssl_config_file: acted(
    'string',
    '',
    'If non-empty, read an ascii SSLConfig protobuf from the supplied file name and set up a secure gRPC channel',
    'gRPC port and socket; --rest_api_ssl_config_file for HTTPS on the REST port',
  ),
  platform_config_file: acted(
    'string',
    '',
    'If non-empty, read an ascii PlatformConfigMap protobuf from the supplied file name, and use that platform config instead of the Tensorflow platform. (If used, --enable_batching is ignored.)',
    'the tensorflow platform: SavedModelBundleSourceAdapterConfig legacy_config (batching_parameters, session_config, saved_model_tags, warmup …) replaces those flags, which are refused beside it; unsupported fields refused by name',
  ),
  per_process_gpu_memory_fraction: runtimeFlag(
    'float',
    0,
    'Fraction that each process occupies of the GPU memory space the value is between 0.0 and 1.0 (with 0.0 as the default) If 1.0, the server will allocate all the memory when the server starts, If 0.0, Tensorflow will automatically select a value.',
    'refused with --runtime onnx-cuda or tfjs-node-gpu (onnxruntime-node cannot set the CUDA provider gpu_mem_limit; tfjs-node takes no ConfigProto); with a runtime that uses no GPU it caps nothing and is logged',
  ),
  saved_model_tags: acted('string', 'serve', 'Comma-separated set of tags corresponding to the meta graph def to load from SavedModel.'),
  grpc_channel_arguments: acted(
    'string',
    '',
    'A comma separated list of arguments to be passed to the grpc server. (e.g. grpc.max_connection_age_ms=2000)',
    'key=value pairs given to @grpc/grpc-js (integers as numbers), e.g. grpc.max_receive_message_length',
  ),
  grpc_max_threads: harmlessFlag(
    'int32',
    4 * cpus,
    'Max grpc server threads to handle grpc messages.',
    'grpc-js handles messages on the event loop; inference runs on executor threads (--num_executors)',
  ),
  enable_model_warmup: acted(
    'bool',
    true,
    'Enables model warmup, which triggers lazy initializations (such as TF optimizations) at load time, to reduce first request latency.',
  ),
  num_request_iterations_for_warmup: acted(
    'int32',
    0,
    'Number of times a request is iterated during warmup replay. This value is used only if > 0.',
  ),
  version: acted('bool', false, 'Display version'),
  monitoring_config_file: acted('string', '', 'If non-empty, read an ascii MonitoringConfig protobuf from the supplied file name'),
  remove_unused_fields_from_bundle_metagraph: harmlessFlag(
    'bool',
    true,
    'Removes unused fields from MetaGraphDef proto message to save memory.',
    'a memory saving; tfgate keeps only what it runs anyway',
  ),
  prefer_tflite_model: refusedFlag(
    'bool',
    false,
    'EXPERIMENTAL; CAN BE REMOVED ANYTIME! Prefer TensorFlow Lite model from `model.tflite` file in SavedModel directory, instead of the TensorFlow model from `saved_model.pb` file. If no TensorFlow Lite model found, fallback to TensorFlow model.',
    'no engine here runs TensorFlow Lite models (@tensorflow/tfjs-tflite is browser-only: it needs window/self, script loading and web workers)',
  ),
  num_tflite_pools: harmlessFlag(
    'int32',
    cpus,
    'EXPERIMENTAL; CAN BE REMOVED ANYTIME! Number of TFLite interpreters in an interpreter pool of TfLiteSession. Typically there is one TfLiteSession for each TF Lite model that is loaded. If not set, will be auto set based on number of CPUs.',
    'no TFLite (--prefer_tflite_model is refused)',
  ),
  num_tflite_interpreters_per_pool: harmlessFlag(
    'int32',
    1,
    'EXPERIMENTAL; CAN BE REMOVED ANYTIME! Number of TFLite interpreters in an interpreter pool of TfLiteSession. Typically there is one TfLiteSession for each TF Lite model that is loaded. If not set, will be 1.',
    'no TFLite (--prefer_tflite_model is refused)',
  ),
  enable_signature_method_name_check: acted(
    'bool',
    false,
    'Enable method_name check for SignatureDef. Disable this if serving native TF2 regression/classification models.',
  ),
  xla_cpu_compilation_enabled: harmlessFlag(
    'bool',
    false,
    'EXPERIMENTAL; CAN BE REMOVED ANYTIME! Enable XLA:CPU JIT (default is disabled). With XLA:CPU JIT disabled, models utilizing this feature will return bad Status on first compilation request.',
    'XLA JIT is a TF compiler; tfgate engines run such graphs without it',
  ),
  xla_gpu_compilation_enabled: harmlessFlag(
    'bool',
    false,
    'EXPERIMENTAL; CAN BE REMOVED ANYTIME! Enable both XLA:CPU JIT and XLA:GPU JIT (default is disabled).',
    'XLA JIT is a TF compiler; tfgate engines run such graphs without it',
  ),
  enable_profiler: harmlessFlag('bool', true, 'Enable profiler service.', 'tfgate serves no TF profiler service; nothing else changes'),
  thread_pool_factory_config_file: refusedFlag(
    'string',
    '',
    'If non-empty, read an ascii ThreadPoolConfig protobuf from the supplied file name.',
    'no custom thread pools here (TF Serving open-source binary registers no factory either, and fails on such a file)',
  ),
  mixed_precision: refusedFlag(
    'string',
    '',
    'specify mixed_precision mode',
    'tfgate runs a model in the precision it was saved in; bfloat16 auto mixed precision would change its answers',
  ),
  skip_initialize_tpu: harmlessFlag('bool', false, 'Whether to skip auto initializing TPU.', 'no TPU here'),
  enable_grpc_healthcheck_service: acted('bool', false, 'Enable the standard gRPC healthcheck service.'),
  enable_serialization_as_tensor_content: acted(
    'bool',
    false,
    'Enable serialization of predict response as tensor content.',
    'gRPC PredictResponse outputs (REST answers JSON)',
  ),
  // ---- tfgate's own ----
  rest_api_host: own('string', '0.0.0.0', 'Address the HTTP/REST API binds to.'),
  grpc_api_host: own(
    'string',
    '0.0.0.0',
    'Address the gRPC API (--port) binds to, e.g. 127.0.0.1 to take calls from this machine only. TF Serving always binds 0.0.0.0 (its --port takes only a number).',
  ),
  rest_api_ssl_config_file: own(
    'string',
    '',
    'If non-empty, serve the HTTP/REST API over HTTPS with the ascii SSLConfig protobuf in the supplied file (the format of --ssl_config_file; may be the same file): server_key and server_cert; with client_verify, only clients with a certificate signed by custom_ca (mutual TLS).',
  ),
  rest_max_connections: own(
    'int32',
    0,
    'Most HTTP/REST connections open at once; a connection past it is closed as soon as it is accepted. 0: the open-file limit (ulimit -n) minus 256 descriptors kept for model files, threads and gRPC, between 16 and 16384.',
  ),
  enable_reload_config_request: own(
    'bool',
    true,
    'Serve ModelService.HandleReloadConfigRequest (TF Serving always does): any gRPC client may then load models from any path the server can read, or unload every model. false: it answers UNIMPLEMENTED. Turn it off, or firewall --port, where clients are not trusted.',
  ),
  reload_config_allowed_base_paths: own(
    'string',
    '',
    'Comma-separated directories (or URI prefixes): a HandleReloadConfigRequest naming a base_path outside all of them is refused with INVALID_ARGUMENT before the file system is touched. Empty: any path.',
  ),
  runtime: own(
    'string',
    'auto',
    'Runtime that executes models: auto (tfjs-node-gpu, else tfjs-node, else ONNX Runtime with each signature it cannot run on wasm) | onnx | onnx-cuda (ONNX Runtime only: a signature it cannot run is refused) | wasm | cpu (the embedded runtime) | tfjs-node | tfjs-node-gpu (libtensorflow).',
  ),
  config: own(
    'string',
    '',
    'A YAML file with the model config (the content of --model_config_file in YAML, plus optional batching: and monitoring_config: sections). Not together with --model_config_file.',
  ),
  batching_mode: own('string', 'fixed', `Batching mode of models whose batching parameters do not set one: ${batchingModesHelp()}.`),
  batching_latency_target_ms: own(
    'int64',
    0,
    'Adaptive batching: per-request latency target (ms) of models that do not set latency_target_ms; requests predicted to miss it get 503 with Retry-After. 0: none.',
  ),
  dry_run: own(
    'bool',
    false,
    'Parse the flags, read every config file (model config, batching parameters, monitoring config), pick the runtime, print the resulting settings as JSON on stdout and exit: 0 when the server would start, 1 (config) or 2 (flags) when it would not. Loads no model.',
  ),
  batching_parameters_poll_wait_seconds: own(
    'int32',
    1,
    'How often (seconds) --batching_parameters_file is checked for edits; an edit applies to the next batches without a restart, a bad edit is logged and refused. 0: read once at start-up.',
  ),
  access_log: own('bool', false, 'Log every HTTP request (method, path, status, milliseconds) as a JSON line on stderr.'),
  shutdown_drain_seconds: own(
    'int32',
    30,
    'On SIGTERM/SIGINT: how long requests already received may take to be answered before tfgate exits anyway (a second signal exits at once).',
  ),
  // One executor per core, as TF Serving sizes num_batch_threads: under load each runs one
  // request (or batch) on one intra-op thread; a lone request runs on a wide thread beside
  // them (executors/core_sizing.ts).
  num_executors: own(
    'int32',
    cpus,
    'Executor threads per loaded model version (default: one per core, as num_batch_threads; on ONNX Runtime a lone request on a version larger than --shared_executors_max_mb runs on one more thread whose sessions use every core, unless thread counts are set); versions up to --shared_executors_max_mb share one such set.',
  ),
  shared_executors_max_mb: own(
    'int64',
    16,
    'Model versions up to this size on disk (MB) share one set of --num_executors executor threads (each thread holds its own copy of each); larger ones get threads of their own. 0: every version gets its own.',
  ),
  enable_load_probe: own(
    'bool',
    true,
    'Load, warm up, check (--verify_on_load) and run each model version once in a separate, disposable probe process before it loads into the serving executors: a load that crashes or never ends takes down the probe, never the versions that serve.',
  ),
  verify_on_load: own(
    'string',
    'auto',
    'Before a version serves, run each signature once on a second, independent engine (ONNX Runtime against WASM, WASM against the plain-JS CPU backend) and refuse a signature whose answers differ, naming the first differing node: true | false | auto (true for versions up to --verify_on_load_max_mb).',
  ),
  verify_on_load_max_mb: own(
    'int64',
    VERIFY_ON_LOAD_DEFAULT_MAX_MB,
    'With --verify_on_load=auto: the largest version (MB on disk) that is verified.',
  ),
  load_memory_floor_mb: own(
    'int64',
    LOAD_MEMORY_FLOOR_MB,
    "A version's load (conversion, constant folding, verification, warmup) may make tensors of at most max(this, 4 × the version's size on disk), one tensor and those alive at once; a graph whose known sizes exceed it is refused before they are allocated (RESOURCE_EXHAUSTED naming the op and node).",
  ),
  load_timeout_seconds: own(
    'int32',
    LOAD_TIMEOUT_SECONDS,
    "How long a version's load may take, plus one second per 4 MB on disk; then it fails with DEADLINE_EXCEEDED and its executor threads are stopped. 0: no bound (TF Serving has none).",
  ),
  max_request_body_bytes: own('int64', 64 * 1024 * 1024, 'Largest request body accepted (413 above it).'),
  json_max_depth: own('int32', 64, 'Deepest JSON nesting accepted in a request (400 above it).'),
  json_max_elements: own('int64', 16 * 1024 * 1024, 'Most JSON values (list items + object members) accepted in a request (400 above it).'),
  max_inflight_request_bytes: own(
    'int64',
    0,
    'Memory that requests in flight may make the server hold (bodies, parsed JSON, decoded tensors, over REST and gRPC together); a request that would pass it is refused at once (REST 503, gRPC RESOURCE_EXHAUSTED). 0: a quarter of the V8 heap limit.',
  ),
  max_executor_queue: own(
    'int32',
    128,
    'Requests that may wait for the executor threads of one model version (not counting those already handed to them); more are refused at once (REST 503, gRPC UNAVAILABLE), as batching refuses past max_enqueued_batches.',
  ),
  request_log_file_max_bytes: own(
    'int64',
    128 * 1024 * 1024,
    "Request logging (a model's logging_config): a log file is closed and the next one begun before a record would take it past this size.",
  ),
  request_log_queue_max_bytes: own(
    'int64',
    32 * 1024 * 1024,
    'Request logging: sampled records waiting to be written hold at most this much memory; while the disk is slower than that, more are dropped (tfgate_request_log_dropped_total), never waited for.',
  ),
  model_cache_dir: own(
    'string',
    '',
    "Folder under which versions served from s3:// or gs:// are downloaded before they load (each server makes its own tfgate-models-* folder in it, removed at shutdown; a version's copy is removed when it unloads). Empty: the system temporary folder (TMPDIR, else /tmp).",
  ),
  model_cache_max_mb: own(
    'int64',
    0,
    "Most MB that the downloaded copies of s3:// and gs:// versions may take together; a version that would pass it fails to load, saying so. 0: no bound but the free space of the cache folder's disk, which is always checked.",
  ),
  help: own('bool', false, 'Print this help and exit.'),
} satisfies Record<string, FlagSpec>;

export type FlagName = keyof typeof FLAGS;
type ValueOf<T extends FlagType> = T extends 'bool' ? boolean : T extends 'string' ? string : number;
type FlagValues = { readonly [K in FlagName]: ValueOf<(typeof FLAGS)[K]['type']> };

export interface ParsedFlags {
  readonly values: FlagValues;
  /** Flags given explicitly on the command line. */
  readonly given: ReadonlySet<FlagName>;
}

const TABLE = FLAGS as Record<string, FlagSpec>;
const hasFlag = (name: string): boolean => Object.prototype.hasOwnProperty.call(TABLE, name);

const INT_LIMITS = { int32: [-(2 ** 31), 2 ** 31 - 1], int64: [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER] } as const;

function convert(name: string, spec: FlagSpec, raw: string): FlagDefault {
  const illegal = (kind: string, why = ''): never => {
    throw new FlagError(`Illegal value '${raw}' specified for ${kind} flag '${name}'${why}`, name);
  };
  switch (spec.type) {
    case 'bool':
      if (/^(true|1)$/i.test(raw)) return true;
      if (/^(false|0)$/i.test(raw)) return false;
      return illegal('bool');
    case 'int32':
    case 'int64': {
      // sscanf("%d%c"): leading blanks and a sign allowed, nothing after the digits.
      if (!/^\s*[-+]?\d+$/.test(raw)) return illegal('int');
      const v = Number(raw.trim());
      const [lo, hi] = INT_LIMITS[spec.type];
      if (!(v >= lo && v <= hi)) illegal('int', ` (out of ${spec.type === 'int32' ? 'int32' : "tfgate's int64"} range ${lo}..${hi})`);
      return v;
    }
    case 'float': {
      if (!/^\s*[-+]?(\d+\.?\d*([eE][-+]?\d+)?|\.\d+([eE][-+]?\d+)?|inf(inity)?|nan)$/i.test(raw)) return illegal('float');
      const t = raw.trim().toLowerCase().replace(/^\+/, '');
      if (/^-?inf/.test(t)) return t.startsWith('-') ? -Infinity : Infinity;
      return t.endsWith('nan') ? NaN : Number(t);
    }
    case 'string':
      return raw;
  }
}

/** Parses argv (without node and script) into flag values; throws FlagError naming the flag. */
export function parseFlags(argv: readonly string[]): ParsedFlags {
  const values: Record<string, FlagDefault> = Object.fromEntries(Object.entries(TABLE).map(([k, s]) => [k, s.default]));
  const given = new Set<FlagName>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '-h') {
      values.help = true;
      given.add('help');
      continue;
    }
    const m = /^--([A-Za-z0-9_]+)(?:=([\s\S]*))?$/.exec(arg);
    if (!m) {
      if (/^-[A-Za-z]/.test(arg))
        throw new FlagError(`Unknown command line flag '${arg}': flags start with --`, arg.replace(/^-+/, '').split('=')[0]);
      throw new FlagError(`Unexpected command line argument '${arg}'`);
    }
    const name = m[1];
    let raw = m[2];
    if (!hasFlag(name)) {
      const negated = name.startsWith('no') && hasFlag(name.slice(2)) && TABLE[name.slice(2)].type === 'bool';
      throw new FlagError(
        `Unknown command line flag '${name}'${negated ? ` (booleans are turned off with --${name.slice(2)}=false)` : ''}`,
        name,
      );
    }
    const spec = TABLE[name];
    if (raw === undefined) {
      if (spec.type === 'bool') raw = 'true';
      else if (i + 1 < argv.length && !argv[i + 1].startsWith('--')) raw = argv[++i];
      else throw new FlagError(`Missing value for flag '${name}' (--${name}=VALUE or --${name} VALUE)`, name);
    }
    values[name] = convert(name, spec, raw);
    given.add(name as FlagName);
  }
  return Object.freeze({ values: Object.freeze(values) as unknown as FlagValues, given });
}

// ---- what the server runs with ----

type ModelSource =
  | { readonly kind: 'model_config_file'; readonly file: string; readonly pollWaitSeconds: number }
  | { readonly kind: 'yaml_config'; readonly file: string; readonly pollWaitSeconds: number }
  | { readonly kind: 'single_model'; readonly name: string; readonly basePath: string }
  /** No model flag at all: every folder of ./model_repository is a model (tfgate's default). */
  | { readonly kind: 'default_repository'; readonly dir: string };

/** The command line resolved: camelCase keys, units in the names, paths absolute. */
export interface ServerOptions {
  readonly restApiHost: string;
  /** > 0 (0 is refused: nothing would be served). */
  readonly restApiPort: number;
  readonly restApiTimeoutMs: number;
  readonly restApiEnableCors: boolean;
  /** --port: gRPC (PredictionService, ModelService) on this TCP port; 0 leaves it off. */
  readonly grpcPort: number;
  readonly grpcSocketPath: string;
  /** --grpc_api_host: the address --port binds to. */
  readonly grpcHost: string;
  /** --rest_max_connections resolved (0 became the default from the open-file limit). */
  readonly restMaxConnections: number;
  /** HandleReloadConfigRequest: whether it is served, and the base paths it may name (empty: any). */
  readonly reloadConfigRequest: { readonly enabled: boolean; readonly allowedBasePaths: readonly string[] };
  /** --ssl_config_file (absolute): gRPC over TLS with this SSLConfig; null: plaintext. */
  readonly sslConfigFile: string | null;
  /** --rest_api_ssl_config_file (absolute): HTTPS on the REST port with this SSLConfig; null: HTTP. */
  readonly restApiSslConfigFile: string | null;
  /** --grpc_channel_arguments as grpc-js server options. */
  readonly grpcChannelArguments: Readonly<Record<string, string | number>>;
  readonly enableGrpcHealthcheck: boolean;
  /** --enable_serialization_as_tensor_content: gRPC outputs as raw bytes, not typed *_val fields. */
  readonly serializeAsTensorContent: boolean;
  readonly modelSource: ModelSource;
  /** <= 0: poll once (0) or never (negative), as TF Serving. */
  readonly fileSystemPollWaitSeconds: number;
  readonly savedModelTags: readonly string[];
  readonly numLoadThreads: number;
  readonly maxNumLoadRetries: number;
  /** Negative: retry without waiting. */
  readonly loadRetryIntervalMicros: number;
  readonly allowVersionLabelsForUnavailableModels: boolean;
  readonly enableModelWarmup: boolean;
  readonly numRequestIterationsForWarmup: number;
  readonly enableSignatureMethodNameCheck: boolean;
  readonly batching: {
    readonly enabled: boolean;
    /** Absolute path of --batching_parameters_file, or null for the defaults. */
    readonly parametersFile: string | null;
    readonly perModel: boolean;
    /** --batching_mode: the mode of models whose parameters set none. */
    readonly mode: BatchingMode;
    /** --batching_latency_target_ms; 0: none. */
    readonly latencyTargetMs: number;
    /** --batching_parameters_poll_wait_seconds: how often the file is checked for edits (0: never). */
    readonly pollWaitSeconds: number;
    /** The parameters themselves, when a --platform_config_file gave them (then parametersFile is null). */
    readonly parameters?: BatchingParameters;
  };
  /** Absolute path of --monitoring_config_file, or null. */
  readonly monitoringConfigFile: string | null;
  readonly runtime: RuntimeChoice;
  readonly numExecutors: number;
  /** --shared_executors_max_mb in bytes: versions up to it share executor threads (0: none). */
  readonly sharedExecutorsMaxBytes: number;
  /** --enable_load_probe: each version loads in a probe process before the serving executors. */
  readonly enableLoadProbe: boolean;
  /** --verify_on_load: check each signature on a second engine before the version serves. */
  readonly verifyOnLoad: { readonly mode: VerifyOnLoadMode; readonly maxBytes: number };
  /** --load_memory_floor_mb, --load_timeout_seconds: a load's bounds (savedmodel/load_bounds.ts). */
  readonly loadBounds: { readonly memoryFloorMb: number; readonly timeoutSeconds: number };
  /** --access_log: one log line per HTTP request. */
  readonly accessLog: boolean;
  /** --dry_run: check the configuration and exit. */
  readonly dryRun: boolean;
  /** SIGTERM/SIGINT: the longest drain before exiting anyway. */
  readonly shutdownDrainSeconds: number;
  readonly limits: {
    readonly maxRequestBodyBytes: number;
    readonly jsonMaxDepth: number;
    readonly jsonMaxElements: number;
    /** --max_inflight_request_bytes resolved (0 became a quarter of the heap limit). */
    readonly maxInflightRequestBytes: number;
    /** --max_executor_queue. */
    readonly maxExecutorQueue: number;
  };
  /** Request logging's files and queue (--request_log_file_max_bytes, --request_log_queue_max_bytes). */
  readonly requestLog: { readonly maxFileBytes: number; readonly maxQueuedBytes: number };
  /** Where s3:// and gs:// versions are downloaded before they load, and the most their copies may take (0: free space only). */
  readonly modelCache: { readonly dir: string; readonly maxBytes: number };
  /** Thread counts and GPU options for the engines (flags, then --tensorflow_session_config_file or the platform config). */
  readonly engine: EngineSettings;
  /** Absolute path of --platform_config_file, or null (read by server/engine_config_files.ts). */
  readonly platformConfigFile: string | null;
  /** Absolute path of --tensorflow_session_config_file, or null. */
  readonly sessionConfigFile: string | null;
  /** Harmless settings given (flags, then fields of the files), one start-up line each. */
  readonly harmlessSettingsGiven: readonly HarmlessSetting[];
}

/** Flags TF Serving ignores when --platform_config_file is given (server.cc builds the platform config from them only without one). */
const REPLACED_BY_PLATFORM_CONFIG: ReadonlyArray<[FlagName, string]> = [
  ['enable_batching', 'batching_parameters'],
  ['batching_parameters_file', 'batching_parameters'],
  ['enable_per_model_batching_parameters', 'enable_per_model_batching_params'],
  ['tensorflow_session_config_file', 'session_config'],
  ['per_process_gpu_memory_fraction', 'session_config.gpu_options.per_process_gpu_memory_fraction'],
  ['tensorflow_session_parallelism', 'session_config.intra_op_parallelism_threads and inter_op_parallelism_threads'],
  ['tensorflow_intra_op_parallelism', 'session_config.intra_op_parallelism_threads'],
  ['tensorflow_inter_op_parallelism', 'session_config.inter_op_parallelism_threads'],
  ['saved_model_tags', 'saved_model_tags'],
  ['enable_model_warmup', 'enable_model_warmup'],
  ['num_request_iterations_for_warmup', 'model_warmup_options.num_request_iterations'],
  ['prefer_tflite_model', 'prefer_tflite_model'],
  ['mixed_precision', 'mixed_precision'],
];

/** Refuses every `refused` flag given a value other than its default, naming it and why. */
function refuseRefusedFlags(v: FlagValues): void {
  for (const [name, spec] of Object.entries(TABLE)) {
    const value = (v as Record<string, FlagDefault>)[name];
    if (spec.handling.kind === 'refused' && value !== spec.default) {
      throw new FlagError(`--${name}=${String(value)} is refused: ${spec.handling.why}`, name);
    }
  }
}

/**
 * The engines' thread counts and GPU memory fraction from the flags, as server.cc combines
 * them (intra/inter, else session_parallelism for both). Stricter than TF Serving: the
 * session flag beside either of the others is refused (TF Serving drops it silently unless
 * all three are set), and so are negative counts.
 */
function engineFromFlags(v: FlagValues, bad: (name: FlagName, why: string) => never): EngineSettings {
  const intra = v.tensorflow_intra_op_parallelism;
  const inter = v.tensorflow_inter_op_parallelism;
  const session = v.tensorflow_session_parallelism;
  for (const name of ['tensorflow_intra_op_parallelism', 'tensorflow_inter_op_parallelism', 'tensorflow_session_parallelism'] as const)
    if (v[name] < 0) bad(name, 'must not be negative');
  if (session > 0 && (intra > 0 || inter > 0)) {
    throw new FlagError(
      'Either configure server_options.tensorflow_session_parallelism or (server_options.tensorflow_intra_op_parallelism, server_options.tensorflow_inter_op_parallelism) separately. You cannot configure all. (--tensorflow_session_parallelism sets both)',
      'tensorflow_session_parallelism',
    );
  }
  const fraction = v.per_process_gpu_memory_fraction;
  if (!(fraction >= 0 && fraction <= 1)) bad('per_process_gpu_memory_fraction', 'must be between 0.0 and 1.0');
  const threadsFrom =
    session > 0
      ? `--tensorflow_session_parallelism=${session}`
      : intra > 0 || inter > 0
        ? `--tensorflow_intra_op_parallelism=${intra} --tensorflow_inter_op_parallelism=${inter}`
        : undefined;
  return Object.freeze({
    ...DEFAULT_ENGINE_SETTINGS,
    intraOpThreads: session > 0 ? session : intra,
    interOpThreads: session > 0 ? session : inter,
    gpuMemoryFraction: fraction,
    from: Object.freeze({
      ...(threadsFrom && { threads: threadsFrom }),
      ...(fraction > 0 && { gpuMemoryFraction: `--per_process_gpu_memory_fraction=${fraction}` }),
    }),
  });
}

/** Applies how server.cc combines the flags, and tfgate's checks; throws FlagError naming the flag. */
export function resolveServerOptions(flags: ParsedFlags, cwd: string = process.cwd()): ServerOptions {
  const v = flags.values;
  const bad = (name: FlagName, why: string): never => {
    throw new FlagError(`Illegal value '${String(v[name])}' for flag '${name}': ${why}`, name);
  };
  if (!(RUNTIMES as readonly string[]).includes(v.runtime)) bad('runtime', `expected ${RUNTIMES.join(', ')}`);
  if (!isBatchingMode(v.batching_mode)) bad('batching_mode', `expected ${BATCHING_MODE_NAMES.join(' or ')}`);
  if (!(VERIFY_ON_LOAD_MODES as readonly string[]).includes(v.verify_on_load))
    bad('verify_on_load', `expected ${VERIFY_ON_LOAD_MODES.join(', ')}`);
  if (v.verify_on_load_max_mb < 0) bad('verify_on_load_max_mb', 'must not be negative');
  if (v.load_memory_floor_mb < 1) bad('load_memory_floor_mb', 'must be at least 1');
  if (v.load_timeout_seconds < 0) bad('load_timeout_seconds', 'must not be negative');
  if (v.batching_latency_target_ms < 0) bad('batching_latency_target_ms', 'must not be negative');
  if (v.batching_latency_target_ms > 0 && v.batching_mode === 'fixed') {
    bad(
      'batching_latency_target_ms',
      "read by adaptive batching only, and --batching_mode is fixed (a model's batching section with mode: adaptive takes its own latency_target_ms)",
    );
  }
  for (const name of ['port', 'rest_api_port'] as const) if (v[name] < 0 || v[name] > 65535) bad(name, 'not a port number');
  if (v.rest_api_port === 0 && v.port === 0 && !v.grpc_socket_path)
    bad('rest_api_port', '0 disables the HTTP/REST API, and --port=0 with no --grpc_socket_path disables gRPC: nothing would be served');
  const grpcChannelArguments = parseChannelArguments(v.grpc_channel_arguments, bad);
  if (v.rest_api_timeout_in_ms <= 0) bad('rest_api_timeout_in_ms', 'must be positive');
  for (const name of [
    'num_executors',
    'max_request_body_bytes',
    'json_max_depth',
    'json_max_elements',
    'max_executor_queue',
    'request_log_file_max_bytes',
    'request_log_queue_max_bytes',
  ] as const)
    if (v[name] < 1) bad(name, 'must be at least 1');
  if (v.rest_max_connections < 0) bad('rest_max_connections', 'must not be negative (0: the default from the open-file limit)');
  if (!v.grpc_api_host.trim()) bad('grpc_api_host', 'empty');
  for (const name of [
    'max_inflight_request_bytes',
    'model_cache_max_mb',
    'shared_executors_max_mb',
    'num_load_threads',
    'max_num_load_retries',
    'num_request_iterations_for_warmup',
    'shutdown_drain_seconds',
    'batching_parameters_poll_wait_seconds',
  ] as const)
    if (v[name] < 0) bad(name, 'must not be negative');

  if (v.batching_parameters_file && !v.enable_batching) {
    throw new FlagError(
      'server_options.batching_parameters_file is set without setting server_options.enable_batching to true. (--batching_parameters_file needs --enable_batching)',
      'batching_parameters_file',
    );
  }
  checkTransportSecurity(v);
  if (v.model_config_file && v.config)
    throw new FlagError("Flags 'model_config_file' and 'config' both give the model config: use one", 'config');
  refuseRefusedFlags(v);
  const engine = engineFromFlags(v, bad);
  if (v.platform_config_file) {
    const beside = REPLACED_BY_PLATFORM_CONFIG.find(([name]) => flags.given.has(name));
    if (beside) {
      const [name, field] = beside;
      throw new FlagError(
        `--${name} has no effect beside --platform_config_file (TF Serving ignores it then): set ${field} in the platform config's legacy_config instead`,
        name,
      );
    }
  }

  const abs = (p: string) => path.resolve(cwd, p);
  /** A model config file or base path: local, file://, s3:// or gs:// (storage_uri.ts); another scheme is refused by name. */
  const location = (name: FlagName, p: string): string => {
    const why = unsupportedLocation(p);
    if (why) bad(name, why);
    return resolveLocation(p, cwd);
  };
  /** A file only read from the local file system. */
  const localFile = (name: FlagName, p: string): string => {
    const scheme = uriScheme(p);
    if (scheme && scheme !== 'file')
      bad(name, `read from the local file system only (s3:// and gs:// are read for --model_config_file and model base paths)`);
    return resolveLocation(p, cwd);
  };
  let modelSource: ModelSource;
  if (v.model_config_file)
    modelSource = {
      kind: 'model_config_file',
      file: location('model_config_file', v.model_config_file),
      pollWaitSeconds: v.model_config_file_poll_wait_seconds,
    };
  else if (v.config)
    modelSource = { kind: 'yaml_config', file: localFile('config', v.config), pollWaitSeconds: v.model_config_file_poll_wait_seconds };
  else if (v.model_base_path)
    modelSource = { kind: 'single_model', name: v.model_name, basePath: location('model_base_path', v.model_base_path) };
  else if (flags.given.has('model_name')) {
    throw new FlagError(
      'Both server_options.model_base_path and server_options.model_config_file are empty! (--model_name needs --model_base_path)',
      'model_base_path',
    );
  } else modelSource = { kind: 'default_repository', dir: abs(DEFAULT_REPOSITORY_DIR) };

  const savedModelTags = v.saved_model_tags
    .split(',')
    .map((t) => t.trim())
    .filter(Boolean);
  if (!savedModelTags.length) bad('saved_model_tags', 'no tag given');

  return Object.freeze({
    restApiHost: v.rest_api_host,
    restApiPort: v.rest_api_port,
    restApiTimeoutMs: v.rest_api_timeout_in_ms,
    restApiEnableCors: v.rest_api_enable_cors_support,
    grpcPort: v.port,
    grpcSocketPath: v.grpc_socket_path && abs(v.grpc_socket_path),
    grpcHost: v.grpc_api_host.trim(),
    restMaxConnections: v.rest_max_connections || defaultMaxConnections(openFileSoftLimit()),
    sslConfigFile: v.ssl_config_file ? localFile('ssl_config_file', v.ssl_config_file) : null,
    restApiSslConfigFile: v.rest_api_ssl_config_file ? localFile('rest_api_ssl_config_file', v.rest_api_ssl_config_file) : null,
    reloadConfigRequest: Object.freeze({
      enabled: v.enable_reload_config_request,
      allowedBasePaths: Object.freeze(parseAllowedBasePaths(v.reload_config_allowed_base_paths, cwd)),
    }),
    grpcChannelArguments: Object.freeze(grpcChannelArguments),
    enableGrpcHealthcheck: v.enable_grpc_healthcheck_service,
    serializeAsTensorContent: v.enable_serialization_as_tensor_content,
    modelSource: Object.freeze(modelSource),
    fileSystemPollWaitSeconds: v.file_system_poll_wait_seconds,
    savedModelTags: Object.freeze(savedModelTags),
    // TF Serving's 0 loads one version at a time, in its manager's loop.
    numLoadThreads: Math.max(1, v.num_load_threads),
    maxNumLoadRetries: v.max_num_load_retries,
    loadRetryIntervalMicros: v.load_retry_interval_micros,
    allowVersionLabelsForUnavailableModels: v.allow_version_labels_for_unavailable_models,
    enableModelWarmup: v.enable_model_warmup,
    numRequestIterationsForWarmup: v.num_request_iterations_for_warmup,
    enableSignatureMethodNameCheck: v.enable_signature_method_name_check,
    batching: Object.freeze({
      enabled: v.enable_batching,
      parametersFile: v.batching_parameters_file ? localFile('batching_parameters_file', v.batching_parameters_file) : null,
      perModel: v.enable_per_model_batching_parameters,
      mode: v.batching_mode as BatchingMode,
      latencyTargetMs: v.batching_latency_target_ms,
      pollWaitSeconds: v.batching_parameters_poll_wait_seconds,
    }),
    monitoringConfigFile: v.monitoring_config_file ? localFile('monitoring_config_file', v.monitoring_config_file) : null,
    runtime: v.runtime as RuntimeChoice,
    numExecutors: v.num_executors,
    sharedExecutorsMaxBytes: v.shared_executors_max_mb * 1024 * 1024,
    enableLoadProbe: v.enable_load_probe,
    verifyOnLoad: Object.freeze({ mode: v.verify_on_load as VerifyOnLoadMode, maxBytes: v.verify_on_load_max_mb * 1024 * 1024 }),
    loadBounds: Object.freeze({ memoryFloorMb: v.load_memory_floor_mb, timeoutSeconds: v.load_timeout_seconds }),
    shutdownDrainSeconds: v.shutdown_drain_seconds,
    accessLog: v.access_log,
    dryRun: v.dry_run,
    limits: Object.freeze({
      maxRequestBodyBytes: v.max_request_body_bytes,
      jsonMaxDepth: v.json_max_depth,
      jsonMaxElements: v.json_max_elements,
      maxInflightRequestBytes: v.max_inflight_request_bytes || defaultInflightBudgetBytes(),
      maxExecutorQueue: v.max_executor_queue,
    }),
    requestLog: Object.freeze({ maxFileBytes: v.request_log_file_max_bytes, maxQueuedBytes: v.request_log_queue_max_bytes }),
    modelCache: Object.freeze({
      dir: v.model_cache_dir ? localFile('model_cache_dir', v.model_cache_dir) : os.tmpdir(),
      maxBytes: v.model_cache_max_mb * 1024 * 1024,
    }),
    engine,
    platformConfigFile: v.platform_config_file ? localFile('platform_config_file', v.platform_config_file) : null,
    sessionConfigFile: v.tensorflow_session_config_file
      ? localFile('tensorflow_session_config_file', v.tensorflow_session_config_file)
      : null,
    harmlessSettingsGiven: Object.freeze(
      [...flags.given].flatMap((n): HarmlessSetting[] => {
        const h = TABLE[n].handling;
        if (h.kind === 'harmless') return [{ name: `--${n}`, why: h.why }];
        if (h.kind === 'ignored') return [{ name: `--${n}`, why: `accepted and ignored (${h.why})` }];
        return [];
      }),
    ),
  });
}

/**
 * ALTS beside --ssl_config_file is refused in TF Serving's words (ALTS alone is a refused flag
 * of the table); an SSLConfig for a transport that is off would be accepted and do nothing.
 */
function checkTransportSecurity(v: FlagValues): void {
  if (v.use_alts_credentials && v.ssl_config_file)
    throw new FlagError('Either use_alts_credentials must be false or ssl_config_file must be empty.', 'use_alts_credentials');
  if (v.ssl_config_file && v.port === 0 && !v.grpc_socket_path) {
    throw new FlagError(
      "Flag 'ssl_config_file' sets up TLS for gRPC, which is off (--port=0, no --grpc_socket_path); HTTPS on the REST port is --rest_api_ssl_config_file",
      'ssl_config_file',
    );
  }
  if (v.rest_api_ssl_config_file && v.rest_api_port === 0)
    throw new FlagError(
      "Flag 'rest_api_ssl_config_file' sets up HTTPS for the HTTP/REST API, which is off (--rest_api_port=0)",
      'rest_api_ssl_config_file',
    );
}

/** `a=1,b=x` → {a: 1, b: 'x'}: integers become numbers, as TF Serving's server.cc sets them. */
function parseChannelArguments(text: string, bad: (name: FlagName, why: string) => never): Record<string, string | number> {
  const out: Record<string, string | number> = {};
  for (const part of text
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)) {
    const eq = part.indexOf('=');
    if (eq <= 0) bad('grpc_channel_arguments', `expected key=value, got '${part}'`);
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    out[key] = /^-?\d+$/.test(value) ? Number(value) : value;
  }
  return out;
}

/** parseFlags + resolveServerOptions. */
export function parseServerOptions(argv: readonly string[], cwd: string = process.cwd()): ServerOptions {
  return resolveServerOptions(parseFlags(argv), cwd);
}

// ---- --help ----

function shownDefault(s: FlagSpec): string {
  if (s.type === 'string') return JSON.stringify(s.default);
  if (s.type === 'float') return (s.default as number).toFixed(6);
  return String(s.default);
}

function usageLine(name: string, s: FlagSpec, text: string): string {
  const flag = `--${name}=${shownDefault(s)}`;
  return `\t${flag.padEnd(33)}\t${s.type}\t${text}`;
}

/** The --help heading of each handling, in the order they are listed. */
const HELP_SECTIONS: ReadonlyArray<[FlagSpec['handling']['kind'], string]> = [
  ['refused', 'Refused when set to anything but their default (start-up stops, naming the flag and why):'],
  ['runtime', 'Honoured or refused according to the runtime in force (see --runtime):'],
  ['harmless', 'Accepted; they change nothing here (logged once when given):'],
  ['ignored', 'Accepted and ignored:'],
];

/** Help generated from the table, in the layout of TF's Flags::Usage. */
export function helpText(): string {
  const entries = Object.entries(TABLE);
  const line = ([name, s]: [string, FlagSpec]) => usageLine(name, s, s.note ? `${s.help} [tfgate: ${s.note}]` : s.help);
  const why = ([name, s]: [string, FlagSpec]) =>
    usageLine(name, s, `${s.help} [tfgate: ${s.handling.kind === 'runtime' ? s.handling.how : 'why' in s.handling ? s.handling.why : ''}]`);
  return [
    'usage: tfgate [flags]            (also installed as tensorflow_model_server)',
    '       tfgate show --dir DIR [--all | --tag_set TAGS [--signature_def KEY]]',
    '       tfgate run --dir DIR --signature_def KEY --input_exprs "x=[1,2]"',
    '',
    'Flags are given as --flag=value or --flag value; booleans also as bare --flag.',
    '',
    "Flags (TensorFlow Serving's), honoured:",
    ...entries.filter(([, s]) => s.handling.kind === 'honoured' && !s.own).map(line),
    '',
    "tfgate's own flags:",
    ...entries.filter(([, s]) => s.own).map(line),
    ...HELP_SECTIONS.flatMap(([kind, title]) => {
      const rows = entries.filter(([, s]) => s.handling.kind === kind);
      return rows.length ? ['', title, ...rows.map(why)] : [];
    }),
    '',
  ].join('\n');
}
