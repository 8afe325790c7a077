// The local copies of versions served from s3:// or gs://: the loaders read a SavedModel from
// a folder, so each version is downloaded before it loads, and its copy removed after it
// unloads (TF Serving reads the bucket through TF's file system instead; the bytes read are
// the same).
//
// - Atomic: a version is downloaded into a `.partial-*` folder beside its final place and
//   renamed into place only once every object arrived whole (its byte count as listed, and
//   the SDK's checksum where it has one); a failed or cut download leaves nothing a loader
//   could pick up, and is removed.
// - Bounded: before a byte is written the version's listed size is checked against
//   --model_cache_max_mb (all copies together) and against the free space of the cache's
//   disk less what other downloads in flight will still write; a version that does not fit
//   fails to load with a message that says so, never a half-full disk. An object that grows
//   past its listed size while streaming is cut.
// - Off the event loop: objects are streamed to disk (never held in memory), at most
//   MAX_CONCURRENT_OBJECTS at once over the whole server.
import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Storage, StoredObject } from './storage.js';
import { StorageError } from './storage_error.js';

/** Object downloads at once, server-wide: enough to fill a link, few enough not to exhaust sockets or file descriptors. */
const MAX_CONCURRENT_OBJECTS = 8;

/** A version's folder on the local disk, and how to give it back. */
export interface LocalCopy {
  readonly dir: string;
  /** Removes the copy (a no-op for a version that loads in place). Idempotent. */
  remove(): Promise<void>;
}

export interface VersionCacheOptions {
  /** The folder (--model_cache_dir) in which this server makes its own tfgate-models-* folder. */
  readonly root: string;
  /** --model_cache_max_mb in bytes; 0: no bound but free space. */
  readonly maxBytes: number;
  /** Free bytes on the disk holding `dir` (tests substitute it). */
  readonly freeBytes?: (dir: string) => Promise<number>;
}

