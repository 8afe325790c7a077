// Flags, models.config text protos (TF Serving's own files) and the YAML form.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { FlagError, FLAGS, helpText, parseFlags } from '../../src/config/flags.js';
import { parseModelConfigText, parseModelConfigYaml } from '../../src/config/model_server_config.js';
import { ConfigError, parseTextFormat } from '../../src/config/text_format.js';
import { FIXTURES } from '../helpers/paths.js';
import { tempDir } from '../helpers/temp.js';

const fixture = (f: string) => fs.readFileSync(path.join(FIXTURES, 'configs', f), 'utf8');

describe('flags', () => {
  it('accepts --flag=value, --flag value and bare booleans; keeps TF Serving defaults', () => {
    const { values, given } = parseFlags(['--rest_api_port=8501', '--model_name', 'm', '--enable_batching', '--model_base_path=/x']);
    assert.equal(values.rest_api_port, 8501);
    assert.equal(values.model_name, 'm');
    assert.equal(values.enable_batching, true);
    assert.equal(values.port, 8500);
    assert.equal(values.file_system_poll_wait_seconds, 1);
    assert.equal(values.rest_api_timeout_in_ms, 30000);
    assert.equal(values.saved_model_tags, 'serve');
    assert.equal(values.enable_model_warmup, true);
    assert.ok(given.has('rest_api_port') && !given.has('port'));
    assert.equal(parseFlags(['--enable_model_warmup=false']).values.enable_model_warmup, false);
    assert.equal(parseFlags(['--noenable_model_warmup']).values.enable_model_warmup, false);
  });
  it('accepts every flag of main.cc, including the ones tfgate ignores', () => {
    for (const name of ['use_alts_credentials', 'prefer_tflite_model', 'xla_cpu_compilation_enabled', 'skip_initialize_tpu', 'per_process_gpu_memory_fraction', 'grpc_channel_arguments', 'tensorflow_session_parallelism']) {
      assert.ok(name in FLAGS, name);
    }
    assert.doesNotThrow(() => parseFlags(['--per_process_gpu_memory_fraction=0.5', '--use_alts_credentials', '--grpc_max_threads=4']));
    const help = helpText();
    assert.match(help, /Accepted and ignored[\s\S]*--use_alts_credentials/);
    assert.match(help, /--rest_api_port=0\tint/);
  });
  it('unknown flags and bad values name the flag', () => {
    assert.throws(() => parseFlags(['--no_such_flag=1']), (e: Error) => e instanceof FlagError && /no_such_flag/.test(e.message));
    assert.throws(() => parseFlags(['--rest_api_port=abc']), (e: Error) => e instanceof FlagError && /rest_api_port/.test(e.message));
    assert.throws(() => parseFlags(['--enable_batching=maybe']), (e: Error) => e instanceof FlagError && /enable_batching/.test(e.message));
    assert.throws(() => parseFlags(['--model_name']), (e: Error) => e instanceof FlagError && /model_name/.test(e.message));
  });
});

