// Wires the server: model list (config file, YAML, single model or ./model_repository) →
// file-system source (core/file_system_source.ts) → aspired-versions manager (versions on
// executor threads, batched when asked) → REST and gRPC over the same services. Config files
// are re-read by one ConfigWatcher.
import { readFileSync } from 'node:fs';
import fs from 'node:fs/promises';
import { serve, type ServerType } from '@hono/node-server';
import { AspiredVersionsManager, type ModelVersionStatus } from '../core/aspired_versions_manager.js';
import { FileSystemSource } from '../core/file_system_source.js';
import type { ModelConfig, ModelServerConfig } from '../config/index.js';
import { ExecutorVersionLoader, type ExecutorServableVersion } from '../servables/executor_version_loader.js';
import {
  defaultBatchingParameters,
  MODEL_SERVER_THREAD_POOL_NAME,
  parseBatchingParametersText,
  type BatchingParameters,
} from '../config/batching_parameters.js';
import { BatchingVersionLoader, type MaybeBatchedVersion } from '../servables/batching_version_loader.js';
import { verifyPlan, VerifyingVersionLoader } from '../servables/verifying_version_loader.js';
import { TimeBoundedVersionLoader } from '../servables/load_time_bound.js';
import { Metrics } from '../monitoring/metrics.js';
import { executorRuns } from '../executors/executor_host.js';
import { parseMonitoringConfigText } from '../config/monitoring_config.js';
import { PredictionService } from '../services/prediction_service.js';
import { ModelService } from '../services/model_service.js';
import { createRestApp } from '../rest/rest_app.js';
import { BodyParserPool } from '../rest/body_parser_pool.js';
import { modelMetadataJson } from '../rest/model_metadata_json.js';
import { modelStatusJson } from './model_status_json.js';
import { ExecutorHealth, readiness, serverStatusJson } from './server_status.js';
import type { ServerOptions } from '../config/flags.js';
import { GrpcServer, type CutCall } from '../grpc/grpc_server.js';
import { HttpDrain, type CutRequest } from './http_drain.js';
import { MemoryBudget } from '../services/memory_budget.js';
import type { ServingStatus } from '../grpc/health_grpc.js';
import type { ResolvedRuntime } from '../runtimes/runtime_selection.js';
import { parseModelList, readModelList, type ModelList } from './model_list.js';
import { ConfigWatcher } from './config_watcher.js';
import { executorReports, managerEventLog } from './lifecycle_log.js';
import { configFromReloadRequest } from './reload_config_request.js';
import { batchMetrics } from '../monitoring/batch_metrics.js';
import { ServerRequestLogger } from '../services/request_logger.js';
import { requestLogReports } from '../monitoring/request_log_metrics.js';
import { readSslConfigFile, type SslConfig } from '../config/ssl_config.js';
import { httpsServeOptions, tlsSummary } from './rest_https.js';
import { StorageRouter } from '../storage/storage_router.js';
import { FetchingVersionLoader } from '../storage/fetching_version_loader.js';

import type { Log } from './logger.js';
export type { Log };

/** How a stop ended: everything answered, or what the drain bound cut. */
export interface StopReport {
  drained: boolean;
  cutRequests: CutRequest[];
  cutCalls: CutCall[];
}

/** The service names TF Serving's model server marks SERVING in gRPC's health service. */
const HEALTH_SERVICE_NAMES = new Set(['ModelService', 'PredictionService']);

