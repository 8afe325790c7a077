// --platform_config_file: a PlatformConfigMap text proto (tensorflow_serving/config/
// platform_config.proto). For the "tensorflow" platform — the only one tfgate serves — its
// source_adapter_config is an Any holding a SavedModelBundleSourceAdapterConfig whose
// legacy_config is a SessionBundleConfig:
//
//   platform_configs {
//     key: "tensorflow"
//     value {
//       source_adapter_config {
//         [type.googleapis.com/tensorflow.serving.SavedModelBundleSourceAdapterConfig] {
//           legacy_config {
//             batching_parameters { max_batch_size { value: 32 } batch_timeout_micros { value: 1000 } }
//             session_config { intra_op_parallelism_threads: 2 }
//             enable_model_warmup: true
//           }
//         }
//       }
//     }
//   }
//
// As in TF Serving's server.cc, the file replaces what the command line would have built
// (batching, session config, tags, warmup …): tfgate refuses those flags beside it rather
// than ignore them as TF Serving does. Note proto3 defaults: enable_model_warmup is false
// unless the file says true, and batching is on exactly when batching_parameters is present.
import { batchingParametersFromProto, BatchingParametersSchema, type BatchingParameters } from './batching_parameters.js';
import {
  anyOf,
  deepFreeze,
  fail,
  Int32Value,
  mapField,
  message,
  opaqueMessage,
  positionOf,
  scalar,
  type MessageSchema,
  type ProtoMessage,
} from './schema.js';
import { ConfigProtoSchema, EMPTY_SESSION_CONFIG, sessionConfigFromProto, type SessionConfig } from './session_config.js';
import { harmless, honoured, refused, type HarmlessSetting, type SettingHandling } from './setting_handling.js';
import { parseTextProto } from './text_format.js';

const ModelWarmupOptionsSchema: MessageSchema = {
  name: 'tensorflow.serving.ModelWarmupOptions',
  fields: {
    num_request_iterations: message(Int32Value),
    num_model_warmup_threads: message(Int32Value),
    model_name: scalar('string'),
    model_version: scalar('int64'),
    enable_all_batch_sizes_warmup: scalar('bool'),
  },
};

export const SessionBundleConfigSchema: MessageSchema = {
  name: 'tensorflow.serving.SessionBundleConfig',
  fields: {
    session_target: scalar('string'),
    session_config: message(ConfigProtoSchema),
    batching_parameters: message(BatchingParametersSchema),
    in_graph_batching_parameters: message(opaqueMessage('tensorflow.serving.BatchingOptions')),
    session_run_load_threadpool_index: message(Int32Value),
    experimental_transient_ram_bytes_during_load: scalar('uint64'),
    saved_model_tags: scalar('string', { repeated: true }),
    experimental_fixed_input_tensors: message(opaqueMessage('tensorflow.NamedTensorProto'), { repeated: true }),
    enable_model_warmup: scalar('bool'),
    model_warmup_options: message(ModelWarmupOptionsSchema),
    enable_session_metadata: scalar('bool'),
    remove_unused_fields_from_bundle_metagraph: scalar('bool'),
    prefer_tflite_model: scalar('bool'),
    resource_estimation_uses_validation_result: scalar('bool'),
    num_tflite_interpreters: scalar('int32'),
    num_tflite_interpreters_per_pool: scalar('int32'),
    num_tflite_pools: scalar('int32'),
    wrap_session_with_no_threading_params: scalar('bool'),
    enable_per_model_batching_params: scalar('bool'),
    enable_saved_model_config: scalar('bool'),
    mixed_precision: scalar('string'),
  },
};

const SavedModelBundleSourceAdapterConfigSchema: MessageSchema = {
  name: 'tensorflow.serving.SavedModelBundleSourceAdapterConfig',
  fields: { legacy_config: message(SessionBundleConfigSchema) },
};

const PlatformConfigSchema: MessageSchema = {
  name: 'tensorflow.serving.PlatformConfig',
  fields: { source_adapter_config: message(anyOf([SavedModelBundleSourceAdapterConfigSchema])) },
};

