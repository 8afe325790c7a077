// Prometheus metrics (prom-client). TF Serving's own metrics, and TensorFlow's SavedModel load
// metrics, keep their names as TF Serving's Prometheus exporter writes them
// ("/tensorflow/serving/request_count" → ":tensorflow:serving:request_count"), with their
// labels, label values and buckets (test/monitoring/tf_serving_metrics.test.ts holds the list,
// each with the file it comes from). tfgate's own are prefixed tfgate_.
//
// Where the text differs from TF Serving's page, Prometheus reads the same series: TF Serving
// writes `{}` after a metric without labels and large bucket bounds in exponent form
// (le="1.27482e+06" where this page says le="1274820"); it writes no # HELP lines.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics, exponentialBuckets } from 'prom-client';
import { CountedCounter, CountedHistogram } from './counted_metrics.js';

/**
 * TF's monitoring::Buckets::Exponential(scale, growth, count): `count` bounds scale·growthⁱ,
 * then +Inf. Each bound rounded to the 6 significant digits TF Serving's exporter prints.
 */
function tfExponentialBuckets(scale: number, growth: number, count: number): number[] {
  return Array.from({ length: count }, (_, i) => Number((scale * growth ** i).toPrecision(6)));
}

/** Buckets::Exponential(10, 1.8, 33), in microseconds (~20 minutes): request, runtime and warmup latencies. */
const TF_LATENCY_BUCKETS_US = tfExponentialBuckets(10, 1.8, 33);
/** Buckets::Exponential(1, 2, 14): the batching session's batch sizes. */
const TF_BATCH_SIZE_BUCKETS = tfExponentialBuckets(1, 2, 14);

