// Wires the server: model list (config file, YAML, single model or ./model_repository) →
// file-system polling → aspired-versions manager (versions on executor threads) → REST.
import fs from 'node:fs/promises';
import path from 'node:path';
import { serve, type ServerType } from '@hono/node-server';
import { AspiredVersionsManager, type ManagerEvent, type ModelVersionStatus } from '../core/aspired_versions_manager.js';
import { listVersions } from '../core/file_system_source.js';
import { aspiredVersions } from '../core/version_policy.js';
import { parseModelConfigText, parseYamlConfig, singleModelConfig, validateModelServerConfig, type ModelConfig, type ModelServerConfig } from '../config/index.js';
import { readFileSync } from 'node:fs';
import { ExecutorVersionLoader, type ExecutorServableVersion } from '../services/executor_version_loader.js';
import { defaultBatchingParameters, MODEL_SERVER_THREAD_POOL_NAME, parseBatchingParametersText, type BatchingParameters } from '../config/batching_parameters.js';
import { BatchingVersionLoader, type LoadedVersion } from '../batching/batching_version_loader.js';
import { Metrics } from '../monitoring/metrics.js';
import { parseMonitoringConfigText } from '../config/monitoring_config.js';
import { PredictionService } from '../services/prediction_service.js';
import { createRestApp } from '../rest/rest_app.js';
import { modelMetadataJson } from '../rest/model_metadata_json.js';
import { modelStatusJson } from './model_status_json.js';
import { ExecutorHealth, serverStatusJson } from './server_status.js';
import type { ServerOptions } from '../config/flags.js';
import { modelServerConfigFromProto } from '../config/model_server_config.js';
import type { ProtoMessage } from '../config/schema.js';
import { invalidArgument } from '../core/status.js';
import { GrpcServer, type CutCall } from '../grpc/grpc_server.js';
import { HttpDrain, type CutRequest } from './http_drain.js';
import { isAllowedBasePath } from '../config/allowed_base_paths.js';
import { MemoryBudget } from '../core/memory_budget.js';
import type { ServingStatus } from '../grpc/health_grpc.js';
import type { ResolvedRuntime } from '../runtimes/runtime_selection.js';

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

