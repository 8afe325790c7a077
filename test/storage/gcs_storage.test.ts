// gs:// through @google-cloud/storage, pointed with STORAGE_EMULATOR_HOST (the SDK's own
// switch) at a small stand-in for the GCS JSON API (test/helpers/fake_gcs.ts): listing with
// pages and prefixes, errors, GCS_* variables, and a version downloaded byte for byte.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { gcsSettingsFromEnv, gcsStorage } from '../../src/storage/gcs_storage.js';
import { VersionCache } from '../../src/storage/version_cache.js';
import { listVersions } from '../../src/core/version_dirs.js';
import { FakeGcs } from '../helpers/fake_gcs.js';
import { MODELS } from '../helpers/paths.js';
import { tempDir } from '../helpers/temp.js';

const HALF_PLUS_TWO = path.join(MODELS, 'saved_model_half_plus_two_cpu', '00000123');
const FILES = ['saved_model.pb', 'variables/variables.index', 'variables/variables.data-00000-of-00001', 'assets/foo.txt'];

describe('GCS settings from the environment', () => {
  it('GCS_RETRY_CONFIG_MAX_RETRIES and GCS_ALLOWED_BUCKET_LOCATIONS are read; "auto" and a bad number are refused by name', () => {
    assert.deepEqual(gcsSettingsFromEnv({}), { maxRetries: undefined, allowedLocations: [] });
    assert.deepEqual(gcsSettingsFromEnv({ GCS_RETRY_CONFIG_MAX_RETRIES: '3', GCS_ALLOWED_BUCKET_LOCATIONS: 'us-east1, EU' }), {
      maxRetries: 3,
      allowedLocations: ['US-EAST1', 'EU'],
    });
    assert.throws(() => gcsSettingsFromEnv({ GCS_ALLOWED_BUCKET_LOCATIONS: 'auto' }), /GCS_ALLOWED_BUCKET_LOCATIONS='auto'/);
    assert.throws(() => gcsSettingsFromEnv({ GCS_RETRY_CONFIG_MAX_RETRIES: 'many' }), /GCS_RETRY_CONFIG_MAX_RETRIES='many'/);
  });
});

describe('GCS storage through the SDK against a stand-in JSON API', () => {
  const fake = new FakeGcs();
  before(async () => {
    process.env.STORAGE_EMULATOR_HOST = await fake.start();
    for (const v of ['1', '0002', '3'])
      for (const f of FILES) fake.put('models', `hp/${v}/${f}`, fs.readFileSync(path.join(HALF_PLUS_TWO, f)));
    fake.put('models', 'hp/README', 'not a version');
    fake.put('eu-models', 'm/1/saved_model.pb', 'x', 'EUROPE-WEST4');
  });
  after(async () => {
    delete process.env.STORAGE_EMULATOR_HOST;
    await fake.stop();
  });
  const storage = (env: NodeJS.ProcessEnv = {}) => gcsStorage(gcsSettingsFromEnv(env));

  it('lists a prefix over several pages as folders and files; the version rules are the local ones', async () => {
    const listing = await storage().list('gs://models/hp/');
    assert.deepEqual([...listing.folders].sort(), ['0002', '1', '3']);
    assert.deepEqual(listing.files, ['README']);
    assert.ok(fake.requests.filter((r) => r.includes('pageToken')).length >= 1, 'paged');
    assert.deepEqual(
      (await listVersions('gs://models/hp', storage())).map((v) => [v.version, v.path]),
      [
        [1, 'gs://models/hp/1'],
        [2, 'gs://models/hp/0002'],
        [3, 'gs://models/hp/3'],
      ],
    );
  });

  it('a prefix with nothing under it is ENOENT there; a missing bucket and refused credentials say so', async () => {
    await assert.rejects(
      storage().list('gs://models/none'),
      (e: Error & { code?: string; path?: string }) => e.code === 'ENOENT' && e.path === 'gs://models/none',
    );
    await assert.rejects(
      storage().list('gs://no-such-bucket/m'),
      (e: Error & { code?: string }) => e.code === 'HTTP404_notFound' && /The specified bucket does not exist/.test(e.message),
    );
    fake.failWith = 403;
    try {
      await assert.rejects(
        storage().list('gs://models/hp'),
        (e: Error & { code?: string }) => e.code === 'HTTP403_forbidden' && /GOOGLE_APPLICATION_CREDENTIALS/.test(e.message),
      );
    } finally {
      fake.failWith = undefined;
    }
  });

  it('GCS_ALLOWED_BUCKET_LOCATIONS: a bucket elsewhere is refused, one inside is read', async () => {
    const env = { GCS_ALLOWED_BUCKET_LOCATIONS: 'us-east1' };
    await assert.rejects(
      storage(env).list('gs://eu-models/m'),
      (e: Error & { code?: string }) =>
        e.code === 'BucketLocationNotAllowed' &&
        /bucket eu-models is in EUROPE-WEST4, not in GCS_ALLOWED_BUCKET_LOCATIONS \(US-EAST1\)/.test(e.message),
    );
    assert.deepEqual((await storage(env).list('gs://models/hp')).files, ['README']);
  });

  it('GCS_RETRY_CONFIG_MAX_RETRIES=0: a failing call is made once', async () => {
    fake.failWith = 503;
    const before = fake.requests.length;
    try {
      await assert.rejects(
        storage({ GCS_RETRY_CONFIG_MAX_RETRIES: '0' }).list('gs://models/hp'),
        (e: Error & { code?: string }) => e.code === 'HTTP503_backendError',
      );
    } finally {
      fake.failWith = undefined;
    }
    assert.equal(fake.requests.length - before, 1);
  });

  it('downloads a version byte for byte; a body that does not match its checksum fails the download', async () => {
    const cache = new VersionCache({ root: tempDir(), maxBytes: 0 });
    const copy = await cache.fetch(storage(), 'gs://models/hp/0002', 'version 2 of model hp');
    for (const rel of FILES)
      assert.deepEqual(fs.readFileSync(path.join(copy.dir, rel)), fs.readFileSync(path.join(HALF_PLUS_TWO, rel)), rel);
    await copy.remove();
    fake.corrupt = true;
    try {
      await assert.rejects(
        cache.fetch(storage(), 'gs://models/hp/1', 'version 1 of model hp'),
        /version 1 of model hp: downloading gs:\/\/models\/hp\/1\/.* failed/,
      );
    } finally {
      fake.corrupt = false;
    }
    await cache.close();
  });
});
