// A model's logging_config (tensorflow_serving/config/logging_config.proto,
// log_collector_config.proto): which requests of the model are logged, and where.
//
//   logging_config {
//     log_collector_config { type: "file" filename_prefix: "/var/log/tfgate/requests" }
//     sampling_config { sampling_rate: 0.1 }
//   }
//
// TF Serving picks a LogCollector by `type` from a registry its open-source binary leaves
// empty (the server refuses to start with any logging_config). tfgate has one collector:
// "file" (or "", the type users leave empty): TFRecord files of PredictionLog, the format of
// assets.extra/tf_serving_warmup_requests. Any other type is refused with TF Serving's
// message. A relative filename_prefix resolves against the config file's folder, as a
// relative base_path does (refused in a config read from object storage: the log is local). Fields tfgate cannot honour are refused by name:
// per_task_sampling_configs (tfgate has no data centre or task index to match),
// attributes (no request origin or criticality) and custom_logging_config (no logger here
// reads it).
import path from 'node:path';
import { fail, positionOf, type Position, type ProtoMessage } from './schema.js';

/** The log collector types tfgate has; "" is what a config that leaves `type` out says. */
const URI_RE = /^[a-zA-Z][a-zA-Z0-9+.-]*:\/\//;

const FILE_LOG_COLLECTOR_TYPES: readonly string[] = ['file', ''];

export interface LoggingConfig {
  readonly log_collector_config: { readonly type: string; readonly filename_prefix: string };
  /** As the config says it, and as each record's log_metadata repeats it. */
  readonly sampling_config: { readonly sampling_rate: number };
}

/**
 * A parsed LoggingConfig message (fields as written, defaults filled) → the checked config,
 * filename_prefix made absolute against `baseDir`. Errors name the model and the field.
 */
export function loggingConfigFrom(raw: ProtoMessage, model: string, file: string, baseDir: string): LoggingConfig {
  const at = (obj: object | undefined, field: string): Position | undefined => (obj && positionOf(obj, field)) ?? positionOf(raw);
  const collector = raw.log_collector_config as ProtoMessage | undefined;
  const sampling = (raw.sampling_config as ProtoMessage | undefined) ?? {};
  if (raw.custom_logging_config) {
    fail(
      file,
      at(raw, 'custom_logging_config'),
      `Model ${model}: logging_config.custom_logging_config is not supported (no request logger in tfgate reads it)`,
      'custom_logging_config',
    );
  }
  if (!collector) {
    fail(
      file,
      positionOf(raw),
      `Model ${model}: logging_config has no log_collector_config; tfgate needs one with type "file" and a filename_prefix to write the request log to`,
      'log_collector_config',
    );
  }
  const type = (collector.type as string | undefined) ?? '';
  if (!FILE_LOG_COLLECTOR_TYPES.includes(type)) {
    fail(
      file,
      at(collector, 'type'),
      `Cannot find LogCollector::Factory for type: ${type} (model ${model}; tfgate has one log collector, type "file": TFRecord files of PredictionLog)`,
      'type',
    );
  }
  const prefix = (collector.filename_prefix as string | undefined) ?? '';
  if (!prefix)
    fail(
      file,
      at(collector, 'filename_prefix'),
      `Model ${model}: log_collector_config.filename_prefix is empty; the request log needs a file name to start from`,
      'filename_prefix',
    );
  if (URI_RE.test(prefix))
    fail(
      file,
      at(collector, 'filename_prefix'),
      `Model ${model}: log_collector_config.filename_prefix ${prefix} is a URI; the request log is written to a local path`,
      'filename_prefix',
    );
  const rate = (sampling.sampling_rate as number | undefined) ?? 0;
  if (!(rate >= 0 && rate <= 1))
    fail(
      file,
      at(sampling, 'sampling_rate'),
      `Model ${model}: sampling_config.sampling_rate must be within [0, 1]; was ${rate}`,
      'sampling_rate',
    );
  if (((sampling.per_task_sampling_configs as unknown[] | undefined) ?? []).length) {
    fail(
      file,
      at(sampling, 'per_task_sampling_configs'),
      `Model ${model}: sampling_config.per_task_sampling_configs is not supported (tfgate has no data centre or task index to match); set sampling_rate`,
      'per_task_sampling_configs',
    );
  }
  if ((sampling.attributes as number | undefined) ?? 0) {
    fail(
      file,
      at(sampling, 'attributes'),
      `Model ${model}: sampling_config.attributes is not supported (tfgate knows no request origin or criticality to log)`,
      'attributes',
    );
  }
  if (!path.isAbsolute(prefix) && URI_RE.test(baseDir)) {
    fail(
      file,
      at(collector, 'filename_prefix'),
      `Model ${model}: log_collector_config.filename_prefix ${prefix} is relative, and the config is read from ${baseDir}; give an absolute local path`,
      'filename_prefix',
    );
  }
  return { log_collector_config: { type, filename_prefix: path.resolve(baseDir, prefix) }, sampling_config: { sampling_rate: rate } };
}
