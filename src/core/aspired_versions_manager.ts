// Loads the versions each model aspires to and unloads the others, keeping availability:
// a version leaving the aspired set keeps serving until a newer aspired version is
// AVAILABLE (or none is still loading), and unloading waits for requests holding it.
// A version that fails to load ends in state END with its error, visible in status, while
// the model's other versions keep serving. Generic over what a loaded version is (T).
// When to unload is availability_preserving_policy.ts; the states a version passes through
// are servable_state.ts.
import { Code, ServingError, invalidArgument, notFound, toStatusData, type StatusData } from '../errors/status.js';
import * as MSG from '../errors/messages.js';
import { ownValue } from '../util/own_property.js';
import { versionsToUnload } from './availability_preserving_policy.js';
import { nextState, type ManagerState } from './servable_state.js';
import type { ServableHandle, ServableRequest } from './servable_handle.js';
import { LoadSlots } from './load_slots.js';

export type { ServableHandle, ServableRequest };

export interface VersionLoader<T> {
  /** `signal` aborts when the manager stops: the load should then end at once (rejected). */
  load(modelName: string, version: number, path: string, signal?: AbortSignal): Promise<T>;
  unload(loaded: T): Promise<void>;
}

export interface ModelVersionStatus {
  version: number;
  state: ManagerState;
  status: StatusData;
}

export type ManagerEvent =
  | { kind: 'loading' | 'available' | 'unloading' | 'unloaded'; model: string; version: number }
  | { kind: 'load_failed' | 'unload_failed'; model: string; version: number; error: StatusData }
  /** A load attempt failed and another follows after retryInMs (attempt counts from 1). */
  | { kind: 'load_retry'; model: string; version: number; error: StatusData; attempt: number; retryInMs: number };

interface VersionEntry<T> {
  version: number;
  path: string;
  state: ManagerState;
  status: StatusData;
  loaded?: T;
  refs: number;
  drained?: () => void;
  aspired: boolean;
  /** Ends the wait before the next load retry early (the version left the aspired set). */
  cancelRetryWait?: () => void;
}

interface ModelEntry<T> {
  versions: Map<number, VersionEntry<T>>;
  labels: Record<string, number>;
}

/**
 * A ServableHandle as a class: its release is a method, not a closure made (with its context)
 * for every acquire, of which a REST :predict makes three.
 */
class VersionHandle<T> implements ServableHandle<T> {
  readonly version: number;
  readonly servable: T;
  private released = false;

  constructor(
    readonly modelName: string,
    private readonly held: VersionEntry<T>,
  ) {
    this.version = held.version;
    this.servable = held.loaded!;
  }

  release(): void {
    if (this.released) return;
    this.released = true;
    this.held.refs--;
    if (this.held.refs === 0 && this.held.drained) this.held.drained();
  }
}

export interface ManagerOptions {
  allowVersionLabelsForUnavailableModels: boolean;
  /** Retries after a failed load (TF Serving: --max_num_load_retries, default 5). */
  maxNumLoadRetries: number;
  /** Wait between load retries (--load_retry_interval_micros, default 60 s). */
  loadRetryIntervalMs: number;
  /** Loads running at once, server-wide (--num_load_threads resolved); 0 or absent: no bound. */
  maxConcurrentLoads?: number;
  onEvent?: (e: ManagerEvent) => void;
}

const OK: StatusData = { code: Code.OK, message: '' };

const STOPPING = 'the server is stopping';
const cancelledByStop = () => new ServingError(Code.CANCELLED, STOPPING);

/** Moves a version to `to`, as servable_state.ts allows (throws IllegalTransition otherwise). */
function move(v: { state: ManagerState }, to: ManagerState): void {
  v.state = nextState(v.state, to);
}

export class AspiredVersionsManager<T> {
  private readonly models = new Map<string, ModelEntry<T>>();
  private readonly loadSlots: LoadSlots;
  /** Aborted by stop(): loads under way end, loads waiting for a slot do not start. */
  private readonly stopping = new AbortController();

  constructor(
    private readonly loader: VersionLoader<T>,
    private readonly options: ManagerOptions,
  ) {
    this.loadSlots = new LoadSlots(options.maxConcurrentLoads ?? 0);
  }

  private emit(e: ManagerEvent): void {
    this.options.onEvent?.(e);
  }

  /** Whether `model` was ever given aspired versions (configured), whatever its state now. */
  hasModel(model: string): boolean {
    return this.models.has(model);
  }