export class ModelServer {
  readonly manager: AspiredVersionsManager<MaybeBatchedVersion<ExecutorServableVersion>>;
  private readonly source: FileSystemSource<ModelConfig>;
  /** Local folders, s3:// and gs://: base paths listed, config files read, remote versions downloaded before they load. */
  private readonly storage: StorageRouter;
  private readonly models: ModelService;
  private readonly watcher = new ConfigWatcher();
  private config: ModelServerConfig = { model_config_list: { config: [] } };
  private http?: ServerType;
  private httpDrain?: HttpDrain;
  private grpc?: GrpcServer;
  /** Names of the models in the config in force. */
  private configuredNames = new Set<string>();
  private stopped = false;
  /** The first loads of the start-up config; settled once each has loaded or failed (see start). */
  private initialLoads?: Promise<void>;
  private starting = true;
  readonly metrics = new Metrics();
  /** What requests in flight hold, REST and gRPC together (--max_inflight_request_bytes). */
  private readonly memoryBudget: MemoryBudget;
  private readonly bodyParser: BodyParserPool;
  /** Per-model `batching:` sections of the YAML config, as last read. */
  private modelBatching: Readonly<Record<string, BatchingParameters>> = {};

  private readonly batchingLoader: BatchingVersionLoader<ExecutorServableVersion>;
  private readonly executors: ExecutorVersionLoader;
  private readonly executorHealth = new ExecutorHealth();
  /** The global batching parameters in force (undefined without --enable_batching). */
  private batching: BatchingParameters | undefined;
  /** The YAML config's text when the constructor read it (for its batching: section): the first read of the model list uses it. */
  private yamlTextReadAtBoot?: string;
  /** --batching_parameters_file as read at construction: the watcher's first "last seen". */
  private batchingTextReadAtBoot?: string;
  /** Request logging: the models' logging_config, applied with each config. */
  private readonly requestLogger: ServerRequestLogger;
  /** What the last request-logging line said (said again only when it changes). */
  private requestLogSaid = '';
  /** --ssl_config_file and --rest_api_ssl_config_file, read and checked at construction (a bad one stops start-up and --dry_run). */
  private readonly grpcTls?: SslConfig;
  private readonly restTls?: SslConfig;

