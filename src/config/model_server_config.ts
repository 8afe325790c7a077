// ModelServerConfig (tensorflow_serving/config/model_server_config.proto): which models to
// serve, from where, which versions, with which version labels. Read from
// --model_config_file (text proto), --config (YAML, yaml_config.ts) or built from
// --model_name/--model_base_path. Parse → check → fill defaults → resolve paths → freeze.
//
// Where tfgate differs from TF Serving (documented, deliberate):
// - model_platform may be left out: it defaults to "tensorflow" (TF Serving rejects a
//   config that sets neither model_platform nor the deprecated model_type).
// - a relative base_path resolves against the config file's folder (TF Serving requires
//   absolute paths: "Expected model X to have an absolute path or URI; got base_path()=…"),
//   a prefix of the bucket when the file itself was read from s3:// or gs://.
//   An empty base_path is still refused with TF Serving's message; so is a URI whose scheme
//   tfgate cannot read (hdfs:// …), naming the scheme (storage_uri.ts).
// - version labels must be REST-addressable words ([a-zA-Z0-9_]+, as serving_config.md
//   restricts them), since REST is what tfgate serves.
// - int64 versions are JavaScript numbers: at most 2^53-1.
import {
  AnySchema,
  deepFreeze,
  enumField,
  fail,
  mapField,
  message,
  positionOf,
  scalar,
  withDefaults,
  type MessageSchema,
  type ProtoMessage,
} from './schema.js';
import { parseTextProto } from './text_format.js';
import { loggingConfigFrom, type LoggingConfig } from './logging_config.js';
import { parentLocation, resolveLocation, unsupportedLocation } from './storage_uri.js';

// ---- descriptors (field names and types as in the .proto files) ----

const Latest: MessageSchema = {
  name: 'tensorflow.serving.FileSystemStoragePathSourceConfig.ServableVersionPolicy.Latest',
  fields: { num_versions: scalar('uint32') },
};
const All: MessageSchema = { name: 'tensorflow.serving.FileSystemStoragePathSourceConfig.ServableVersionPolicy.All', fields: {} };
const Specific: MessageSchema = {
  name: 'tensorflow.serving.FileSystemStoragePathSourceConfig.ServableVersionPolicy.Specific',
  fields: { versions: scalar('int64', { repeated: true }) },
};
const ServableVersionPolicySchema: MessageSchema = {
  name: 'tensorflow.serving.FileSystemStoragePathSourceConfig.ServableVersionPolicy',
  fields: { latest: message(Latest), all: message(All), specific: message(Specific) },
  oneofs: { policy_choice: ['latest', 'all', 'specific'] },
};

const LogCollectorConfigSchema: MessageSchema = {
  name: 'tensorflow.serving.LogCollectorConfig',
  fields: { type: scalar('string'), filename_prefix: scalar('string') },
};
const PerTaskSamplingConfigSchema: MessageSchema = {
  name: 'tensorflow.serving.PerTaskSamplingConfig',
  fields: { dc: scalar('string'), task_index: scalar('int32', { optional: true }), sampling_rate: scalar('double') },
};
const SamplingConfigSchema: MessageSchema = {
  name: 'tensorflow.serving.SamplingConfig',
  fields: {
    sampling_rate: scalar('double'),
    per_task_sampling_configs: message(PerTaskSamplingConfigSchema, { repeated: true }),
    attributes: scalar('int32'),
  },
};
const LoggingConfigSchema: MessageSchema = {
  name: 'tensorflow.serving.LoggingConfig',
  fields: {
    log_collector_config: message(LogCollectorConfigSchema),
    sampling_config: message(SamplingConfigSchema),
    custom_logging_config: message(AnySchema),
  },
};

const ModelType = { name: 'tensorflow.serving.ModelType', values: { MODEL_TYPE_UNSPECIFIED: 0, TENSORFLOW: 1, OTHER: 2 } };

export const ModelConfigSchema: MessageSchema = {
  name: 'tensorflow.serving.ModelConfig',
  fields: {
    name: scalar('string'),
    base_path: scalar('string'),
    model_type: enumField(ModelType),
    model_platform: scalar('string'),
    model_version_policy: message(ServableVersionPolicySchema),
    version_labels: mapField('string', 'int64'),
    logging_config: message(LoggingConfigSchema),
  },
};
export const ModelConfigListSchema: MessageSchema = {
  name: 'tensorflow.serving.ModelConfigList',
  fields: { config: message(ModelConfigSchema, { repeated: true }) },
};
const ModelServerConfigSchema: MessageSchema = {
  name: 'tensorflow.serving.ModelServerConfig',
  fields: { model_config_list: message(ModelConfigListSchema), custom_model_config: message(AnySchema) },
  oneofs: { config: ['model_config_list', 'custom_model_config'] },
};

