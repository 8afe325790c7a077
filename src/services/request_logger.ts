// TF Serving's ServerRequestLogger and RequestLogger (core/server_request_logger.h,
// core/request_logger.h): for each model with a logging_config, which requests are logged
// (uniformly at random, with probability sampling_config.sampling_rate) and where their
// PredictionLog records go. Models with the same logging_config share one logger and one set
// of files, as TF Serving's FindOrCreateLogger shares them; a config reload keeps the loggers
// whose config is unchanged and closes the others once their queue is written.
//
// The services ask sample(model) when a call starts; only a sampled call captures anything,
// and it hands its record over once answered (SampledRequest.log). A call that fails is not
// logged: there is no response to log.
import type { ModelConfig } from '../config/model_server_config.js';
import { FileLogCollector, type LogCollectorLimits, type LogCollectorReports } from './log_collector.js';
import { encodePredictionLog, loggedCallBytes, type LogMetadataFields, type LoggedCall } from './prediction_log.js';

export interface RequestLoggerOptions {
  /** The SavedModel tags versions are loaded with (each record's saved_model_tags). */
  tags: readonly string[];
  limits: LogCollectorLimits;
  reports: LogCollectorReports;
  /** Uniform in [0, 1); tests give their own. */
  random?: () => number;
}

/** A call chosen for the log: log() queues its record (or drops it when the queue is full). Never waits, never throws. */
export interface SampledRequest {
  log(call: LoggedCall): void;
}

/** What the services need of request logging. */
export interface RequestLogSampler {
  /** The call's ticket into the log, or undefined: the model logs nothing, this call was not drawn, or the queue is full (a drop, reported). */
  sample(model: string): SampledRequest | undefined;
}

interface ModelLogger {
  collector: FileLogCollector;
  metadata: LogMetadataFields;
}

/** The least a record takes in the queue: below it, a call is not even captured. */
const MIN_RECORD_BYTES = 256;

export class ServerRequestLogger implements RequestLogSampler {
  /** By model name. */
  private models = new Map<string, ModelLogger>();
  /** By logging_config, serialized: one collector per distinct config. */
  private collectors = new Map<string, FileLogCollector>();
  /** Collectors an update retired, still writing their queues: close() waits for them too. */
  private readonly retiring = new Set<Promise<void>>();
  private readonly random: () => number;

  constructor(private readonly options: RequestLoggerOptions) {
    this.random = options.random ?? Math.random;
  }

  /**
   * The models' logging configs in force from now on. Collectors whose config is gone are
   * closed in the background: their queued records are still written.
   */
  update(models: readonly ModelConfig[]): void {
    const collectors = new Map<string, FileLogCollector>();
    const byModel = new Map<string, ModelLogger>();
    for (const m of models) {
      const config = m.logging_config;
      if (!config) continue;
      const key = JSON.stringify(config);
      const collector =
        collectors.get(key) ??
        this.collectors.get(key) ??
        new FileLogCollector(config.log_collector_config.filename_prefix, this.options.limits, this.options.reports);
      collectors.set(key, collector);
      byModel.set(m.name, {
        collector,
        metadata: { samplingRate: config.sampling_config.sampling_rate, savedModelTags: this.options.tags },
      });
    }
    for (const [key, old] of this.collectors) {
      if (collectors.has(key)) continue;
      const closing = old.close().finally(() => this.retiring.delete(closing));
      this.retiring.add(closing);
    }
    this.collectors = collectors;
    this.models = byModel;
  }

  sample(model: string): SampledRequest | undefined {
    const logger = this.models.get(model);
    if (!logger || !(this.random() < logger.metadata.samplingRate)) return undefined;
    const { collector, metadata } = logger;
    if (!collector.hasRoom(MIN_RECORD_BYTES)) {
      collector.drop(model);
      return undefined;
    }
    const timestampSecs = Math.floor(Date.now() / 1000);
    return {
      log: (call) =>
        collector.collect({ model, bytes: loggedCallBytes(call), encode: () => encodePredictionLog(call, metadata, timestampSecs) }),
    };
  }

  /** Where each model's records go now (the files' common stem), for the start-up log. */
  destinations(): Map<string, { filenamePrefix: string; samplingRate: number }> {
    return new Map(
      [...this.models].map(([name, l]) => [name, { filenamePrefix: l.collector.filenamePrefix, samplingRate: l.metadata.samplingRate }]),
    );
  }

  /** Closes every collector once its queue is written; never resolves while a write hangs (the caller bounds the wait). */
  async close(): Promise<void> {
    const all = [...this.collectors.values()];
    this.collectors.clear();
    this.models.clear();
    await Promise.all([...all.map((c) => c.close()), ...this.retiring]);
  }
}
