// MonitoringConfig: --monitoring_config_file.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { ConfigError } from '../../src/config/schema.js';
import { DEFAULT_MONITORING_CONFIG, parseMonitoringConfigText } from '../../src/config/monitoring_config.js';
import { FIXTURES } from '../helpers/paths.js';

describe('monitoring config', () => {
  it('monitoring_config.txt', () => {
    const c = parseMonitoringConfigText(
      fs.readFileSync(path.join(FIXTURES, 'configs', 'monitoring_config.txt'), 'utf8'),
      'monitoring_config.txt',
    );
    assert.deepEqual(c, { prometheus_config: { enable: true, path: '/monitoring/prometheus/metrics' } });
    assert.ok(Object.isFrozen(c.prometheus_config));
  });
  it('defaults: disabled; an empty path is PrometheusExporter::kPrometheusPath', () => {
    assert.deepEqual(parseMonitoringConfigText('', 'm'), DEFAULT_MONITORING_CONFIG);
    assert.deepEqual(DEFAULT_MONITORING_CONFIG, { prometheus_config: { enable: false, path: '/monitoring/prometheus/metrics' } });
    assert.deepEqual(parseMonitoringConfigText('prometheus_config { enable: true path: "" }', 'm'), {
      prometheus_config: { enable: true, path: '/monitoring/prometheus/metrics' },
    });
    assert.deepEqual(
      parseMonitoringConfigText('prometheus_config { enable: true path: "/metrics" }', 'm').prometheus_config.path,
      '/metrics',
    );
  });
  it('refuses a path without a leading /, and unknown fields, with positions', () => {
    assert.throws(
      () => parseMonitoringConfigText('prometheus_config {\n  path: "metrics"\n}', 'm.txt'),
      (e: unknown) =>
        e instanceof ConfigError &&
        e.message === 'm.txt:2:3: prometheus_config.path must start with "/"; was "metrics"' &&
        e.field === 'path',
    );
    assert.throws(
      () => parseMonitoringConfigText('prometheus_config { enabled: true }', 'm.txt'),
      (e: unknown) =>
        e instanceof ConfigError &&
        /^m\.txt:1:21: Message type "tensorflow\.serving\.PrometheusConfig" has no field named "enabled"\.$/.test(e.message),
    );
  });
});
