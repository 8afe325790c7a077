// The Open Inference Protocol's REST routes (inference_rest.md, "HTTP/REST"):
//   GET  /v2                                              server metadata
//   GET  /v2/health/live | /v2/health/ready                server liveness / readiness
//   GET  /v2/models/{name}[/versions/{version}]            model metadata
//   GET  /v2/models/{name}[/versions/{version}]/ready      model readiness
//   POST /v2/models/{name}[/versions/{version}]/infer      inference
// A version is a string in the protocol. tfgate's versions are numbers, so a decimal string
// names a version and anything else a version label (TF Serving's labels, from the model
// config), e.g. /v2/models/m/versions/stable/infer.
import { invalidArgument, notFound, ServingError, Code } from '../../errors/status.js';
import type { ModelSpec } from '../../services/servable_version.js';

export type V2Call =
  { kind: 'server_metadata' | 'live' | 'ready' } | { kind: 'model_metadata' | 'model_ready' | 'infer'; model: ModelSpec };

const METHOD: Record<V2Call['kind'], 'GET' | 'POST'> = {
  server_metadata: 'GET',
  live: 'GET',
  ready: 'GET',
  model_metadata: 'GET',
  model_ready: 'GET',
  infer: 'POST',
};

// Segments are taken as sent (not decoded) so that an encoded "/" stays inside a name.
const MODEL_PATH = /^\/v2\/models\/([^/]+)(?:\/versions\/([^/]+))?(?:\/(ready|infer))?\/?$/;

/** A wrong method on a route that exists: 405 with the Allow header. */
export class MethodNotAllowed extends ServingError {
  constructor(
    readonly allow: 'GET' | 'POST',
    method: string,
    path: string,
  ) {
    super(Code.UNIMPLEMENTED, `Method ${method} is not allowed on ${path}; use ${allow}`, { cause: 'method_not_allowed', allow });
  }
}

function decodeSegment(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    throw invalidArgument(`Malformed percent-encoding in URL segment: ${s}`);
  }
}

/** A version segment: digits name a version, anything else a label. */
function versionSpec(name: string, version: string | undefined): ModelSpec {
  if (version === undefined) return { name };
  if (/^\d+$/.test(version)) {
    const v = Number(version);
    if (!Number.isSafeInteger(v)) throw invalidArgument(`Model version ${version} is out of range`);
    return { name, version: v };
  }
  return { name, label: version };
}

/**
 * The call a request names; NOT_FOUND for a path that is none of the protocol's routes,
 * MethodNotAllowed for a method the route does not take (OPTIONS, a CORS preflight, is
 * taken by every route: the caller answers it).
 */
export function parseV2Path(method: string, path: string): V2Call {
  let call: V2Call | undefined;
  if (path === '/v2' || path === '/v2/') call = { kind: 'server_metadata' };
  else if (path === '/v2/health/live') call = { kind: 'live' };
  else if (path === '/v2/health/ready') call = { kind: 'ready' };
  else {
    const m = MODEL_PATH.exec(path);
    if (m) {
      const model = versionSpec(decodeSegment(m[1]), m[2] === undefined ? undefined : decodeSegment(m[2]));
      call = { kind: m[3] === 'ready' ? 'model_ready' : m[3] === 'infer' ? 'infer' : 'model_metadata', model };
    }
  }
  if (!call) throw notFound(`Not found: ${method} ${path}`);
  const allowed = METHOD[call.kind];
  if (method !== allowed && method !== 'OPTIONS') throw new MethodNotAllowed(allowed, method, path);
  return call;
}
