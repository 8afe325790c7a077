// What the server tells about model versions: manager events and executor reports become log
// lines (TF Serving's wording where it has one) and metrics.
import type { ManagerEvent } from '../core/aspired_versions_manager.js';
import type { ExecutorLoaderOptions } from '../servables/executor_version_loader.js';
import type { VerifyingLoaderOptions } from '../servables/verifying_version_loader.js';
import type { Metrics } from '../monitoring/metrics.js';
import type { ExecutorHealth } from './server_status.js';
import type { Log } from './logger.js';
import { Code, type StatusData } from '../errors/status.js';

type ExecutorReports = Required<
  Pick<ExecutorLoaderOptions, 'onThreadDeath' | 'onLoadReport'> & Pick<VerifyingLoaderOptions, 'onVerified' | 'onLoaded'>
>;

/** The manager's onEvent: load/unload counters, available-version gauge and log lines. */
export function managerEventLog(metrics: Metrics, log: Log): (e: ManagerEvent) => void {
  return (e) => {
    if (e.kind === 'available') {
      metrics.modelLoads.labels(e.model, 'available').inc();
      metrics.availableVersions.labels(e.model).inc();
    } else if (e.kind === 'load_failed') metrics.modelLoads.labels(e.model, 'failed').inc();
    else if (e.kind === 'unloaded') metrics.modelLoads.labels(e.model, 'unloaded').inc();
    else if (e.kind === 'unloading') metrics.availableVersions.labels(e.model).dec();
    const fields = { model: e.model, version: e.version, event: e.kind };
    if (e.kind === 'load_failed')
      log(`Loading servable: {name: ${e.model} version: ${e.version}} failed: ${e.error.message}`, 'error', fields);
    else if (e.kind === 'load_retry')
      log(
        `Loading servable: {name: ${e.model} version: ${e.version}} failed (attempt ${e.attempt}), retry in ${e.retryInMs / 1000} s: ${e.error.message}`,
        'error',
        { ...fields, attempt: e.attempt },
      );
    else if (e.kind === 'unload_failed')
      log(`Unloading servable: {name: ${e.model} version: ${e.version}} failed: ${e.error.message}`, 'error', fields);
    else if (e.kind === 'available') log(`Successfully loaded servable version {name: ${e.model} version: ${e.version}}`, 'info', fields);
    else if (e.kind === 'unloaded') log(`Unloaded servable version {name: ${e.model} version: ${e.version}}`, 'info', fields);
  };
}

/** absl's Status::ToString(): "OK", or "CODE: message" (TF Serving's warmup metrics label with it). */
function statusString(error: StatusData | undefined): string {
  return error ? `${Code[error.code] ?? 'UNKNOWN'}: ${error.message}` : 'OK';
}

/** The executors' reports: thread deaths, verify-on-load results, engines chosen and refused signatures, load and warmup metrics. */
export function executorReports(metrics: Metrics, health: ExecutorHealth, log: Log): ExecutorReports {
  return {
    onThreadDeath: (model, version, e) => {
      metrics.executorThreadDeaths.labels(model).inc();
      health.recordDeath(model, version, e.message);
      log(`an executor thread of {name: ${model} version: ${version}} died and is replaced: ${e.message}`, 'error', { model, version });
    },
    onVerified: (model, version, report) => {
      const fields = { model, version, event: 'verify_on_load' };
      if ('skipped' in report) {
        log(`{name: ${model} version: ${version}} not verified on a second engine: ${report.skipped}`, 'info', fields);
        return;
      }
      for (const [signature, reference] of Object.entries(report.verified))
        log(`{name: ${model} version: ${version}} signature '${signature}' agrees with ${reference}`, 'info', { ...fields, signature });
      for (const [signature, why] of Object.entries(report.unchecked))
        log(`{name: ${model} version: ${version}} signature '${signature}' not verified: ${why}`, 'warn', { ...fields, signature });
      for (const [signature, why] of Object.entries(report.refused))
        log(`{name: ${model} version: ${version}} signature '${signature}' refused: ${why}`, 'error', { ...fields, signature });
    },
    onLoadReport: (_model, _version, versionDir, report) => {
      metrics.loadAttemptCount.labels(versionDir, report.loaded ? 'success' : 'fail').inc();
      metrics.loadLatency.labels(versionDir).inc(Math.round(report.loadMs * 1000));
      if (!report.warmup) return;
      const status = statusString(report.warmup.error);
      metrics.modelWarmupLatency.labels(versionDir, status).observe(report.warmup.ms * 1000);
      metrics.modelWarmupRecordsRead.labels(versionDir, status).inc(report.warmup.records);
    },
    onLoaded: (model, version, description) => {
      for (const [signature, { engine, reason }] of Object.entries(description.engines)) {
        const why = reason ? ` (not ONNX Runtime: ${reason})` : '';
        log(`{name: ${model} version: ${version}} signature '${signature}' runs on ${engine}${why}`, reason ? 'warn' : 'info', {
          model,
          version,
          signature,
          engine,
          event: 'engine_chosen',
        });
      }
      for (const [signature, why] of Object.entries(description.refusals)) {
        log(`{name: ${model} version: ${version}} signature '${signature}' is not served: ${why}`, 'warn', {
          model,
          version,
          signature,
          event: 'signature_refused',
        });
      }
    },
  };
}
