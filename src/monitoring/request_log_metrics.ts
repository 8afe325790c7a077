// What becomes of each sampled request's PredictionLog record, as metrics: TF Serving's
// request_log_count by the status of the write (request_logger.cc), and tfgate's count of the
// records dropped and why. A failing log disk is said once per streak, not once per record.
import type { LogCollectorReports } from '../services/log_collector.js';
import type { Metrics } from './metrics.js';

/** A failed write's errno as the canonical code TensorFlow's file system gives it (tsl's ErrnoToCode). */
function statusCodeOfErrno(error: NodeJS.ErrnoException | undefined): string {
  switch (error?.code) {
    case 'EACCES':
    case 'EPERM':
    case 'EROFS':
      return 'PERMISSION_DENIED';
    case 'ENOSPC':
    case 'EDQUOT':
    case 'EMFILE':
    case 'ENFILE':
    case 'ENOMEM':
      return 'RESOURCE_EXHAUSTED';
    case 'ENOENT':
    case 'ENOTDIR':
      return 'NOT_FOUND';
    default:
      return 'UNKNOWN';
  }
}

export function requestLogReports(metrics: Metrics, warn: (message: string, fields: Record<string, unknown>) => void): LogCollectorReports {
  return {
    written: (model) => metrics.requestLogCount.labels(model, 'OK').inc(),
    dropped: (model, reason, error) => {
      metrics.requestLogCount.labels(model, reason === 'queue_full' ? 'RESOURCE_EXHAUSTED' : statusCodeOfErrno(error)).inc();
      metrics.requestLogDropped.labels(model, reason).inc();
    },
    failing: (file, error) =>
      warn(
        `Request log ${file}: ${error.message}; sampled requests are dropped (tfgate_request_log_dropped_total) until a write succeeds`,
        { event: 'request_log_failing', file },
      ),
  };
}
