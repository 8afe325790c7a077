// Puts a local folder under every load: a version on s3:// or gs:// is downloaded first
// (storage_router.ts, version_cache.ts), then the wrapped loader loads it from that folder
// as from any other; its copy is removed once it unloaded, or when its load failed (a retry
// downloads again). Versions on disk pass through untouched.
import type { LocalCopy } from './version_cache.js';

/** The loader contract of core/aspired_versions_manager.ts, restated so storage/ depends on nothing of core/. */
interface Loader<T> {
  load(modelName: string, version: number, path: string): Promise<T>;
  unload(loaded: T): Promise<void>;
}

export class FetchingVersionLoader<T extends object> implements Loader<T> {
  /** The copy under each loaded version, removed after it unloads. */
  private readonly copies = new WeakMap<T, LocalCopy>();

  constructor(
    private readonly inner: Loader<T>,
    private readonly localCopy: (location: string, what: string) => Promise<LocalCopy>,
  ) {}

  async load(modelName: string, version: number, location: string): Promise<T> {
    const copy = await this.localCopy(location, `version ${version} of model ${modelName}`);
    let loaded: T;
    try {
      loaded = await this.inner.load(modelName, version, copy.dir);
    } catch (e) {
      await copy.remove();
      throw e;
    }
    this.copies.set(loaded, copy);
    return loaded;
  }

  async unload(loaded: T): Promise<void> {
    try {
      await this.inner.unload(loaded);
    } finally {
      const copy = this.copies.get(loaded);
      this.copies.delete(loaded);
      await copy?.remove();
    }
  }
}