// ---- the checked, defaulted, frozen result ----

export type VersionPolicy =
  | { readonly latest: { readonly num_versions: number } }
  | { readonly all: Readonly<Record<string, never>> }
  | { readonly specific: { readonly versions: readonly number[] } };

export interface ModelConfig {
  readonly name: string;
  /** Absolute (resolved against the config file's folder when written relative), or an s3:// / gs:// URI. */
  readonly base_path: string;
  /** "tensorflow" unless the file says otherwise (only "tensorflow" is accepted). */
  readonly model_platform: string;
  /** Default: latest { num_versions: 1 }; num_versions 0 means 1, as in TF Serving. */
  readonly model_version_policy: VersionPolicy;
  readonly version_labels: Readonly<Record<string, number>>;
  /** Request logging (logging_config.ts): checked, filename_prefix absolute. */
  readonly logging_config?: LoggingConfig;
}

export interface ModelServerConfig {
  readonly model_config_list: { readonly config: readonly ModelConfig[] };
}

const DEFAULT_VERSION_POLICY: VersionPolicy = deepFreeze({ latest: { num_versions: 1 } });
const TENSORFLOW_PLATFORM = 'tensorflow';
const LABEL_RE = /^[a-zA-Z0-9_]+$/;

export interface ModelConfigOptions {
  /** Folder relative base paths resolve against; default: the folder of `file`. */
  baseDir?: string;
}

function resolveBasePath(base: string, baseDir: string): string {
  return resolveLocation(base, baseDir);
}

/** TF Serving's message for a base path it cannot open, with the reason (e.g. hdfs:// unsupported). */
const unreadableBasePath = (name: string, base: string, why: string) => `Model ${name} has base_path ${base}: ${why}`;

function versionPolicyFrom(raw: ProtoMessage | undefined): VersionPolicy {
  if (!raw) return { latest: { num_versions: 1 } };
  if (raw.all) return { all: {} };
  if (raw.specific) return { specific: { versions: [...(((raw.specific as ProtoMessage).versions as number[] | undefined) ?? [])] } };
  if (raw.latest) return { latest: { num_versions: Math.max(1, ((raw.latest as ProtoMessage).num_versions as number | undefined) ?? 0) } };
  // An empty model_version_policy {}: TF Serving's source serves the latest version.
  return { latest: { num_versions: 1 } };
}

/**
 * One parsed ModelConfig message (text proto or YAML, fields as written) → checked
 * ModelConfig. Errors point at the offending field.
 */
function modelConfigFromProto(raw: ProtoMessage, file: string, baseDir: string): ModelConfig {
  const name = (raw.name as string | undefined) ?? '';
  if (!name) fail(file, positionOf(raw), 'A model config has no name', 'name');
  const base = (raw.base_path as string | undefined) ?? '';
  if (!base)
    fail(
      file,
      positionOf(raw, 'base_path') ?? positionOf(raw),
      `Expected model ${name} to have an absolute path or URI; got base_path()=`,
      'base_path',
    );
  const unsupported = unsupportedLocation(base);
  if (unsupported) fail(file, positionOf(raw, 'base_path'), unreadableBasePath(name, base, unsupported), 'base_path');

  const modelType = raw.model_type as string | undefined;
  let platform = raw.model_platform as string | undefined;
  if (modelType && modelType !== 'MODEL_TYPE_UNSPECIFIED') {
    if (platform) {
      fail(
        file,
        positionOf(raw, 'model_type'),
        `Illegal setting both ModelServerConfig::model_type (deprecated) and ModelServerConfig::model_platform, model name is ${name}`,
        'model_type',
      );
    }
    if (modelType !== 'TENSORFLOW')
      fail(
        file,
        positionOf(raw, 'model_type'),
        `ModelServerConfig::model_type choice ${ModelType.values[modelType as keyof typeof ModelType.values]} not supported.`,
        'model_type',
      );
    platform = TENSORFLOW_PLATFORM;
  }
  platform ||= TENSORFLOW_PLATFORM;
  if (platform !== TENSORFLOW_PLATFORM)
    fail(file, positionOf(raw, 'model_platform'), `Model ${name} requests unsupported platform ${platform}`, 'model_platform');

  const labels = (raw.version_labels as Record<string, number> | undefined) ?? {};
  for (const label of Object.keys(labels)) {
    if (!LABEL_RE.test(label)) {
      fail(
        file,
        positionOf(labels, label) ?? positionOf(raw, 'version_labels'),
        `Version label "${label}" of model ${name} must match [a-zA-Z0-9_]+ (the REST API addresses labels as /v1/models/${name}/labels/<label>)`,
        'version_labels',
      );
    }
  }

  const out: { -readonly [K in keyof ModelConfig]: ModelConfig[K] } = {
    name,
    base_path: resolveBasePath(base, baseDir),
    model_platform: platform,
    model_version_policy: versionPolicyFrom(raw.model_version_policy as ProtoMessage | undefined),
    version_labels: { ...labels },
  };
  if (raw.logging_config) out.logging_config = loggingConfigFrom(raw.logging_config as ProtoMessage, name, file, baseDir);
  return out;
}

