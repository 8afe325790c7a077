// gs://bucket/prefix through Google's SDK (@google-cloud/storage, JSON API).
//
// Credentials are the SDK's Application Default Credentials, the chain TF's GCS file system
// also walks: GOOGLE_APPLICATION_CREDENTIALS (a service-account or external-account JSON
// file), gcloud's application-default login, then the GCE/GKE metadata server (workload
// identity). STORAGE_EMULATOR_HOST (the SDK's, not TF's) sends every call to an emulator,
// unauthenticated. Of TF's GCS_* variables (tsl/platform/cloud/gcs_file_system.cc):
//   GCS_RETRY_CONFIG_MAX_RETRIES     retries of a failed call (0: none), as TF
//   GCS_ALLOWED_BUCKET_LOCATIONS     comma-separated locations a bucket must be in (its
//                                    metadata is read once per bucket); 'auto' (the zone's
//                                    own region) is refused, tfgate does not look it up
// The others tune TF's block reader, stat caches, throttle and upload path (GCS_READ_CACHE_*,
// GCS_STAT_CACHE_*, GCS_MATCHING_PATHS_CACHE_*, GCS_THROTTLE_*, GCS_*_TIMEOUT_SECS,
// GCS_APPEND_MODE …): tfgate downloads each version whole, once, and reads none of them.
import type { Readable } from 'node:stream';
import type { Storage as GcsClient, Bucket } from '@google-cloud/storage';
import type { FolderListing, Storage, StoredObject } from './storage.js';
import { credentialHint, notFoundError, StorageError } from './storage_error.js';

export interface GcsSettings {
  /** Retries of a failed call; undefined: the SDK's default. */
  readonly maxRetries?: number;
  /** Locations (upper case) a bucket must be in; empty: any. */
  readonly allowedLocations: readonly string[];
}

/** The GCS_* variables tfgate honours (see above). A value it cannot honour throws, naming the variable. */
export function gcsSettingsFromEnv(env: NodeJS.ProcessEnv): GcsSettings {
  const retries = env.GCS_RETRY_CONFIG_MAX_RETRIES?.trim();
  if (retries !== undefined && !/^\d+$/.test(retries))
    throw new Error(`GCS_RETRY_CONFIG_MAX_RETRIES='${retries}': expected a whole number`);
  const allowedLocations = (env.GCS_ALLOWED_BUCKET_LOCATIONS ?? '')
    .split(',')
    .map((l) => l.trim().toUpperCase())
    .filter(Boolean);
  if (allowedLocations.includes('AUTO'))
    throw new Error("GCS_ALLOWED_BUCKET_LOCATIONS='auto' (the zone's own region) is not supported by tfgate: list the locations");
  return { maxRetries: retries === undefined ? undefined : Number(retries), allowedLocations };
}

/** gs://bucket/a/b → { bucket, key: 'a/b' } (no leading or trailing slash). */
function parseGs(location: string): { bucket: string; key: string } {
  const m = /^gs:\/\/([^/]+)\/*(.*?)\/*$/i.exec(location);
  if (!m) throw new StorageError(`${location} is not a gs://bucket/prefix location`, 'EINVAL', location);
  return { bucket: m[1], key: m[2] };
}

/** An SDK, auth or network failure as a StorageError whose code is stable from one poll to the next. */
function gcsError(e: unknown, location: string): StorageError {
  if (e instanceof StorageError) return e;
  const err = e as Error & { code?: number | string; errors?: { reason?: string }[] };
  const reason = err.errors?.[0]?.reason;
  const code =
    typeof err.code === 'number'
      ? `HTTP${err.code}${reason ? `_${reason}` : ''}`
      : (err.code ?? (/credential/i.test(err.message) ? 'CredentialsError' : err.name || 'Error'));
  return new StorageError(`${code}: ${err.message || 'no message'}${credentialHint(code, 'gs')}`, code, location);
}

export function gcsStorage(settings: GcsSettings, client?: GcsClient): Storage {
  const retryOptions =
    settings.maxRetries === undefined ? {} : settings.maxRetries === 0 ? { autoRetry: false } : { maxRetries: settings.maxRetries };
  // The SDK is loaded when a gs:// path first needs it: imported with tfgate, it cost every start ~0.45 s of CPU.
  let gcsClient: Promise<GcsClient> | undefined;
  const gcs = () =>
    (gcsClient ??= client ? Promise.resolve(client) : import('@google-cloud/storage').then((sdk) => new sdk.Storage({ retryOptions })));
  /** Buckets whose location was found allowed (checked once each). */
  const allowedBuckets = new Set<string>();

  async function bucketOf(location: string): Promise<{ bucket: Bucket; key: string }> {
    const { bucket, key } = parseGs(location);
    const b = (await gcs()).bucket(bucket);
    if (settings.allowedLocations.length && !allowedBuckets.has(bucket)) {
      const [meta] = await b.getMetadata();
      const where = String(meta.location ?? '').toUpperCase();
      if (!settings.allowedLocations.includes(where)) {
        throw new StorageError(
          `bucket ${bucket} is in ${where || 'an unknown location'}, not in GCS_ALLOWED_BUCKET_LOCATIONS (${settings.allowedLocations.join(', ')})`,
          'BucketLocationNotAllowed',
          location,
        );
      }
      allowedBuckets.add(bucket);
    }
    return { bucket: b, key };
  }

  return {
    async list(folder: string): Promise<FolderListing> {
      const folders: string[] = [];
      const files: string[] = [];
      try {
        const { bucket, key } = await bucketOf(folder);
        const prefix = key ? `${key}/` : '';
        let pageToken: string | undefined;
        do {
          const [found, next, response] = await bucket.getFiles({ prefix, delimiter: '/', autoPaginate: false, pageToken });
          for (const p of (response as { prefixes?: string[] } | undefined)?.prefixes ?? []) {
            const name = p.slice(prefix.length).replace(/\/$/, '');
            if (name) folders.push(name);
          }
          for (const f of found) {
            const name = f.name.slice(prefix.length);
            if (name) files.push(name);
          }
          pageToken = (next as { pageToken?: string } | null)?.pageToken;
        } while (pageToken);
        // As on S3: no object under the prefix is a folder that does not exist.
        if (!folders.length && !files.length && key) throw notFoundError(folder, 'no object has this prefix');
      } catch (e) {
        throw gcsError(e, folder);
      }
      return { folders, files };
    },

    async listTree(folder: string): Promise<StoredObject[]> {
      try {
        const { bucket, key } = await bucketOf(folder);
        const prefix = key ? `${key}/` : '';
        const [found] = await bucket.getFiles({ prefix, autoPaginate: true });
        return found
          .map((f) => ({ path: f.name.slice(prefix.length), bytes: Number(f.metadata.size ?? 0) }))
          .filter((o) => o.path && !o.path.endsWith('/'));
      } catch (e) {
        throw gcsError(e, folder);
      }
    },

    async open(file: string): Promise<Readable> {
      try {
        const { bucket, key } = await bucketOf(file);
        // The SDK checks the object's CRC32C/MD5 at the end of the stream: a torn read fails.
        return bucket.file(key).createReadStream();
      } catch (e) {
        throw gcsError(e, file);
      }
    },
  };
}
