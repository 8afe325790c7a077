// tfgate's --config FILE.yaml: the same content as models.config, same result, plus batching.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { ConfigError } from '../../src/config/schema.js';
import { parseModelConfigText } from '../../src/config/model_server_config.js';
import { parseBatchingParametersText } from '../../src/config/batching_parameters.js';
import { parseMonitoringConfigText } from '../../src/config/monitoring_config.js';
import { parseModelConfigYaml, parseYamlConfig } from '../../src/config/yaml_config.js';
import { FIXTURES } from '../helpers/paths.js';

const CONFIGS = path.join(FIXTURES, 'configs');
const DIR = '/srv/conf';

function throwsAt(fn: () => unknown, file: string, line: number, col: number, re: RegExp, field?: string): void {
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof ConfigError, String(e));
    assert.ok(e.message.startsWith(`${file}:${line}:${col}: `), `${e.message} (expected ${line}:${col})`);
    assert.match(e.message, re);
    if (field) assert.equal(e.field, field);
    return true;
  });
}

describe('YAML config == text proto', () => {
  const TEXT = `model_config_list {
    config {
      name: 'a'
      base_path: 'models/a'
      model_version_policy { latest { num_versions: 2 } }
      version_labels { key: 'stable' value: 1 }
      version_labels { key: 'canary' value: 2 }
    }
    config {
      name: 'b'
      base_path: '/abs/b'
      model_platform: 'tensorflow'
      model_version_policy { specific { versions: [3, 4] } }
      logging_config { log_collector_config { type: 'file' filename_prefix: '/tmp/log' } }
    }
    config { name: 'c' base_path: 'c' model_version_policy { all {} } }
  }`;
  const text = parseModelConfigText(TEXT, path.join(DIR, 'models.config'));

  it('model_config_list form, YAML-natural maps', () => {
    const yaml = `
model_config_list:
  config:
    - name: a
      base_path: models/a
      model_version_policy: {latest: {num_versions: 2}}
      version_labels: {stable: 1, canary: 2}
    - name: "b"
      base_path: /abs/b
      model_platform: tensorflow
      model_version_policy:
        specific:
          versions: [3, 4]
      logging_config: {log_collector_config: {type: file, filename_prefix: /tmp/log}}
    - {name: c, base_path: c, model_version_policy: {all: {}}}
`;
    assert.deepEqual(parseModelConfigYaml(yaml, path.join(DIR, 'tfgate.yaml')), text);
  });
  it('`models:` shorthand, map entries as {key, value}, `all:` left empty', () => {
    const yaml = `
models:
  - name: a
    base_path: models/a
    model_version_policy: {latest: {num_versions: 2}}
    version_labels: [{key: stable, value: 1}, {key: canary, value: 2}]
  - name: b
    base_path: /abs/b
    model_version_policy: {specific: {versions: [3, 4]}}
    logging_config:
      log_collector_config: {type: file, filename_prefix: /tmp/log}
  - name: c
    base_path: c
    model_version_policy:
      all:
`;
    const y = parseYamlConfig(yaml, path.join(DIR, 'tfgate.yaml'));
    assert.deepEqual(y.model_server_config, text);
    assert.deepEqual(y.model_batching, {});
    assert.equal('batching' in y, false);
    assert.ok(Object.isFrozen(y) && Object.isFrozen(y.model_server_config.model_config_list.config[0]));
  });
  it('the shipped fixtures, written in YAML, give the same objects', () => {
    const potato = parseModelConfigText(fs.readFileSync(path.join(CONFIGS, 'potato_models.config.example'), 'utf8'), 'p');
    assert.deepEqual(
      parseModelConfigYaml(
        "model_config_list:\n  config:\n    - name: 'potatoes_model'\n      base_path: '/workspace/local-files/projects/codebasics/plants-detection/potatoes_model'\n      model_platform: 'tensorflow'\n      model_version_policy: {all: {}}\n",
        'p.yaml',
      ),
      potato,
    );
  });
  it('an empty file serves no models', () => {
    assert.deepEqual(parseYamlConfig('', 'e.yaml'), { model_server_config: { model_config_list: { config: [] } }, model_batching: {} });
    assert.deepEqual(parseYamlConfig('# nothing\n', 'e.yaml').model_server_config, { model_config_list: { config: [] } });
  });
});

