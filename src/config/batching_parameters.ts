// BatchingParameters (tensorflow_serving/servables/tensorflow/session_bundle_config.proto):
// read from --batching_parameters_file, from a model's batching_params.pbtxt
// (--enable_per_model_batching_parameters) or from the YAML config's `batching:` sections.
//
// Unset fields take the values TF Serving ends up with (SharedBatchScheduler's Options and
// QueueOptions defaults, as bundle_factory_util.h copies only the fields that are set):
//   max_batch_size 1000, batch_timeout_micros 0, max_enqueued_batches 10,
//   num_batch_threads = number of schedulable CPUs, thread_pool_name "batch_threads",
//   enable_large_batch_splitting false, max_execution_batch_size = max_batch_size,
//   allowed_batch_sizes [], pad_variable_length_inputs false.
// (--enable_batching without a file: thread_pool_name "model_server_batch_threads", as server.cc sets.)
//
// max_execution_batch_size holds the *effective* value: what is written when
// enable_large_batch_splitting is true, else max_batch_size (TF ignores it then).
// A max_enqueued_batches of 0 without large-batch splitting becomes 1, as
// SharedBatchScheduler::AddQueue rewrites it.
import os from 'node:os';
import {
  BoolValue,
  deepFreeze,
  fail,
  Int64Value,
  message,
  positionOf,
  scalar,
  StringValue,
  type MessageSchema,
  type Position,
  type ProtoMessage,
} from './schema.js';
import { parseTextProto } from './text_format.js';
import { BATCHING_MODE_NAMES, isBatchingMode, type BatchingMode } from './batching_modes.js';

export const BatchingParametersSchema: MessageSchema = {
  name: 'tensorflow.serving.BatchingParameters',
  fields: {
    max_batch_size: message(Int64Value), // 1
    batch_timeout_micros: message(Int64Value), // 2
    max_enqueued_batches: message(Int64Value), // 3
    num_batch_threads: message(Int64Value), // 4
    thread_pool_name: message(StringValue), // 5
    allowed_batch_sizes: scalar('int64', { repeated: true }), // 6
    pad_variable_length_inputs: scalar('bool'), // 7
    enable_large_batch_splitting: message(BoolValue), // 8
    max_execution_batch_size: message(Int64Value), // 9
  },
};

/**
 * tfgate's fields, only in the YAML config's `batching:` sections (TF Serving's text files
 * keep TF Serving's schema): `mode: adaptive` and an optional `latency_target_ms`.
 */
export const TfgateBatchingSchema: MessageSchema = {
  name: 'tfgate.BatchingParameters',
  fields: { ...BatchingParametersSchema.fields, mode: scalar('string'), latency_target_ms: scalar('int64') },
};

export interface BatchingParameters {
  readonly max_batch_size: number;
  readonly batch_timeout_micros: number;
  readonly max_enqueued_batches: number;
  readonly num_batch_threads: number;
  readonly thread_pool_name: string;
  readonly enable_large_batch_splitting: boolean;
  /** Effective: the written value with large-batch splitting, else max_batch_size. */
  readonly max_execution_batch_size: number;
  readonly allowed_batch_sizes: readonly number[];
  readonly pad_variable_length_inputs: boolean;
  /** tfgate: set by a YAML section; unset means the --batching_mode default. */
  readonly mode?: BatchingMode;
  /** tfgate: adaptive mode's per-request latency target (ms); unset means none or the flag's. */
  readonly latency_target_ms?: number;
}

/** port::MaxParallelism(): the CPUs this process may run on. */
export const cpuCount = (): number => Math.max(1, os.availableParallelism?.() ?? os.cpus().length);

const DEFAULT_THREAD_POOL_NAME = 'batch_threads';
/** The pool name server.cc gives when --enable_batching has no --batching_parameters_file. */
export const MODEL_SERVER_THREAD_POOL_NAME = 'model_server_batch_threads';

/** Fields as written, before defaults; every one optional. */
export type BatchingParametersInput = { -readonly [K in keyof BatchingParameters]?: BatchingParameters[K] };

/** TF Serving's defaults, with `overrides` applied, checked and frozen. */
export function defaultBatchingParameters(overrides: BatchingParametersInput = {}): BatchingParameters {
  return resolveBatchingParameters(overrides, '<defaults>');
}

type Locate = (field: keyof BatchingParameters, index?: number) => Position | undefined;

/**
 * Fills defaults and applies TF Serving's checks (in its words, with the proto's field
 * names). `file` prefixes errors; `locate` gives positions when the values came from a file.
 */
