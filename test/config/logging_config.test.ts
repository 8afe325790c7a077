// A model's logging_config: what tfgate honours (the "file" collector, sampling_rate), what it
// refuses by field name at config load, and where relative prefixes point.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError } from '../../src/config/schema.js';
import { parseModelConfigText } from '../../src/config/model_server_config.js';
import { parseModelConfigYaml } from '../../src/config/yaml_config.js';

const configWith = (logging: string) =>
  `model_config_list { config { name: 'm' base_path: '/models/m'\n  logging_config { ${logging} } } }`;
const parse = (logging: string) => parseModelConfigText(configWith(logging), '/etc/tfgate/models.config').model_config_list.config[0];

function refuses(logging: string, field: string, message: RegExp): void {
  assert.throws(
    () => parse(logging),
    (e: unknown) => {
      assert.ok(e instanceof ConfigError, String(e));
      assert.equal(e.field, field);
      assert.match(e.message, /^\/etc\/tfgate\/models\.config:2:\d+: /, 'the file and line of the field');
      assert.match(e.message, message);
      return true;
    },
  );
}

describe('logging_config', () => {
  it('type "file" or left empty, a prefix resolved against the config folder, the sampling rate kept', () => {
    assert.deepEqual(
      parse("log_collector_config { type: 'file' filename_prefix: 'logs/m' } sampling_config { sampling_rate: 0.25 }").logging_config,
      {
        log_collector_config: { type: 'file', filename_prefix: '/etc/tfgate/logs/m' },
        sampling_config: { sampling_rate: 0.25 },
      },
    );
    assert.deepEqual(parse("log_collector_config { filename_prefix: '/var/log/m' }").logging_config, {
      log_collector_config: { type: '', filename_prefix: '/var/log/m' },
      sampling_config: { sampling_rate: 0 },
    });
  });

  it('YAML gives the same object', () => {
    const yaml =
      'model_config_list:\n  config:\n    - name: m\n      base_path: /models/m\n      logging_config:\n        log_collector_config: {type: file, filename_prefix: logs/m}\n        sampling_config: {sampling_rate: 0.25}\n';
    assert.deepEqual(
      parseModelConfigYaml(yaml, '/etc/tfgate/tfgate.yaml').model_config_list.config[0].logging_config,
      parse("log_collector_config { type: 'file' filename_prefix: 'logs/m' } sampling_config { sampling_rate: 0.25 }").logging_config,
    );
  });

  it('a relative prefix in a config read from a bucket is refused (the log is local); an absolute one is kept', () => {
    const fromBucket = (prefix: string) =>
      parseModelConfigText(configWith(`log_collector_config { filename_prefix: '${prefix}' }`), 's3://bucket/conf/models.config')
        .model_config_list.config[0].logging_config;
    assert.throws(
      () => fromBucket('logs/m'),
      /filename_prefix logs\/m is relative, and the config is read from s3:\/\/bucket\/conf; give an absolute local path/,
    );
    assert.equal(fromBucket('/var/log/m')?.log_collector_config.filename_prefix, '/var/log/m');
  });

  it("an unknown collector type: TF Serving's message, naming the type", () => {
    refuses(
      "log_collector_config { type: 'bigquery' filename_prefix: '/l' }",
      'type',
      /Cannot find LogCollector::Factory for type: bigquery \(model m; tfgate has one log collector, type "file"/,
    );
  });

  it('what cannot be honoured is refused by field name', () => {
    refuses('sampling_config { sampling_rate: 1 }', 'log_collector_config', /Model m: logging_config has no log_collector_config/);
    refuses("log_collector_config { type: 'file' }", 'filename_prefix', /filename_prefix is empty/);
    refuses(
      "log_collector_config { filename_prefix: 'gs://bucket/logs' }",
      'filename_prefix',
      /is a URI; the request log is written to a local path/,
    );
    refuses(
      "log_collector_config { filename_prefix: '/l' } sampling_config { sampling_rate: 1.5 }",
      'sampling_rate',
      /sampling_rate must be within \[0, 1\]; was 1\.5/,
    );
    refuses("log_collector_config { filename_prefix: '/l' } sampling_config { sampling_rate: -0.1 }", 'sampling_rate', /within \[0, 1\]/);
    refuses(
      "log_collector_config { filename_prefix: '/l' } sampling_config { per_task_sampling_configs { dc: 'aa' sampling_rate: 1 } }",
      'per_task_sampling_configs',
      /per_task_sampling_configs is not supported/,
    );
    refuses(
      "log_collector_config { filename_prefix: '/l' } sampling_config { attributes: 1 }",
      'attributes',
      /attributes is not supported/,
    );
    refuses(
      "log_collector_config { filename_prefix: '/l' } custom_logging_config { type_url: 'x' }",
      'custom_logging_config',
      /custom_logging_config is not supported/,
    );
  });
});