const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MB`;

async function statfsFreeBytes(dir: string): Promise<number> {
  const s = await fs.statfs(dir);
  return s.bavail * s.bsize;
}

/** A relative object path that stays inside the copy's folder ('a/b.pb'; never '../x', '/x' or 'a//b'). */
function safeRelativePath(rel: string): boolean {
  return rel.split('/').every((seg) => seg !== '' && seg !== '.' && seg !== '..') && !rel.includes('\\') && !rel.includes('\0');
}

/** A counting semaphore: at most `limit` tasks run at once. */
class Slots {
  private running = 0;
  private readonly waiting: (() => void)[] = [];
  constructor(private readonly limit: number) {}

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.running >= this.limit) await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.running++;
    try {
      return await task();
    } finally {
      this.running--;
      this.waiting.shift()?.();
    }
  }
}

export class VersionCache {
  private runDir?: Promise<string>;
  /** Bytes held by copies on disk plus downloads in flight (for --model_cache_max_mb). */
  private heldBytes = 0;
  /** Bytes that downloads in flight have yet to write (taken off the free space). */
  private inFlightBytes = 0;
  private readonly slots = new Slots(MAX_CONCURRENT_OBJECTS);

  constructor(private readonly options: VersionCacheOptions) {}

  /** This server's own folder under the root, made at the first download. */
  private dir(): Promise<string> {
    this.runDir ??= fs.mkdir(this.options.root, { recursive: true }).then(() => fs.mkdtemp(path.join(this.options.root, 'tfgate-models-')));
    return this.runDir;
  }

  /**
   * Downloads the folder `location` of `storage` whole into a new local folder. `what`
   * names the version in errors ("version 2 of model m").
   */
  async fetch(storage: Storage, location: string, what: string): Promise<LocalCopy> {
    const objects = await storage.listTree(location);
    if (!objects.length) throw new StorageError(`${what}: ${location} holds no file`, 'ENOENT', location);
    const unsafe = objects.find((o) => !safeRelativePath(o.path));
    if (unsafe)
      throw new StorageError(
        `${what}: object ${location}/${unsafe.path} would be written outside the version's folder; refusing to download it`,
        'EINVAL',
        location,
      );
    const total = objects.reduce((sum, o) => sum + o.bytes, 0);
    const root = await this.dir();
    await this.checkRoom(root, total, location, what);
    this.heldBytes += total;
    this.inFlightBytes += total;
    let inFlight = total;
    const partial = await fs.mkdtemp(path.join(root, '.partial-'));
    // The first failure starts no further object; those already streaming finish (a stream
    // destroyed mid-response leaves the GCS SDK retrying it in the background), then the
    // partial folder goes.
    let firstError: unknown;
    let failed = false;
    try {
      await Promise.allSettled(
        objects.map((o) =>
          this.slots
            .run(async () => {
              if (failed) return;
              await this.download(storage, location, o, partial, what);
              this.inFlightBytes -= o.bytes;
              inFlight -= o.bytes;
            })
            .catch((e: unknown) => {
              if (!failed) firstError = e;
              failed = true;
            }),
        ),
      );
      if (failed) throw firstError;
      const dir = path.join(root, `${what.replace(/[^A-Za-z0-9_.-]+/g, '_').slice(0, 80)}-${randomBytes(4).toString('hex')}`);
      await fs.rename(partial, dir);
      let removed = false;
      return {
        dir,
        remove: async () => {
          if (removed) return;
          removed = true;
          this.heldBytes -= total;
          await fs.rm(dir, { recursive: true, force: true });
        },
      };
    } catch (e) {
      this.inFlightBytes -= inFlight;
      this.heldBytes -= total;
      await fs.rm(partial, { recursive: true, force: true });
      throw e;
    }
  }

  /** Refuses a version that would pass --model_cache_max_mb or the disk's free space. */
  private async checkRoom(root: string, total: number, location: string, what: string): Promise<void> {
    const max = this.options.maxBytes;
    if (max > 0 && this.heldBytes + total > max) {
      throw new StorageError(
        `${what} at ${location} is ${mb(total)}; with the ${mb(this.heldBytes)} already cached it would pass --model_cache_max_mb=${max / 2 ** 20}; not downloading it`,
        'EFBIG',
        location,
      );
    }
    const free = (await (this.options.freeBytes ?? statfsFreeBytes)(root)) - this.inFlightBytes;
    if (total > free) {
      throw new StorageError(
        `${what} at ${location} is ${mb(total)}, more than the ${mb(Math.max(0, free))} free in the model cache ${root} (--model_cache_dir); not downloading it`,
        'ENOSPC',
        location,
      );
    }
  }

  /** One object, streamed to its place in the partial folder, its byte count checked against the listing. */
  private async download(storage: Storage, location: string, o: StoredObject, into: string, what: string): Promise<void> {
    const uri = `${location.replace(/\/+$/, '')}/${o.path}`;
    const file = path.join(into, ...o.path.split('/'));
    await fs.mkdir(path.dirname(file), { recursive: true });
    let seen = 0;
    const count = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        seen += chunk.length;
        if (seen > o.bytes)
          done(
            new StorageError(
              `${what}: ${uri} grew past its listed ${o.bytes} bytes while downloading (changed under the download?)`,
              'ESIZE',
              uri,
            ),
          );
        else done(null, chunk);
      },
    });
    try {
      await pipeline(await storage.open(uri), count, createWriteStream(file, { flags: 'wx' }));
    } catch (e) {
      if (e instanceof StorageError) throw e;
      const err = e as NodeJS.ErrnoException;
      throw new StorageError(`${what}: downloading ${uri} failed: ${err.message}`, err.code ?? err.name ?? 'EIO', uri);
    }
    if (seen !== o.bytes) throw new StorageError(`${what}: ${uri} ended after ${seen} of its listed ${o.bytes} bytes`, 'ESIZE', uri);
  }

  /** Removes this server's cache folder (at shutdown, after every version unloaded). */
  async close(): Promise<void> {
    const dir = this.runDir && (await this.runDir.catch(() => undefined));
    this.runDir = undefined;
    if (dir) await fs.rm(dir, { recursive: true, force: true });
  }
}