  constructor(
    private readonly options: ServerOptions,
    private readonly log: Log,
    /** The runtime --runtime resolved to (runtime_selection.ts), used by every executor thread. */
    readonly runtime: ResolvedRuntime = 'embedded',
    /** What tests substitute; the binary gives none. */
    seams: { executorWorkerFile?: string } = {},
  ) {
    if (options.sslConfigFile) this.grpcTls = readSslConfigFile(options.sslConfigFile, 'ssl_config_file');
    if (options.restApiSslConfigFile) this.restTls = readSslConfigFile(options.restApiSslConfigFile, 'rest_api_ssl_config_file');
    this.memoryBudget = new MemoryBudget(options.limits.maxInflightRequestBytes);
    // Large REST bodies are parsed off the event loop, on as many threads as the executors.
    this.bodyParser = new BodyParserPool(options.numExecutors);
    this.requestLogger = new ServerRequestLogger({
      tags: options.savedModelTags,
      limits: options.requestLog,
      reports: requestLogReports(this.metrics, (message, fields) => log(message, 'warn', fields)),
    });
    this.storage = new StorageRouter({ root: options.modelCache.dir, maxBytes: options.modelCache.maxBytes });
    // The loaders, innermost first: executor threads (with the load probe), --verify_on_load's
    // check, the load's time bound around both, batching in front; storage fetches remote
    // versions ahead of them all (FetchingVersionLoader, below).
    const { onVerified, onLoaded, ...reports } = executorReports(this.metrics, this.executorHealth, log);
    const executors = new ExecutorVersionLoader({
      tags: [...options.savedModelTags],
      maxQueued: options.limits.maxExecutorQueue,
      runtime,
      threadsPerVersion: options.numExecutors,
      sharedMaxBytes: options.sharedExecutorsMaxBytes,
      probe: options.enableLoadProbe,
      verifyInProbe: (bytes) => verifyPlan(options.verifyOnLoad, bytes) === true,
      workerFile: seams.executorWorkerFile,
      warmupIterations: options.enableModelWarmup ? Math.max(1, options.numRequestIterationsForWarmup) : 0,
      memoryFloorMb: options.loadBounds.memoryFloorMb,
      engine: options.engine,
      ...reports,
    });
    this.executors = executors;
    const verifying = new VerifyingVersionLoader(executors, {
      verify: options.verifyOnLoad,
      runtime,
      tags: [...options.savedModelTags],
      onVerified,
      onLoaded,
    });
    const bounded = new TimeBoundedVersionLoader(verifying, options.loadBounds.timeoutSeconds);
    const global = this.batchingParameters();
    this.batching = global;
    const loader = new BatchingVersionLoader(
      bounded,
      global && {
        global,
        perVersionFiles: options.batching.perModel,
        defaults: { mode: options.batching.mode, latencyTargetMs: options.batching.latencyTargetMs },
        perModel: () => this.modelBatching,
        ...batchMetrics(this.metrics, global.thread_pool_name),
      },
    );
    this.batchingLoader = loader;
    // With batching on, every configured model has a series (0 while idle): a HorizontalPodAutoscaler
    // reading it through the Prometheus adapter gets no value for a pod without one, and then never scales down.
    this.metrics.readQueuedRowsFrom(() => {
      const rows = loader.queuedRowsByModel();
      if (global) for (const name of this.configuredNames) if (!rows.has(name)) rows.set(name, 0);
      return rows;
    });
    this.metrics.readExecutorRunsFrom(() => executorRuns);
    // Request metrics label only models that are configured (or were): any other name a
    // client sends counts under one label, so random names cannot grow the scrape forever.
    this.metrics.knowModelsFrom((name) => this.configuredNames.has(name) || this.manager.hasModel(name));
    const storage = this.storage;
    this.manager = new AspiredVersionsManager(new FetchingVersionLoader(loader, (location, what) => storage.localCopy(location, what)), {
      allowVersionLabelsForUnavailableModels: options.allowVersionLabelsForUnavailableModels,
      maxNumLoadRetries: options.maxNumLoadRetries,
      loadRetryIntervalMs: options.loadRetryIntervalMicros / 1000,
      maxConcurrentLoads: options.numLoadThreads,
      onEvent: managerEventLog(this.metrics, log),
    });
    this.models = new ModelService(this.manager);
    this.source = new FileSystemSource<ModelConfig>(options.fileSystemPollWaitSeconds, log, this.storage);
    this.source.setAspiredVersionsCallback(async (m, versions) => {
      await this.manager.setAspiredVersions(m.name, versions);
      if (!Object.keys(m.version_labels).length) return;
      try {
        this.manager.setVersionLabels(m.name, { ...m.version_labels });
      } catch (e) {
        this.log(`version labels of ${m.name}: ${(e as Error).message}`, 'warn', { model: m.name });
      }
    });
  }

  /**
   * --enable_batching: --batching_parameters_file, else the YAML config's top-level
   * `batching:` section, else TF Serving's defaults. Start-up fails on a bad file. What is
   * read here is kept, so that no file is read twice at start-up.
   */
  private batchingParameters(): BatchingParameters | undefined {
    const b = this.options.batching;
    if (!b.enabled) return undefined;
    if (b.parameters) return b.parameters;
    if (b.parametersFile) {
      this.batchingTextReadAtBoot = readFileSync(b.parametersFile, 'utf8');
      return parseBatchingParametersText(this.batchingTextReadAtBoot, b.parametersFile);
    }
    const src = this.options.modelSource;
    if (src.kind === 'yaml_config') {
      this.yamlTextReadAtBoot = readFileSync(src.file, 'utf8');
      const yaml = parseModelList('yaml_config', src.file, this.yamlTextReadAtBoot);
      if (yaml?.batching) return yaml.batching;
    }
    return defaultBatchingParameters({ thread_pool_name: MODEL_SERVER_THREAD_POOL_NAME });
  }

  /** The model list from the flags' source (undefined: an empty config file, no action). */
  private async readConfig(text?: string): Promise<ModelList | undefined> {
    const list = await readModelList(this.options.modelSource, text ?? this.yamlTextReadAtBoot, (file) => this.storage.readText(file));
    this.yamlTextReadAtBoot = undefined;
    if (list) this.modelBatching = list.modelBatching;
    return list;
  }

