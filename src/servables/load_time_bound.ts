// The load's time bound (savedmodel/load_bounds.ts) around everything a load does — probe,
// executor threads, verify-on-load, warmup: past --load_timeout_seconds plus 1 s per 4 MB on
// disk, the loaders under it are told to stop (their signal aborts) and the load fails with
// DEADLINE_EXCEEDED. A folder that is not a model (a FIFO, a device, a link out of it:
// version_files.ts) is refused here, before any thread starts.
import type { VersionLoader } from '../core/aspired_versions_manager.js';
import { Code, ServingError } from '../errors/status.js';
import { DEFAULT_LOAD_TIMEOUT_SECONDS, loadTimeoutMs } from '../savedmodel/load_bounds.js';
import { versionInventory } from '../savedmodel/version_files.js';

/** A load that passed its time bound: its threads are stopped, the version fails to load. */
function loadTimedOut(versionDir: string, ms: number, timeoutSeconds: number): ServingError {
  return new ServingError(
    Code.DEADLINE_EXCEEDED,
    `${versionDir}: loading took longer than its time bound of ${ms / 1000} s (--load_timeout_seconds=${timeoutSeconds} plus 1 s per 4 MB on disk); its executor threads were stopped`,
  );
}

export class TimeBoundedVersionLoader<T> implements VersionLoader<T> {
  constructor(
    private readonly inner: VersionLoader<T>,
    /** --load_timeout_seconds (0: no bound). */
    private readonly timeoutSeconds = DEFAULT_LOAD_TIMEOUT_SECONDS,
  ) {}

  /** `signal` abandons the load as well (shutdown). */
  async load(modelName: string, version: number, versionDir: string, signal?: AbortSignal): Promise<T> {
    const { bytes } = await versionInventory(versionDir);
    const ms = loadTimeoutMs(bytes, this.timeoutSeconds);
    const deadline = new AbortController();
    const timer = ms > 0 ? setTimeout(() => deadline.abort(loadTimedOut(versionDir, ms, this.timeoutSeconds)), ms) : undefined;
    try {
      return await this.inner.load(modelName, version, versionDir, signal ? AbortSignal.any([deadline.signal, signal]) : deadline.signal);
    } catch (e) {
      throw deadline.signal.aborted ? (deadline.signal.reason as ServingError) : e;
    } finally {
      clearTimeout(timer);
    }
  }

  unload(loaded: T): Promise<void> {
    return this.inner.unload(loaded);
  }
}
