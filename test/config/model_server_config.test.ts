// models.config (ModelServerConfig text proto): TF Serving's own files, defaults, checks.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { ConfigError } from '../../src/config/schema.js';
import {
  parseModelConfigText,
  singleModelConfig,
  validateModelServerConfig,
  type ModelServerConfig,
} from '../../src/config/model_server_config.js';
import { FIXTURES } from '../helpers/paths.js';

const CONFIGS = path.join(FIXTURES, 'configs');
const fixture = (f: string) => fs.readFileSync(path.join(CONFIGS, f), 'utf8');
const models = (c: ModelServerConfig) => c.model_config_list.config;

function throwsAt(fn: () => unknown, file: string, line: number, col: number, re: RegExp, field?: string): void {
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof ConfigError, String(e));
    assert.ok(e.message.startsWith(`${file}:${line}:${col}: `), `${e.message} (expected ${line}:${col})`);
    assert.match(e.message, re);
    if (field) assert.equal(e.field, field);
    return true;
  });
}

describe('models.config fixtures', () => {
  it("good_model_config.txt (TF Serving's test file, placeholders substituted)", () => {
    const text = fixture('good_model_config.txt')
      .replace('${TEST_HALF_PLUS_TWO_DIR}', '/m/hp2')
      .replace('${TEST_HALF_PLUS_THREE_DIR}', '/m/hp3');
    const c = parseModelConfigText(text, path.join(CONFIGS, 'good_model_config.txt'));
    assert.deepEqual(c, {
      model_config_list: {
        config: [
          {
            name: 'half_plus_two',
            base_path: '/m/hp2',
            model_platform: 'tensorflow',
            model_version_policy: { latest: { num_versions: 1 } },
            version_labels: {},
          },
          {
            name: 'half_plus_three',
            base_path: '/m/hp3',
            model_platform: 'tensorflow',
            model_version_policy: { latest: { num_versions: 1 } },
            version_labels: {},
          },
        ],
      },
    });
  });
  it('potato_models.config.example: single quotes, `model_version_policy: {all: {}}`', () => {
    const [m] = models(parseModelConfigText(fixture('potato_models.config.example'), 'potato'));
    assert.equal(m.name, 'potatoes_model');
    assert.equal(m.base_path, '/workspace/local-files/projects/codebasics/plants-detection/potatoes_model');
    assert.deepEqual(m.model_version_policy, { all: {} });
  });
  it('traffic_sign_model.config', () => {
    const [m] = models(parseModelConfigText(fixture('traffic_sign_model.config'), 'traffic'));
    assert.deepEqual(
      [m.name, m.base_path, m.model_platform],
      ['traffic-sign-classifier', '/models/traffic-sign-classifier/', 'tensorflow'],
    );
  });
  it('bad_model_config.txt fails with file:line:col', () => {
    throwsAt(
      () => parseModelConfigText(fixture('bad_model_config.txt'), 'bad_model_config.txt'),
      'bad_model_config.txt',
      1,
      1,
      /Message type "tensorflow\.serving\.ModelServerConfig" has no field named "improperly"\./,
      'improperly',
    );
  });
});