  private async applyConfig(config: ModelServerConfig | undefined): Promise<void> {
    if (!config) {
      const src = this.options.modelSource;
      this.log(
        `Taking no action for empty config${'file' in src ? ` ${src.file}` : ''}; still serving ${this.config.model_config_list.config.map((m) => m.name).join(', ') || 'no model'}`,
        'warn',
        { event: 'empty_config' },
      );
      return;
    }
    // A cloud client the environment cannot build refuses the config before anything unloads.
    this.storage.checkLocations(config.model_config_list.config.map((m) => m.base_path));
    const names = new Set(config.model_config_list.config.map((m) => m.name));
    for (const old of this.config.model_config_list.config) {
      if (names.has(old.name)) continue;
      await this.manager.removeModel(old.name);
      this.metrics.availableVersions.remove(old.name);
    }
    // Every configured model has a series, 0 until a version is AVAILABLE: an alert on "< 1"
    // then sees a model that never loaded, and a removed model stops alerting.
    for (const name of names) this.metrics.availableVersions.labels(name).inc(0);
    this.config = config;
    this.configuredNames = names;
    this.applyRequestLogging(config);
    await this.source.setServables(config.model_config_list.config);
  }

  /** The models' logging_config from now on; a line for each model that logs, when that changes. */
  private applyRequestLogging(config: ModelServerConfig): void {
    this.requestLogger.update(config.model_config_list.config);
    const lines = [...this.requestLogger.destinations()].map(
      ([model, d]) =>
        `Request logging for model ${model}: sampling_rate ${d.samplingRate}, PredictionLog records to ${d.filenamePrefix}.<host>.<pid>.<n>.tfrecord`,
    );
    const said = lines.join('\n');
    if (said === this.requestLogSaid) return;
    this.requestLogSaid = said;
    for (const line of lines) this.log(line, 'info', { event: 'request_logging' });
  }

  /**
   * MonitoringConfig's Prometheus path when monitoring is enabled: --monitoring_config_file,
   * else the YAML config's `monitoring_config:` section.
   */
  private async prometheusPath(list: ModelList | undefined): Promise<string | undefined> {
    const file = this.options.monitoringConfigFile;
    const config = file ? parseMonitoringConfigText(await fs.readFile(file, 'utf8'), file) : list?.monitoring;
    if (!config?.prometheus_config.enable) return undefined;
    this.log(`Prometheus metrics at ${config.prometheus_config.path}`);
    this.metrics.collectNodeMetrics();
    return config.prometheus_config.path;
  }

