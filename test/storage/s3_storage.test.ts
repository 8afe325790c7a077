// s3:// through the AWS SDK against an S3-compatible server started here (s3rver on
// loopback), and the environment read as TF's S3 file system reads it.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { s3SettingsFromEnv, s3Storage } from '../../src/storage/s3_storage.js';
import { VersionCache } from '../../src/storage/version_cache.js';
import { listVersions } from '../../src/core/version_dirs.js';
import { S3Fixture } from '../helpers/s3_server.js';
import { MODELS } from '../helpers/paths.js';
import { tempDir } from '../helpers/temp.js';

const HALF_PLUS_TWO = path.join(MODELS, 'saved_model_half_plus_two_cpu', '00000123');

describe('S3 settings from the environment (TF 2.6 s3_file_system.cc)', () => {
  it('S3_ENDPOINT takes its scheme from S3_USE_HTTPS, addresses buckets by path, defaults the region', () => {
    const s = s3SettingsFromEnv({ S3_ENDPOINT: 'minio:9000', S3_USE_HTTPS: '0' });
    assert.equal(s.endpoint, 'http://minio:9000');
    assert.equal(s.forcePathStyle, true);
    assert.equal(s.region, 'us-east-1');
    assert.equal(
      s3SettingsFromEnv({ S3_ENDPOINT: 'minio:9000' }).endpoint,
      'https://minio:9000',
      'https unless S3_USE_HTTPS starts with 0',
    );
    assert.equal(s3SettingsFromEnv({ S3_ENDPOINT: 'minio:9000', S3_USE_HTTPS: '1' }).endpoint, 'https://minio:9000');
    assert.equal(s3SettingsFromEnv({ S3_ENDPOINT: 'http://minio:9000' }).endpoint, 'http://minio:9000', 'a full URL is taken as is');
  });
  it('AWS_REGION before S3_REGION; none and no endpoint: the SDK chain decides; AWS itself keeps virtual-hosted addressing', () => {
    assert.equal(s3SettingsFromEnv({ AWS_REGION: 'eu-west-1', S3_REGION: 'us-west-2' }).region, 'eu-west-1');
    assert.equal(s3SettingsFromEnv({ S3_REGION: 'us-west-2' }).region, 'us-west-2');
    const aws = s3SettingsFromEnv({});
    assert.equal(aws.region, undefined);
    assert.equal(aws.endpoint, undefined);
    assert.equal(aws.forcePathStyle, false);
  });
  it('S3_VERIFY_SSL=0 turns certificate checks off; timeouts default to 300 s as in TF; S3_CA_FILE adds a CA', () => {
    assert.equal(s3SettingsFromEnv({}).verifyTls, true);
    assert.equal(s3SettingsFromEnv({ S3_VERIFY_SSL: '0' }).verifyTls, false);
    assert.equal(s3SettingsFromEnv({ S3_VERIFY_SSL: '1' }).verifyTls, true);
    assert.deepEqual([s3SettingsFromEnv({}).connectTimeoutMs, s3SettingsFromEnv({}).requestTimeoutMs], [300_000, 300_000]);
    const t = s3SettingsFromEnv({ S3_CONNECT_TIMEOUT_MSEC: '1500', S3_REQUEST_TIMEOUT_MSEC: '2500' });
    assert.deepEqual([t.connectTimeoutMs, t.requestTimeoutMs], [1500, 2500]);
    const ca = path.join(tempDir(), 'ca.pem');
    fs.writeFileSync(ca, '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n');
    assert.deepEqual(s3SettingsFromEnv({ S3_CA_FILE: ca }).extraCa.length, 1);
  });
});

describe('S3 storage against an S3-compatible server', () => {
  let s3: S3Fixture;
  before(async () => {
    s3 = await S3Fixture.start();
    await s3.createBucket('models');
    await s3.putFolder('models', 'hp/1', HALF_PLUS_TWO);
    await s3.putFolder('models', 'hp/0002', HALF_PLUS_TWO);
    await s3.put('models', 'hp/notes.txt', 'not a version');
    await s3.put('models', 'hp/tmp_3/saved_model.pb', 'not a version either');
  });
  after(() => s3.stop());
  const storage = () => s3Storage({ ...s3SettingsFromEnv({ S3_ENDPOINT: s3.endpoint }), region: 'us-east-1' });

  it('lists a prefix as folders and files; the version rules are the local ones', async () => {
    process.env.AWS_ACCESS_KEY_ID = 'S3RVER';
    process.env.AWS_SECRET_ACCESS_KEY = 'S3RVER';
    const listing = await storage().list('s3://models/hp');
    assert.deepEqual([...listing.folders].sort(), ['0002', '1', 'tmp_3']);
    assert.deepEqual(listing.files, ['notes.txt']);
    assert.deepEqual(await listVersions('s3://models/hp/', storage()), [
      { version: 1, path: 's3://models/hp/1' },
      { version: 2, path: 's3://models/hp/0002' },
    ]);
  });

  it('a prefix with nothing under it does not exist (ENOENT at that path); a missing bucket is NoSuchBucket', async () => {
    await assert.rejects(
      storage().list('s3://models/nothing'),
      (e: Error & { code?: string; path?: string }) => e.code === 'ENOENT' && e.path === 's3://models/nothing',
    );
    await assert.rejects(
      storage().list('s3://no-such-bucket/m'),
      (e: Error & { code?: string }) =>
        e.code === 'NoSuchBucket' && /NoSuchBucket: The specified bucket does not exist \(HTTP 404\)/.test(e.message),
    );
  });

  it('refused credentials say where credentials come from', async () => {
    const saved = process.env.AWS_ACCESS_KEY_ID;
    process.env.AWS_ACCESS_KEY_ID = 'NOT-A-KEY';
    try {
      await assert.rejects(
        storage().list('s3://models/hp'),
        (e: Error & { code?: string }) =>
          e.code === 'InvalidAccessKeyId' && /HTTP 403.*AWS_ACCESS_KEY_ID\/AWS_SECRET_ACCESS_KEY, AWS_PROFILE/.test(e.message),
      );
    } finally {
      process.env.AWS_ACCESS_KEY_ID = saved;
    }
  });

  it('downloads a version byte for byte into the cache', async () => {
    const cache = new VersionCache({ root: tempDir(), maxBytes: 0 });
    const copy = await cache.fetch(storage(), 's3://models/hp/0002', 'version 2 of model hp');
    for (const rel of ['saved_model.pb', 'variables/variables.index', 'variables/variables.data-00000-of-00001', 'assets/foo.txt']) {
      assert.deepEqual(fs.readFileSync(path.join(copy.dir, rel)), fs.readFileSync(path.join(HALF_PLUS_TWO, rel)), rel);
    }
    await copy.remove();
    await cache.close();
  });
});
