// tfgate's own status page, GET /monitoring/tfgate/status: every model's versions with their
// state, and the health of their executor threads (deaths, the last one's message). TF
// Serving's GetModelStatus JSON is left exactly as TF Serving answers it, since strict
// protobuf-JSON clients refuse fields they do not know.
import { Code } from '../errors/status.js';
import type { ModelVersionStatus } from '../core/aspired_versions_manager.js';

export interface ThreadDeaths {
  count: number;
  last: { at: string; message: string };
}

/** Executor thread deaths by model and version, as reported by the executor pools. */
export class ExecutorHealth {
  private readonly deaths = new Map<string, ThreadDeaths>();

  recordDeath(model: string, version: number, message: string): void {
    const key = `${model}/${version}`;
    const prev = this.deaths.get(key);
    this.deaths.set(key, { count: (prev?.count ?? 0) + 1, last: { at: new Date().toISOString(), message } });
  }

  of(model: string, version: number): ThreadDeaths | undefined {
    return this.deaths.get(`${model}/${version}`);
  }
}

/**
 * `starting`: true until every version of the start-up config has loaded or failed (retries
 * included); the ports open before, while the models load.
 */
export function serverStatusJson(
  models: { name: string; versions: ModelVersionStatus[]; queuedRows: number }[],
  health: ExecutorHealth,
  runtime: string,
  starting = false,
) {
  return {
    runtime,
    starting,
    models: models.map((m) => ({
      name: m.name,
      queued_rows: m.queuedRows,
      versions: m.versions.map((v) => {
        const deaths = health.of(m.name, v.version);
        return {
          version: String(v.version),
          state: v.state,
          status: { error_code: Code[v.status.code], error_message: v.status.message },
          executor_thread_deaths: deaths?.count ?? 0,
          ...(deaths && { last_executor_thread_death: deaths.last }),
        };
      }),
    })),
  };
}

export interface Readiness {
  ready: boolean;
  /** Models without an AVAILABLE version, with the states their versions are in, and why the base path could not be read when that is why. */
  not_ready: { name: string; states: string[]; error?: string }[];
}

/**
 * GET /monitoring/tfgate/ready, for a Kubernetes readinessProbe: ready when every configured
 * model has a version AVAILABLE (a server with no model configured is ready: it serves what
 * it was told to), never while draining. TF Serving's GET /v1/models/<name> cannot serve
 * here: it answers 200 while the only version is still LOADING or has failed to load, and
 * needs the model's name in the probe.
 */
export function readiness(models: { name: string; versions: ModelVersionStatus[]; error?: string }[], draining: boolean): Readiness {
  const notReady = models
    .filter((m) => draining || !m.versions.some((v) => v.state === 'AVAILABLE'))
    .map((m) => ({ name: m.name, states: m.versions.map((v) => `${v.version}:${v.state}`), ...(m.error && { error: m.error }) }));
  return { ready: !draining && !notReady.length, not_ready: notReady };
}