  /**
   * Starts the first loads, polling and the ports; resolves once the ports are open. The ports
   * open while the models load, as each model's status tells (LOADING, then AVAILABLE):
   * initialLoadsSettled() resolves when every version of the start-up config has loaded or
   * failed, retries included.
   */
  async start(): Promise<{ restPort?: number; grpcPort?: number }> {
    this.executors.prewarm();
    const list = await this.readConfig();
    this.initialLoads = this.applyConfig(list?.config).then(
      () => this.logInitialLoads(),
      (e: Error) => this.log(`the first loads failed: ${e.message}`, 'error', { event: 'initial_loads_failed' }),
    );
    this.source.start();
    this.watchConfigFiles();
    for (const h of this.options.harmlessSettingsGiven)
      this.log(`${h.name} changes nothing here: ${h.why}`, 'info', { event: 'harmless_setting' });
    const prediction = new PredictionService(this.manager, this.requestLogger);
    const app = createRestApp({
      prediction,
      modelStatus: (spec) => modelStatusJson(this.models.status(spec)),
      modelMetadata: (spec) => {
        const { version, defs } = this.models.signatureDefs(spec);
        return modelMetadataJson(spec.name, version, defs);
      },
      limits: {
        maxBodyBytes: this.options.limits.maxRequestBodyBytes,
        jsonMaxDepth: this.options.limits.jsonMaxDepth,
        jsonMaxElements: this.options.limits.jsonMaxElements,
      },
      budget: this.memoryBudget,
      bodyParser: this.bodyParser,
      timeoutMs: this.options.restApiTimeoutMs,
      metrics: this.metrics,
      metricsPath: await this.prometheusPath(list),
      enableCors: this.options.restApiEnableCors,
      checkMethodName: this.options.enableSignatureMethodNameCheck,
      serverStatus: () => {
        const queued = this.batchingLoader.queuedRowsByModel();
        const models = this.config.model_config_list.config.map((m) => ({
          name: m.name,
          versions: this.safeStatus(m.name),
          queuedRows: queued.get(m.name) ?? 0,
        }));
        return serverStatusJson(models, this.executorHealth, this.runtime, this.starting);
      },
      readiness: () =>
        readiness(
          this.config.model_config_list.config.map((m) => ({
            name: m.name,
            versions: this.safeStatus(m.name),
            error: this.source.unreadableReason(m.name),
          })),
          this.stopped,
        ),
      accessLog: this.options.accessLog ? (entry) => this.log('request', 'info', entry) : undefined,
    });
    const port = await new Promise<number>((resolve, reject) => {
      const server = serve(
        { fetch: app.fetch, port: this.options.restApiPort, hostname: this.options.restApiHost, ...httpsServeOptions(this.restTls) },
        (info) => resolve(info.port),
      );
      server.once('error', reject);
      this.http = server;
    });
    const http = this.http as import('node:http').Server;
    // Past the cap Node closes a new connection as soon as it is accepted; the ones open keep being served.
    http.maxConnections = this.options.restMaxConnections;
    this.httpDrain = new HttpDrain(http);
    this.log(`HTTP/REST connections capped at ${this.options.restMaxConnections} (--rest_max_connections)`, 'info', {
      event: 'rest_max_connections',
      max: this.options.restMaxConnections,
    });
    this.log(`Exporting HTTP/REST API at:${this.options.restApiHost}:${port} ...`);
    if (this.restTls)
      this.log(`HTTP/REST API over HTTPS (--rest_api_ssl_config_file): ${tlsSummary(this.restTls)}`, 'info', { event: 'rest_tls' });
    const grpcPort = await this.startGrpc(prediction);
    return { restPort: port, grpcPort };
  }

  /**
   * The model config file is re-read every --model_config_file_poll_wait_seconds and applied
   * (an empty one takes no action). --batching_parameters_file is re-read every
   * --batching_parameters_poll_wait_seconds: an edit applies to the batches formed after it;
   * a file that does not parse is refused and the parameters in force stay.
   */
  private watchConfigFiles(): void {
    const src = this.options.modelSource;
    if (src.kind === 'model_config_file' || src.kind === 'yaml_config') {
      this.watcher.watch({
        file: src.file,
        everySeconds: src.pollWaitSeconds,
        onText: async (text) => this.applyConfig((await this.readConfig(text))?.config),
        read: (file) => this.storage.readText(file),
        // A file (or bucket) that cannot be read is said once per streak, not every poll.
        onError: (e, cause, firstInStreak) => {
          if (cause === 'apply' || firstInStreak)
            this.log(`Failed to reload model config ${src.file}: ${e.message}`, 'error', { event: 'config_reload_failed' });
        },
      });
    }
    const file = this.options.batching.parametersFile;
    if (!file || !this.batching) return;
    this.watcher.watch({
      file,
      everySeconds: this.options.batching.pollWaitSeconds,
      changedOnly: true,
      initialText: this.batchingTextReadAtBoot,
      onText: (text) => {
        const params = parseBatchingParametersText(text, file);
        this.batching = params;
        this.batchingLoader.reloadGlobal(params);
        this.log(`Batching parameters reloaded from ${file}: ${JSON.stringify(params)}`, 'info', { event: 'batching_reloaded' });
      },
      onError: (e, cause, firstInStreak) => {
        if (cause === 'apply')
          this.log(`Rejected the edit of batching parameters ${file}: ${e.message}; keeping the previous parameters`, 'error', {
            event: 'batching_reload_failed',
          });
        // Said once, not every poll, while the file stays missing.
        else if (firstInStreak)
          this.log(`Cannot read batching parameters ${file}: ${e.message}; keeping the previous parameters`, 'error', {
            event: 'batching_reload_failed',
          });
      },
    });
  }

