// src/config: the command line and the configuration files of TF Serving (and tfgate's YAML).
// Imports nothing from other src/ folders. Everything returned is frozen.
//
//   flags.ts               --flags → ParsedFlags → ServerOptions; --help text
//   model_server_config.ts models.config (ModelServerConfig text proto)
//   batching_parameters.ts --batching_parameters_file / batching_params.pbtxt
//   monitoring_config.ts   --monitoring_config_file
//   yaml_config.ts         --config FILE.yaml
//   text_format.ts         protobuf text format, schema-driven
//   schema.ts              message descriptors, ConfigError, positions
export { ConfigError, positionOf, type Position, type MessageSchema, type ProtoMessage } from './schema.js';
export { parseTextProto } from './text_format.js';
export {
  DEFAULT_REPOSITORY_DIR,
  DEFAULT_REST_API_PORT,
  FlagError,
  FLAGS,
  helpText,
  parseFlags,
  parseServerOptions,
  resolveServerOptions,
  RUNTIMES,
  type FlagName,
  type FlagSpec,
  type FlagType,
  type FlagValues,
  type ModelSource,
  type ParsedFlags,
  type RuntimeChoice,
  type ServerOptions,
} from './flags.js';
export {
  DEFAULT_VERSION_POLICY,
  ModelServerConfigSchema,
  modelServerConfigFromProto,
  parseModelConfigText,
  singleModelConfig,
  TENSORFLOW_PLATFORM,
  validateModelServerConfig,
  type LoggingConfig,
  type ModelConfig,
  type ModelConfigOptions,
  type ModelServerConfig,
  type VersionPolicy,
} from './model_server_config.js';
export {
  BatchingParametersSchema,
  batchingParametersFromProto,
  cpuCount,
  DEFAULT_THREAD_POOL_NAME,
  defaultBatchingParameters,
  MODEL_SERVER_THREAD_POOL_NAME,
  parseBatchingParametersText,
  resolveBatchingParameters,
  type BatchingParameters,
  type BatchingParametersInput,
} from './batching_parameters.js';
export { DEFAULT_MONITORING_CONFIG, DEFAULT_PROMETHEUS_PATH, monitoringConfigFromProto, parseMonitoringConfigText, type MonitoringConfig } from './monitoring_config.js';
export { parseModelConfigYaml, parseYamlConfig, parseYamlProto, TfgateConfigSchema, type TfgateConfig } from './yaml_config.js';
