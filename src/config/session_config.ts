// TensorFlow's session ConfigProto (tensorflow/core/protobuf/config.proto), as TF Serving
// reads it from --tensorflow_session_config_file or from a platform config's
// session_config: thread counts and GPU options. tfgate has no TF session; what a field
// means for its engines is in SESSION_CONFIG_FIELDS, and a field it cannot honour is refused
// by name (file:line:col) when set. Messages tfgate does not model field by field
// (graph_options, experimental …) are read as opaque and refused whole when present.
//
// What the engines do with the settings (EngineSettings): ONNX Runtime takes the thread
// counts as its session options (runtimes/onnx/ort_session_options.ts); libtensorflow
// through tfjs-node takes them from TF_NUM_INTRAOP_THREADS / TF_NUM_INTEROP_THREADS, which
// tfgate sets before any executor starts (tfjs-node makes its TF context with no
// ConfigProto); the embedded runtime runs each op on one thread. GPU options: see
// checkEngineForRuntime.
import {
  ConfigError,
  deepFreeze,
  fail,
  mapField,
  message,
  opaqueMessage,
  positionOf,
  scalar,
  type MessageSchema,
  type ProtoMessage,
} from './schema.js';
import { byRuntime, harmless, honoured, refused, type HarmlessSetting, type SettingHandling } from './setting_handling.js';
import { parseTextProto } from './text_format.js';

const GPUOptionsSchema: MessageSchema = {
  name: 'tensorflow.GPUOptions',
  fields: {
    per_process_gpu_memory_fraction: scalar('double'),
    allocator_type: scalar('string'),
    deferred_deletion_bytes: scalar('int64'),
    allow_growth: scalar('bool'),
    visible_device_list: scalar('string'),
    polling_active_delay_usecs: scalar('int32'),
    polling_inactive_delay_msecs: scalar('int32'),
    force_gpu_compatible: scalar('bool'),
    experimental: message(opaqueMessage('tensorflow.GPUOptions.Experimental')),
  },
};

export const ConfigProtoSchema: MessageSchema = {
  name: 'tensorflow.ConfigProto',
  fields: {
    device_count: mapField('string', 'int32'),
    intra_op_parallelism_threads: scalar('int32'),
    inter_op_parallelism_threads: scalar('int32'),
    use_per_session_threads: scalar('bool'),
    session_inter_op_thread_pool: message(opaqueMessage('tensorflow.ThreadPoolOptionProto'), { repeated: true }),
    placement_period: scalar('int32'),
    device_filters: scalar('string', { repeated: true }),
    gpu_options: message(GPUOptionsSchema),
    pluggable_device_options: message(opaqueMessage('tensorflow.GPUOptions')),
    allow_soft_placement: scalar('bool'),
    log_device_placement: scalar('bool'),
    graph_options: message(opaqueMessage('tensorflow.GraphOptions')),
    operation_timeout_in_ms: scalar('int64'),
    rpc_options: message(opaqueMessage('tensorflow.RPCOptions')),
    cluster_def: message(opaqueMessage('tensorflow.ClusterDef')),
    isolate_session_state: scalar('bool'),
    share_cluster_devices_in_session: scalar('bool'),
    experimental: message(opaqueMessage('tensorflow.ConfigProto.Experimental')),
  },
};

const LOCAL_SESSION = 'read by distributed (grpc://) sessions only; TF Serving runs a local session, and tfgate none';
const GPU_POLLING = "a tuning knob of TF's GPU event polling; no engine here has it";

