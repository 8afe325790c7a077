// The server's one door to storage: picks local, s3:// or gs:// by a location's scheme,
// builds each cloud client once (from the environment, at its first use), reads config
// files, and hands the loaders a local folder for any version (the version's own folder on
// disk, or a fresh download in the version cache).
import type { Readable } from 'node:stream';
import { uriScheme } from '../config/storage_uri.js';
import { gcsSettingsFromEnv, gcsStorage } from './gcs_storage.js';
import { localStorage } from './local_storage.js';
import { s3SettingsFromEnv, s3Storage } from './s3_storage.js';
import type { FolderListing, Storage } from './storage.js';
import { StorageError } from './storage_error.js';
import { VersionCache, type LocalCopy, type VersionCacheOptions } from './version_cache.js';

/** Config files are small: a bigger one is a wrong path, not a config. */
const MAX_CONFIG_FILE_BYTES = 64 * 2 ** 20;

export class StorageRouter {
  private readonly clouds = new Map<string, Storage>();
  private readonly cache: VersionCache;

  constructor(
    cache: VersionCacheOptions,
    private readonly env: NodeJS.ProcessEnv = process.env,
    /** Per-scheme storages that tests substitute. */
    private readonly builders: { readonly [scheme: string]: (env: NodeJS.ProcessEnv) => Storage } = DEFAULT_BUILDERS,
  ) {
    this.cache = new VersionCache(cache);
  }

  /**
   * The storage holding `location`. Its client is built at the first call for its scheme; an
   * environment it cannot honour (GCS_ALLOWED_BUCKET_LOCATIONS=auto, an unreadable
   * S3_CA_FILE …) throws here, naming the variable: at start-up through checkLocations().
   */
  storageFor(location: string): Storage {
    const scheme = uriScheme(location);
    if (scheme === undefined || scheme === 'file') return localStorage;
    let storage = this.clouds.get(scheme);
    if (!storage) {
      const build = this.builders[scheme];
      if (!build) throw new StorageError(`the ${scheme}:// scheme is not supported`, 'EPROTONOSUPPORT', location);
      try {
        storage = build(this.env);
      } catch (e) {
        throw new StorageError(`cannot reach ${scheme}:// storage: ${(e as Error).message}`, 'ECONFIG', location);
      }
      this.clouds.set(scheme, storage);
    }
    return storage;
  }

  /** Builds the clients `locations` need now, so that a bad environment stops start-up, not a poll. */
  checkLocations(locations: readonly string[]): void {
    for (const l of locations) this.storageFor(l);
  }

  list(folder: string): Promise<FolderListing> {
    return this.storageFor(folder).list(folder);
  }

  /** A config file's text, from disk or a bucket. */
  async readText(file: string): Promise<string> {
    const chunks: Buffer[] = [];
    let bytes = 0;
    const stream: Readable = await this.storageFor(file).open(file);
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      bytes += chunk.length;
      if (bytes > MAX_CONFIG_FILE_BYTES) {
        stream.destroy();
        throw new StorageError(`${file} is larger than ${MAX_CONFIG_FILE_BYTES / 2 ** 20} MB: not a config file`, 'EFBIG', file);
      }
      chunks.push(chunk);
    }
    return Buffer.concat(chunks).toString('utf8');
  }

  /** A local folder holding the version at `location`: itself on disk, else a download (version_cache.ts). */
  async localCopy(location: string, what: string): Promise<LocalCopy> {
    const storage = this.storageFor(location);
    if (storage === localStorage) return { dir: location, remove: async () => {} };
    return this.cache.fetch(storage, location, what);
  }

  /** Removes the cache folder (after every version unloaded). */
  close(): Promise<void> {
    return this.cache.close();
  }
}

const DEFAULT_BUILDERS = {
  s3: (env: NodeJS.ProcessEnv) => s3Storage(s3SettingsFromEnv(env)),
  gs: (env: NodeJS.ProcessEnv) => gcsStorage(gcsSettingsFromEnv(env)),
};
