// ModelServerConfig (model_server_config.proto): which models to serve, from where, and
// which versions. Read from --model_config_file (text proto), from --config (YAML), or
// built from --model_name/--model_base_path. Parse → defaults → validate → freeze.
import path from 'node:path';
import { parseDocument, isMap, isSeq, isScalar, LineCounter, type Node as YamlNode } from 'yaml';
import { ConfigError, parseTextFormat, TextReader } from './text_format.js';

export type VersionPolicy = { latest: { numVersions: number } } | { all: Record<string, never> } | { specific: { versions: number[] } };

export interface ModelConfig {
  name: string;
  basePath: string;
  modelPlatform: string;
  versionPolicy: VersionPolicy;
  versionLabels: Record<string, number>;
}

export interface ModelServerConfig {
  models: ModelConfig[];
}

export const DEFAULT_POLICY: VersionPolicy = Object.freeze({ latest: Object.freeze({ numVersions: 1 }) });

function deepFreeze<T>(o: T): T {
  if (o && typeof o === 'object') {
    Object.values(o).forEach(deepFreeze);
    Object.freeze(o);
  }
  return o;
}

/** Checks TF Serving applies to a model list, with its messages where it has them. */
export function validateModelServerConfig(config: ModelServerConfig, where: string): ModelServerConfig {
  const names = new Set<string>();
  for (const m of config.models) {
    if (!m.name) throw new ConfigError(`${where}: a model config has no name`);
    if (!m.basePath) throw new ConfigError(`${where}: model ${m.name} has no base_path`);
    if (names.has(m.name)) throw new ConfigError(`${where}: Illegal to list model ${m.name} multiple times in config list`);
    names.add(m.name);
    if (m.modelPlatform !== 'tensorflow') throw new ConfigError(`${where}: model ${m.name}: unsupported model_platform "${m.modelPlatform}" (tfgate serves "tensorflow")`);
    if ('latest' in m.versionPolicy && m.versionPolicy.latest.numVersions < 1) {
      throw new ConfigError(`${where}: model ${m.name}: latest.num_versions must be at least 1`);
    }
  }
  return deepFreeze(config);
}

const resolveBase = (base: string, configFile: string) => (path.isAbsolute(base) ? base : path.resolve(path.dirname(configFile), base));

function policyFromText(r: TextReader | undefined): VersionPolicy {
  if (!r) return { latest: { numVersions: 1 } };
  r.checkKnown(['latest', 'all', 'specific']);
  const set = ['latest', 'all', 'specific'].filter((k) => r.all(k).length);
  if (set.length > 1) r.fail(r.all(set[1])[0].pos, `model_version_policy sets more than one of latest, all, specific`);
  const latest = r.message('latest', 'tensorflow.serving.FileSystemStoragePathSourceConfig.ServableVersionPolicy.Latest');
  if (latest) {
    latest.checkKnown(['num_versions']);
    return { latest: { numVersions: latest.int('num_versions') ?? 1 } };
  }
  const all = r.message('all', 'tensorflow.serving.FileSystemStoragePathSourceConfig.ServableVersionPolicy.All');
  if (all) {
    all.checkKnown([]);
    return { all: {} };
  }
  const specific = r.message('specific', 'tensorflow.serving.FileSystemStoragePathSourceConfig.ServableVersionPolicy.Specific');
  if (specific) {
    specific.checkKnown(['versions']);
    return { specific: { versions: specific.ints('versions') } };
  }
  return { latest: { numVersions: 1 } };
}

export function parseModelConfigText(text: string, file: string): ModelServerConfig {
  const root = new TextReader(parseTextFormat(text, file), file, 'tensorflow.serving.ModelServerConfig');
  root.checkKnown(['model_config_list', 'custom_model_config']);
  if (root.all('custom_model_config').length) root.fail(root.all('custom_model_config')[0].pos, 'custom_model_config is not supported');
  const list = root.message('model_config_list', 'tensorflow.serving.ModelConfigList');
  const models: ModelConfig[] = [];
  if (list) {
    list.checkKnown(['config']);
    for (const c of list.messages('config', 'tensorflow.serving.ModelConfig')) {
      c.checkKnown(['name', 'base_path', 'model_type', 'model_platform', 'model_version_policy', 'version_labels', 'logging_config']);
      const labels: Record<string, number> = {};
      for (const l of c.messages('version_labels', 'tensorflow.serving.ModelConfig.VersionLabelsEntry')) {
        l.checkKnown(['key', 'value']);
        labels[l.string('key') ?? ''] = l.int('value') ?? 0;
      }
      const base = c.string('base_path') ?? '';
      models.push({
        name: c.string('name') ?? '',
        basePath: base && resolveBase(base, file),
        modelPlatform: c.string('model_platform') ?? 'tensorflow',
        versionPolicy: policyFromText(c.message('model_version_policy', 'tensorflow.serving.FileSystemStoragePathSourceConfig.ServableVersionPolicy')),
        versionLabels: labels,
      });
    }
  }
  return validateModelServerConfig({ models }, file);
}

