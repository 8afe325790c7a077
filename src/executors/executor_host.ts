// A fixed set of executor threads (piscina underneath) hosting model versions. Each thread
// loads its own copy of every version hosted; a version serves once every thread has it. A
// thread that dies is replaced by piscina, and the replacement loads every hosted version
// again before it takes their runs (the other threads serve meanwhile).
//
// One host per large version, or one host shared by many small ones (executor_version_loader
// decides): a thread costs ~30 MB and a second of start-up whatever it runs, so a hundred
// small versions on a hundred threads of their own would cost 3 GB before a byte of model.
// Runs and loads of the versions of one host interleave at each thread's event-loop turns
// (every warmup record, every signature's session); their runs share the threads first come,
// first served.
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Piscina } from 'piscina';
import { Code, ServingError, internal, toStatusData } from '../errors/status.js';
import type {
  ControlTask,
  ExecutorReply,
  ExecutorThreadData,
  LoadReport,
  ModelDescription,
  RuntimeName,
  ThreadLinesOffer,
  VersionLoad,
} from './protocol.js';
import { DEFAULT_ENGINE_SETTINGS, type EngineSettings } from '../config/session_config.js';
import { RunLine } from './run_line.js';
import { ControlLine } from './control_line.js';
import { chooseLine, wideThreadWidth } from './core_sizing.js';

const here = fileURLToPath(import.meta.url);
// Same extension as this module: .js when compiled, .ts under tsx in development.
const WORKER_FILE = path.join(path.dirname(here), `executor_worker${path.extname(here)}`);

const EXECUTOR_NICE_INCREMENT = 10;

/**
 * Executors run at a lower OS priority only when they take every core: then the event loop
 * would otherwise wait behind them to answer I/O (the default --num_executors, one per core).
 * With a core left to the event loop (fewer) a lower priority only makes them lose the CPU to whatever else
 * runs, and under overload that is the event loop itself refusing the excess: measured on
 * 2 cores, 200 req/s at 256 connections fell to ~0.7 of those at 16 with it, ~1.0 without.
 */
export function executorNiceIncrement(threads: number, cores = os.availableParallelism()): number {
  return threads >= cores ? EXECUTOR_NICE_INCREMENT : 0;
}

export interface ExecutorHostOptions {
  threads: number;
  runtime: RuntimeName;
  /** Thread counts and GPU options for the runtime's sessions. */
  engine?: EngineSettings;
  /** The thread's entry module (default: executor_worker). Tests give one that wraps it to inject faults. */
  workerFile?: string;
  /**
   * Adds a wide thread for lone requests when the runtime and settings allow one
   * (core_sizing.ts); serving hosts do, one-off ones (verification, load probes) do not.
   */
  wide?: boolean;
}

/** Requests run on executor threads of this process, by the width of the thread that ran them. */
export const executorRuns = { wide: 0, narrow: 0 };

/** Every host of the process that has not closed: the wide thread runs only while none of their threads runs. */
const liveHosts = new Set<ExecutorHost>();

function busyLines(): number {
  let busy = 0;
  for (const host of liveHosts) busy += host.busyLines();
  return busy;
}

/** One executor thread as the host sees it. */
export interface HostThread {
  readonly run: RunLine;
  /** The wide thread (its sessions use every core), taken only by a lone request. */
  readonly wide: boolean;
  readonly control: ControlLine;
  /** Ids of the versions loaded on it. */
  readonly loaded: Set<number>;
  /** Versions whose load failed on it (a replacement thread that could not load one again). */
  readonly failed: Map<number, ServingError>;
  /** Loads on one thread run one after another. */
  loads: Promise<unknown>;
  closed: boolean;
}

/** What a hosted version is told: a line may have become free for it, or it lost a thread. */
export interface HostTenant {
  wake(): void;
}

interface HostedVersion {
  load: VersionLoad;
  description?: ModelDescription;
  /** Settled once every thread has it (or a load failed before that). */
  opened: boolean;
  resolveOpen: (d: ModelDescription) => void;
  rejectOpen: (e: Error) => void;
  tenant?: HostTenant;
  /** Told how loading went on the first thread to answer (load and warmup metrics), loaded or not. */
  onLoadReport?: (report: LoadReport) => void;
}

const threadExited = (e: unknown) => internal(`executor thread failed: ${(e as Error).message}`);

export class ExecutorHost {
  private threads: HostThread[] = [];
  private readonly versions = new Map<number, HostedVersion>();
  /** Tenants waiting for a free line, in the order they asked. */
  private readonly hungry = new Set<HostTenant>();
  private nextId = 1;
  private closing = false;
  /** A thread failed with no run on it (e.g. it could not start at the fd limit). */
  onThreadError?: (e: Error) => void;

  private constructor(
    private readonly pools: Piscina[],
    /** Narrow threads (the wide one, if any, beside them). */
    readonly size: number,
    /** Threads a version must be loaded on before it serves: the narrow ones and the wide one. */
    private readonly expected: number,
  ) {}