/** The runtime label of runtime_latency: TF Serving's session runtime ("TFRT" is its other). */
const RUNTIME_LABEL = 'TF1';

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
    return (status) => this.recordRequest(model, api, entrypoint, started, status);
  }

  /** requestRecorder's record without the closure: the request for `model` answered now with `status`. */
  recordRequest(model: string, api: string, entrypoint: 'REST' | 'GRPC', started: number, status: string): void {
    const label = this.modelLabel(model);
    this.requestCount.series(label, status).inc();
    // http_server.cc and prediction_service_impl.cc time successful requests only.
    if (status === 'OK') this.requestLatency.series(label, api, entrypoint).observe((performance.now() - started) * 1000);
  }

  /** runtime_latency of one Predict / Classify / Regress run (predict_util.cc, classifier.cc, regressor.cc). */
  recordRuntimeLatency(model: string, api: 'Predict' | 'Classify' | 'Regress', inferMs: number | undefined): void {
    if (inferMs !== undefined) this.runtimeLatency.series(this.modelLabel(model), api, RUNTIME_LABEL).observe(inferMs * 1000);
  }

  /** The examples of one MultiInference request (multi_inference.cc's RecordRequestExampleCount). */
  recordExampleCount(model: string, examples: number): void {
    const label = this.modelLabel(model);
    this.requestExampleCounts.labels(label).observe(examples);
    this.requestExampleCountTotal.labels(label).inc(examples);
  }

  // The three every request records: counted in plain numbers (counted_metrics.ts).
  readonly requestCount = new CountedCounter({
    name: ':tensorflow:serving:request_count',
    help: 'The total number of requests.',
    labelNames: ['model_name', 'status'] as const,
    registers: [this.registry],
  });

  readonly requestLatency = new CountedHistogram({
    name: ':tensorflow:serving:request_latency',
    help: 'Distribution of wall time (in microseconds) for Tensorflow Serving request.',
    labelNames: ['model_name', 'API', 'entrypoint'] as const,
    buckets: TF_LATENCY_BUCKETS_US,
    registers: [this.registry],
  });

  readonly runtimeLatency = new CountedHistogram({
    name: ':tensorflow:serving:runtime_latency',
    help: 'Distribution of wall time (in microseconds) for Tensorflow runtime.',
    labelNames: ['model_name', 'API', 'runtime'] as const,
    buckets: TF_LATENCY_BUCKETS_US,
    registers: [this.registry],
  });

  readonly requestExampleCounts = new Histogram({
    name: ':tensorflow:serving:request_example_counts',
    help: 'The number of tensorflow.Examples per request.',
    labelNames: ['model'] as const,
    buckets: tfExponentialBuckets(1, 2, 15),
    registers: [this.registry],
  });

  readonly requestExampleCountTotal = new Counter({
    name: ':tensorflow:serving:request_example_count_total',
    help: 'The total number of tensorflow.Examples.',
    labelNames: ['model'] as const,
    registers: [this.registry],
  });

  /** model_path: the version folder; status: OK, or the error as absl's Status::ToString() writes it. */
  readonly modelWarmupLatency = new Histogram({
    name: ':tensorflow:serving:model_warmup_latency',
    help: 'Distribution of wall time (in microseconds) for warming up the model.',
    labelNames: ['model_path', 'status'] as const,
    buckets: TF_LATENCY_BUCKETS_US,
    registers: [this.registry],
  });

  readonly modelWarmupRecordsRead = new Counter({
    name: ':tensorflow:serving:model_warmup_records_read',
    help: 'Total number of warmup records read during model warmup.',
    labelNames: ['model_path', 'status'] as const,
    registers: [this.registry],
  });

  /** status_code: OK once written; RESOURCE_EXHAUSTED when the queue had no room; the write's error otherwise. */
  readonly requestLogCount = new Counter({
    name: ':tensorflow:serving:request_log_count',
    help: 'The total number of requests logged from the model server sliced down by model_name and status code.',
    labelNames: ['model_name', 'status_code'] as const,
    registers: [this.registry],
  });

  // The batching session's three recorded for every request: counted in plain numbers too.
  readonly queuingLatency = new CountedHistogram({
    name: ':tensorflow:serving:batching_session:queuing_latency',
    help: 'Distribution of wall time spent (in microseconds) in queuing',
    labelNames: ['thread_pool_name'] as const,
    // Scale of 100, power of 1.2 with bucket count 52 (~1 second).
    buckets: tfExponentialBuckets(100, 1.2, 52),
    registers: [this.registry],
  });

  readonly wrappedRunCount = new Counter({
    name: ':tensorflow:serving:batching_session:wrapped_run_count',
    help: 'Total count of run calls on the wrapped session',
    registers: [this.registry],
  });

  /** Rows of each request entering a batch queue, once per input tensor (batching_session.cc's ComputeInputSize). */
  readonly inputBatchSize = new CountedHistogram({
    name: ':tensorflow:serving:batching_session:input_batch_size',
    help: 'Tracks the batch size distribution on the inputs.',
    buckets: TF_BATCH_SIZE_BUCKETS,
    registers: [this.registry],
  });

  /** Rows of each batch run, after padding. */
  readonly processedBatchSize = new Histogram({
    name: ':tensorflow:serving:batching_session:processed_batch_size',
    help: 'Tracks the batch size distribution on processing.',
    buckets: TF_BATCH_SIZE_BUCKETS,
    registers: [this.registry],
  });

  readonly paddingSize = new Histogram({
    name: ':tensorflow:serving:batching_session:padding_size',
    help: 'Tracks the padding size distribution on batches.',
    labelNames: ['execution_batch_size'] as const,
    buckets: TF_BATCH_SIZE_BUCKETS,
    registers: [this.registry],
  });

  // TensorFlow's SavedModel loader (tensorflow/cc/saved_model/loader.cc): one attempt per
  // version load (its executor threads each load it; the first to answer counts), status
  // "success" or "fail"; load_latency sums microseconds, as TF's counter does.
  readonly loadAttemptCount = new Counter({
    name: ':tensorflow:cc:saved_model:load_attempt_count',
    help: 'The number of times a SavedModel was successfully loaded.',
    labelNames: ['model_path', 'status'] as const,
    registers: [this.registry],
  });

  readonly loadLatency = new Counter({
    name: ':tensorflow:cc:saved_model:load_latency',
    help: 'Latency in microseconds for SavedModels that were successfully loaded.',
    labelNames: ['model_path'] as const,
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

  readonly batchQueuingDelay = new CountedHistogram({
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

  /** Where the counts of requests run on each width of executor thread are read at scrape time. */
  private executorRuns: () => { wide: number; narrow: number } = () => ({ wide: 0, narrow: 0 });

  readonly executorRunsByWidth = new Counter({
    name: 'tfgate_executor_runs_total',
    help: 'Requests run on executor threads, by width: wide (a lone request, on the thread whose sessions use every core) or narrow (one intra-op thread each, the threads that serve under load).',
    labelNames: ['width'] as const,
    registers: [this.registry],
    collect: () => {
      const runs = this.executorRuns();
      this.executorRunsByWidth.reset();
      this.executorRunsByWidth.labels('wide').inc(runs.wide);
      this.executorRunsByWidth.labels('narrow').inc(runs.narrow);
    },
  });

  readExecutorRunsFrom(source: () => { wide: number; narrow: number }): void {
    this.executorRuns = source;
  }

  readonly executorThreadDeaths = new Counter({
    name: 'tfgate_executor_thread_deaths_total',
    help: 'Executor threads that died and were replaced (their in-flight requests failed with INTERNAL), by model.',
    labelNames: ['model_name'] as const,
    registers: [this.registry],
  });

  readonly requestLogDropped = new Counter({
    name: 'tfgate_request_log_dropped_total',
    help: 'Sampled requests whose PredictionLog record was not written: queue_full (the log queue had no room: the disk is slower than the requests) or write_error, by model.',
    labelNames: ['model_name', 'reason'] as const,
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

  private collectingNodeMetrics = false;

  /**
   * Node's own metrics: event-loop lag, heap, GC, CPU (nodejs_eventloop_lag_seconds …). Only
   * where they are exported: their event-loop delay monitor wakes the main thread every 10 ms,
   * which made an idle server spend 1 % of a core (100 ms of CPU per 10 s against 10 without).
   */
  collectNodeMetrics(): void {
    if (this.collectingNodeMetrics) return;
    this.collectingNodeMetrics = true;
    collectDefaultMetrics({ register: this.registry });
  }

  async text(): Promise<string> {
    return this.registry.metrics();
  }
}