  modelNames(): string[] {
    return [...this.models.keys()];
  }

  /**
   * Sets the versions `model` should serve. New ones start loading now; versions no longer
   * aspired are unloaded once that keeps the model available. Resolves when this round of
   * loads and unloads has settled (tests and start-up wait on it; the server does not).
   */
  async setAspiredVersions(model: string, aspired: Array<{ version: number; path: string }>): Promise<void> {
    let entry = this.models.get(model);
    if (!entry) {
      entry = { versions: new Map(), labels: {} };
      this.models.set(model, entry);
    }
    const wanted = new Map(aspired.map((a) => [a.version, a.path]));
    const loads: Promise<void>[] = [];
    for (const v of entry.versions.values()) {
      v.aspired = wanted.has(v.version);
      // A newer version supersedes one whose load is failing: stop waiting to retry it.
      if (!v.aspired) v.cancelRetryWait?.();
    }
    for (const [version, path] of wanted) {
      const existing = entry.versions.get(version);
      if (existing && existing.state !== 'END') continue;
      // A failed version stays END with its error (its load retries already ran); an
      // unloaded one (END, OK) that is aspired again loads again.
      if (existing?.state === 'END' && existing.status.code !== Code.OK) continue;
      const v: VersionEntry<T> = { version, path, state: 'START', status: OK, refs: 0, aspired: true };
      move(v, 'LOADING');
      entry.versions.set(version, v);
      loads.push(this.load(model, entry, v));
    }
    this.reconcile(model, entry);
    await Promise.all(loads);
    await this.unloadsSettled();
  }

  private async load(model: string, entry: ModelEntry<T>, v: VersionEntry<T>): Promise<void> {
    this.emit({ kind: 'loading', model, version: v.version });
    try {
      const loaded = await this.loadWithRetries(model, v);
      if (!v.aspired) {
        // Dropped from the aspired set while loading: never serve it.
        move(v, 'END');
        await this.loader.unload(loaded);
        return;
      }
      v.loaded = loaded;
      move(v, 'AVAILABLE');
      this.emit({ kind: 'available', model, version: v.version });
    } catch (e) {
      // Already END when the unload of a version dropped while loading is what failed.
      if (v.state === 'LOADING') move(v, 'END');
      v.status = toStatusData(e);
      this.emit({ kind: 'load_failed', model, version: v.version, error: v.status });
    }
    this.reconcile(model, entry);
  }

