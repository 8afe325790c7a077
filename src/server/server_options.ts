// Flags → the frozen options the server runs with. tfgate's one departure from TF Serving's
// defaults: started with no model flags at all, it serves ./model_repository on 8501
// (`npm start`); any TF Serving flag set makes TF Serving's defaults apply.
import path from 'node:path';
import fs from 'node:fs';
import { FlagError, type ParsedFlags } from '../config/flags.js';
import type { RuntimeName } from '../executors/protocol.js';
import { BATCHING_MODES, type BatchingMode } from '../config/batching_parameters.js';

export interface ServerOptions {
  restApiHost: string;
  restApiPort: number;
  grpcPort: number;
  restApiTimeoutMs: number;
  enableCors: boolean;
  /** Where the model list comes from. */
  modelSource:
    | { kind: 'config_file'; file: string; pollWaitSeconds: number }
    | { kind: 'yaml'; file: string; pollWaitSeconds: number }
    | { kind: 'single'; name: string; basePath: string }
    | { kind: 'repository'; dir: string };
  fileSystemPollWaitSeconds: number;
  savedModelTags: string[];
  runtime: RuntimeName;
  executorsPerVersion: number;
  maxNumLoadRetries: number;
  loadRetryIntervalMs: number;
  allowVersionLabelsForUnavailableModels: boolean;
  limits: { maxBodyBytes: number; jsonMaxDepth: number; jsonMaxElements: number };
  batching: {
    enabled: boolean;
    parametersFile: string;
    perModelFiles: boolean;
    /** --batching_mode: the mode of models whose parameters set none. */
    mode: BatchingMode;
    /** --batching_latency_target_ms; 0: none. */
    latencyTargetMs: number;
  };
  /** --monitoring_config_file (absolute), or '' for none. */
  monitoringConfigFile: string;
  /** Flags accepted but not acted on yet, to be reported at start-up. */
  notYetServed: string[];
}

export const DEFAULT_REPOSITORY = 'model_repository';
export const DEFAULT_REST_PORT = 8501;

export function serverOptionsFromFlags(flags: ParsedFlags, cwd = process.cwd()): ServerOptions {
  const v = flags.values;
  const runtime = v.runtime as RuntimeName;
  if (!['auto', 'wasm', 'cpu', 'tfjs-node'].includes(runtime)) throw new FlagError(`Illegal value '${runtime}' for flag 'runtime': expected auto, wasm, cpu or tfjs-node`);
  for (const name of ['rest_api_port', 'port'] as const) {
    if (v[name] < 0 || v[name] > 65535) throw new FlagError(`Illegal value '${v[name]}' for flag '${name}': not a port number`);
  }
  if (!BATCHING_MODES.includes(v.batching_mode as BatchingMode)) throw new FlagError(`Illegal value '${v.batching_mode}' for flag 'batching_mode': expected ${BATCHING_MODES.join(' or ')}`, 'batching_mode');
  if (v.batching_latency_target_ms < 0) throw new FlagError(`Illegal value '${v.batching_latency_target_ms}' for flag 'batching_latency_target_ms': must not be negative`, 'batching_latency_target_ms');
  if (v.num_executors < 1) throw new FlagError(`Illegal value '${v.num_executors}' for flag 'num_executors': must be at least 1`);

  let modelSource: ServerOptions['modelSource'];
  const noModelFlags = !v.model_config_file && !v.config && !v.model_base_path;
  if (v.model_config_file) modelSource = { kind: 'config_file', file: path.resolve(cwd, v.model_config_file), pollWaitSeconds: v.model_config_file_poll_wait_seconds };
  else if (v.config) modelSource = { kind: 'yaml', file: path.resolve(cwd, v.config), pollWaitSeconds: v.model_config_file_poll_wait_seconds };
  else if (v.model_base_path) modelSource = { kind: 'single', name: v.model_name, basePath: path.resolve(cwd, v.model_base_path) };
  else modelSource = { kind: 'repository', dir: path.resolve(cwd, DEFAULT_REPOSITORY) };
  if (modelSource.kind === 'repository' && !fs.existsSync(modelSource.dir)) {
    throw new FlagError(`Both server_model_config and model_base_path are empty! (and ./${DEFAULT_REPOSITORY} does not exist)`);
  }

  const notYetServed: string[] = [];
  if (!v.enable_batching && v.batching_parameters_file) notYetServed.push('--batching_parameters_file without --enable_batching (as TF Serving: no batching)');

  return Object.freeze({
    restApiHost: v.rest_api_host,
    restApiPort: flags.given.has('rest_api_port') ? v.rest_api_port : noModelFlags ? DEFAULT_REST_PORT : v.rest_api_port,
    grpcPort: v.port,
    restApiTimeoutMs: v.rest_api_timeout_in_ms,
    enableCors: v.rest_api_enable_cors_support,
    modelSource,
    fileSystemPollWaitSeconds: v.file_system_poll_wait_seconds,
    savedModelTags: v.saved_model_tags.split(',').map((t) => t.trim()).filter(Boolean),
    runtime,
    executorsPerVersion: v.num_executors,
    maxNumLoadRetries: v.max_num_load_retries,
    loadRetryIntervalMs: v.load_retry_interval_micros / 1000,
    allowVersionLabelsForUnavailableModels: v.allow_version_labels_for_unavailable_models,
    limits: { maxBodyBytes: v.max_request_body_bytes, jsonMaxDepth: v.json_max_depth, jsonMaxElements: v.json_max_elements },
    batching: {
      enabled: v.enable_batching,
      parametersFile: v.batching_parameters_file ? path.resolve(cwd, v.batching_parameters_file) : '',
      perModelFiles: v.enable_per_model_batching_parameters,
      mode: v.batching_mode as BatchingMode,
      latencyTargetMs: v.batching_latency_target_ms,
    },
    monitoringConfigFile: v.monitoring_config_file ? path.resolve(cwd, v.monitoring_config_file) : '',
    notYetServed,
  });
}