  static start(options: ExecutorHostOptions): ExecutorHost {
    const width = options.wide ? wideThreadWidth(options.runtime, options.engine) : 0;
    const narrow = ExecutorHost.threadPool(options, options.threads, options.engine);
    // The wide thread: a pool of its own, so that piscina replaces it with a wide one.
    const wide =
      width > 0 ? ExecutorHost.threadPool(options, 1, { ...DEFAULT_ENGINE_SETTINGS, ...options.engine, intraOpThreads: width }) : undefined;
    const host = new ExecutorHost(wide ? [narrow, wide] : [narrow], options.threads, options.threads + (wide ? 1 : 0));
    liveHosts.add(host);
    for (const pool of host.pools) {
      const isWide = pool === wide;
      pool.on('message', (m: ThreadLinesOffer) => {
        if (m?.kind === 'lines') host.addThread(m, isWide);
      });
      // piscina emits 'error' for a thread that fails with no task on it — every thread here,
      // since work travels on the lines. Unheard, that event would throw and end the process.
      pool.on('error', (e: Error) => host.threadFailed(e));
    }
    return host;
  }

  private static threadPool(options: ExecutorHostOptions, threads: number, engine: EngineSettings | undefined): Piscina {
    return new Piscina({
      filename: options.workerFile ?? WORKER_FILE,
      minThreads: threads,
      maxThreads: threads,
      idleTimeout: Number.MAX_SAFE_INTEGER,
      concurrentTasksPerWorker: 1,
      recordTiming: false,
      // Workers idle in their event loop, not in Atomics.wait: measured 1.3–1.5× the REST
      // throughput on small models (messages are handled as they arrive).
      atomics: 'disabled',
      // Via piscina's optional @napi-rs/nice; see executorNiceIncrement.
      niceIncrement: executorNiceIncrement(options.threads),
      workerData: { runtime: options.runtime, ...(engine && { engine }) } satisfies ExecutorThreadData,
    });
  }

  /** Versions hosted (loaded or loading). */
  get hostedCount(): number {
    return this.versions.size;
  }

  /** This host's threads running a message now. */
  busyLines(): number {
    let busy = 0;
    for (const t of this.threads) if (!t.closed && !t.run.idle) busy++;
    return busy;
  }

  private addThread(offer: ThreadLinesOffer, wide: boolean): void {
    if (this.closing) {
      offer.run.close();
      offer.control.close();
      return;
    }
    const t: HostThread = {
      run: new RunLine(offer.run, () => this.removeThread(t)),
      wide,
      control: new ControlLine(offer.control),
      loaded: new Set(),
      failed: new Map(),
      loads: Promise.resolve(),
      closed: false,
    };
    this.threads.push(t);
    for (const [id, v] of this.versions) this.loadOn(t, id, v);
  }

  private removeThread(t: HostThread): void {
    t.closed = true;
    t.control.close();
    this.threads = this.threads.filter((x) => x !== t);
    // Versions whose only threads went wait for the replacement; their tenants re-check.
    for (const v of this.versions.values()) v.tenant?.wake();
  }

  private threadFailed(e: Error): void {
    const err = internal(`executor thread failed to start: ${e.message}`);
    let opening = false;
    for (const v of this.versions.values()) {
      if (v.opened) continue;
      opening = true;
      v.opened = true;
      v.rejectOpen(err);
    }
    if (!opening) this.onThreadError?.(internal(`executor thread failed: ${e.message}`));
  }

  private loadOn(t: HostThread, id: number, v: HostedVersion): void {
    t.loads = t.loads.then(async () => {
      if (t.closed || this.versions.get(id) !== v) return;
      const reply = await t.control
        .request({ kind: 'load', id, load: v.load })
        .catch((e: unknown): ExecutorReply => ({ ok: false, error: toStatusData(threadExited(e)) }));
      if ('load' in reply && reply.load && v.onLoadReport) {
        const report = v.onLoadReport;
        v.onLoadReport = undefined;
        report(reply.load);
      }
      if (this.versions.get(id) !== v) {
        // Unloaded while it loaded here.
        if (reply.ok) await t.control.request({ kind: 'unload', id }).catch(() => {});
        return;
      }
      if (!reply.ok || reply.kind !== 'describe') {
        const err = reply.ok ? internal('executor answered load with another reply') : ServingError.fromData(reply.error);
        t.failed.set(id, err);
        if (!v.opened) {
          v.opened = true;
          v.rejectOpen(err);
        }
        v.tenant?.wake();
        return;
      }
      t.loaded.add(id);
      v.description ??= reply.description;
      if (!v.opened && this.threads.filter((x) => x.loaded.has(id)).length >= this.expected) {
        v.opened = true;
        v.resolveOpen(v.description);
      }
      v.tenant?.wake();
    });
  }