/** Every ConfigProto field (dotted for GPUOptions'), and what tfgate does with it. */
export const SESSION_CONFIG_FIELDS: Readonly<Record<string, SettingHandling>> = {
  intra_op_parallelism_threads: honoured(
    "threads per op: ONNX Runtime's intraOpNumThreads per session (each executor thread has its own); libtensorflow through TF_NUM_INTRAOP_THREADS; the embedded runtime runs an op on one thread, within any bound. 0: tfgate's default (on ONNX Runtime 1 per executor thread under load, every core for a lone request); set, it holds for every executor thread",
  ),
  inter_op_parallelism_threads: honoured(
    "ops run at once: ONNX Runtime's interOpNumThreads (parallel execution mode above 1); libtensorflow through TF_NUM_INTEROP_THREADS; the embedded runtime runs ops one at a time. 0: tfgate's default (1); set, the intra-op default is 1 on every executor thread",
  ),
  device_count: byRuntime(
    '"GPU": 0 keeps the GPU out: refused with a GPU runtime (onnx-cuda, tfjs-node-gpu), honoured by the others; "GPU" ≥ 1: tfgate uses one GPU; "CPU": TF makes one CPU device whatever the count',
  ),
  use_per_session_threads: harmless('each ONNX Runtime session already has its own threads'),
  session_inter_op_thread_pool: refused("tfgate's engines have no named inter-op thread pools to choose from per run"),
  placement_period: harmless('a TF placer tuning knob; no engine here re-places nodes'),
  device_filters: harmless(LOCAL_SESSION),
  'gpu_options.per_process_gpu_memory_fraction': byRuntime(
    'refused with a GPU runtime: onnxruntime-node gives the CUDA provider only its deviceId (no gpu_mem_limit), and tfjs-node makes its TensorFlow context with default options; with a runtime that uses no GPU it caps nothing and is logged',
  ),
  'gpu_options.allocator_type': harmless('"BFC" is what ONNX Runtime\'s CUDA arena and TF\'s default allocator are'),
  'gpu_options.deferred_deletion_bytes': harmless('a TF GPU allocator tuning knob with no effect on results or bounds'),
  'gpu_options.allow_growth': byRuntime(
    "true: ONNX Runtime's CUDA arena grows as needed anyway; on tfjs-node-gpu TF_FORCE_GPU_ALLOW_GROWTH=true is set; false (TF takes the GPU at start) is not copied: memory is taken as needed",
  ),
  'gpu_options.visible_device_list': byRuntime(
    'its first id is the CUDA device ONNX Runtime runs on (deviceId); refused with tfjs-node-gpu (it uses the first GPU TensorFlow sees: set CUDA_VISIBLE_DEVICES); logged by runtimes that use no GPU',
  ),
  'gpu_options.polling_active_delay_usecs': harmless(GPU_POLLING),
  'gpu_options.polling_inactive_delay_msecs': harmless(GPU_POLLING),
  'gpu_options.force_gpu_compatible': harmless('only where TF pins host memory; no effect on results'),
  'gpu_options.experimental': refused("virtual GPU devices and TF's other experimental GPU options have no counterpart here"),
  pluggable_device_options: refused('no pluggable devices here'),
  allow_soft_placement: harmless('what it asks is what tfgate does: ONNX Runtime runs on the CPU what its CUDA provider cannot'),
  log_device_placement: harmless("a log of TF's placer; the runtime in force and each signature's engine are logged at load"),
  graph_options: refused(
    "TF graph optimizer and rewriter options (JIT, constant folding, layout, mixed precision …): tfgate's engines optimise graphs their own way",
  ),
  operation_timeout_in_ms: refused('no per-op deadline here: --rest_api_timeout_in_ms and gRPC deadlines bound a request'),
  rpc_options: harmless(LOCAL_SESSION),
  cluster_def: harmless(LOCAL_SESSION),
  isolate_session_state: harmless("each executor thread already holds its own copy of a version's state"),
  share_cluster_devices_in_session: harmless(LOCAL_SESSION),
  experimental: refused("TF's experimental session options (collective ops, MLIR bridge, thread spinning …) have no counterpart here"),
};

/** What tfgate takes from a ConfigProto, and which harmless fields it carried. */
export interface SessionConfig {
  /** 0: unset. */
  readonly intraOpThreads: number;
  readonly interOpThreads: number;
  /** 0: unset. */
  readonly gpuMemoryFraction: number;
  readonly gpuAllowGrowth: boolean;
  /** visible_device_list's ids, in order; empty: unset. */
  readonly gpuVisibleDevices: readonly number[];
  /** device_count["GPU"]; undefined: unset. */
  readonly gpuDeviceCount?: number;
  readonly harmlessSet: readonly HarmlessSetting[];
}

export const EMPTY_SESSION_CONFIG: SessionConfig = deepFreeze({
  intraOpThreads: 0,
  interOpThreads: 0,
  gpuMemoryFraction: 0,
  gpuAllowGrowth: false,
  gpuVisibleDevices: [],
  harmlessSet: [],
});