  /** Resolves once every version of the start-up config has loaded or failed (retries included). */
  async initialLoadsSettled(): Promise<void> {
    await this.initialLoads;
  }

  private logInitialLoads(): void {
    this.starting = false;
    const names = this.config.model_config_list.config.map((m) => m.name);
    const available = names.filter((n) => this.safeStatus(n).some((v) => v.state === 'AVAILABLE'));
    this.log(`The first loads have settled: ${available.length} of ${names.length} models have a version available`, 'info', {
      event: 'initial_loads_settled',
      models: names.length,
      available: available.length,
    });
  }

  /** gRPC on --port / --grpc_socket_path, over the same services as REST. */
  private async startGrpc(prediction: PredictionService): Promise<number | undefined> {
    const o = this.options;
    if (!(o.grpcPort > 0) && !o.grpcSocketPath) return undefined;
    // TF Serving's lines (server.cc BuildServerCredentials), then what the credentials hold.
    if (this.grpcTls) this.log(`Using SSL credentials: ${tlsSummary(this.grpcTls)}`, 'info', { event: 'grpc_tls' });
    else this.log('Using InsecureServerCredentials');
    const grpc = new GrpcServer(
      {
        host: o.grpcHost,
        port: o.grpcPort,
        socketPath: o.grpcSocketPath,
        channelArguments: o.grpcChannelArguments,
        maxReceiveMessageBytes: o.limits.maxRequestBodyBytes,
        health: o.enableGrpcHealthcheck,
        tls: this.grpcTls,
      },
      {
        budget: this.memoryBudget,
        maxElements: o.limits.jsonMaxElements,
        prediction,
        metrics: this.metrics,
        serializeAsTensorContent: o.serializeAsTensorContent,
        checkMethodName: o.enableSignatureMethodNameCheck,
        signatureDefs: (spec) => this.models.signatureDefs(spec),
        status: (spec) => this.models.status(spec),
        reloadConfig: async (raw) => this.applyConfig(configFromReloadRequest(raw, o.reloadConfigRequest.allowedBasePaths, this.log)),
        reloadConfigDisabled: o.reloadConfigRequest.enabled
          ? undefined
          : 'HandleReloadConfigRequest is turned off on this server (--enable_reload_config_request=false)',
        statusOf: (service) => this.healthOf(service),
      },
    );
    this.grpc = grpc;
    const port = await grpc.start();
    for (const address of grpc.addresses) this.log(`Running gRPC ModelServer at ${address} ...`);
    return port || undefined;
  }

  /**
   * grpc.health.v1: the server (""), the services under the short names TF Serving registers
   * (server.cc: "ModelService", "PredictionService"), or — tfgate's own — one model by name.
   */
  private healthOf(service: string): ServingStatus {
    if (this.stopped) return 'NOT_SERVING';
    // TF Serving answers nothing before its first loads end; here the port is open meanwhile.
    if (!service || HEALTH_SERVICE_NAMES.has(service)) return this.starting ? 'NOT_SERVING' : 'SERVING';
    if (!this.config.model_config_list.config.some((m) => m.name === service)) return 'SERVICE_UNKNOWN';
    return this.safeStatus(service).some((v) => v.state === 'AVAILABLE') ? 'SERVING' : 'NOT_SERVING';
  }