/** Nothing but whitespace and # comments (both the text-proto and the YAML comment mark). */
const isBlankConfig = (text: string): boolean => text.split('\n').every((line) => /^\s*(#.*)?$/.test(line));

export class ModelServer {
  readonly manager: AspiredVersionsManager<LoadedVersion<ExecutorServableVersion>>;
  private config: ModelServerConfig = { model_config_list: { config: [] } };
  private timers: NodeJS.Timeout[] = [];
  private http?: ServerType;
  private httpDrain?: HttpDrain;
  private grpc?: GrpcServer;
  /** Models whose base path is being listed now. */
  private readonly listing = new Set<string>();
  /** Names of the models in the config in force. */
  private configuredNames = new Set<string>();
  /** Polls in flight (stop() waits for them). */
  private readonly polls = new Set<Promise<void>>();
  /** Models whose base path could not be read at the last poll, with the reason logged. */
  private readonly unreadable = new Map<string, string>();
  /** Models whose (readable) base path held no version folder at the last poll: said once. */
  private readonly withoutVersions = new Set<string>();
  private stopped = false;
  readonly metrics = new Metrics();
  /** What requests in flight hold, REST and gRPC together (--max_inflight_request_bytes). */
  private readonly memoryBudget: MemoryBudget;
  /** Per-model `batching:` sections of the YAML config, as last read. */
  private modelBatching: Readonly<Record<string, BatchingParameters>> = {};

  private readonly batchingLoader: BatchingVersionLoader<ExecutorServableVersion>;
  private readonly executorHealth = new ExecutorHealth();
  /** The global batching parameters in force (undefined without --enable_batching). */
  private batching: BatchingParameters | undefined;

  constructor(
    private readonly options: ServerOptions,
    private readonly log: Log,
    /** The runtime --runtime resolved to (runtime_selection.ts), used by every executor thread. */
    readonly runtime: ResolvedRuntime = 'embedded',
  ) {
    this.memoryBudget = new MemoryBudget(options.limits.maxInflightRequestBytes);
    const executors = new ExecutorVersionLoader({
      tags: [...options.savedModelTags],
      maxQueued: options.limits.maxExecutorQueue,
      runtime,
      threadsPerVersion: options.numExecutors,
      warmupIterations: options.enableModelWarmup ? Math.max(1, options.numRequestIterationsForWarmup) : 0,
      onThreadDeath: (model, version, e) => {
        this.metrics.executorThreadDeaths.labels(model).inc();
        this.executorHealth.recordDeath(model, version, e.message);
        this.log(`an executor thread of {name: ${model} version: ${version}} died and is replaced: ${e.message}`, 'error', { model, version });
      },
      verify: options.verifyOnLoad,
      onVerified: (model, version, report) => {
        const fields = { model, version, event: 'verify_on_load' };
        if ('skipped' in report) {
          this.log(`{name: ${model} version: ${version}} not verified on a second engine: ${report.skipped}`, 'info', fields);
          return;
        }
        for (const [signature, reference] of Object.entries(report.verified)) this.log(`{name: ${model} version: ${version}} signature '${signature}' agrees with ${reference}`, 'info', { ...fields, signature });
        for (const [signature, why] of Object.entries(report.unchecked)) this.log(`{name: ${model} version: ${version}} signature '${signature}' not verified: ${why}`, 'warn', { ...fields, signature });
        for (const [signature, why] of Object.entries(report.refused)) this.log(`{name: ${model} version: ${version}} signature '${signature}' refused: ${why}`, 'error', { ...fields, signature });
      },
      onLoaded: (model, version, description) => {
        for (const [signature, { engine, reason }] of Object.entries(description.engines)) {
          const why = reason ? ` (not ONNX Runtime: ${reason})` : '';
          this.log(`{name: ${model} version: ${version}} signature '${signature}' runs on ${engine}${why}`, reason ? 'warn' : 'info', { model, version, signature, engine, event: 'engine_chosen' });
        }
        for (const [signature, why] of Object.entries(description.refusals)) {
          this.log(`{name: ${model} version: ${version}} signature '${signature}' is not served: ${why}`, 'warn', { model, version, signature, event: 'signature_refused' });
        }
      },
    });
    const global = ModelServer.batchingParameters(options);
    this.batching = global;
    const loader = new BatchingVersionLoader(
      executors,
      global && {
        global,
        perVersionFiles: options.batching.perModel,
        defaults: { mode: options.batching.mode, latencyTargetMs: options.batching.latencyTargetMs },
        perModel: () => this.modelBatching,
        onBatch: (model, batch) => {
          this.metrics.batchSize.labels(model).observe(batch.size);
          if (batch.paddedSize > batch.size) this.metrics.paddingRows.labels(model).inc(batch.paddedSize - batch.size);
          const now = performance.now();
          for (const p of batch.pieces) {
            this.metrics.queuingLatency.labels(global.thread_pool_name).observe((now - p.task.enqueuedAt) * 1000);
            this.metrics.batchQueuingDelay.labels(model).observe((now - p.task.enqueuedAt) / 1000);
          }
        },
        onBatchDone: (model, batch) => {
          if (batch.costMs !== undefined) this.metrics.executorBusy.labels(model).inc(batch.costMs / 1000);
        },
      },
    );
    this.batchingLoader = loader;
    this.metrics.readQueuedRowsFrom(() => loader.queuedRowsByModel());
    // Request metrics label only models that are configured (or were): any other name a
    // client sends counts under one label, so random names cannot grow the scrape forever.
    this.metrics.knowModelsFrom((name) => this.configuredNames.has(name) || this.manager.hasModel(name));
    this.manager = new AspiredVersionsManager(loader, {
      allowVersionLabelsForUnavailableModels: options.allowVersionLabelsForUnavailableModels,
      maxNumLoadRetries: options.maxNumLoadRetries,
      loadRetryIntervalMs: options.loadRetryIntervalMicros / 1000,
      onEvent: (e) => this.logEvent(e),
    });
  }

  /**
   * --enable_batching: --batching_parameters_file, else the YAML config's top-level
   * `batching:` section, else TF Serving's defaults. Start-up fails on a bad file.
   */
  private static batchingParameters(options: ServerOptions): BatchingParameters | undefined {
    const b = options.batching;
    if (!b.enabled) return undefined;
    if (b.parametersFile) return parseBatchingParametersText(readFileSync(b.parametersFile, 'utf8'), b.parametersFile);
    const src = options.modelSource;
    if (src.kind === 'yaml_config') {
      const yaml = parseYamlConfig(readFileSync(src.file, 'utf8'), src.file);
      if (yaml.batching) return yaml.batching;
    }
    return defaultBatchingParameters({ thread_pool_name: MODEL_SERVER_THREAD_POOL_NAME });
  }

  private logEvent(e: ManagerEvent): void {
    if (e.kind === 'available') {
      this.metrics.modelLoads.labels(e.model, 'available').inc();
      this.metrics.availableVersions.labels(e.model).inc();
    } else if (e.kind === 'load_failed') this.metrics.modelLoads.labels(e.model, 'failed').inc();
    else if (e.kind === 'unloaded') this.metrics.modelLoads.labels(e.model, 'unloaded').inc();
    else if (e.kind === 'unloading') this.metrics.availableVersions.labels(e.model).dec();
    const fields = { model: e.model, version: e.version, event: e.kind };
    if (e.kind === 'load_failed') this.log(`Loading servable: {name: ${e.model} version: ${e.version}} failed: ${e.error.message}`, 'error', fields);
    else if (e.kind === 'load_retry') this.log(`Loading servable: {name: ${e.model} version: ${e.version}} failed (attempt ${e.attempt}), retry in ${e.retryInMs / 1000} s: ${e.error.message}`, 'error', { ...fields, attempt: e.attempt });
    else if (e.kind === 'unload_failed') this.log(`Unloading servable: {name: ${e.model} version: ${e.version}} failed: ${e.error.message}`, 'error', fields);
    else if (e.kind === 'available') this.log(`Successfully loaded servable version {name: ${e.model} version: ${e.version}}`, 'info', fields);
    else if (e.kind === 'unloaded') this.log(`Unloaded servable version {name: ${e.model} version: ${e.version}}`, 'info', fields);
  }

  /**
   * The model list from the flags' source; undefined for a config file with nothing in it
   * (no model_config_list at all: empty, blank or comments only). TF Serving's server_core
   * takes no action for such a config ("Taking no action for empty config") — a writer that
   * truncates before writing, or a ConfigMap swap, must not unload every model. An explicit
   * `model_config_list {}` (YAML `config: []`) is a real change and applies.
   */
  private async readConfig(): Promise<ModelServerConfig | undefined> {
    const src = this.options.modelSource;
    switch (src.kind) {
      case 'model_config_file': {
        const text = await fs.readFile(src.file, 'utf8');
        if (isBlankConfig(text)) return undefined;
        return parseModelConfigText(text, src.file);
      }
      case 'yaml_config': {
        const text = await fs.readFile(src.file, 'utf8');
        if (isBlankConfig(text)) return undefined;
        const yaml = parseYamlConfig(text, src.file);
        this.modelBatching = yaml.model_batching;
        return yaml.model_server_config;
      }
      case 'single_model':
        return singleModelConfig(src.name, src.basePath);
      case 'default_repository': {
        const entries = await fs.readdir(src.dir, { withFileTypes: true }).catch(() => {
          throw new Error(`Both server_model_config and model_base_path are empty! (and ${src.dir}, served when no model flag is given, does not exist)`);
        });
        const config: ModelConfig[] = entries
          .filter((e) => e.isDirectory() && !e.name.startsWith('.'))
          .map((e) => ({ name: e.name, base_path: path.join(src.dir, e.name), model_platform: 'tensorflow', model_version_policy: { latest: { num_versions: 1 } }, version_labels: {} }));
        return validateModelServerConfig({ model_config_list: { config } }, src.dir);
      }
    }
  }

  /**
   * One poll of a model's base path: aspired versions → manager; resolves when the loads
   * it started have settled. Only the listing is exclusive per model (a slow file system
   * must not stack polls): a load that retries for minutes does not stop the polling, so a
   * newer version dropped in meanwhile is still seen.
   */
  private async pollModel(m: ModelConfig): Promise<void> {
    if (this.listing.has(m.name)) return;
    this.listing.add(m.name);
    let found: Awaited<ReturnType<typeof listVersions>>;
    try {
      found = await listVersions(m.base_path);
    } catch (e) {
      this.reportUnreadableBasePath(m, e as NodeJS.ErrnoException);
      return;
    } finally {
      this.listing.delete(m.name);
    }
    if (this.unreadable.delete(m.name)) this.log(`Base path ${m.base_path} of servable ${m.name} is readable again`, 'info', { model: m.name, event: 'base_path_readable' });
    if (!found.length && !this.withoutVersions.has(m.name)) this.log(`No versions of servable ${m.name} found under base path ${m.base_path}. Did you forget to name your leaf directory as a number (eg. '/1/')?`, 'warn', { model: m.name });
    if (found.length) this.withoutVersions.delete(m.name);
    else this.withoutVersions.add(m.name);
    const wanted = new Set(aspiredVersions(found.map((f) => f.version), m.model_version_policy));
    await this.manager.setAspiredVersions(m.name, found.filter((f) => wanted.has(f.version)));
    if (Object.keys(m.version_labels).length) {
      try {
        this.manager.setVersionLabels(m.name, { ...m.version_labels });
      } catch (e) {
        this.log(`version labels of ${m.name}: ${(e as Error).message}`, 'warn', { model: m.name });
      }
    }
  }

  /**
   * The base path could not be listed (gone for a moment, EMFILE, EACCES…): nothing is
   * aspired or unaspired, what serves keeps serving and the next poll tries again, as TF
   * Serving's FileSystemStoragePathSource does. At start-up the model then has no versions
   * until a poll can read the path (TF Serving blocks its start-up on it; tfgate serves the
   * other models meanwhile). Logged once per streak of the same error, not every second.
   */
  private reportUnreadableBasePath(m: ModelConfig, e: NodeJS.ErrnoException): void {
    const reason = e.code ?? e.message;
    if (this.unreadable.get(m.name) === reason) return;
    this.unreadable.set(m.name, reason);
    const what = e.code === 'ENOENT' && e.path === m.base_path ? `Could not find base path ${m.base_path} for servable ${m.name}` : `Could not list base path ${m.base_path} for servable ${m.name}`;
    this.log(`FileSystemStoragePathSource encountered a filesystem access error: ${what} with error ${e.message}; keeping the versions it serves and polling again`, 'error', { model: m.name, event: 'base_path_unreadable', code: e.code });
  }

  /** The periodic poll: its failures are logged, never left as an unhandled rejection. */
  private pollAll(): void {
    for (const m of this.config.model_config_list.config) {
      const p = this.pollModel(m).catch((e: Error) => this.log(`Polling servable ${m.name} failed: ${e.message}`, 'error', { model: m.name, event: 'poll_failed' }));
      this.polls.add(p);
      void p.finally(() => this.polls.delete(p));
    }
  }

  private async applyConfig(config: ModelServerConfig | undefined): Promise<void> {
    if (!config) {
      const src = this.options.modelSource;
      this.log(`Taking no action for empty config${'file' in src ? ` ${src.file}` : ''}; still serving ${this.config.model_config_list.config.map((m) => m.name).join(', ') || 'no model'}`, 'warn', { event: 'empty_config' });
      return;
    }
    const names = new Set(config.model_config_list.config.map((m) => m.name));
    for (const old of this.config.model_config_list.config) if (!names.has(old.name)) await this.manager.removeModel(old.name);
    this.config = config;
    this.configuredNames = names;
    await Promise.all(config.model_config_list.config.map((m) => this.pollModel(m)));
  }

  /** MonitoringConfig's Prometheus path when --monitoring_config_file enables it. */
  private async prometheusPath(): Promise<string | undefined> {
    const file = this.options.monitoringConfigFile;
    if (!file) return undefined;
    const config = parseMonitoringConfigText(await fs.readFile(file, 'utf8'), file);
    if (!config.prometheus_config.enable) return undefined;
    this.log(`Prometheus metrics at ${config.prometheus_config.path}`);
    return config.prometheus_config.path;
  }

  /** Loads the initial models (waits for their first loads), then starts polling and serving HTTP. */
  async start(): Promise<{ restPort?: number; grpcPort?: number }> {
    await this.applyConfig(await this.readConfig());
    const fsWait = this.options.fileSystemPollWaitSeconds;
    if (fsWait > 0) {
      this.timers.push(setInterval(() => this.pollAll(), fsWait * 1000));
    }
    const src = this.options.modelSource;
    if ((src.kind === 'model_config_file' || src.kind === 'yaml_config') && src.pollWaitSeconds > 0) {
      this.timers.push(
        setInterval(async () => {
          try {
            await this.applyConfig(await this.readConfig());
          } catch (e) {
            this.log(`Failed to reload model config ${src.file}: ${(e as Error).message}`, 'error', { event: 'config_reload_failed' });
          }
        }, src.pollWaitSeconds * 1000),
      );
    }
    this.watchBatchingParameters();
    for (const f of this.options.ignoredFlagsGiven) this.log(`--${f} is accepted and ignored (see --help)`);
    const prediction = new PredictionService(this.manager);
    const app = createRestApp({
      prediction,
      modelStatus: (spec) => modelStatusJson(this.manager.status(spec)),
      modelMetadata: (spec) => {
        const handle = this.manager.acquire(spec);
        try {
          return modelMetadataJson(spec.name, handle.version, handle.servable.description.signatureDefs);
        } finally {
          handle.release();
        }
      },
      limits: { maxBodyBytes: this.options.limits.maxRequestBodyBytes, jsonMaxDepth: this.options.limits.jsonMaxDepth, jsonMaxElements: this.options.limits.jsonMaxElements },
      budget: this.memoryBudget,
      timeoutMs: this.options.restApiTimeoutMs,
      metrics: this.metrics,
      metricsPath: await this.prometheusPath(),
      enableCors: this.options.restApiEnableCors,
      checkMethodName: this.options.enableSignatureMethodNameCheck,
      serverStatus: () => {
        const queued = this.batchingLoader.queuedRowsByModel();
        const models = this.config.model_config_list.config.map((m) => ({ name: m.name, versions: this.safeStatus(m.name), queuedRows: queued.get(m.name) ?? 0 }));
        return serverStatusJson(models, this.executorHealth, this.runtime);
      },
      accessLog: this.options.accessLog ? (entry) => this.log('request', 'info', entry) : undefined,
    });
    const port = await new Promise<number>((resolve, reject) => {
      const server = serve({ fetch: app.fetch, port: this.options.restApiPort, hostname: this.options.restApiHost }, (info) => resolve(info.port));
      server.once('error', reject);
      this.http = server;
    });
    const http = this.http as import('node:http').Server;
    // Past the cap Node closes a new connection as soon as it is accepted; the ones open keep being served.
    http.maxConnections = this.options.restMaxConnections;
    this.httpDrain = new HttpDrain(http);
    this.log(`HTTP/REST connections capped at ${this.options.restMaxConnections} (--rest_max_connections)`, 'info', { event: 'rest_max_connections', max: this.options.restMaxConnections });
    this.log(`Exporting HTTP/REST API at:${this.options.restApiHost}:${port} ...`);
    const grpcPort = await this.startGrpc(prediction);
    return { restPort: port, grpcPort };
  }

  /** gRPC on --port / --grpc_socket_path, over the same services as REST. */
  private async startGrpc(prediction: PredictionService): Promise<number | undefined> {
    const o = this.options;
    if (!(o.grpcPort > 0) && !o.grpcSocketPath) return undefined;
    const grpc = new GrpcServer(
      { host: o.grpcHost, port: o.grpcPort, socketPath: o.grpcSocketPath, channelArguments: o.grpcChannelArguments, maxReceiveMessageBytes: o.limits.maxRequestBodyBytes, health: o.enableGrpcHealthcheck },
      {
        budget: this.memoryBudget,
        maxElements: o.limits.jsonMaxElements,
        prediction,
        metrics: this.metrics,
        serializeAsTensorContent: o.serializeAsTensorContent,
        checkMethodName: o.enableSignatureMethodNameCheck,
        signatureDefs: (spec) => {
          const handle = this.manager.acquire(spec);
          try {
            return { version: handle.version, defs: handle.servable.description.signatureDefs };
          } finally {
            handle.release();
          }
        },
        status: (spec) => this.manager.status(spec),
        reloadConfig: (raw) => this.reloadConfig(raw),
        reloadConfigDisabled: o.reloadConfigRequest.enabled ? undefined : 'HandleReloadConfigRequest is turned off on this server (--enable_reload_config_request=false)',
        statusOf: (service) => this.healthOf(service),
      },
    );
    this.grpc = grpc;
    const port = await grpc.start();
    for (const address of grpc.addresses) this.log(`Running gRPC ModelServer at ${address} ...`);
    return port || undefined;
  }

  /** HandleReloadConfigRequest: a ModelServerConfig applied as a changed --model_config_file is. */
  private async reloadConfig(raw: ProtoMessage): Promise<void> {
    let config: ModelServerConfig;
    try {
      config = modelServerConfigFromProto(raw, 'HandleReloadConfigRequest', { baseDir: process.cwd() });
    } catch (e) {
      throw invalidArgument((e as Error).message);
    }
    // Refused on the text of the paths, before any file-system access reveals what exists.
    const allowed = this.options.reloadConfigRequest.allowedBasePaths;
    for (const m of config.model_config_list.config) {
      if (!isAllowedBasePath(m.base_path, allowed)) {
        this.log(`HandleReloadConfigRequest refused: model ${m.name} base_path ${m.base_path} is outside ${allowed.join(', ')}`, 'warn', { event: 'config_reload_refused', model: m.name });
        throw invalidArgument(`Model ${m.name} has base_path ${m.base_path}, outside the base paths this server allows (--reload_config_allowed_base_paths)`);
      }
    }
    this.log(`Reloading the model config from HandleReloadConfigRequest: ${config.model_config_list.config.map((m) => m.name).join(', ')}`, 'info', { event: 'config_reload' });
    await this.applyConfig(config);
  }

  /**
   * grpc.health.v1: the server (""), the services under the short names TF Serving registers
   * (server.cc: "ModelService", "PredictionService"), or — tfgate's own — one model by name.
   */
  private healthOf(service: string): ServingStatus {
    if (this.stopped) return 'NOT_SERVING';
    if (!service || HEALTH_SERVICE_NAMES.has(service)) return 'SERVING';
    if (!this.config.model_config_list.config.some((m) => m.name === service)) return 'SERVICE_UNKNOWN';
    return this.safeStatus(service).some((v) => v.state === 'AVAILABLE') ? 'SERVING' : 'NOT_SERVING';
  }

  /**
   * --batching_parameters_file is polled (stat, as for --model_config_file: editors replace
   * files and container mounts miss inotify events): an edit applies to the batches formed
   * after it; a file that does not parse is refused and the parameters in force stay.
   */
  private watchBatchingParameters(): void {
    const file = this.options.batching.parametersFile;
    const every = this.options.batching.pollWaitSeconds;
    if (!file || !this.batching || every <= 0) return;
    let last = readFileSync(file, 'utf8');
    let unreadable = false;
    const check = async () => {
      let text: string;
      try {
        text = await fs.readFile(file, 'utf8');
        unreadable = false;
      } catch (e) {
        // Said once, not every poll, while the file stays missing.
        if (!unreadable) this.log(`Cannot read batching parameters ${file}: ${(e as Error).message}; keeping the previous parameters`, 'error', { event: 'batching_reload_failed' });
        unreadable = true;
        return;
      }
      if (text === last) return;
      last = text;
      let params: BatchingParameters;
      try {
        params = parseBatchingParametersText(text, file);
      } catch (e) {
        this.log(`Rejected the edit of batching parameters ${file}: ${(e as Error).message}; keeping the previous parameters`, 'error', { event: 'batching_reload_failed' });
        return;
      }
      this.batching = params;
      this.batchingLoader.reloadGlobal(params);
      this.log(`Batching parameters reloaded from ${file}: ${JSON.stringify(params)}`, 'info', { event: 'batching_reloaded' });
    };
    this.timers.push(setInterval(() => void check(), every * 1000));
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
    const config = (await this.readConfig()) ?? this.config;
    return {
      runtime: this.runtime,
      rest_api: `${this.options.restApiHost}:${this.options.restApiPort}`,
      grpc_port: this.options.grpcPort,
      models: config.model_config_list.config.map((m) => ({ name: m.name, base_path: m.base_path, model_version_policy: m.model_version_policy, version_labels: m.version_labels })),
      batching: this.batching ?? null,
      monitoring_path: (await this.prometheusPath()) ?? null,
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
    this.timers.forEach(clearInterval);
    const drained = Promise.all([this.httpDrain?.drain() ?? this.closeHttp(), this.grpc?.stop()]).then(() => true);
    let bound: NodeJS.Timeout | undefined;
    const timedOut = Number.isFinite(drainMs) ? new Promise<false>((resolve) => (bound = setTimeout(() => resolve(false), drainMs))) : new Promise<false>(() => {});
    const report: StopReport = { drained: await Promise.race([drained, timedOut]), cutRequests: [], cutCalls: [] };
    clearTimeout(bound);
    if (!report.drained) {
      report.cutRequests = this.httpDrain?.forceClose() ?? [];
      report.cutCalls = this.grpc?.forceStop() ?? [];
      for (const r of report.cutRequests) this.log(`request cut at the drain bound: ${r.method} ${r.path}`, 'warn', { event: 'request_cut', ...r });
      for (const c of report.cutCalls) this.log(`gRPC call cut at the drain bound: ${c.method}`, 'warn', { event: 'grpc_call_cut', ...c });
    }
    await Promise.allSettled([...this.polls]);
    await this.manager.stop();
    return report;
  }

  /** Start-up failed before the drain was set up. */
  private closeHttp(): Promise<void> {
    return new Promise((resolve) => (this.http ? this.http.close(() => resolve()) : resolve()));
  }
}
