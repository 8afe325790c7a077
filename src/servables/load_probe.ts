// Containment of loads (--enable_load_probe). A version is loaded first in a probe: a child
// process that loads it as the serving executors will, replays its warmup records, checks it
// (--verify_on_load) and runs each signature once (load_probe_process.ts). Only when the probe
// answers does the version load into the serving executors. A load that escapes every bound —
// a native abort nobody foresaw, a read that never returns, memory without end — ends the
// probe, never the process whose versions serve: the version fails to load with what the
// probe's end said, and the next probe gets a fresh process.
//
// Probe processes are reused (a thread of one that is warm loads a small version in tens of
// milliseconds; a new one takes about a second to start), one version at a time each, so a
// death names its version; one that has grown past MAX_PROBE_RSS_BYTES, or sat idle for
// IDLE_EXIT_MS, ends and gives its memory back.
import { fork, type ChildProcess } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Code, ServingError, type StatusData } from '../errors/status.js';
import type { RuntimeName, VersionLoad } from '../executors/protocol.js';
import type { EngineSettings } from '../config/session_config.js';
import type { VerificationReport } from '../runtimes/verify/verify_signatures.js';

const here = fileURLToPath(import.meta.url);
const PROBE_ENTRY = path.join(path.dirname(here), `load_probe_process${path.extname(here)}`);

/** A probe process past this RSS after a probe ends instead of taking the next. */
const MAX_PROBE_RSS_BYTES = 1024 * 2 ** 20;
/** An idle probe process ends after this long. */
const IDLE_EXIT_MS = 10_000;
/** Last bytes of a probe's stderr kept to say why it ended. */
const STDERR_TAIL_BYTES = 2048;

/** Given to every probe process at its start. */
export interface ProbeSettings {
  runtime: RuntimeName;
  /** The executor thread's entry (tests give one that injects faults). */
  workerFile?: string;
  /** Thread counts and GPU options for the runtime's sessions. */
  engine?: EngineSettings;
}

export interface ProbeRequest {
  load: VersionLoad;
  /** Run --verify_on_load's check. */
  verify: boolean;
}

export type ProbeReply = ({ ok: true; report?: VerificationReport } | { ok: false; error: StatusData }) & { rssBytes?: number };

export interface LoadProbesOptions extends ProbeSettings {
  /** Probe processes at once (more probes wait). Default: the cores. */
  maxProcesses?: number;
}

function cancelled(request: ProbeRequest, signal?: AbortSignal): ServingError {
  // The load's time bound says why itself.
  if (signal?.reason instanceof ServingError) return signal.reason;
  const why = typeof signal?.reason === 'string' ? `: ${signal.reason}` : '';
  return new ServingError(Code.CANCELLED, `loading ${request.load.versionDir} was cancelled${why}`);
}

/** One probe process; probes one version at a time. */
class ProbeProcess {
  private stderrTail = '';
  private pending?: { resolve: (r: ProbeReply) => void; reject: (e: Error) => void; dir: string };
  private idleTimer?: NodeJS.Timeout;
  lastRss = 0;
  ended = false;

  constructor(
    private readonly child: ChildProcess,
    private readonly onEnd: (p: ProbeProcess) => void,
  ) {
    child.stderr?.on('data', (d: Buffer) => (this.stderrTail = (this.stderrTail + d.toString()).slice(-STDERR_TAIL_BYTES)));
    child.on('message', (reply: ProbeReply) => {
      const p = this.pending;
      this.pending = undefined;
      this.lastRss = reply.rssBytes ?? 0;
      this.hold(false);
      p?.resolve(reply);
    });
    child.once('exit', (code, signal) => {
      this.ended = true;
      clearTimeout(this.idleTimer);
      const p = this.pending;
      this.pending = undefined;
      const tail = this.stderrTail.trim().split('\n').slice(-3).join(' | ');
      p?.reject(new ServingError(Code.INTERNAL, `${p.dir}: loading it ended its probe process (${signal ?? `exit code ${code}`}${tail ? `: ${tail}` : ''}); it was not loaded into the serving executors`));
      this.onEnd(this);
    });
    child.on('error', () => {});
    this.hold(false);
  }

