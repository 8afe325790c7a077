// --verify_on_load as a loader around the executor loader: once a version's executor threads
// have loaded it, its signatures are checked against a reference engine (version_verifier.ts)
// before it serves. A signature whose engines disagree, or that its engine cannot run, moves
// from the description's engines to its refusals; a version left with none fails to load.
// With load probes on, the probe process has already run the check (a crash in it takes down
// the probe, not the server): its report is applied here instead of checking again.
import type { VersionLoader } from '../core/aspired_versions_manager.js';
import { Code, ServingError } from '../errors/status.js';
import type { RuntimeName } from '../executors/protocol.js';
import type { ExecutorServableVersion } from './executor_version_loader.js';
import { verifyVersion, type VerificationReport } from './version_verifier.js';

export interface VerifyOnLoad {
  mode: 'auto' | 'true' | 'false';
  /** --verify_on_load=auto checks versions up to this size on disk. */
  maxBytes: number;
}

export interface VerifyingLoaderOptions {
  verify: VerifyOnLoad;
  runtime: RuntimeName;
  tags: string[];
  /** What the check found (or why it was skipped: `skipped` set). */
  onVerified?: (modelName: string, version: number, report: VerificationReport | { skipped: string }) => void;
}

/** --verify_on_load for a version of `size` bytes on disk: check it (true), not (false), or why it is skipped. */
export function verifyPlan(verify: VerifyOnLoad | undefined, size: number): boolean | string {
  if (!verify || verify.mode === 'false') return false;
  if (verify.mode === 'auto' && size > verify.maxBytes) return `${(size / 2 ** 20).toFixed(1)} MB on disk, over --verify_on_load_max_mb=${verify.maxBytes / 2 ** 20}`;
  return true;
}

/** `work`, or the signal's reason as soon as it aborts (what `work` holds is the caller's to stop). */
function abortable<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return work;
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

export class VerifyingVersionLoader implements VersionLoader<ExecutorServableVersion> {
  constructor(
    private readonly inner: VersionLoader<ExecutorServableVersion>,
    private readonly options: VerifyingLoaderOptions,
  ) {}

  /** `signal` abandons the check (the load's time bound, shutdown): the version's threads are stopped. */
  async load(modelName: string, version: number, versionDir: string, signal?: AbortSignal): Promise<ExecutorServableVersion> {
    const loaded = await this.inner.load(modelName, version, versionDir, signal);
    const plan = verifyPlan(this.options.verify, loaded.bytesOnDisk);
    if (plan === false) return loaded;
    if (typeof plan === 'string') {
      this.options.onVerified?.(modelName, version, { skipped: plan });
      return loaded;
    }
    try {
      const report = loaded.probeReport ?? (await abortable(verifyVersion(loaded.pool, this.options.runtime, versionDir, this.options.tags, signal), signal));
      this.apply(modelName, version, versionDir, loaded, report);
    } catch (e) {
      if (signal?.aborted) loaded.pool.terminate();
      else await this.inner.unload(loaded).catch(() => {});
      throw e;
    }
    return loaded;
  }

  private apply(modelName: string, version: number, versionDir: string, loaded: ExecutorServableVersion, report: VerificationReport): void {
    const description = loaded.description;
    for (const [key, why] of Object.entries(report.refused)) {
      delete description.engines[key];
      description.refusals[key] = `refused by --verify_on_load: ${why}`;
    }
    this.options.onVerified?.(modelName, version, report);
    if (Object.keys(description.engines).length === 0) {
      throw new ServingError(Code.FAILED_PRECONDITION, `${versionDir}: no signature can be served (${Object.entries(description.refusals).map(([k, r]) => `${k}: ${r}`).join('; ')})`);
    }
  }

  unload(loaded: ExecutorServableVersion): Promise<void> {
    return this.inner.unload(loaded);
  }
}
