// Where base paths and config files live: local, file://, s3:// and gs:// are read; any other
// scheme is refused where it is written (flag, config file, HandleReloadConfigRequest),
// naming the scheme, instead of becoming a local path that is never found.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import os from 'node:os';
import { resolveLocation, unsupportedLocation, parentLocation } from '../../src/config/storage_uri.js';
import { parseModelConfigText } from '../../src/config/model_server_config.js';
import { ConfigError } from '../../src/config/schema.js';
import { FlagError, parseServerOptions } from '../../src/config/flags.js';
import { configFromReloadRequest } from '../../src/server/reload_config_request.js';
import { ServingError } from '../../src/errors/status.js';

const one = (base: string, file = '/etc/tfgate/models.config') =>
  parseModelConfigText(`model_config_list { config { name: "m" base_path: "${base}" } }`, file).model_config_list.config[0].base_path;

describe('storage locations', () => {
  it('keeps s3:// and gs:// as written, file:// as its path, resolves the rest', () => {
    assert.equal(resolveLocation('s3://bucket/models/m/', '/w'), 's3://bucket/models/m');
    assert.equal(resolveLocation('gs://bucket/m', '/w'), 'gs://bucket/m');
    assert.equal(resolveLocation('file:///srv/models/m', '/w'), '/srv/models/m');
    assert.equal(resolveLocation('models/m', '/w'), '/w/models/m');
    assert.equal(resolveLocation('/abs/m', '/w'), '/abs/m');
    assert.equal(parentLocation('s3://bucket/configs/models.config'), 's3://bucket/configs');
  });

  it('names the scheme it cannot read, and a URI without a bucket', () => {
    assert.equal(
      unsupportedLocation('hdfs://namenode:8020/models/m'),
      'the hdfs:// scheme is not supported (tfgate reads local paths, file://, s3:// and gs://)',
    );
    assert.match(unsupportedLocation('az://container/m')!, /the az:\/\/ scheme/);
    assert.match(unsupportedLocation('s3://')!, /names no bucket/);
    for (const ok of ['/m', 'rel/m', 'file:///m', 's3://b/m', 'gs://b', 'S3://b/m']) assert.equal(unsupportedLocation(ok), undefined, ok);
  });

  it('models.config: an hdfs:// base_path is a ConfigError naming the model and the scheme', () => {
    assert.throws(
      () => one('hdfs://namenode/models/m'),
      (e: unknown) =>
        e instanceof ConfigError &&
        e.field === 'base_path' &&
        /^\/etc\/tfgate\/models.config:1:\d+: Model m has base_path hdfs:\/\/namenode\/models\/m: the hdfs:\/\/ scheme is not supported/.test(
          e.message,
        ),
    );
  });

  it('models.config read from a bucket: a relative base_path is a prefix of that bucket, never above it', () => {
    assert.equal(one('models/m', 's3://bucket/configs/models.config'), 's3://bucket/configs/models/m');
    assert.equal(one('../m', 'gs://bucket/configs/models.config'), 'gs://bucket/m');
    assert.equal(one('../../../m', 's3://bucket/configs/models.config'), 's3://bucket/m');
    assert.equal(one('/srv/m', 's3://bucket/configs/models.config'), '/srv/m');
  });

  it('flags: s3:// and gs:// base paths and model config files are kept; other schemes and cloud URIs for local-only files are refused by flag', () => {
    const single = parseServerOptions(['--model_base_path=s3://bucket/models/m/'], '/w').modelSource;
    assert.deepEqual(single, { kind: 'single_model', name: 'default', basePath: 's3://bucket/models/m' });
    assert.deepEqual(parseServerOptions(['--model_config_file=gs://bucket/models.config'], '/w').modelSource, {
      kind: 'model_config_file',
      file: 'gs://bucket/models.config',
      pollWaitSeconds: 0,
    });
    const refused = (args: string[], flag: string, re: RegExp) =>
      assert.throws(
        () => parseServerOptions(args, '/w'),
        (e: unknown) => e instanceof FlagError && e.flag === flag && re.test(e.message),
      );
    refused(['--model_base_path=viewfs://cluster/m'], 'model_base_path', /the viewfs:\/\/ scheme is not supported/);
    refused(['--model_config_file=hdfs://nn/models.config'], 'model_config_file', /the hdfs:\/\/ scheme is not supported/);
    refused(['--config=s3://bucket/tfgate.yaml'], 'config', /read from the local file system only/);
    refused(
      ['--model_base_path=/m', '--monitoring_config_file=gs://bucket/monitoring.config'],
      'monitoring_config_file',
      /read from the local file system only/,
    );
  });

  it('--model_cache_dir defaults to the system temporary folder; --model_cache_max_mb is in MB', () => {
    assert.deepEqual(parseServerOptions(['--model_base_path=/m'], '/w').modelCache, { dir: os.tmpdir(), maxBytes: 0 });
    assert.deepEqual(parseServerOptions(['--model_base_path=/m', '--model_cache_dir=cache', '--model_cache_max_mb=2'], '/w').modelCache, {
      dir: '/w/cache',
      maxBytes: 2 * 2 ** 20,
    });
  });

  it('HandleReloadConfigRequest: an s3:// base path outside --reload_config_allowed_base_paths, or an hdfs:// one, is INVALID_ARGUMENT', () => {
    const req = (base: string) => ({ model_config_list: { config: [{ name: 'm', base_path: base }] } });
    const allowed = ['s3://bucket/models'];
    const log = () => {};
    assert.equal(
      configFromReloadRequest(req('s3://bucket/models/m'), allowed, log).model_config_list.config[0].base_path,
      's3://bucket/models/m',
    );
    assert.throws(
      () => configFromReloadRequest(req('s3://other/models/m'), allowed, log),
      (e: unknown) => e instanceof ServingError && /outside the base paths this server allows/.test(e.message),
    );
    assert.throws(
      () => configFromReloadRequest(req('hdfs://nn/m'), [], log),
      (e: unknown) => e instanceof ServingError && /the hdfs:\/\/ scheme is not supported/.test(e.message),
    );
  });
});
