// Re-reads config files on a timer: --model_config_file (or --config) every
// --model_config_file_poll_wait_seconds, --batching_parameters_file every
// --batching_parameters_poll_wait_seconds. Polled (read, not inotify) as TF Serving does:
// editors replace files and container mounts miss inotify events.
import fs from 'node:fs/promises';

export interface WatchedFile {
  readonly file: string;
  /** 0 or less: not watched. */
  readonly everySeconds: number;
  /** Called with the file's text on every poll (or only when it changed, see below). */
  onText(text: string): Promise<void> | void;
  /**
   * The file could not be read, or onText threw: what is in force stays in force.
   * `firstInStreak`: the read failed after the previous one succeeded (say it once).
   */
  onError(e: Error, cause: 'read' | 'apply', firstInStreak: boolean): void;
  /** Call onText only when the text differs from the last one seen (seeded by `initialText`). */
  readonly changedOnly?: boolean;
  readonly initialText?: string;
  /** How the file is read (default: from the local disk); a model config on s3:// or gs:// is read through the storage router. */
  readonly read?: (file: string) => Promise<string>;
}

export class ConfigWatcher {
  private readonly timers: NodeJS.Timeout[] = [];

  watch(w: WatchedFile): void {
    if (w.everySeconds <= 0) return;
    let last = w.initialText;
    let unreadable = false;
    // Not serialised: an apply that waits minutes on a retrying load must not hold back the
    // next edit.
    const check = async () => {
      let text: string;
      try {
        text = await (w.read ? w.read(w.file) : fs.readFile(w.file, 'utf8'));
      } catch (e) {
        w.onError(e as Error, 'read', !unreadable);
        unreadable = true;
        return;
      }
      unreadable = false;
      if (w.changedOnly && text === last) return;
      last = text;
      try {
        await w.onText(text);
      } catch (e) {
        w.onError(e as Error, 'apply', true);
      }
    };
    this.timers.push(setInterval(() => void check(), w.everySeconds * 1000));
  }

  stop(): void {
    this.timers.forEach(clearInterval);
    this.timers.length = 0;
  }
}