  /**
   * Loads, retrying --max_num_load_retries times --load_retry_interval_micros apart. Each
   * failure is told (event) and shown in the version's status while it stays LOADING;
   * a version that leaves the aspired set stops retrying at once.
   */
  private async loadWithRetries(model: string, v: VersionEntry<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        // A slot is held per attempt, not across the wait before a retry.
        const signal = this.stopping.signal;
        const loaded = await this.loadSlots.run(() =>
          signal.aborted ? Promise.reject(cancelledByStop()) : this.loader.load(model, v.version, v.path, signal),
        );
        v.status = OK;
        return loaded;
      } catch (e) {
        if (attempt > this.options.maxNumLoadRetries || !v.aspired || this.stopping.signal.aborted) throw e;
        v.status = toStatusData(e);
        const retryInMs = Math.max(0, this.options.loadRetryIntervalMs);
        this.emit({ kind: 'load_retry', model, version: v.version, error: v.status, attempt, retryInMs });
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, retryInMs);
          timer.unref();
          v.cancelRetryWait = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        v.cancelRetryWait = undefined;
        if (!v.aspired) throw e;
      }
    }
  }

  /** Unloads what availability_preserving_policy.ts says may go now. */
  private reconcile(model: string, entry: ModelEntry<T>): void {
    for (const version of versionsToUnload([...entry.versions.values()])) void this.unload(model, entry.versions.get(version)!);
  }

  private pendingUnloads = new Set<Promise<void>>();

  private unload(model: string, v: VersionEntry<T>): Promise<void> {
    move(v, 'UNLOADING');
    this.emit({ kind: 'unloading', model, version: v.version });
    const p = (async () => {
      if (v.refs > 0) await new Promise<void>((resolve) => (v.drained = resolve));
      const loaded = v.loaded;
      v.loaded = undefined;
      try {
        if (loaded !== undefined) await this.loader.unload(loaded);
      } catch (e) {
        // The version serves no more either way; the failure is told, never left unhandled.
        this.emit({ kind: 'unload_failed', model, version: v.version, error: toStatusData(e) });
      } finally {
        move(v, 'END');
        this.emit({ kind: 'unloaded', model, version: v.version });
      }
    })();
    this.pendingUnloads.add(p);
    void p.finally(() => this.pendingUnloads.delete(p));
    return p;
  }

  private async unloadsSettled(): Promise<void> {
    await Promise.allSettled([...this.pendingUnloads]);
  }

  /**
   * Stops serving a model entirely (removed from the config). Its versions stay listed, END,
   * as TF Serving's ServableStateMonitor keeps the last state of every servable it saw; its
   * labels go, as they are the config's.
   */
  async removeModel(model: string): Promise<void> {
    const entry = this.models.get(model);
    if (!entry) return;
    entry.labels = {};
    for (const v of entry.versions.values()) v.aspired = false;
    const unloads = [...entry.versions.values()].filter((v) => v.state === 'AVAILABLE').map((v) => this.unload(model, v));
    await Promise.allSettled(unloads);
  }

  /** Version labels for a model, checked as server_core does. */
  setVersionLabels(model: string, labels: Record<string, number>): void {
    const entry = this.models.get(model);
    if (!entry) throw notFound(`Model ${model} is not served`);
    for (const [label, version] of Object.entries(labels)) {
      const v = entry.versions.get(version);
      if (!this.options.allowVersionLabelsForUnavailableModels && v?.state !== 'AVAILABLE') {
        throw new ServingError(
          Code.FAILED_PRECONDITION,
          `Request to assign label to version ${version} of model ${model}, which is not currently available for inference`,
        );
      }
    }
    entry.labels = { ...labels };
  }

  private describeRequest(req: ServableRequest, version?: number): string {
    return version !== undefined ? `Specific(${req.name}, ${version})` : `Latest(${req.name})`;
  }

  /** The version a request names, held until release(); NOT_FOUND texts as TF Serving's. */
  acquire(req: ServableRequest): ServableHandle<T> {
    if (!req.name) throw invalidArgument(MSG.MODEL_SPEC_NO_NAME);
    if (req.version !== undefined && req.label !== undefined) {
      throw invalidArgument(`Both model version (${req.version}) and model version label (${req.label}) cannot be supplied.`);
    }
    const entry = this.models.get(req.name);
    let version = req.version;
    if (req.label !== undefined) {
      version = entry && ownValue(entry.labels, req.label);
      if (version === undefined) throw invalidArgument(MSG.unrecognizedVersionLabel(req.label));
    }
    let chosen: VersionEntry<T> | undefined;
    if (entry) {
      if (version !== undefined) {
        const v = entry.versions.get(version);
        if (v?.state === 'AVAILABLE') chosen = v;
      } else {
        for (const v of entry.versions.values()) if (v.state === 'AVAILABLE' && (!chosen || v.version > chosen.version)) chosen = v;
      }
    }
    if (!chosen || chosen.loaded === undefined) throw notFound(`Servable not found for request: ${this.describeRequest(req, version)}`);
    chosen.refs++;
    return new VersionHandle(req.name, chosen);
  }

  /**
   * GetModelStatus: one model's versions (or one version), ordered by version descending as
   * TF Serving lists them. A label is not consulted: get_model_status_impl.cc looks only at
   * the version, so a request by label lists every version, whatever the label.
   */
  status(req: ServableRequest): ModelVersionStatus[] {
    const entry = this.models.get(req.name);
    const version = req.version;
    const all = entry ? [...entry.versions.values()] : [];
    if (version !== undefined) {
      const v = entry?.versions.get(version);
      if (!v) throw notFound(MSG.couldNotFindVersion(version, req.name));
      return [{ version: v.version, state: v.state, status: v.status }];
    }
    if (!all.length) throw notFound(MSG.couldNotFindAnyVersions(req.name));
    return all.sort((a, b) => b.version - a.version).map((v) => ({ version: v.version, state: v.state, status: v.status }));
  }

  /** Abandons the loads under way (their loader is told to end them) and those not started. */
  abortLoads(): void {
    this.stopping.abort(STOPPING);
    for (const entry of this.models.values()) for (const v of entry.versions.values()) v.cancelRetryWait?.();
  }

  /** Unloads everything (shutdown); loads under way or waiting are abandoned, not awaited. */
  async stop(): Promise<void> {
    this.abortLoads();
    await Promise.allSettled([...this.models.keys()].map((m) => this.removeModel(m)));
  }
}
