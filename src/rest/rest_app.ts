// The REST transport: TF Serving's /v1 API on Hono. It parses, routes and answers; all
// inference runs on executor threads behind PredictionService.
import { Hono, type Context } from 'hono';
import { Code, ServingError, invalidArgument, toStatusData } from '../errors/status.js';
import * as MSG from '../errors/messages.js';
import { runExamples, type ExampleApi } from '../services/example_inference.js';
import { examplesResponseJson, parseExampleRequest } from './json_examples.js';
import { DEFAULT_SIGNATURE_KEY, type PredictionService } from '../services/prediction_service.js';
import type { ModelSpec, Release, RunStats } from '../services/servable_version.js';
import type { Metrics } from '../monitoring/metrics.js';
import { httpStatusFor, httpStatusOf } from './http_status.js';
import { checkModelRef, parseRestPath, REST_API_PATH } from './rest_paths.js';
import { readRequestBody, readRequestBodyBytes } from './request_body.js';
import { parseJsonBodyYielding, type JsonLimits, type JsonValue } from './json_parse.js';
import { chargeJsonParse } from './json_footprint.js';
import { UNLIMITED_BUDGET, type MemoryBudget, type MemoryClaim } from '../services/memory_budget.js';
import { parsePredictRequest } from './json_tensor.js';
import { readPredictBody, type PredictBody } from './predict_body.js';
import { predictResponseJsonYielding } from './json_tensor_writer.js';
import { mountOpenInferenceRoutes } from './v2/index.js';
import { withTimeout } from './request_timeout.js';
import type { SignatureSpec } from '../savedmodel/signature_spec.js';

interface RestLimits {
  maxBodyBytes: number;
  jsonMaxDepth: number;
  jsonMaxElements: number;
}

export interface RestDeps {
  prediction: PredictionService;
  /** GetModelStatus as TF Serving's JSON object. */
  modelStatus(spec: ModelSpec): unknown;
  /** GetModelMetadata as TF Serving's JSON object. */
  modelMetadata(spec: ModelSpec): unknown;
  limits: RestLimits;
  /** --max_inflight_request_bytes, shared with gRPC; none: unbounded. */
  budget?: MemoryBudget;
  /** --rest_api_timeout_in_ms: a call still running then is answered DEADLINE_EXCEEDED. */
  timeoutMs: number;
  enableCors: boolean;
  /** Request counts and latencies are recorded here. */
  metrics: Metrics;
  /** Where Prometheus scrapes (MonitoringConfig.prometheus_config.path); none when disabled. */
  metricsPath?: string;
  /** --enable_signature_method_name_check: :classify / :regress need the matching method_name. */
  checkMethodName?: boolean;
  /** tfgate's own status page (GET /monitoring/tfgate/status). */
  serverStatus?: () => unknown;
  /** GET /monitoring/tfgate/ready: 200 when ready, else 503 with the same body. */
  readiness?: () => { ready: boolean };
  /** --access_log: told of every request once answered. */
  accessLog?: (entry: { method: string; path: string; status: number; ms: number; error?: string }) => void;
}

/**
 * `Server-Timing: parse;dur=0.1, queue;dur=0.8, handoff;dur=0.05, run;dur=2.0, handback;dur=0.04,
 * infer;dur=2.1, serialise;dur=0.02, batch;desc="7/8"`: where the request's time went. infer
 * (the executors as the main thread sees them) holds handoff, run and handback; batch is rows /
 * rows after padding.
 */
function serverTiming(s: RunStats): string {
  const parts: string[] = [];
  const dur = (name: string, ms: number | undefined) => ms !== undefined && parts.push(`${name};dur=${ms.toFixed(3)}`);
  dur('parse', s.parseMs);
  dur('queue', s.queueMs);
  dur('handoff', s.handoffMs);
  dur('run', s.computeMs);
  dur('handback', s.handbackMs);
  dur('infer', s.inferMs);
  dur('serialise', s.serialiseMs);
  if (s.batchSize !== undefined) parts.push(`batch;desc="${s.batchSize}/${s.paddedBatchSize ?? s.batchSize}"`);
  return parts.join(', ');
}

