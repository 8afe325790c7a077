// Prometheus metrics (prom-client). TF Serving's own metrics keep its names as its
// Prometheus exporter writes them ("/tensorflow/serving/request_count" →
// ":tensorflow:serving:request_count") with its labels and microsecond buckets
// (exponential, scale 10, factor 1.8, 33 buckets); tfgate's own are prefixed tfgate_.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics, exponentialBuckets } from 'prom-client';

/** TF's Buckets::Exponential(10, 1.8, 33), in microseconds. */
const TF_LATENCY_BUCKETS_US = exponentialBuckets(10, 1.8, 32);

/**
 * The model_name label of requests for a model the server does not know: one series for
 * all of them, so that random names cannot grow the scrape without bound.
 */
const UNKNOWN_MODEL_LABEL = '_unknown_';

export class Metrics {
  readonly registry = new Registry();

  /** Whether a client-supplied model name is one the server serves or served (config). */
  private isKnownModel: (name: string) => boolean = () => true;

  knowModelsFrom(isKnown: (name: string) => boolean): void {
    this.isKnownModel = isKnown;
  }

  /** The model_name label for a name a request gave: itself if known, else UNKNOWN_MODEL_LABEL. */
  modelLabel(name: string): string {
    return this.isKnownModel(name) ? name : UNKNOWN_MODEL_LABEL;
  }

  /**
   * One request's request_count and request_latency, as TF Serving records them for every
   * API and entry point: the returned function is called once, when the request is answered,
   * with its canonical status name (OK, INVALID_ARGUMENT …). `started` is performance.now()
   * when the request arrived.
   */
  requestRecorder(model: string, api: string, entrypoint: 'REST' | 'GRPC', started: number): (status: string) => void {
    return (status) => {
      const label = this.modelLabel(model);
      this.requestCount.labels(label, status).inc();
      this.requestLatency.labels(label, api, entrypoint).observe((performance.now() - started) * 1000);
    };
  }

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

  readonly batchQueuingDelay = new Histogram({
    name: 'tfgate_batch_queuing_delay_seconds',
    help: 'Time a request waited in its batch queue before its batch started, by model.',
    labelNames: ['model_name'] as const,
    buckets: exponentialBuckets(0.0001, 2, 16),
    registers: [this.registry],
  });

  readonly executorBusy = new Counter({
    name: 'tfgate_executor_busy_seconds_total',
    help: "Executor-thread compute time spent on batches, by model (its rate over the executor count is the executors' utilisation).",
    labelNames: ['model_name'] as const,
    registers: [this.registry],
  });

  /** Where batch queue depths are read at scrape time (the batch scheduler). */
  private queuedRows: () => Map<string, number> = () => new Map();

  readonly batchQueueRows = new Gauge({
    name: 'tfgate_batch_queue_rows',
    help: 'Rows waiting in batch queues (open and closed batches), by model.',
    labelNames: ['model_name'] as const,
    registers: [this.registry],
    collect: () => {
      this.batchQueueRows.reset();
      for (const [model, rows] of this.queuedRows()) this.batchQueueRows.labels(model).set(rows);
    },
  });

  readQueuedRowsFrom(source: () => Map<string, number>): void {
    this.queuedRows = source;
  }

  readonly executorThreadDeaths = new Counter({
    name: 'tfgate_executor_thread_deaths_total',
    help: 'Executor threads that died and were replaced (their in-flight requests failed with INTERNAL), by model.',
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