describe('models.config (text proto)', () => {
  it("parses TF Serving's good_model_config.txt with its placeholders substituted", () => {
    const text = fixture('good_model_config.txt').replace('${TEST_HALF_PLUS_TWO_DIR}', '/m/hp2').replace('${TEST_HALF_PLUS_THREE_DIR}', '/m/hp3');
    const c = parseModelConfigText(text, '/etc/models.config');
    assert.deepEqual(c.models.map((m) => [m.name, m.basePath, m.modelPlatform]), [['half_plus_two', '/m/hp2', 'tensorflow'], ['half_plus_three', '/m/hp3', 'tensorflow']]);
    assert.deepEqual(c.models[0].versionPolicy, { latest: { numVersions: 1 } });
    assert.ok(Object.isFrozen(c.models[0]));
  });
  it('parses the potato config (single quotes, `{all: {}}`) and the traffic-sign one', () => {
    assert.deepEqual(parseModelConfigText(fixture('potato_models.config.example'), 'p').models[0].versionPolicy, { all: {} });
    assert.equal(parseModelConfigText(fixture('traffic_sign_model.config'), 't').models[0].name, 'traffic-sign-classifier');
  });
  it('bad_model_config.txt fails with file:line:col', () => {
    assert.throws(() => parseModelConfigText(fixture('bad_model_config.txt'), 'bad_model_config.txt'), (e: Error) => e instanceof ConfigError && /^bad_model_config\.txt:1:\d+: /.test(e.message));
  });
  it('relative base paths resolve against the config file; labels and specific versions', () => {
    const c = parseModelConfigText(
      `model_config_list { config { name: 'm' base_path: 'models/m' model_version_policy { specific { versions: 1 versions: 3 } } version_labels { key: 'stable' value: 1 } version_labels { key: 'canary' value: 3 } } }`,
      '/srv/conf/models.config',
    );
    assert.equal(c.models[0].basePath, '/srv/conf/models/m');
    assert.deepEqual(c.models[0].versionPolicy, { specific: { versions: [1, 3] } });
    assert.deepEqual(c.models[0].versionLabels, { stable: 1, canary: 3 });
  });
  const BAD: Array<[string, string, RegExp]> = [
    ['unknown field', 'model_config_list { config { name: "a" base_pth: "/x" } }', /^f:1:40: Message type "tensorflow.serving.ModelConfig" has no field named "base_pth"\.$/],
    ['missing brace', 'model_config_list {\n  config { name: "a" base_path: "/x" }\n', /^f:3:1: expected '}' but found end of file$/],
    ['string for an int', 'model_config_list { config { name: "a" base_path: "/x" model_version_policy { latest { num_versions: "2" } } } }', /^f:1:\d+: Expected integer for field "num_versions"/],
    ['duplicate model', 'model_config_list { config { name: "a" base_path: "/x" } config { name: "a" base_path: "/y" } }', /Illegal to list model a multiple times/],
    ['unterminated string', 'model_config_list { config { name: "a }', /^f:1:\d+: unterminated string$/],
  ];
  for (const [what, text, message] of BAD) {
    it(`error with position: ${what}`, () => assert.throws(() => parseModelConfigText(text, 'f'), (e: Error) => e instanceof ConfigError && message.test(e.message)));
  }
  it('comments, both separators, angle brackets and `field: {` all parse', () => {
    const t = parseTextFormat('# c\na: 1, b: "x"; c < d: 2 > e: { f: [1, 2] }', 'f');
    assert.deepEqual(t.fields.map((f) => f.name), ['a', 'b', 'c', 'e']);
  });
});

describe('YAML config', () => {
  it('gives the same models as the text proto', () => {
    const dir = tempDir('tfgate-yaml-');
    const text = parseModelConfigText(`model_config_list { config { name: 'm' base_path: 'models/m' model_version_policy { latest { num_versions: 2 } } version_labels { key: 'stable' value: 1 } } }`, path.join(dir, 'models.config'));
    const yaml = parseModelConfigYaml(`model_config_list:\n  config:\n    - name: m\n      base_path: models/m\n      model_version_policy: {latest: {num_versions: 2}}\n      version_labels: {stable: 1}\n`, path.join(dir, 'tfgate.yaml'));
    assert.deepEqual(yaml.models, text.models);
  });
  it('errors carry file:line:col', () => {
    assert.throws(() => parseModelConfigYaml('model_config_list:\n  config:\n    - name: m\n      bogus: 1\n', 'c.yaml'), (e: Error) => /^c\.yaml:4:7: .*no field named "bogus"/.test(e.message));
    assert.throws(() => parseModelConfigYaml('model_config_list: [\n', 'c.yaml'), (e: Error) => /^c\.yaml:\d+:\d+: /.test(e.message));
  });
});
