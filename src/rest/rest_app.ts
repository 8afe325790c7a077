// The REST transport: TF Serving's /v1 API on Hono. It parses, routes and answers; all
// inference runs on executor threads behind PredictionService.
import { Context, Hono } from 'hono';
import { Code, ServingError } from '../errors/status.js';
import * as MSG from '../errors/messages.js';
import type { ModelSpec } from '../services/servable_version.js';
import { httpStatusFor } from './http_status.js';
import { REST_API_PATH, restCall } from './rest_paths.js';
import { mountOpenInferenceRoutes } from './v2/index.js';
import { ERROR_KEY, errorResponse, noteError, type RestEnv } from './error_response.js';
import { serveInference, type EnvelopeDeps } from './request_envelope.js';
import { predictRoute } from './predict_route.js';
import { examplesRoute } from './examples_route.js';

export interface RestDeps extends EnvelopeDeps {
  /** GetModelStatus as TF Serving's JSON object. */
  modelStatus(spec: ModelSpec): unknown;
  /** GetModelMetadata as TF Serving's JSON object. */
  modelMetadata(spec: ModelSpec): unknown;
  enableCors: boolean;
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

const JSON_HEADERS = { 'Content-Type': 'application/json' };

const SERVER_STATUS_PATH = '/monitoring/tfgate/status';
const SERVER_READY_PATH = '/monitoring/tfgate/ready';

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
  noteError(c, MSG.ORIGIN_HEADER_MISSING);
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
      accessLog({
        method: c.req.method,
        path: c.req.path,
        status: c.res.status,
        ms: Math.round((performance.now() - started) * 1000) / 1000,
        ...(error !== undefined && { error }),
      });
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
  mountOpenInferenceRoutes(app, deps);

  const predict = predictRoute(deps.prediction, deps.bodyParser);
  const classify = examplesRoute('classify', deps.prediction, deps.checkMethodName);
  const regress = examplesRoute('regress', deps.prediction, deps.checkMethodName);

  /**
   * One /v1 call, `uriPath` its path and query as sent (REST_API_PATH matched). The method is
   * given: c.req, made on first use, is then not made for a :predict at all.
   */
  const serveRest = (c: Context, method: string, uriPath: string): Response | Promise<Response> => {
    if (method === 'OPTIONS') return corsPreflight(c);
    try {
      const call = restCall(method, uriPath);
      switch (call.kind) {
        case 'status':
          return c.body(JSON.stringify(deps.modelStatus(call.model), null, 1), 200, JSON_HEADERS);
        case 'metadata':
          return c.body(JSON.stringify(deps.modelMetadata(call.model), null, 1), 200, JSON_HEADERS);
        case 'classify':
          return serveInference(c, call.model, deps, classify).catch((e: unknown) => errorResponse(c, e, 'pretty'));
        case 'regress':
          return serveInference(c, call.model, deps, regress).catch((e: unknown) => errorResponse(c, e, 'pretty'));
        case 'predict':
          return serveInference(c, call.model, deps, predict).catch((e: unknown) => errorResponse(c, e, 'pretty'));
      }
    } catch (e) {
      return errorResponse(c, e, 'pretty');
    }
  };

  // Not an async function: an inference call's promise is handed back as it is, its failure
  // answered by a catch on it, without an await (and a function resumed) for every request.
  app.all('*', (c): Response | Promise<Response> => {
    const uriPath = rawUriPath(c.req.url);
    if (!REST_API_PATH.test(uriPath))
      return errorResponse(c, new ServingError(Code.NOT_FOUND, `Not found: ${c.req.method} ${c.req.path}`), 'pretty');
    return serveRest(c, c.req.method, uriPath);
  });

  // A POST under /v1/ reaches only the catch-all above (every other route is a GET, or under
  // /v2 or /monitoring): with no middleware to run it is served without Hono's router, its
  // Context made as Hono makes it. That skips the route match, the dispatch's two promises
  // (then, catch) on every answer and the URL read twice (1.2 µs a request in a loop).
  if (!accessLog && !deps.enableCors) {
    const routed = app.fetch;
    app.fetch = (request, env, executionCtx) => {
      if (request.method !== 'POST') return routed(request, env, executionCtx);
      const uriPath = rawUriPath(request.url);
      if (!REST_API_PATH.test(uriPath)) return routed(request, env, executionCtx);
      return serveRest(new Context(request, { path: app.getPath(request, { env }), env, executionCtx }), 'POST', uriPath);
    };
  }

  return app;
}
