// What tfgate does with every field of TF Serving's config files, one table per file (the
// flags' table is in flags.ts; platform and session configs' in their modules). README's
// settings tables are generated from these and checked by test/config/settings_tables.test.ts.
import { honoured, refused, type SettingHandling } from './setting_handling.js';

/**
 * A field tfgate parses and does not act on yet (a model's logging_config): neither
 * honoured nor refused. Kept apart so that the test can list them; nothing new goes here.
 */
export const NOT_YET = { kind: 'ignored', why: 'parsed and not acted on' } as const;
type FieldHandling = SettingHandling | typeof NOT_YET;

/** models.config (ModelServerConfig / ModelConfig, model_server_config.proto). */
export const MODEL_SERVER_CONFIG_FIELDS: Readonly<Record<string, FieldHandling>> = {
  model_config_list: honoured(),
  custom_model_config: refused('TF Serving\'s open-source binary refuses it too ("ModelServer does not yet support custom model config.")'),
  'config.name': honoured(),
  'config.base_path': honoured(
    "a folder of versions, on disk, s3://bucket/prefix or gs://bucket/prefix (another scheme, e.g. hdfs://, is refused naming it); a relative path resolves against the file's folder",
  ),
  'config.model_type': honoured('TENSORFLOW; anything else is refused, as TF Serving refuses it'),
  'config.model_platform': honoured('"tensorflow" (the default when unset); any other platform is refused naming it'),
  'config.model_version_policy': honoured('latest { num_versions }, all, specific { versions }'),
  'config.version_labels': honoured('labels must be [a-zA-Z0-9_]+ (REST addresses them)'),
  'config.logging_config': honoured(
    'log_collector_config type "file" (or empty): each call drawn with sampling_config.sampling_rate is written as a PredictionLog record to TFRecord files filename_prefix.host.pid.n.tfrecord (see Request logging); another type, per_task_sampling_configs, attributes and custom_logging_config are refused by name',
  ),
};

/** batching.cfg / batching_params.pbtxt (BatchingParameters, session_bundle_config.proto). */
export const BATCHING_PARAMETERS_FIELDS: Readonly<Record<string, FieldHandling>> = {
  max_batch_size: honoured(),
  batch_timeout_micros: honoured(),
  max_enqueued_batches: honoured('a full queue answers 503 / UNAVAILABLE'),
  num_batch_threads: honoured("the shared scheduler's batches in flight at once"),
  thread_pool_name: honoured("names the shared scheduler (the metrics' thread_pool_name label)"),
  allowed_batch_sizes: honoured('batches padded up to the next size'),
  pad_variable_length_inputs: honoured(),
  enable_large_batch_splitting: honoured(),
  max_execution_batch_size: honoured(),
};

/** --monitoring_config_file (MonitoringConfig, monitoring_config.proto). */
export const MONITORING_CONFIG_FIELDS: Readonly<Record<string, FieldHandling>> = {
  'prometheus_config.enable': honoured(),
  'prometheus_config.path': honoured('must start with "/"'),
};