  /**
   * Loads a version on every thread (each its own copy, warmup replayed). Resolves with its id
   * and description once every thread has it; rejects with the first failure (the version is
   * then unloaded from the threads that had it) or when `signal` aborts: with its reason when
   * that is a ServingError (the load's time bound), else CANCELLED (shutdown).
   */
  async open(
    load: VersionLoad,
    signal?: AbortSignal,
    onLoadReport?: (report: LoadReport) => void,
  ): Promise<{ id: number; description: ModelDescription }> {
    if (this.closing) throw new ServingError(Code.UNAVAILABLE, 'the executor threads are closing');
    const id = this.nextId++;
    let v!: HostedVersion;
    const opened = new Promise<ModelDescription>((resolveOpen, rejectOpen) => {
      v = { load, opened: false, resolveOpen, rejectOpen, onLoadReport };
    });
    this.versions.set(id, v);
    for (const t of this.threads) this.loadOn(t, id, v);
    const onAbort = () => {
      if (v.opened) return;
      v.opened = true;
      if (signal?.reason instanceof ServingError) return v.rejectOpen(signal.reason);
      const why = typeof signal?.reason === 'string' ? `: ${signal.reason}` : '';
      v.rejectOpen(new ServingError(Code.CANCELLED, `loading ${load.versionDir} was cancelled${why}`));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    if (signal?.aborted) onAbort();
    try {
      return { id, description: await opened };
    } catch (e) {
      // Not awaited: a thread may be stuck in the abandoned load (a read that never ends).
      void this.unload(id);
      throw e;
    } finally {
      signal?.removeEventListener('abort', onAbort);
    }
  }

  /** Who to wake when a line may serve version `id` (set once its pool is open). */
  attach(id: number, tenant: HostTenant): void {
    const v = this.versions.get(id);
    if (v) v.tenant = tenant;
  }

  /** Unloads `id` from every thread (runs on it must have ended). */
  async unload(id: number): Promise<void> {
    const v = this.versions.get(id);
    if (!v) return;
    this.versions.delete(id);
    if (v.tenant) this.hungry.delete(v.tenant);
    await Promise.all(
      this.threads.map((t) => {
        t.failed.delete(id);
        const unloaded = t.loads.then(async () => {
          if (!t.loaded.delete(id) || t.closed) return;
          await t.control.request({ kind: 'unload', id }).catch(() => {});
        });
        t.loads = unloaded;
        return unloaded;
      }),
    );
  }

  /** Whether no executor thread of the process runs anything: a message sent now runs alone. */
  processIdle(): boolean {
    return busyLines() === 0;
  }

  /** The run line that should take the next message of `id`, if one is free (core_sizing's chooseLine). */
  idleLine(id: number, wideAllowed = true): RunLine | undefined {
    const live = this.threads.filter((t) => !t.closed);
    const i = chooseLine(
      live.map((t) => ({ wide: t.wide, idle: t.run.idle, loaded: t.loaded.has(id) })),
      busyLines(),
      wideAllowed,
    );
    return i === undefined ? undefined : live[i].run;
  }

  /** Whether `line` is the wide thread's or a narrow one's. */
  widthOf(line: RunLine): 'wide' | 'narrow' {
    return this.threads.some((t) => t.wide && t.run === line) ? 'wide' : 'narrow';
  }

  /** Counts `requests` sent on `line` by its width (tfgate_executor_runs_total). */
  countRuns(line: RunLine, requests: number): void {
    executorRuns[this.widthOf(line)] += requests;
  }

  /** Why `id` cannot run anywhere: every thread left failed to load it again (else undefined). */
  unservable(id: number): ServingError | undefined {
    const live = this.threads.filter((t) => !t.closed);
    if (!live.length || live.some((t) => !t.failed.has(id))) return undefined;
    return live[0].failed.get(id);
  }

  /** Asks to be woken when a line is freed (its requests wait for one). */
  waitForLine(tenant: HostTenant): void {
    this.hungry.add(tenant);
  }

  /** A run line finished a message: the tenants waiting for one, in order, may take it. */
  lineFreed(): void {
    for (const tenant of [...this.hungry]) {
      this.hungry.delete(tenant);
      tenant.wake();
    }
  }

  /** A control task on one thread that has `id` loaded. */
  async control(id: number, task: ControlTask): Promise<ExecutorReply> {
    const t = this.threads.find((x) => !x.closed && x.loaded.has(id));
    if (!t) throw internal(`model version ${id} is on no executor thread`);
    return t.control.request(task).catch((e: unknown) => {
      throw threadExited(e);
    });
  }

  /** Ends the threads (after the versions' runs have ended). */
  async close(): Promise<void> {
    this.closing = true;
    liveHosts.delete(this);
    for (const t of this.threads) {
      t.run.close();
      t.control.close();
    }
    await Promise.all(this.pools.map((p) => p.close()));
  }

  /** Ends the threads at once, whatever they run (a load abandoned at shutdown). */
  async destroy(): Promise<void> {
    this.closing = true;
    liveHosts.delete(this);
    await Promise.all(this.pools.map((p) => p.destroy()));
  }
}
