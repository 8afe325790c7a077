// --rest_max_connections' default from the open-file limit; --reload_config_allowed_base_paths'
// matching; the flags resolved into ServerOptions.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { defaultMaxConnections, openFileSoftLimit } from '../../src/config/connection_limit.js';
import { isAllowedBasePath, parseAllowedBasePaths } from '../../src/config/allowed_base_paths.js';
import { FlagError, parseServerOptions } from '../../src/config/flags.js';

const LIMITS = (soft: string, hard: string) =>
  `Limit                     Soft Limit           Hard Limit           Units\nMax processes             63457                63457                processes\nMax open files            ${soft.padEnd(20)} ${hard.padEnd(20)} files\n`;

describe('--rest_max_connections default', () => {
  it('reads the soft open-file limit of /proc/self/limits', () => {
    assert.equal(openFileSoftLimit(LIMITS('1024', '1048576')), 1024);
    assert.equal(openFileSoftLimit(LIMITS('unlimited', 'unlimited')), Infinity);
    assert.equal(openFileSoftLimit('nothing here'), undefined);
  });
  it('is the limit minus 256, between 16 and 16384; 1024 assumed when unknown', () => {
    assert.equal(defaultMaxConnections(1024), 768);
    assert.equal(defaultMaxConnections(65536), 16384);
    assert.equal(defaultMaxConnections(Infinity), 16384);
    assert.equal(defaultMaxConnections(200), 16);
    assert.equal(defaultMaxConnections(undefined), 768);
  });
  it('0 resolves to the default, a number is kept, a negative one is refused', () => {
    assert.equal(parseServerOptions(['--model_base_path=/m']).restMaxConnections, defaultMaxConnections(openFileSoftLimit()));
    assert.equal(parseServerOptions(['--model_base_path=/m', '--rest_max_connections=8']).restMaxConnections, 8);
    assert.throws(
      () => parseServerOptions(['--model_base_path=/m', '--rest_max_connections=-1']),
      (e: unknown) => e instanceof FlagError && e.flag === 'rest_max_connections',
    );
  });
});

describe('--reload_config_allowed_base_paths', () => {
  const allowed = parseAllowedBasePaths('/srv/models/, rel , s3://bucket/models', '/opt/app');
  it('normalises the list (absolute against the working directory, no trailing slash)', () => {
    assert.deepEqual(allowed, ['/srv/models', '/opt/app/rel', 's3://bucket/models']);
    assert.deepEqual(parseAllowedBasePaths(''), []);
  });
  it('allows the directories and what is under them, by whole path segments, after resolving ..', () => {
    const ok = (p: string) => isAllowedBasePath(p, allowed, '/opt/app');
    assert.ok(ok('/srv/models'));
    assert.ok(ok('/srv/models/a/b'));
    assert.ok(ok('/opt/app/rel/m'));
    assert.ok(ok('s3://bucket/models/m'));
    assert.ok(!ok('/srv/models-private/m'));
    assert.ok(!ok('/srv/models/../secrets'));
    assert.ok(!ok('/etc'));
    assert.ok(!ok('s3://bucket/models/../other'));
    assert.ok(!ok('gs://bucket/models/m'));
    assert.ok(isAllowedBasePath('/anything', []), 'empty list: any path');
  });
  it('with --enable_reload_config_request and --grpc_api_host in ServerOptions', () => {
    const o = parseServerOptions(
      [
        '--model_base_path=/m',
        '--enable_reload_config_request=false',
        '--reload_config_allowed_base_paths=/a,/b',
        '--grpc_api_host=127.0.0.1',
      ],
      '/w',
    );
    assert.deepEqual(o.reloadConfigRequest, { enabled: false, allowedBasePaths: ['/a', '/b'] });
    assert.equal(o.grpcHost, '127.0.0.1');
    const d = parseServerOptions(['--model_base_path=/m']);
    assert.deepEqual(d.reloadConfigRequest, { enabled: true, allowedBasePaths: [] });
    assert.equal(d.grpcHost, '0.0.0.0');
  });
});