describe('YAML batching and monitoring sections', () => {
  it('batching: bare values or {value: N}, same result as the text proto', () => {
    const y = parseYamlConfig(
      'batching:\n  max_batch_size: 128\n  batch_timeout_micros: {value: 0}\n  max_enqueued_batches: 1000000\n  num_batch_threads: 8\n',
      'b.yaml',
    );
    assert.deepEqual(
      y.batching,
      parseBatchingParametersText(fs.readFileSync(path.join(CONFIGS, 'batching_config.txt'), 'utf8'), 'batching_config.txt'),
    );
  });
  it('per-model batching takes the shared thread pool from the top level', () => {
    const y = parseYamlConfig(
      `batching: {num_batch_threads: 3, thread_pool_name: shared, max_batch_size: 64}
models:
  - name: m
    base_path: /m
    batching: {max_batch_size: 32, allowed_batch_sizes: [8, 32], pad_variable_length_inputs: true}
  - name: n
    base_path: /n
`,
      'b.yaml',
    );
    assert.deepEqual(Object.keys(y.model_batching), ['m']);
    assert.deepEqual(y.model_batching.m, {
      max_batch_size: 32,
      batch_timeout_micros: 0,
      max_enqueued_batches: 10,
      num_batch_threads: 3,
      thread_pool_name: 'shared',
      enable_large_batch_splitting: false,
      max_execution_batch_size: 32,
      allowed_batch_sizes: [8, 32],
      pad_variable_length_inputs: true,
    });
    assert.equal(y.batching?.max_batch_size, 64);
    assert.equal('batching' in y.model_server_config.model_config_list.config[0], false);
  });
  it("tfgate's mode and latency_target_ms, at the top and per model; absent from TF Serving's fields otherwise", () => {
    const y = parseYamlConfig(
      'batching: {mode: fixed}\nmodels:\n  - name: m\n    base_path: /m\n    batching: {max_batch_size: 8, mode: adaptive, latency_target_ms: 40}\n',
      'b.yaml',
    );
    assert.equal(y.batching?.mode, 'fixed');
    assert.equal(y.batching?.latency_target_ms, undefined);
    assert.equal(y.model_batching.m.mode, 'adaptive');
    assert.equal(y.model_batching.m.latency_target_ms, 40);
    assert.equal('mode' in parseYamlConfig('batching: {max_batch_size: 8}\n', 'b.yaml').batching!, false);
  });
  it('monitoring_config', () => {
    const y = parseYamlConfig('monitoring_config:\n  prometheus_config: {enable: true}\n', 'm.yaml');
    assert.deepEqual(
      y.monitoring_config,
      parseMonitoringConfigText(fs.readFileSync(path.join(CONFIGS, 'monitoring_config.txt'), 'utf8'), 'm'),
    );
  });
});

