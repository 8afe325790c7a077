// The model list from the flags' source: --model_config_file (text proto), --config (YAML,
// which also carries batching: and monitoring_config: sections), --model_name/--model_base_path,
// or every folder of ./model_repository when no model flag is given.
import fs from 'node:fs/promises';
import path from 'node:path';
import {
  parseModelConfigText,
  parseYamlConfig,
  singleModelConfig,
  validateModelServerConfig,
  type ModelConfig,
  type ModelServerConfig,
} from '../config/index.js';
import type { BatchingParameters } from '../config/batching_parameters.js';
import type { MonitoringConfig } from '../config/monitoring_config.js';
import type { ServerOptions } from '../config/flags.js';

type ModelSource = ServerOptions['modelSource'];

export interface ModelList {
  readonly config: ModelServerConfig;
  /** YAML only: per-model `batching:` sections. */
  readonly modelBatching: Readonly<Record<string, BatchingParameters>>;
  /** YAML only: the top-level `batching:` section. */
  readonly batching?: BatchingParameters;
  /** YAML only: the `monitoring_config:` section. */
  readonly monitoring?: MonitoringConfig;
}

/** Nothing but whitespace and # comments (both the text-proto and the YAML comment mark). */
const isBlankConfig = (text: string): boolean => text.split('\n').every((line) => /^\s*(#.*)?$/.test(line));

/**
 * A config file's text → its model list; undefined for a file with nothing in it (empty,
 * blank or comments only). TF Serving's server_core takes no action for such a config
 * ("Taking no action for empty config") — a writer that truncates before writing, or a
 * ConfigMap swap, must not unload every model. An explicit `model_config_list {}` (YAML
 * `config: []`) is a real change and applies.
 */
export function parseModelList(kind: 'model_config_file' | 'yaml_config', file: string, text: string): ModelList | undefined {
  if (isBlankConfig(text)) return undefined;
  if (kind === 'model_config_file') return { config: parseModelConfigText(text, file), modelBatching: {} };
  const yaml = parseYamlConfig(text, file);
  return {
    config: yaml.model_server_config,
    modelBatching: yaml.model_batching,
    batching: yaml.batching,
    monitoring: yaml.monitoring_config,
  };
}

/**
 * Reads the source once. `text`: the config file's content when already read; `readText`:
 * how a config file is read (a --model_config_file may be on s3:// or gs://).
 */
export async function readModelList(
  src: ModelSource,
  text?: string,
  readText: (file: string) => Promise<string> = (f) => fs.readFile(f, 'utf8'),
): Promise<ModelList | undefined> {
  switch (src.kind) {
    case 'model_config_file':
    case 'yaml_config':
      return parseModelList(src.kind, src.file, text ?? (await readText(src.file)));
    case 'single_model':
      return { config: singleModelConfig(src.name, src.basePath), modelBatching: {} };
    case 'default_repository': {
      const entries = await fs.readdir(src.dir, { withFileTypes: true }).catch(() => {
        throw new Error(
          `Both server_model_config and model_base_path are empty! (and ${src.dir}, served when no model flag is given, does not exist)`,
        );
      });
      const config: ModelConfig[] = entries
        .filter((e) => e.isDirectory() && !e.name.startsWith('.'))
        .map((e) => ({
          name: e.name,
          base_path: path.join(src.dir, e.name),
          model_platform: 'tensorflow',
          model_version_policy: { latest: { num_versions: 1 } },
          version_labels: {},
        }));
      return { config: validateModelServerConfig({ model_config_list: { config } }, src.dir), modelBatching: {} };
    }
  }
}