  /** A probe under way keeps the server's process alive; an idle probe process does not. */
  private hold(on: boolean): void {
    for (const handle of [this.child, this.child.channel, this.child.stderr] as Array<{ ref?: () => void; unref?: () => void } | null | undefined>) {
      if (on) handle?.ref?.();
      else handle?.unref?.();
    }
  }

  probe(request: ProbeRequest): Promise<ProbeReply> {
    clearTimeout(this.idleTimer);
    if (this.ended) return Promise.reject(new ServingError(Code.INTERNAL, 'the probe process ended'));
    return new Promise((resolve, reject) => {
      this.pending = { resolve, reject, dir: request.load.versionDir };
      this.hold(true);
      this.child.send(request);
    });
  }

  idle(onTimeout: () => void): void {
    this.idleTimer = setTimeout(onTimeout, IDLE_EXIT_MS);
    this.idleTimer.unref();
  }

  kill(): void {
    if (!this.ended) this.child.kill('SIGKILL');
  }
}

export class LoadProbes {
  private readonly idle: ProbeProcess[] = [];
  private readonly all = new Set<ProbeProcess>();
  private readonly waiting: Array<() => void> = [];
  private running = 0;
  private stopped = false;
  private readonly maxProcesses: number;

  constructor(private readonly options: LoadProbesOptions) {
    this.maxProcesses = Math.max(1, options.maxProcesses ?? os.availableParallelism());
  }

  /** Starts a probe process ahead of the first load (its start overlaps the server's own). */
  prewarm(): void {
    const p = this.spawn();
    this.release(p);
  }

  private spawn(): ProbeProcess {
    const settings: ProbeSettings = { runtime: this.options.runtime, workerFile: this.options.workerFile, ...(this.options.engine && { engine: this.options.engine }) };
    // The server's own flags for V8 and loaders (tsx in development), not an inspector port.
    const execArgv = process.execArgv.filter((a) => !a.startsWith('--inspect'));
    const child = fork(PROBE_ENTRY, [JSON.stringify(settings)], { execArgv, serialization: 'advanced', stdio: ['ignore', 'ignore', 'pipe', 'ipc'] });
    const p = new ProbeProcess(child, (ended) => {
      this.all.delete(ended);
      const i = this.idle.indexOf(ended);
      if (i >= 0) this.idle.splice(i, 1);
    });
    this.all.add(p);
    return p;
  }

  /**
   * Probes one version: resolves with the check's report (when asked) once a probe process has
   * loaded, checked and run it and unloaded it again; rejects with the load's error, or with
   * how the probe process ended. `signal` abandons the probe (its process is killed).
   */
  async probe(request: ProbeRequest, signal?: AbortSignal): Promise<VerificationReport | undefined> {
    if (this.running >= this.maxProcesses) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.running++;
    let p: ProbeProcess | undefined;
    const onAbort = () => p?.kill();
    try {
      if (this.stopped || signal?.aborted) throw cancelled(request, signal);
      p = this.idle.pop() ?? this.spawn();
      signal?.addEventListener('abort', onAbort, { once: true });
      const reply = await p.probe(request).catch((e: unknown) => {
        if (signal?.aborted) throw cancelled(request, signal);
        throw e;
      });
      if (!reply.ok) throw ServingError.fromData(reply.error);
      return reply.report;
    } finally {
      signal?.removeEventListener('abort', onAbort);
      if (p) this.release(p);
      const next = this.waiting.shift();
      if (next) next();
      else this.running--;
    }
  }

  private release(p: ProbeProcess): void {
    if (p.ended) return;
    if (this.stopped || p.lastRss > MAX_PROBE_RSS_BYTES) return p.kill();
    this.idle.push(p);
    p.idle(() => p.kill());
  }

  /** Ends every probe process at once (shutdown): their probes fail. */
  stop(): void {
    this.stopped = true;
    for (const p of this.all) p.kill();
  }
}
