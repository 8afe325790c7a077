// The Open Inference Protocol (KServe v2) beside TF Serving's /v1 API, on the same Hono app:
// the same port, services, executors, limits and middleware (CORS, access log). Routes are
// in v2_paths.ts; every failure is answered `{"error": "<message>"}` with the status the
// canonical code maps to (http_status.ts), except that an unknown version label is 404 here
// (the protocol's versions are path segments, so a wrong one is a resource that is not there).
import type { Context, Hono } from 'hono';
import { Code, notFound, toStatusData } from '../../errors/status.js';
import * as MSG from '../../errors/messages.js';
import { ownValue } from '../../util/own_property.js';
import { DEFAULT_SIGNATURE_KEY } from '../../services/prediction_service.js';
import type { ModelSpec } from '../../services/servable_version.js';
import { errorResponse } from '../error_response.js';
import { serveInference } from '../request_envelope.js';
import { inferRoute } from './infer_handler.js';
import { modelMetadata, serverMetadata } from './model_metadata.js';
import { availableVersions, modelsNotReady } from './readiness.js';
import { serverVersion } from './server_version.js';
import { parseV2Path } from './v2_paths.js';
import type { V2Deps } from './v2_deps.js';

const JSON_HEADERS = { 'Content-Type': 'application/json' };

function json(c: Context, status: number, value: unknown): Response {
  return c.body(JSON.stringify(value), status as 200, JSON_HEADERS);
}

/** A label the model does not have reads as a version that is not there: NOT_FOUND. */
function labelNotFound(spec: ModelSpec, e: unknown): unknown {
  if (spec.label !== undefined && toStatusData(e).message === MSG.unrecognizedVersionLabel(spec.label))
    return notFound(toStatusData(e).message);
  return e;
}

/** GET …/ready: 200 when a version the path names (the newest, without one) is AVAILABLE; 400 when the model is there but not ready; 404 when it is unknown. */
function modelReady(c: Context, spec: ModelSpec, deps: V2Deps): Response {
  try {
    deps.prediction.signatures(spec);
    return json(c, 200, { name: spec.name, ready: true });
  } catch (e) {
    if (toStatusData(e).code !== Code.NOT_FOUND) throw labelNotFound(spec, e);
    // Not servable now: known (loading, failed, unloading) or not there at all (modelStatus throws NOT_FOUND).
    deps.modelStatus({ name: spec.name, version: spec.version });
    return json(c, 400, { name: spec.name, ready: false });
  }
}

function modelMetadataResponse(c: Context, spec: ModelSpec, deps: V2Deps): Response {
  let signatures;
  try {
    signatures = deps.prediction.signatures(spec);
  } catch (e) {
    throw labelNotFound(spec, e);
  }
  const versions = availableVersions(deps.modelStatus({ name: spec.name }));
  return json(c, 200, modelMetadata(spec.name, versions, ownValue(signatures, DEFAULT_SIGNATURE_KEY)));
}

/** Registers /v2 and /v2/* on `app`. */
export function mountOpenInferenceRoutes<E extends object>(app: Hono<E>, deps: V2Deps): void {
  const infer = inferRoute(deps.prediction, deps.bodyParser);
  const handler = async (c: Context): Promise<Response> => {
    // The path as sent: names are percent-decoded once, here, so an encoded "/" stays in a name.
    const path = new URL(c.req.url).pathname;
    let spec: ModelSpec | undefined;
    try {
      const call = parseV2Path(c.req.method, path);
      // A CORS preflight: an empty 200 (the app's CORS middleware, when on, adds its headers), as on /v1.
      if (c.req.method === 'OPTIONS') return c.body(null, 200);
      switch (call.kind) {
        case 'server_metadata':
          return json(c, 200, serverMetadata(serverVersion()));
        case 'live':
          return json(c, 200, { live: true });
        case 'ready': {
          const waiting = deps.serverStatus ? modelsNotReady(deps.serverStatus()) : [];
          return json(c, waiting.length === 0 ? 200 : 400, { ready: waiting.length === 0 });
        }
        case 'model_ready':
          return modelReady(c, call.model, deps);
        case 'model_metadata':
          return modelMetadataResponse(c, call.model, deps);
        case 'infer':
          spec = call.model;
          return await serveInference(c, call.model, deps, infer);
      }
    } catch (e) {
      return errorResponse(c, spec ? labelNotFound(spec, e) : e, 'compact');
    }
  };
  app.all('/v2', handler as never);
  app.all('/v2/*', handler as never);
}