/** Whether a value as parsed is the field's proto3 default (so "set" means nothing). */
function isDefault(v: unknown): boolean {
  if (v === undefined || v === false || v === 0 || v === '') return true;
  if (Array.isArray(v)) return v.length === 0;
  return false;
}

/** Refuses set fields classified `refused`; collects set harmless ones. `prefix` names the message in errors. */
function classify(raw: ProtoMessage, file: string, prefix: string, fieldPrefix: string, harmlessSet: HarmlessSetting[]): void {
  for (const [name, value] of Object.entries(raw)) {
    const key = `${fieldPrefix}${name}`;
    const handling = SESSION_CONFIG_FIELDS[key];
    // Opaque messages are "set" when written at all, even empty.
    const set = typeof value === 'object' && !Array.isArray(value) ? true : !isDefault(value);
    if (!handling || !set) continue;
    if (handling.kind === 'refused') fail(file, positionOf(raw, name), `${prefix}${key} is not supported by tfgate: ${handling.why}`, key);
    if (handling.kind === 'harmless') harmlessSet.push({ name: `${file}: ${prefix}${key}`, why: handling.why });
  }
}

/**
 * A parsed ConfigProto → SessionConfig. `prefix` is where the message sits in its file
 * (e.g. "session_config." inside a platform config), for messages.
 */
export function sessionConfigFromProto(raw: ProtoMessage, file: string, prefix = ''): SessionConfig {
  const harmlessSet: HarmlessSetting[] = [];
  classify(raw, file, prefix, '', harmlessSet);
  const gpu = (raw.gpu_options as ProtoMessage | undefined) ?? {};
  classify(gpu, file, prefix, 'gpu_options.', harmlessSet);
  const threads = (field: 'intra_op_parallelism_threads' | 'inter_op_parallelism_threads'): number => {
    const n = (raw[field] as number | undefined) ?? 0;
    if (n < 0) fail(file, positionOf(raw, field), `${prefix}${field} must not be negative; was ${n}`, field);
    return n;
  };
  const fraction = (gpu.per_process_gpu_memory_fraction as number | undefined) ?? 0;
  if (!(fraction >= 0 && fraction <= 1)) {
    fail(
      file,
      positionOf(gpu, 'per_process_gpu_memory_fraction'),
      `${prefix}gpu_options.per_process_gpu_memory_fraction must be between 0 and 1 (above 1 TF oversubscribes through unified memory, which no engine here does); was ${fraction}`,
      'per_process_gpu_memory_fraction',
    );
  }
  const list = ((gpu.visible_device_list as string | undefined) ?? '').trim();
  const devices = list ? list.split(',').map((s) => s.trim()) : [];
  if (devices.some((d) => !/^\d+$/.test(d)))
    fail(
      file,
      positionOf(gpu, 'visible_device_list'),
      `${prefix}gpu_options.visible_device_list must be comma-separated GPU ids; was "${list}"`,
      'visible_device_list',
    );
  const counts = (raw.device_count as Record<string, number> | undefined) ?? {};
  const gpuCount = counts.GPU;
  if (gpuCount !== undefined && gpuCount < 0)
    fail(
      file,
      positionOf(counts, 'GPU') ?? positionOf(raw, 'device_count'),
      `${prefix}device_count "GPU" must not be negative; was ${gpuCount}`,
      'device_count',
    );
  return deepFreeze({
    intraOpThreads: threads('intra_op_parallelism_threads'),
    interOpThreads: threads('inter_op_parallelism_threads'),
    gpuMemoryFraction: fraction,
    gpuAllowGrowth: (gpu.allow_growth as boolean | undefined) ?? false,
    gpuVisibleDevices: devices.map(Number),
    ...(gpuCount !== undefined && { gpuDeviceCount: gpuCount }),
    harmlessSet,
  });
}

/** Parses --tensorflow_session_config_file (a ConfigProto text proto). */
export function parseSessionConfigText(text: string, file: string): SessionConfig {
  return sessionConfigFromProto(parseTextProto(text, file, ConfigProtoSchema), file);
}

// ---- what the engines are given ----