  /** A model's version states; none yet (not found) while its first poll runs. */
  private safeStatus(name: string): ModelVersionStatus[] {
    try {
      return this.manager.status({ name });
    } catch {
      return [];
    }
  }

  /** --dry_run: what the server would serve with, read from every config file; loads no model. */
  async checkConfig(): Promise<Record<string, unknown>> {
    const list = await this.readConfig();
    const config = list?.config ?? this.config;
    this.storage.checkLocations(config.model_config_list.config.map((m) => m.base_path));
    return {
      runtime: this.runtime,
      rest_api: `${this.options.restApiHost}:${this.options.restApiPort}`,
      grpc_port: this.options.grpcPort,
      grpc_tls: this.grpcTls ? tlsSummary(this.grpcTls) : null,
      rest_tls: this.restTls ? tlsSummary(this.restTls) : null,
      models: config.model_config_list.config.map((m) => ({
        name: m.name,
        base_path: m.base_path,
        model_version_policy: m.model_version_policy,
        version_labels: m.version_labels,
        ...(m.logging_config && { logging_config: m.logging_config }),
      })),
      batching: this.batching ?? null,
      engine: this.options.engine,
      monitoring_path: (await this.prometheusPath(list)) ?? null,
    };
  }

  /**
   * Drains (REST: no new connections, every request received answered with `Connection:
   * close` and flushed; gRPC: tryShutdown), then unloads. Past `drainMs` what still runs is
   * cut (sockets destroyed, gRPC forceShutdown), logged one line per request, and reported.
   */
  async stop(drainMs = Infinity): Promise<StopReport> {
    if (this.stopped) return { drained: true, cutRequests: [], cutCalls: [] };
    this.stopped = true;
    this.watcher.stop();
    // Loads under way are abandoned at once: nothing would serve what they load.
    this.manager.abortLoads();
    const sourceStopped = this.source.stop();
    const drained = Promise.all([this.httpDrain?.drain() ?? this.closeHttp(), this.grpc?.stop()]).then(() => true);
    let bound: NodeJS.Timeout | undefined;
    const timedOut = Number.isFinite(drainMs)
      ? new Promise<false>((resolve) => (bound = setTimeout(() => resolve(false), drainMs)))
      : new Promise<false>(() => {});
    const report: StopReport = { drained: await Promise.race([drained, timedOut]), cutRequests: [], cutCalls: [] };
    clearTimeout(bound);
    if (!report.drained) {
      report.cutRequests = this.httpDrain?.forceClose() ?? [];
      report.cutCalls = this.grpc?.forceStop() ?? [];
      for (const r of report.cutRequests)
        this.log(`request cut at the drain bound: ${r.method} ${r.path}`, 'warn', { event: 'request_cut', ...r });
      for (const c of report.cutCalls) this.log(`gRPC call cut at the drain bound: ${c.method}`, 'warn', { event: 'grpc_call_cut', ...c });
    }
    await this.manager.stop();
    // Records still queued are written, for as long as requests could drain: a log disk that
    // hangs does not hold the exit.
    let logBound: NodeJS.Timeout | undefined;
    const logClosed = this.requestLogger.close().then(() => true);
    const logTimedOut = Number.isFinite(drainMs)
      ? new Promise<false>((resolve) => (logBound = setTimeout(() => resolve(false), drainMs)))
      : new Promise<false>(() => {});
    if (!(await Promise.race([logClosed, logTimedOut])))
      this.log(`request log: records still queued at exit are lost (its disk did not take them within ${drainMs / 1000} s)`, 'warn', {
        event: 'request_log_cut',
      });
    clearTimeout(logBound);
    await sourceStopped;
    this.executors.stop();
    this.bodyParser.close();
    await this.storage.close();
    return report;
  }

  /** Start-up failed before the drain was set up. */
  private closeHttp(): Promise<void> {
    return new Promise((resolve) => (this.http ? this.http.close(() => resolve()) : resolve()));
  }
}