export function resolveBatchingParameters(
  input: BatchingParametersInput,
  file: string,
  locate: Locate = () => undefined,
): BatchingParameters {
  const bad = (field: keyof BatchingParameters, detail: string, index?: number): never => fail(file, locate(field, index), detail, field);
  const maxBatchSize = input.max_batch_size ?? 1000;
  const splitting = input.enable_large_batch_splitting ?? false;
  let maxEnqueued = input.max_enqueued_batches ?? 10;
  const p = {
    max_batch_size: maxBatchSize,
    batch_timeout_micros: input.batch_timeout_micros ?? 0,
    max_enqueued_batches: maxEnqueued,
    num_batch_threads: input.num_batch_threads ?? cpuCount(),
    thread_pool_name: input.thread_pool_name ?? DEFAULT_THREAD_POOL_NAME,
    enable_large_batch_splitting: splitting,
    max_execution_batch_size: splitting ? (input.max_execution_batch_size ?? maxBatchSize) : maxBatchSize,
    allowed_batch_sizes: [...(input.allowed_batch_sizes ?? [])],
    pad_variable_length_inputs: input.pad_variable_length_inputs ?? false,
    ...(input.mode !== undefined && { mode: input.mode }),
    ...(input.latency_target_ms !== undefined && { latency_target_ms: input.latency_target_ms }),
  };
  if (p.mode !== undefined && !isBatchingMode(p.mode)) bad('mode', `mode must be one of ${BATCHING_MODE_NAMES.join(', ')}; was ${p.mode}`);
  if (p.latency_target_ms !== undefined && !(Number.isSafeInteger(p.latency_target_ms) && p.latency_target_ms > 0)) {
    bad('latency_target_ms', `latency_target_ms must be a positive integer; was ${p.latency_target_ms}`);
  }
  // Only adaptive batching predicts latency; under fixed the target would be accepted and never honoured.
  if (p.mode === 'fixed' && p.latency_target_ms !== undefined)
    bad('latency_target_ms', 'latency_target_ms is read by adaptive batching only, and this section sets mode: fixed');
  for (const k of [
    'max_batch_size',
    'batch_timeout_micros',
    'max_enqueued_batches',
    'num_batch_threads',
    'max_execution_batch_size',
  ] as const) {
    if (!Number.isSafeInteger(p[k])) bad(k, `${k} must be an integer; was ${p[k]}`);
  }
  if (p.max_batch_size <= 0) bad('max_batch_size', `max_batch_size must be positive; was ${p.max_batch_size}`);
  if (p.batch_timeout_micros < 0) bad('batch_timeout_micros', `batch_timeout_micros must be non-negative; was ${p.batch_timeout_micros}`);
  if (maxEnqueued === 0 && !splitting) maxEnqueued = p.max_enqueued_batches = 1;
  if (maxEnqueued <= 0) bad('max_enqueued_batches', `max_enqueued_batches must be positive; was ${maxEnqueued}`);
  if (p.num_batch_threads <= 0) bad('num_batch_threads', `num_batch_threads must be positive; was ${p.num_batch_threads}`);
  if (splitting) {
    if (p.max_execution_batch_size <= 0)
      bad('max_execution_batch_size', `max_execution_batch_size must be positive; was ${p.max_execution_batch_size}`);
    if (p.max_batch_size < p.max_execution_batch_size) {
      bad(
        'max_execution_batch_size',
        `When enable_large_batch_splitting is true, max_batch_size must be greater than or equal to max_execution_batch_size; max_batch_size was ${p.max_batch_size}, max_execution_batch_size was ${p.max_execution_batch_size}`,
      );
    }
  }
  const sizes = p.allowed_batch_sizes;
  sizes.forEach((size, i) => {
    if (!Number.isSafeInteger(size) || size <= 0)
      bad('allowed_batch_sizes', `allowed_batch_sizes entries must be positive; entry ${i} was ${size}`, i);
    if (i > 0 && size <= sizes[i - 1]) bad('allowed_batch_sizes', 'allowed_batch_sizes entries must be monotonically increasing', i);
  });
  if (sizes.length && sizes[sizes.length - 1] !== p.max_batch_size) {
    bad(
      'allowed_batch_sizes',
      `Last entry in allowed_batch_sizes must match max_batch_size; last entry was ${sizes[sizes.length - 1]}; expected ${p.max_batch_size}`,
      sizes.length - 1,
    );
  }
  return deepFreeze(p);
}

/** A parsed BatchingParameters message (wrappers as `{ value }`, or YAML's bare values) → resolved parameters. */
export function batchingParametersFromProto(raw: ProtoMessage, file: string, overrides: BatchingParametersInput = {}): BatchingParameters {
  const unwrap = <T>(field: string, dflt: T): T | undefined => {
    const w = raw[field] as ProtoMessage | undefined;
    return w === undefined ? undefined : ((w.value as T | undefined) ?? dflt);
  };
  const input: BatchingParametersInput = {
    max_batch_size: unwrap('max_batch_size', 0),
    batch_timeout_micros: unwrap('batch_timeout_micros', 0),
    max_enqueued_batches: unwrap('max_enqueued_batches', 0),
    num_batch_threads: unwrap('num_batch_threads', 0),
    thread_pool_name: unwrap('thread_pool_name', ''),
    enable_large_batch_splitting: unwrap('enable_large_batch_splitting', false),
    max_execution_batch_size: unwrap('max_execution_batch_size', 0),
    allowed_batch_sizes: raw.allowed_batch_sizes as number[] | undefined,
    pad_variable_length_inputs: raw.pad_variable_length_inputs as boolean | undefined,
    mode: raw.mode as BatchingMode | undefined,
    latency_target_ms: raw.latency_target_ms as number | undefined,
  };
  for (const k of Object.keys(input) as (keyof BatchingParametersInput)[]) if (input[k] === undefined) delete input[k];
  return resolveBatchingParameters({ ...input, ...overrides }, file, (field, index) => {
    const w = raw[field];
    const inner = w && typeof w === 'object' && !Array.isArray(w) ? positionOf(w, 'value') : undefined;
    return inner ?? positionOf(raw, field, index) ?? positionOf(raw);
  });
}

/**
 * Parses a BatchingParameters text proto (--batching_parameters_file, batching_params.pbtxt):
 *   max_batch_size { value: 128 }  batch_timeout_micros { value: 0 } …
 */
export function parseBatchingParametersText(text: string, file: string): BatchingParameters {
  return batchingParametersFromProto(parseTextProto(text, file, BatchingParametersSchema), file);
}