describe('models.config content', () => {
  it('version policies, labels, logging_config; relative base paths against the file folder', () => {
    const c = parseModelConfigText(
      `model_config_list {
         config { name: 'a' base_path: 'models/a' model_version_policy { specific { versions: 1 versions: 3 } }
                  version_labels { key: 'stable' value: 1 } version_labels { key: 'canary' value: 3 } }
         config { name: 'b' base_path: '/abs/b' model_version_policy { latest { num_versions: 2 } }
                  logging_config { log_collector_config { type: 'file' filename_prefix: 'logs/b' } sampling_config { sampling_rate: 0.5 } } }
         config { name: 'c' base_path: 'gs://bucket/c' model_type: TENSORFLOW model_version_policy { latest {} } }
         config { name: 'd' base_path: './d' model_version_policy {} }
       }`,
      '/srv/conf/models.config',
    );
    const [a, b, cc, d] = models(c);
    assert.equal(a.base_path, '/srv/conf/models/a');
    assert.deepEqual(a.model_version_policy, { specific: { versions: [1, 3] } });
    assert.deepEqual(a.version_labels, { stable: 1, canary: 3 });
    assert.deepEqual(b.model_version_policy, { latest: { num_versions: 2 } });
    assert.deepEqual(
      b.logging_config,
      { log_collector_config: { type: 'file', filename_prefix: '/srv/conf/logs/b' }, sampling_config: { sampling_rate: 0.5 } },
      'a relative filename_prefix resolves as base_path does',
    );
    assert.equal(cc.base_path, 'gs://bucket/c', 'URIs are kept as written');
    assert.equal(cc.model_platform, 'tensorflow', 'deprecated model_type TENSORFLOW');
    assert.deepEqual(cc.model_version_policy, { latest: { num_versions: 1 } }, 'num_versions 0 means 1');
    assert.equal(d.base_path, '/srv/conf/d');
    assert.deepEqual(d.model_version_policy, { latest: { num_versions: 1 } });
    assert.equal('logging_config' in a, false);
  });
  it('options.baseDir overrides the folder relative paths resolve against', () => {
    assert.equal(
      models(parseModelConfigText("model_config_list { config { name: 'a' base_path: 'a' } }", 'x', { baseDir: '/base' }))[0].base_path,
      '/base/a',
    );
  });
  it('an empty file serves no models', () => {
    assert.deepEqual(parseModelConfigText('', 'empty'), { model_config_list: { config: [] } });
  });
  it('the result is deep-frozen', () => {
    const c = parseModelConfigText("model_config_list { config { name: 'a' base_path: '/a' version_labels { key: 'x' value: 1 } } }", 'f');
    assert.ok(Object.isFrozen(c) && Object.isFrozen(c.model_config_list.config) && Object.isFrozen(models(c)[0].version_labels));
    assert.ok(Object.isFrozen((models(c)[0].model_version_policy as { latest: object }).latest));
    assert.throws(() => {
      (models(c)[0] as { name: string }).name = 'b';
    }, TypeError);
  });

  const BAD: Array<[string, string, number, number, RegExp, string]> = [
    ['no name', "model_config_list {\n  config { base_path: '/a' }\n}", 2, 3, /A model config has no name/, 'name'],
    [
      'no base_path',
      "model_config_list {\n  config { name: 'a' }\n}",
      2,
      3,
      /Expected model a to have an absolute path or URI; got base_path\(\)=$/,
      'base_path',
    ],
    [
      'duplicate names',
      "model_config_list {\n  config { name: 'a' base_path: '/a' }\n  config { name: 'a' base_path: '/b' }\n}",
      3,
      12,
      /Illegal to list model a multiple times in config list/,
      'name',
    ],
    [
      'unsupported platform',
      "model_config_list { config { name: 'a' base_path: '/a' model_platform: 'tflite' } }",
      1,
      56,
      /Model a requests unsupported platform tflite/,
      'model_platform',
    ],
    [
      'model_type and model_platform',
      "model_config_list { config { name: 'a' base_path: '/a' model_type: TENSORFLOW model_platform: 'tensorflow' } }",
      1,
      56,
      /Illegal setting both ModelServerConfig::model_type \(deprecated\) and ModelServerConfig::model_platform, model name is a/,
      'model_type',
    ],
    [
      'model_type OTHER',
      "model_config_list { config { name: 'a' base_path: '/a' model_type: OTHER } }",
      1,
      56,
      /ModelServerConfig::model_type choice 2 not supported\./,
      'model_type',
    ],
    [
      'two version policies',
      "model_config_list { config { name: 'a' base_path: '/a' model_version_policy { all {} specific { versions: 1 } } } }",
      1,
      86,
      /Field "specific" is specified along with field "all", another member of oneof "policy_choice"\./,
      'specific',
    ],
    [
      'label not a word',
      "model_config_list { config { name: 'a' base_path: '/a' version_labels { key: 'can ary' value: 1 } } }",
      1,
      73,
      /Version label "can ary" of model a must match \[a-zA-Z0-9_\]\+/,
      'version_labels',
    ],
    [
      'custom_model_config',
      'custom_model_config { type_url: "x" }',
      1,
      1,
      /ModelServer does not yet support custom model config\./,
      'custom_model_config',
    ],
    [
      'both config choices',
      'model_config_list {}\ncustom_model_config {}',
      2,
      1,
      /another member of oneof "config"/,
      'custom_model_config',
    ],
    [
      'negative num_versions',
      "model_config_list { config { name: 'a' base_path: '/a' model_version_policy { latest { num_versions: -2 } } } }",
      1,
      102,
      /Integer out of range \(-2\) for field "num_versions" \(uint32\)/,
      'num_versions',
    ],
    [
      'version not an integer',
      "model_config_list { config { name: 'a' base_path: '/a' model_version_policy { specific { versions: 'x' } } } }",
      1,
      100,
      /Expected integer for field "versions", got: 'x'/,
      'versions',
    ],
    [
      'misspelled field',
      "model_config_list { config { name: 'a' basepath: '/a' } }",
      1,
      40,
      /Message type "tensorflow\.serving\.ModelConfig" has no field named "basepath"\./,
      'basepath',
    ],
  ];
  for (const [what, text, line, col, re, field] of BAD) {
    it(`refuses: ${what}`, () => throwsAt(() => parseModelConfigText(text, 'models.config'), 'models.config', line, col, re, field));
  }
});

describe('model configs built in code', () => {
  it('singleModelConfig: --model_name/--model_base_path, relative to cwd', () => {
    const c = singleModelConfig('m', 'rel/m', '/srv');
    assert.deepEqual(c, {
      model_config_list: {
        config: [
          {
            name: 'm',
            base_path: '/srv/rel/m',
            model_platform: 'tensorflow',
            model_version_policy: { latest: { num_versions: 1 } },
            version_labels: {},
          },
        ],
      },
    });
    assert.ok(Object.isFrozen(models(c)[0]));
  });
  it('validateModelServerConfig applies the same checks, prefixing `where`', () => {
    const m = (name: string, base = '/x') => ({
      name,
      base_path: base,
      model_platform: 'tensorflow',
      model_version_policy: { latest: { num_versions: 1 } },
      version_labels: {},
    });
    const msg = (re: RegExp) => (e: unknown) => e instanceof ConfigError && re.test(e.message);
    assert.throws(
      () => validateModelServerConfig({ model_config_list: { config: [m('a'), m('a')] } }, '/repo'),
      msg(/^\/repo: Illegal to list model a multiple times in config list$/),
    );
    assert.throws(
      () => validateModelServerConfig({ model_config_list: { config: [m('')] } }, '/repo'),
      msg(/^\/repo: A model config has no name/),
    );
    assert.throws(() => validateModelServerConfig({ model_config_list: { config: [m('a', '')] } }, '/repo'), msg(/got base_path\(\)=$/));
    assert.ok(Object.isFrozen(validateModelServerConfig({ model_config_list: { config: [m('a')] } }, '/repo').model_config_list));
  });
});