const JSON_HEADERS = { 'Content-Type': 'application/json' };

const SERVER_STATUS_PATH = '/monitoring/tfgate/status';
const SERVER_READY_PATH = '/monitoring/tfgate/ready';

/** The error a request was answered with, for the access log (TF Serving logs it at VLOG(1)). */
const ERROR_KEY = 'servingError';
type RestEnv = { Variables: { [ERROR_KEY]: string } };

function jsonError(c: Context, e: unknown): Response {
  const status = toStatusData(e);
  c.set(ERROR_KEY, status.message);
  const http = httpStatusOf(e);
  const retryAfterMs = e instanceof ServingError ? e.hints.retryAfterMs : undefined;
  // Retry-After counts whole seconds (RFC 9110); an estimate under one second still says 1.
  const headers = retryAfterMs === undefined ? JSON_HEADERS : { ...JSON_HEADERS, 'Retry-After': String(Math.max(1, Math.ceil(retryAfterMs / 1000))) };
  return c.body(JSON.stringify({ error: status.message }, null, 4), http as 400, headers);
}

// The body members each API reads (json_tensor.cc, json_examples): nesting elsewhere is only
// checked as JSON, as TF Serving's iterative parser does.
const PREDICT_MEMBERS: ReadonlySet<string> = new Set(['signature_name', 'instances', 'inputs']);
const EXAMPLES_MEMBERS: ReadonlySet<string> = new Set(['signature_name', 'context', 'examples']);

/**
 * A request body read and parsed, other clients served meanwhile. Its memory is claimed
 * before it is taken: the body's bytes from Content-Length, the parse's from a count of the
 * text (json_footprint.ts) before anything is built.
 */
async function readJson(c: Context, deps: RestDeps, rootMembers: ReadonlySet<string>, claim: MemoryClaim): Promise<JsonValue> {
  const text = await readRequestBody(c, deps.limits.maxBodyBytes, claim);
  const onGrowth = await chargeJsonParse(text, (bytes) => claim.add(bytes));
  const limits: JsonLimits = { maxDepth: deps.limits.jsonMaxDepth, maxElements: deps.limits.jsonMaxElements, rootMembers, onGrowth };
  return parseJsonBodyYielding(text, limits);
}

/**
 * The largest :predict body the tensor reader reads here, on the event loop, in one go: about
 * as long as one slice of the yielding JSON parser (20–50 ms; 3.4 MB of 17-digit floats took
 * 24–45 ms of CPU on a loaded 2-core machine). Larger bodies are parsed in slices, so that
 * other clients are answered meanwhile.
 */
const READ_ON_LOOP_MAX_BYTES = 4 * 2 ** 20;

/**
 * A :predict body: read by the tensor reader straight from its bytes into the tensors
 * (predict_body.ts readPredictBody), or, when it declines, parsed as JSON with other clients
 * served meanwhile and its memory claimed as readJson claims it.
 */
async function readPredict(c: Context, spec: ModelSpec, deps: RestDeps, claim: MemoryClaim): Promise<PredictBody> {
  const bytes = await readRequestBodyBytes(c, deps.limits.maxBodyBytes, claim);
  const limits: JsonLimits = { maxDepth: deps.limits.jsonMaxDepth, maxElements: deps.limits.jsonMaxElements, rootMembers: PREDICT_MEMBERS };
  const read =
    bytes.byteLength <= READ_ON_LOOP_MAX_BYTES
      ? readPredictBody(bytes, limits, { signature: (name) => signatureNow(deps, spec, name), charge: (bytes) => claim.add(bytes) })
      : undefined;
  if (read !== undefined) return read;
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
  claim.add(text.length);
  const body = await parseJsonBodyYielding(text, { ...limits, onGrowth: await chargeJsonParse(text, (bytes) => claim.add(bytes)) });
  const name = (body as { signature_name?: unknown } | null)?.signature_name;
  return { signatureName: typeof name === 'string' ? name : undefined, tensors: (signature, charge) => parsePredictRequest(body, signature, charge) };
}

