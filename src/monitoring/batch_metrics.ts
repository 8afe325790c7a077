// What every batch reports to the metrics: its size and padding as it starts, each task's
// time in the queue, and the executor time it took once done. TF Serving's batching-session
// metrics (batching_session.cc, batching_util.h) carry no model; tfgate's own do. The ones
// recorded for every task are counted in plain numbers (counted_metrics.ts): their series are
// looked up once per batch, not once per task.
import type { BatchingSetup } from '../servables/batching_version_loader.js';
import type { Metrics } from './metrics.js';

export function batchMetrics(metrics: Metrics, threadPoolName: string): Required<Pick<BatchingSetup, 'onBatch' | 'onBatchDone'>> {
  return {
    onBatch: (model, batch) => {
      metrics.batchSize.labels(model).observe(batch.size);
      if (batch.paddedSize > batch.size) metrics.paddingRows.labels(model).inc(batch.paddedSize - batch.size);
      metrics.wrappedRunCount.inc();
      metrics.processedBatchSize.observe(batch.paddedSize);
      metrics.paddingSize.labels(String(batch.paddedSize)).observe(batch.paddedSize - batch.size);
      const inputSizes = metrics.inputBatchSize.series();
      const queuingMicros = metrics.queuingLatency.series(threadPoolName);
      const queuingSeconds = metrics.batchQueuingDelay.series(model);
      const now = performance.now();
      for (const p of batch.pieces) {
        // TF Serving records a request's rows once per input tensor when it enters the queue;
        // here, when its first rows start (a request split over batches counts once).
        if (p.offset === 0) for (const _ in p.task.inputs) inputSizes.observe(p.taskSize);
        const waitedMs = now - p.task.enqueuedAt;
        queuingMicros.observe(waitedMs * 1000);
        queuingSeconds.observe(waitedMs / 1000);
      }
    },
    onBatchDone: (model, batch) => {
      if (batch.costMs !== undefined) metrics.executorBusy.labels(model).inc(batch.costMs / 1000);
    },
  };
}
