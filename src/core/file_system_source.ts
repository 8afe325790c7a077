// TF Serving's FileSystemStoragePathSource (sources/storage_path/): watches each servable's
// base path and tells its target which versions to serve. It owns the poll loop; the target
// (the aspired-versions manager, through the server's wiring) owns loading and unloading.
//
// Reliability, as TF Serving's source behaves:
// - A base path that cannot be listed (gone for a moment, EMFILE, EACCES…) yields no call at
//   all, so what serves keeps serving; the next poll tries again. Logged once per streak of
//   the same error, not every poll.
// - A readable base path with no version folder yields an empty list (the target unloads);
//   the hint about numeric leaf folders is logged once until versions appear.
// - Listing is exclusive per servable (a slow file system must not stack polls), but a
//   callback that is still settling — a load retrying for minutes — does not stop the
//   polling, so a newer version dropped in meanwhile is still seen and supersedes it.
// - A base path on s3:// or gs:// is listed through the same storage seam (src/storage/)
//   with the same rules: a missing bucket or credential is an unreadable base path like any
//   other, and what the source last said about it is kept for readiness to show.
import { listVersions, type VersionOnDisk } from './version_dirs.js';
import type { Storage } from '../storage/storage.js';
import { aspiredVersions, type VersionPolicy } from './version_policy.js';

/** A servable to watch: the fields of a model's config the source reads. */
export interface WatchedServable {
  readonly name: string;
  readonly base_path: string;
  readonly model_version_policy: VersionPolicy;
}

/**
 * Receives a servable's complete aspired list each time its base path is read. A version
 * supplied once and omitted later is no longer aspired: the manager unloads it once that
 * keeps the model available. Resolves when the loads the list started have settled; the
 * source never waits on it between polls.
 */
export type AspiredVersionsCallback<S extends WatchedServable> = (servable: S, versions: VersionOnDisk[]) => Promise<void>;

export type SourceLog = (msg: string, level?: 'info' | 'warn' | 'error', fields?: Record<string, unknown>) => void;

/** Generic over what describes a servable (S), handed back as given to each callback. */
export class FileSystemSource<S extends WatchedServable> {
  private callback?: AspiredVersionsCallback<S>;
  private servables: readonly S[] = [];
  private timer?: NodeJS.Timeout;
  /** Servables whose base path is being listed now. */
  private readonly listing = new Set<string>();
  /** Polls in flight (stop() waits for them). */
  private readonly polls = new Set<Promise<void>>();
  /** Servables whose base path could not be read at the last poll: the reason (streak key) and the line logged. */
  private readonly unreadable = new Map<string, { reason: string; message: string }>();
  /** Servables whose (readable) base path held no version folder at the last poll. */
  private readonly withoutVersions = new Set<string>();

  constructor(
    /** file_system_poll_wait_seconds: 0 reads each base path only when the servables are set. */
    private readonly pollWaitSeconds: number,
    private readonly log: SourceLog,
    /** Where base paths are listed (the server's router over local, s3:// and gs://; tests give local). */
    private readonly storage?: Pick<Storage, 'list'>,
  ) {}

  /** Why `name`'s base path could not be read at its last poll (the line logged), or undefined when it could. */
  unreadableReason(name: string): string | undefined {
    return this.unreadable.get(name)?.message;
  }

  /** Supplies the target. Can be called at most once, before setServables(). */
  setAspiredVersionsCallback(callback: AspiredVersionsCallback<S>): void {
    if (this.callback) throw new Error('FileSystemSource: the aspired-versions callback is already set');
    this.callback = callback;
  }

  /**
   * The servables to watch from now on (a config applied). Reads every base path now and
   * resolves when the loads those reads started have settled; errors are the caller's.
   */
  async setServables(servables: readonly S[]): Promise<void> {
    this.servables = servables;
    await Promise.all(servables.map((s) => this.poll(s)));
  }

  /** Starts the periodic poll (no-op when pollWaitSeconds is 0). */
  start(): void {
    if (this.pollWaitSeconds > 0 && !this.timer) this.timer = setInterval(() => this.pollAll(), this.pollWaitSeconds * 1000);
  }

  /** Stops polling and waits for the polls in flight. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await Promise.allSettled([...this.polls]);
  }

  /** The periodic poll: its failures are logged, never left as an unhandled rejection. */
  private pollAll(): void {
    for (const s of this.servables) {
      const p = this.poll(s).catch((e: Error) =>
        this.log(`Polling servable ${s.name} failed: ${e.message}`, 'error', { model: s.name, event: 'poll_failed' }),
      );
      this.polls.add(p);
      void p.finally(() => this.polls.delete(p));
    }
  }

  /** One read of a servable's base path → its aspired versions → the callback. */
  private async poll(s: S): Promise<void> {
    if (!this.callback) throw new Error('FileSystemSource: no aspired-versions callback set');
    if (this.listing.has(s.name)) return;
    this.listing.add(s.name);
    let found: VersionOnDisk[];
    try {
      found = await listVersions(s.base_path, this.storage);
    } catch (e) {
      this.reportUnreadable(s, e as NodeJS.ErrnoException);
      return;
    } finally {
      this.listing.delete(s.name);
    }
    if (this.unreadable.delete(s.name))
      this.log(`Base path ${s.base_path} of servable ${s.name} is readable again`, 'info', { model: s.name, event: 'base_path_readable' });
    if (!found.length && !this.withoutVersions.has(s.name))
      this.log(
        `No versions of servable ${s.name} found under base path ${s.base_path}. Did you forget to name your leaf directory as a number (eg. '/1/')?`,
        'warn',
        { model: s.name },
      );
    if (found.length) this.withoutVersions.delete(s.name);
    else this.withoutVersions.add(s.name);
    const wanted = new Set(
      aspiredVersions(
        found.map((f) => f.version),
        s.model_version_policy,
      ),
    );
    await this.callback(
      s,
      found.filter((f) => wanted.has(f.version)),
    );
  }

  /**
   * Nothing is aspired or unaspired. At start-up the servable then has no versions until a
   * poll can read the path (TF Serving blocks its start-up on it; tfgate serves the other
   * models meanwhile).
   */
  private reportUnreadable(s: WatchedServable, e: NodeJS.ErrnoException): void {
    const reason = e.code ?? e.message;
    if (this.unreadable.get(s.name)?.reason === reason) return;
    const what =
      e.code === 'ENOENT' && e.path === s.base_path
        ? `Could not find base path ${s.base_path} for servable ${s.name}`
        : `Could not list base path ${s.base_path} for servable ${s.name}`;
    const message = `FileSystemStoragePathSource encountered a filesystem access error: ${what} with error ${e.message}; keeping the versions it serves and polling again`;
    this.unreadable.set(s.name, { reason, message });
    this.log(message, 'error', { model: s.name, event: 'base_path_unreadable', code: e.code });
  }
}