/** The session settings in force, from the flags and the files, with where each came from. */
export interface EngineSettings {
  /** 0: the engine's default. */
  readonly intraOpThreads: number;
  readonly interOpThreads: number;
  /** 0: unset. */
  readonly gpuMemoryFraction: number;
  readonly gpuAllowGrowth: boolean;
  /** The CUDA device to run on (visible_device_list's first id; 0 when unset). */
  readonly gpuDeviceId: number;
  /** device_count { key: "GPU" value: 0 }. */
  readonly gpuDisabled: boolean;
  /** Where a setting that is not at its default came from: `--flag` or `file: field`, for messages. */
  readonly from: Readonly<Partial<Record<'threads' | 'gpuMemoryFraction' | 'gpuAllowGrowth' | 'gpuDeviceId' | 'gpuDisabled', string>>>;
}

export const DEFAULT_ENGINE_SETTINGS: EngineSettings = deepFreeze({
  intraOpThreads: 0,
  interOpThreads: 0,
  gpuMemoryFraction: 0,
  gpuAllowGrowth: false,
  gpuDeviceId: 0,
  gpuDisabled: false,
  from: {},
});

/** Runtimes that run on a GPU (names as --runtime and the resolved runtime spell them). */
const GPU_RUNTIMES = new Set(['onnx-cuda', 'tfjs-node-gpu']);
/** Runtimes that take thread counts (ONNX Runtime's session options, libtensorflow's environment). */
const THREADED_RUNTIMES = new Set(['onnx', 'onnx+embedded', 'onnx-cuda', 'tfjs-node', 'tfjs-node-gpu']);

/** A setting the runtime in force cannot honour: a FlagError when it came from a flag (exit 2), else a ConfigError. */
export class EngineSettingRefused extends ConfigError {
  constructor(
    message: string,
    /** The flag name (without --) when the setting came from the command line. */
    readonly flag?: string,
  ) {
    super(message);
    this.name = 'EngineSettingRefused';
  }
}

/**
 * Checks the engine settings against the runtime chosen (runtime_selection.ts): throws
 * EngineSettingRefused naming the setting and why when the runtime cannot honour it; returns
 * one log line for each setting that means nothing on this runtime.
 */
export function checkEngineForRuntime(e: EngineSettings, runtime: string): string[] {
  const gpu = GPU_RUNTIMES.has(runtime);
  const notes: string[] = [];
  const refuse = (key: keyof EngineSettings['from'], why: string): never => {
    const from = e.from[key] ?? key;
    throw new EngineSettingRefused(
      `${from} is refused with runtime ${runtime}: ${why}`,
      from.startsWith('--') ? from.slice(2).split('=')[0] : undefined,
    );
  };
  if (e.gpuMemoryFraction > 0) {
    if (runtime === 'onnx-cuda')
      refuse(
        'gpuMemoryFraction',
        'onnxruntime-node gives the CUDA execution provider only its deviceId; its gpu_mem_limit cannot be set from Node, so the cap would not hold',
      );
    if (runtime === 'tfjs-node-gpu')
      refuse(
        'gpuMemoryFraction',
        'tfjs-node makes its TensorFlow context with default options (no ConfigProto) and TensorFlow reads no environment variable for the fraction, so the cap would not hold',
      );
    notes.push(`${e.from.gpuMemoryFraction}: runtime ${runtime} uses no GPU; there is no GPU memory to cap`);
  }
  if (e.gpuDisabled && gpu)
    refuse(
      'gpuDisabled',
      'it keeps the GPU out, and this runtime runs every signature on the GPU: choose a CPU runtime (--runtime=onnx, auto …)',
    );
  if (e.gpuDeviceId !== 0) {
    if (runtime === 'tfjs-node-gpu')
      refuse('gpuDeviceId', 'tfjs-node runs on the first GPU TensorFlow sees: choose the device with CUDA_VISIBLE_DEVICES');
    if (!gpu) notes.push(`${e.from.gpuDeviceId}: runtime ${runtime} uses no GPU`);
  }
  if (e.gpuAllowGrowth && !gpu) notes.push(`${e.from.gpuAllowGrowth}: runtime ${runtime} uses no GPU`);
  if ((e.intraOpThreads > 1 || e.interOpThreads > 1) && !THREADED_RUNTIMES.has(runtime)) {
    notes.push(
      `${e.from.threads}: the embedded runtime runs each op on one thread and ops one at a time, within the bound; executor threads (--num_executors) run requests side by side`,
    );
  }
  return notes;
}