/** A parsed ModelServerConfig message → checked, defaulted, frozen ModelServerConfig. */
export function modelServerConfigFromProto(raw: ProtoMessage, file: string, options: ModelConfigOptions = {}): ModelServerConfig {
  if (raw.custom_model_config)
    fail(file, positionOf(raw, 'custom_model_config'), 'ModelServer does not yet support custom model config.', 'custom_model_config');
  const baseDir = options.baseDir ?? parentLocation(file);
  const list = (raw.model_config_list as ProtoMessage | undefined) ?? {};
  const raws = (list.config as ProtoMessage[] | undefined) ?? [];
  const seen = new Set<string>();
  const config = raws.map((c) => {
    const m = modelConfigFromProto(c, file, baseDir);
    if (seen.has(m.name))
      fail(file, positionOf(c, 'name') ?? positionOf(c), `Illegal to list model ${m.name} multiple times in config list`, 'name');
    seen.add(m.name);
    return m;
  });
  return deepFreeze({ model_config_list: { config } });
}

/**
 * Parses a models.config text proto (--model_config_file). Relative base paths resolve
 * against the folder of `file` (or options.baseDir). Throws ConfigError `file:line:col: …`.
 */
export function parseModelConfigText(text: string, file: string, options: ModelConfigOptions = {}): ModelServerConfig {
  return modelServerConfigFromProto(parseTextProto(text, file, ModelServerConfigSchema), file, options);
}

/** What --model_name/--model_base_path mean (server.cc BuildSingleModelConfig): one model, latest version. */
export function singleModelConfig(name: string, basePath: string, cwd: string = process.cwd()): ModelServerConfig {
  return validateModelServerConfig(
    {
      model_config_list: {
        config: [
          {
            name,
            base_path: basePath && resolveBasePath(basePath, cwd),
            model_platform: TENSORFLOW_PLATFORM,
            model_version_policy: DEFAULT_VERSION_POLICY,
            version_labels: {},
          },
        ],
      },
    },
    '--model_base_path',
  );
}

/**
 * Checks a ModelServerConfig built in code (e.g. one model per folder of a repository)
 * with the same rules as a parsed one, and freezes it. `where` prefixes error messages.
 */
export function validateModelServerConfig(config: ModelServerConfig, where: string): ModelServerConfig {
  const seen = new Set<string>();
  for (const m of config.model_config_list.config) {
    if (!m.name) fail(where, undefined, 'A model config has no name', 'name');
    if (!m.base_path) fail(where, undefined, `Expected model ${m.name} to have an absolute path or URI; got base_path()=`, 'base_path');
    const unsupported = unsupportedLocation(m.base_path);
    if (unsupported) fail(where, undefined, unreadableBasePath(m.name, m.base_path, unsupported), 'base_path');
    if (seen.has(m.name)) fail(where, undefined, `Illegal to list model ${m.name} multiple times in config list`, 'name');
    seen.add(m.name);
    if (m.model_platform !== TENSORFLOW_PLATFORM)
      fail(where, undefined, `Model ${m.name} requests unsupported platform ${m.model_platform}`, 'model_platform');
    const p = m.model_version_policy;
    if ('latest' in p && !(Number.isInteger(p.latest.num_versions) && p.latest.num_versions >= 1)) {
      fail(
        where,
        undefined,
        `Model ${m.name}: latest.num_versions must be a positive integer; was ${p.latest.num_versions}`,
        'num_versions',
      );
    }
    for (const label of Object.keys(m.version_labels)) {
      if (!LABEL_RE.test(label))
        fail(where, undefined, `Version label "${label}" of model ${m.name} must match [a-zA-Z0-9_]+`, 'version_labels');
    }
  }
  return deepFreeze(config);
}