/** --model_name / --model_base_path: one model, latest version. */
export function singleModelConfig(name: string, basePath: string): ModelServerConfig {
  return validateModelServerConfig({ models: [{ name, basePath: path.resolve(basePath), modelPlatform: 'tensorflow', versionPolicy: { latest: { numVersions: 1 } }, versionLabels: {} }] }, '--model_base_path');
}

// ---- YAML: the same content, keys as in the text format ----

function yamlError(file: string, lc: LineCounter, node: YamlNode | undefined, msg: string): never {
  const offset = node?.range?.[0] ?? 0;
  const { line, col } = lc.linePos(offset);
  throw new ConfigError(`${file}:${line}:${col}: ${msg}`);
}

export function parseModelConfigYaml(text: string, file: string): ModelServerConfig & { raw: unknown } {
  const lc = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lc, prettyErrors: false });
  if (doc.errors.length) {
    const e = doc.errors[0];
    const { line, col } = lc.linePos(e.pos[0]);
    throw new ConfigError(`${file}:${line}:${col}: ${e.message.split('\n')[0]}`);
  }
  const fail = (node: YamlNode | undefined, msg: string): never => yamlError(file, lc, node, msg);
  const root = doc.contents as YamlNode | null;
  if (!root) return { ...validateModelServerConfig({ models: [] }, file), raw: {} };
  if (!isMap(root)) fail(root, 'the top level must be a mapping');
  const listNode = (root as import('yaml').YAMLMap).get('model_config_list', true) as YamlNode | undefined;
  const models: ModelConfig[] = [];
  if (listNode) {
    if (!isMap(listNode)) fail(listNode, 'model_config_list must be a mapping with a `config` list');
    const configs = (listNode as import('yaml').YAMLMap).get('config', true) as YamlNode | undefined;
    if (configs && !isSeq(configs)) fail(configs, 'model_config_list.config must be a list');
    for (const item of (configs as import('yaml').YAMLSeq | undefined)?.items ?? []) {
      if (!isMap(item)) fail(item as YamlNode, 'each config must be a mapping');
      const m = item as import('yaml').YAMLMap;
      for (const pair of m.items) {
        const key = isScalar(pair.key) ? String(pair.key.value) : '';
        if (!['name', 'base_path', 'model_platform', 'model_version_policy', 'version_labels', 'batching'].includes(key)) {
          fail(pair.key as YamlNode, `Message type "tensorflow.serving.ModelConfig" has no field named "${key}".`);
        }
      }
      const str = (k: string) => {
        const n = m.get(k, true) as YamlNode | undefined;
        if (n === undefined) return undefined;
        if (!isScalar(n) || typeof n.value !== 'string') fail(n, `${k} must be a string`);
        return (n as import('yaml').Scalar).value as string;
      };
      const policyNode = m.get('model_version_policy', true) as YamlNode | undefined;
      let versionPolicy: VersionPolicy = { latest: { numVersions: 1 } };
      if (policyNode) {
        const p = policyNode.toJSON() as Record<string, unknown>;
        const keys = Object.keys(p ?? {});
        if (keys.length !== 1 || !['latest', 'all', 'specific'].includes(keys[0])) fail(policyNode, 'model_version_policy must have exactly one of latest, all, specific');
        if (keys[0] === 'latest') versionPolicy = { latest: { numVersions: Number((p.latest as { num_versions?: number } | null)?.num_versions ?? 1) } };
        else if (keys[0] === 'all') versionPolicy = { all: {} };
        else {
          const versions = (p.specific as { versions?: unknown } | null)?.versions;
          const list = Array.isArray(versions) ? versions : versions === undefined ? [] : [versions];
          if (!list.every((v) => Number.isInteger(v))) fail(policyNode, 'specific.versions must be integers');
          versionPolicy = { specific: { versions: list as number[] } };
        }
      }
      const labelsNode = m.get('version_labels', true) as YamlNode | undefined;
      const labels: Record<string, number> = {};
      if (labelsNode) {
        const l = labelsNode.toJSON() as Record<string, unknown>;
        for (const [k, v] of Object.entries(l ?? {})) {
          if (!Number.isInteger(v)) fail(labelsNode, `version label ${k} must map to an integer version`);
          labels[k] = v as number;
        }
      }
      const base = str('base_path') ?? '';
      models.push({ name: str('name') ?? '', basePath: base && resolveBase(base, file), modelPlatform: str('model_platform') ?? 'tensorflow', versionPolicy, versionLabels: labels });
    }
  }
  return { ...validateModelServerConfig({ models }, file), raw: doc.toJSON() };
}
