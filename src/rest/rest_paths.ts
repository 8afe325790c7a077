// TF Serving's REST routes (http_rest_api_util.cc): the same regular expressions, so the
// same URLs match and the same ones are "Malformed request".
import { invalidArgument } from '../core/status.js';

const PREDICTION_API = /^\/v1\/models\/([^/:]+)(?:(?:\/versions\/(\d+))|(?:\/labels\/([^/:]+)))?:(classify|regress|predict)$/i;
const MODEL_STATUS_API = /^\/v1\/models(?:\/([^/:]+))?(?:(?:\/versions\/(\d+))|(?:\/labels\/([^/:]+)))?(?:\/(metadata))?$/i;

export interface ModelRef {
  name: string;
  version?: number;
  label?: string;
}

export type RestCall =
  | { kind: 'predict' | 'classify' | 'regress'; model: ModelRef }
  | { kind: 'status' | 'metadata'; model: ModelRef };

function decode(s: string, what: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    throw invalidArgument(`Failed to decode ${what}:${s}`);
  }
}

function modelRef(name: string | undefined, version: string | undefined, label: string | undefined): ModelRef {
  const ref: ModelRef = { name: name ? decode(name, 'model name') : '' };
  if (version) {
    const v = Number(version);
    if (!Number.isSafeInteger(v)) throw invalidArgument(`Failed to convert version: ${version} to numeric.`);
    ref.version = v;
  }
  if (label) ref.label = decode(label, 'model version label');
  return ref;
}

/** Parses a /v1/... path; throws INVALID_ARGUMENT "Malformed request" when nothing matches. */
export function parseRestPath(method: string, pathname: string): RestCall {
  if (method === 'POST') {
    const m = PREDICTION_API.exec(pathname);
    if (m) return { kind: m[4].toLowerCase() as 'predict' | 'classify' | 'regress', model: modelRef(m[1], m[2], m[3]) };
  } else if (method === 'GET') {
    const m = MODEL_STATUS_API.exec(pathname);
    if (m) {
      const model = modelRef(m[1], m[2], m[3]);
      if (!model.name) throw invalidArgument('Missing model name in request.');
      return { kind: m[4] ? 'metadata' : 'status', model };
    }
  }
  throw invalidArgument(`Malformed request: ${method} ${pathname}`);
}

/** FillModelSpecWithNameVersionAndLabel's check. */
export function checkModelRef(ref: ModelRef): void {
  if (ref.version !== undefined && ref.label !== undefined) {
    throw invalidArgument(`Both model version (${ref.version}) and model version label (${ref.label}) cannot be supplied.`);
  }
}