const PlatformConfigMapSchema: MessageSchema = {
  name: 'tensorflow.serving.PlatformConfigMap',
  fields: { platform_configs: mapField('string', PlatformConfigSchema) },
};

const TFLITE =
  'no engine here runs TensorFlow Lite models (@tensorflow/tfjs-tflite is browser-only: it needs window/self, script loading and web workers)';

/** Every SessionBundleConfig field (model_warmup_options' dotted), and what tfgate does with it. session_config: SESSION_CONFIG_FIELDS. */
export const SESSION_BUNDLE_CONFIG_FIELDS: Readonly<Record<string, SettingHandling>> = {
  session_target: refused('a remote TF session target; tfgate runs models in its own executor threads'),
  session_config: honoured('read field by field as --tensorflow_session_config_file is (see the session config table)'),
  batching_parameters: honoured('present: batching on with these parameters, as --enable_batching with a --batching_parameters_file'),
  in_graph_batching_parameters: refused('in-graph batching (BatchFunction options) is not how tfgate batches'),
  session_run_load_threadpool_index: harmless("a load's init ops run on the version's executor threads"),
  experimental_transient_ram_bytes_during_load: harmless(
    'TF Serving uses it only to estimate load memory against a limit its command line cannot set',
  ),
  saved_model_tags: honoured('as --saved_model_tags; empty: serve'),
  experimental_fixed_input_tensors: refused('tfgate feeds only what the request gives'),
  enable_model_warmup: honoured('as --enable_model_warmup; false unless set (proto3)'),
  'model_warmup_options.num_request_iterations': honoured('as --num_request_iterations_for_warmup'),
  'model_warmup_options.num_model_warmup_threads': harmless('tfgate replays the warmup records on every executor thread of the version'),
  'model_warmup_options.model_name': harmless("TF Serving overwrites it with the model's name"),
  'model_warmup_options.model_version': harmless('TF Serving overwrites it with the version'),
  'model_warmup_options.enable_all_batch_sizes_warmup': harmless(
    'a warmup choice: it changes only how long the first batch of each size takes',
  ),
  enable_session_metadata: harmless("no op of tfgate's engines reads session metadata"),
  remove_unused_fields_from_bundle_metagraph: harmless('a memory saving; tfgate keeps only what it runs anyway'),
  prefer_tflite_model: refused(TFLITE),
  resource_estimation_uses_validation_result: harmless('load memory estimates only'),
  num_tflite_interpreters: harmless('no TFLite: prefer_tflite_model is refused'),
  num_tflite_interpreters_per_pool: harmless('no TFLite: prefer_tflite_model is refused'),
  num_tflite_pools: harmless('no TFLite: prefer_tflite_model is refused'),
  wrap_session_with_no_threading_params: refused(
    "with it TF Serving skips batching_parameters; refused while batching_parameters is set (alone it is harmless: tfgate's sessions take no per-run thread-pool options)",
  ),
  enable_per_model_batching_params: honoured('as --enable_per_model_batching_parameters'),
  enable_saved_model_config: refused("a SavedModel's saved_model_config.pb (TF graph rewriter overrides) has no counterpart here"),
  mixed_precision: refused('tfgate runs a model in the precision it was saved in; bfloat16 auto mixed precision would change its answers'),
};

/** What the "tensorflow" platform's SessionBundleConfig sets, resolved. */
export interface PlatformConfig {
  /** Present: batching on with these parameters. */
  readonly batching?: BatchingParameters;
  readonly enablePerModelBatchingParams: boolean;
  /** Empty in the file: ["serve"]. */
  readonly savedModelTags: readonly string[];
  readonly enableModelWarmup: boolean;
  /** model_warmup_options.num_request_iterations; 0: unset. */
  readonly numRequestIterationsForWarmup: number;
  readonly session: SessionConfig;
  readonly harmlessSet: readonly HarmlessSetting[];
}

const TENSORFLOW = 'tensorflow';
const ADAPTER = SavedModelBundleSourceAdapterConfigSchema.name;