describe('YAML errors carry file:line:col and the field', () => {
  const BAD: Array<[string, string, number, number, RegExp, string | undefined]> = [
    [
      'unknown model field',
      'model_config_list:\n  config:\n    - name: m\n      bogus: 1\n',
      4,
      7,
      /Message type "tensorflow\.serving\.ModelConfig" has no field named "bogus"\./,
      'bogus',
    ],
    [
      'unknown top-level key',
      'model_configs: []\n',
      1,
      1,
      /Message type "tfgate\.Config" has no field named "model_configs"\./,
      'model_configs',
    ],
    ['YAML syntax', 'model_config_list: [\n', 2, 1, /./, undefined],
    ['duplicate key', 'models:\n  - name: a\n    name: b\n', 3, 5, /Map keys must be unique/, undefined],
    [
      'two version policies',
      'models:\n  - name: a\n    base_path: /a\n    model_version_policy: {latest: {}, all: {}}\n',
      4,
      40,
      /Field "all" is specified along with field "latest", another member of oneof "policy_choice"\./,
      'all',
    ],
    ['both models and model_config_list', 'model_config_list: {}\nmodels: []\n', 2, 1, /another member of oneof "config"/, 'models'],
    [
      'string for an int',
      'models:\n  - name: a\n    base_path: /a\n    model_version_policy: {latest: {num_versions: two}}\n',
      4,
      51,
      /Expected integer for field "num_versions", got: two/,
      'num_versions',
    ],
    ['number for a string', 'models:\n  - name: 12\n', 2, 11, /Expected string for field "name", got: 12/, 'name'],
    ['list for a non-repeated field', 'models:\n  - name: [a]\n', 2, 11, /Field "name" is not repeated; a list is not allowed\./, 'name'],
    [
      'scalar for a message',
      'models:\n  - name: a\n    model_version_policy: latest\n',
      3,
      27,
      /Expected a mapping for message field "model_version_policy"/,
      'model_version_policy',
    ],
    ['mapping for a scalar', 'models:\n  - name: {first: a}\n', 2, 11, /Expected a value for field "name", got: a mapping/, 'name'],
    [
      'duplicate model names',
      'models:\n  - {name: a, base_path: /a}\n  - {name: a, base_path: /b}\n',
      3,
      6,
      /Illegal to list model a multiple times in config list/,
      'name',
    ],
    ['no base_path', 'models:\n  - name: a\n', 2, 5, /Expected model a to have an absolute path or URI; got base_path\(\)=/, 'base_path'],
    [
      'bad label',
      'models:\n  - name: a\n    base_path: /a\n    version_labels: {"x-y": 1}\n',
      4,
      22,
      /Version label "x-y" of model a must match/,
      'version_labels',
    ],
    [
      'label value not an int',
      'models:\n  - name: a\n    base_path: /a\n    version_labels: {stable: one}\n',
      4,
      30,
      /Expected integer for field "version_labels", got: one/,
      'version_labels',
    ],
    [
      'batching rule',
      'batching:\n  max_batch_size: 32\n  allowed_batch_sizes: [8, 16]\n',
      3,
      28,
      /Last entry in allowed_batch_sizes must match max_batch_size; last entry was 16; expected 32/,
      'allowed_batch_sizes',
    ],
    ['batching wrapper value', 'batching:\n  max_batch_size: 0\n', 2, 19, /max_batch_size must be positive; was 0/, 'max_batch_size'],
    [
      'thread pool set per model',
      'models:\n  - name: a\n    base_path: /a\n    batching: {num_batch_threads: 2}\n',
      4,
      16,
      /num_batch_threads cannot be set per model/,
      'num_batch_threads',
    ],
    ['unknown batching mode', 'batching:\n  mode: eager\n', 2, 3, /mode must be one of fixed, adaptive; was eager/, 'mode'],
    [
      'latency target not positive',
      'batching:\n  latency_target_ms: 0\n',
      2,
      3,
      /latency_target_ms must be a positive integer; was 0/,
      'latency_target_ms',
    ],
    [
      'latency target under fixed batching',
      'batching:\n  mode: fixed\n  latency_target_ms: 5\n',
      3,
      3,
      /latency_target_ms is read by adaptive batching only, and this section sets mode: fixed/,
      'latency_target_ms',
    ],
    [
      'bad bool',
      'monitoring_config: {prometheus_config: {enable: maybe}}\n',
      1,
      49,
      /Invalid value for boolean field "enable"\. Value: "maybe"\./,
      'enable',
    ],
    ['top level not a mapping', '- a\n- b\n', 1, 1, /Expected a mapping \(tfgate\.Config\) at the top level, got: a list/, undefined],
  ];
  for (const [what, yaml, line, col, re, field] of BAD) {
    it(what, () => throwsAt(() => parseYamlConfig(yaml, 'c.yaml'), 'c.yaml', line, col, re, field));
  }
});