/** The signature `name` selects in the version `spec` resolves to now; undefined when none (predict() then says why). */
function signatureNow(deps: RestDeps, spec: ModelSpec, name: string | undefined): SignatureSpec | undefined {
  try {
    const signatures = deps.prediction.signatures(spec);
    const key = name || DEFAULT_SIGNATURE_KEY;
    return Object.hasOwn(signatures, key) ? signatures[key] : undefined;
  } catch {
    return undefined;
  }
}

/** POST …:predict: parse against the signature, run, answer; counted and timed as TF Serving does. */
async function handlePredict(c: Context, spec: ModelSpec, deps: RestDeps): Promise<Response> {
  const started = performance.now();
  const record = deps.metrics.requestRecorder(spec.name, 'predict', 'REST', started);
  // The request's share of --max_inflight_request_bytes: body, parsed JSON, tensors; given back when answered.
  let claim: MemoryClaim | undefined;
  let release: Release | undefined;
  try {
    // Under overload the excess is refused here, before its body is read and parsed: that
    // work would otherwise take the CPU the executors need for the requests admitted.
    release = deps.prediction.admit(spec);
    claim = (deps.budget ?? UNLIMITED_BUDGET).claim();
    // Dropped once its tensors are built: the parsed JSON of a large body is many times its
    // tensors (5 Mi one-value rows: 350 MB for 20 MB of floats), and the GC may take it back
    // before the run and the answer need their memory (its charge stays until the end).
    let body: PredictBody | undefined = await readPredict(c, spec, deps, claim);
    let format: 'row' | 'columnar' = 'row';
    const signatureName = body.signatureName;
    let parsedAt = started;
    const result = await withTimeout(
      deps.prediction.predict(spec, signatureName, (signature) => {
        // Each tensor's memory is charged before it is allocated.
        const parsed = body!.tensors(signature, (bytes) => claim!.add(bytes));
        body = undefined;
        format = parsed.format;
        parsedAt = performance.now();
        // Parsed: it goes to the version's queue now, where it counts instead.
        release!();
        return parsed;
      }, {
        deadline: deps.timeoutMs > 0 ? started + deps.timeoutMs : undefined,
        signatureNotFound: (name) => invalidArgument(MSG.restSignatureNotFound(name)),
        claim,
      }),
      deps.timeoutMs,
    );
    const answeredAt = performance.now();
    const text = await predictResponseJsonYielding(result.outputs, format);
    result.stats.parseMs = parsedAt - started;
    result.stats.serialiseMs = performance.now() - answeredAt;
    deps.metrics.recordRuntimeLatency(spec.name, 'Predict', result.stats.inferMs);
    record('OK');
    return c.body(text, 200, { ...JSON_HEADERS, 'Server-Timing': serverTiming(result.stats) });
  } catch (e) {
    record(Code[toStatusData(e).code]);
    throw e;
  } finally {
    release?.();
    claim?.release();
  }
}

/** POST …:classify / …:regress: JSON examples → tf.Example protos → the signature → results. */
async function handleExamples(c: Context, api: ExampleApi, spec: ModelSpec, deps: RestDeps): Promise<Response> {
  const started = performance.now();
  const record = deps.metrics.requestRecorder(spec.name, api, 'REST', started);
  let claim: MemoryClaim | undefined;
  let release: Release | undefined;
  try {
    release = deps.prediction.admit(spec);
    claim = (deps.budget ?? UNLIMITED_BUDGET).claim();
    const body = await readJson(c, deps, EXAMPLES_MEMBERS, claim);
    const request = parseExampleRequest(body, (bytes) => claim!.add(bytes));
    release();
    const result = await withTimeout(
      runExamples(deps.prediction, api, spec, request.signatureName, () => request.serialized, {
        deadline: deps.timeoutMs > 0 ? started + deps.timeoutMs : undefined,
        checkMethodName: deps.checkMethodName,
        claim,
      }),
      deps.timeoutMs,
    );
    deps.metrics.recordRuntimeLatency(spec.name, api === 'classify' ? 'Classify' : 'Regress', result.stats.inferMs);
    record('OK');
    return c.body(examplesResponseJson(api, result.results), 200, JSON_HEADERS);
  } catch (e) {
    record(Code[toStatusData(e).code]);
    throw e;
  } finally {
    release?.();
    claim?.release();
  }
}

