// Prometheus metrics (prom-client). TF Serving's own metrics keep its names as its
// Prometheus exporter writes them ("/tensorflow/serving/request_count" →
// ":tensorflow:serving:request_count") with its labels and microsecond buckets
// (exponential, scale 10, factor 1.8, 33 buckets); tfgate's own are prefixed tfgate_.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics, exponentialBuckets } from 'prom-client';

/** TF's Buckets::Exponential(10, 1.8, 33), in microseconds. */
const TF_LATENCY_BUCKETS_US = exponentialBuckets(10, 1.8, 32);

export class Metrics {
  readonly registry = new Registry();

  readonly requestCount = new Counter({
    name: ':tensorflow:serving:request_count',
    help: 'The total number of requests.',
    labelNames: ['model_name', 'status'] as const,
    registers: [this.registry],
  });

  readonly requestLatency = new Histogram({
    name: ':tensorflow:serving:request_latency',
    help: 'Distribution of wall time (in microseconds) for Tensorflow Serving request.',
    labelNames: ['model_name', 'API', 'entrypoint'] as const,
    buckets: TF_LATENCY_BUCKETS_US,
    registers: [this.registry],
  });

  readonly runtimeLatency = new Histogram({
    name: ':tensorflow:serving:runtime_latency',
    help: 'Distribution of wall time (in microseconds) for Tensorflow runtime.',
    labelNames: ['model_name', 'API', 'runtime'] as const,
    buckets: TF_LATENCY_BUCKETS_US,
    registers: [this.registry],
  });

  readonly queuingLatency = new Histogram({
    name: ':tensorflow:serving:batching_session:queuing_latency',
    help: 'Distribution of wall time spent (in microseconds) in queuing',
    labelNames: ['thread_pool_name'] as const,
    buckets: TF_LATENCY_BUCKETS_US,
    registers: [this.registry],
  });

  readonly batchSize = new Histogram({
    name: 'tfgate_batch_size',
    help: 'Rows per executed batch (before padding), by model.',
    labelNames: ['model_name'] as const,
    buckets: exponentialBuckets(1, 2, 12),
    registers: [this.registry],
  });

  readonly paddingRows = new Counter({
    name: 'tfgate_batch_padding_rows_total',
    help: 'Rows added to batches to reach an allowed batch size, by model.',
    labelNames: ['model_name'] as const,
    registers: [this.registry],
  });

  readonly modelLoads = new Counter({
    name: 'tfgate_model_version_loads_total',
    help: 'Model version loads by outcome (available, failed) and unloads (unloaded).',
    labelNames: ['model_name', 'outcome'] as const,
    registers: [this.registry],
  });

  readonly availableVersions = new Gauge({
    name: 'tfgate_model_versions_available',
    help: 'Model versions currently AVAILABLE, by model.',
    labelNames: ['model_name'] as const,
    registers: [this.registry],
  });

  constructor() {
    // Node's own: event-loop lag, heap, GC, CPU (nodejs_eventloop_lag_seconds …).
    collectDefaultMetrics({ register: this.registry });
  }

  async text(): Promise<string> {
    return this.registry.metrics();
  }
}
