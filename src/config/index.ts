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
export {
  parseModelConfigText,
  singleModelConfig,
  validateModelServerConfig,
  type ModelConfig,
  type ModelServerConfig,
} from './model_server_config.js';
export { parseYamlConfig } from './yaml_config.js';