/** The path and query as the client sent them (net_http's uri_path), from Hono's full URL. */
function rawUriPath(url: string): string {
  const start = url.indexOf('/', url.indexOf('://') + 3);
  return start < 0 ? '/' : url.slice(start);
}

/**
 * OPTIONS on any REST URL (http_server.cc, before the handler routes it): 200 when the
 * Origin header names an http(s) origin, else FAILED_PRECONDITION. Either way the body is
 * empty, as TF Serving writes no JSON for it; the CORS headers, when on, are added below.
 */
function corsPreflight(c: Context): Response {
  if (/https?:\/\//.test(c.req.header('origin') ?? '')) return c.body(null, 200);
  c.set(ERROR_KEY, MSG.ORIGIN_HEADER_MISSING);
  return c.body(null, httpStatusFor(Code.FAILED_PRECONDITION) as 400);
}

export function createRestApp(deps: RestDeps): Hono<RestEnv> {
  const app = new Hono<RestEnv>();

  const accessLog = deps.accessLog;
  if (accessLog) {
    app.use('*', async (c, next) => {
      const started = performance.now();
      await next();
      const error = c.get(ERROR_KEY);
      accessLog({ method: c.req.method, path: c.req.path, status: c.res.status, ms: Math.round((performance.now() - started) * 1000) / 1000, ...(error !== undefined && { error }) });
    });
  }

  if (deps.enableCors) {
    app.use('*', async (c, next) => {
      await next();
      c.header('Access-Control-Allow-Origin', '*');
      c.header('Access-Control-Allow-Methods', 'POST, GET');
      c.header('Access-Control-Allow-Headers', 'Content-Type');
    });
  }

  if (deps.metricsPath) {
    const metrics = deps.metrics;
    app.get(deps.metricsPath, async (c) => c.body(await metrics.text(), 200, { 'Content-Type': metrics.registry.contentType }));
  }

  const serverStatus = deps.serverStatus;
  if (serverStatus) app.get(SERVER_STATUS_PATH, (c) => c.body(JSON.stringify(serverStatus(), null, 1), 200, JSON_HEADERS));

  const readiness = deps.readiness;
  if (readiness) {
    app.get(SERVER_READY_PATH, (c) => {
      const r = readiness();
      return c.body(JSON.stringify(r, null, 1), r.ready ? 200 : 503, JSON_HEADERS);
    });
  }

  // The Open Inference Protocol (KServe v2) beside TF Serving's /v1, on the same services.
  mountOpenInferenceRoutes(app, deps, (c, message) => c.set(ERROR_KEY, message));

  app.all('*', async (c) => {
    const uriPath = rawUriPath(c.req.url);
    if (!REST_API_PATH.test(uriPath)) return jsonError(c, new ServingError(Code.NOT_FOUND, `Not found: ${c.req.method} ${c.req.path}`));
    if (c.req.method === 'OPTIONS') return corsPreflight(c);
    try {
      const call = parseRestPath(c.req.method, uriPath);
      checkModelRef(call.model);
      switch (call.kind) {
        case 'status':
          return c.body(JSON.stringify(deps.modelStatus(call.model), null, 1), 200, JSON_HEADERS);
        case 'metadata':
          return c.body(JSON.stringify(deps.modelMetadata(call.model), null, 1), 200, JSON_HEADERS);
        case 'classify':
        case 'regress':
          return await handleExamples(c, call.kind, call.model, deps);
        case 'predict':
          return await handlePredict(c, call.model, deps);
      }
    } catch (e) {
      return jsonError(c, e);
    }
  });

  return app;
}