function isSet(v: unknown): boolean {
  if (v === undefined || v === false || v === 0 || v === '') return false;
  return !Array.isArray(v) || v.length > 0;
}

/** A parsed SessionBundleConfig → PlatformConfig; set fields classified `refused` fail naming the field. */
function fromSessionBundleConfig(raw: ProtoMessage, file: string): PlatformConfig {
  const harmlessSet: HarmlessSetting[] = [];
  const warmup = (raw.model_warmup_options as ProtoMessage | undefined) ?? {};
  const fields: Array<[ProtoMessage, string, string]> = [
    ...Object.keys(raw).map((k): [ProtoMessage, string, string] => [raw, k, k]),
    ...Object.keys(warmup).map((k): [ProtoMessage, string, string] => [warmup, k, `model_warmup_options.${k}`]),
  ];
  for (const [msg, name, key] of fields) {
    const handling = SESSION_BUNDLE_CONFIG_FIELDS[key];
    if (!handling || !isSet(msg[name])) continue;
    if (key === 'wrap_session_with_no_threading_params' && !raw.batching_parameters) {
      harmlessSet.push({ name: `${file}: ${key}`, why: "tfgate's sessions take no per-run thread-pool options" });
      continue;
    }
    if (handling.kind === 'refused')
      fail(file, positionOf(msg, name), `legacy_config.${key} is not supported by tfgate: ${handling.why}`, key);
    if (handling.kind === 'harmless') harmlessSet.push({ name: `${file}: ${key}`, why: handling.why });
  }
  const session = raw.session_config
    ? sessionConfigFromProto(raw.session_config as ProtoMessage, file, 'session_config.')
    : EMPTY_SESSION_CONFIG;
  const iterations = ((warmup.num_request_iterations as ProtoMessage | undefined)?.value as number | undefined) ?? 0;
  if (iterations < 0)
    fail(
      file,
      positionOf(warmup, 'num_request_iterations'),
      `model_warmup_options.num_request_iterations must not be negative; was ${iterations}`,
      'num_request_iterations',
    );
  const tags = ((raw.saved_model_tags as string[] | undefined) ?? []).filter(Boolean);
  return deepFreeze({
    ...(raw.batching_parameters ? { batching: batchingParametersFromProto(raw.batching_parameters as ProtoMessage, file) } : {}),
    enablePerModelBatchingParams: (raw.enable_per_model_batching_params as boolean | undefined) ?? false,
    savedModelTags: tags.length ? tags : ['serve'],
    enableModelWarmup: (raw.enable_model_warmup as boolean | undefined) ?? false,
    numRequestIterationsForWarmup: iterations,
    session,
    harmlessSet: [...harmlessSet, ...session.harmlessSet],
  });
}

/** Parses --platform_config_file; only the "tensorflow" platform, with a SavedModelBundleSourceAdapterConfig. */
export function parsePlatformConfigText(text: string, file: string): PlatformConfig {
  const raw = parseTextProto(text, file, PlatformConfigMapSchema);
  const map = (raw.platform_configs as Record<string, ProtoMessage> | undefined) ?? {};
  for (const key of Object.keys(map)) {
    if (key !== TENSORFLOW)
      fail(
        file,
        positionOf(map, key),
        `platform "${key}" is not supported by tfgate: it serves SavedModels, platform "${TENSORFLOW}" only`,
        'platform_configs',
      );
  }
  const tf = map[TENSORFLOW];
  if (!tf) fail(file, positionOf(raw), `no platform_configs entry for "${TENSORFLOW}", the platform tfgate serves`, 'platform_configs');
  const any = tf.source_adapter_config as ProtoMessage | undefined;
  if (!any || any.type_url === undefined || typeof any.value !== 'object') {
    fail(
      file,
      positionOf(tf),
      `platform "${TENSORFLOW}" needs source_adapter_config { [type.googleapis.com/${ADAPTER}] { legacy_config { … } } }`,
      'source_adapter_config',
    );
  }
  const adapter = any.value as ProtoMessage;
  return fromSessionBundleConfig((adapter.legacy_config as ProtoMessage | undefined) ?? {}, file);
}
