// TF Serving's REST routes (http_rest_api_util.cc, http_rest_api_handler.cc): the same
// regular expressions over the same string — the path *and* query as the client sent them
// (net_http's uri_path), not decoded — so the same URLs match and the same ones are
// "Malformed request". The expressions ignore case but the verb and `metadata` are then
// compared as written: `:PREDICT` matches and is malformed, `/METADATA` asks for the status.
import { invalidArgument } from '../errors/status.js';
import * as MSG from '../errors/messages.js';

const PREDICTION_API = /^\/v1\/models\/([^/:]+)(?:(?:\/versions\/(\d+))|(?:\/labels\/([^/:]+)))?:(classify|regress|predict)$/i;
const MODEL_STATUS_API = /^\/v1\/models(?:\/([^/:]+))?(?:(?:\/versions\/(\d+))|(?:\/labels\/([^/:]+)))?(?:\/(metadata))?$/i;
const VERBS = new Set(['classify', 'regress', 'predict']);

/** Every URL TF Serving's REST dispatcher takes (http_rest_api_util.h), any method. */
export const REST_API_PATH = /^\/v1\//i;

interface ModelRef {
  name: string;
  version?: number;
  label?: string;
}

export type RestCall = { kind: 'predict' | 'classify' | 'regress'; model: ModelRef } | { kind: 'status' | 'metadata'; model: ModelRef };

const isHex = (b: number | undefined) =>
  b !== undefined && ((b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x46) || (b >= 0x61 && b <= 0x66));

/**
 * DecodeArg's curl_easy_unescape: every %XX becomes its byte and anything else, a lone or
 * malformed % included, stays as it is; the bytes are then read as UTF-8.
 */
function unescape(s: string): string {
  if (!s.includes('%')) return s;
  const src = Buffer.from(s, 'utf8');
  const out: number[] = [];
  for (let i = 0; i < src.length; i++) {
    if (src[i] === 0x25 && isHex(src[i + 1]) && isHex(src[i + 2])) {
      out.push(parseInt(String.fromCharCode(src[i + 1], src[i + 2]), 16));
      i += 2;
    } else out.push(src[i]);
  }
  return Buffer.from(out).toString('utf8');
}

function modelRef(name: string | undefined, version: string | undefined, label: string | undefined): ModelRef {
  const ref: ModelRef = { name: name ? unescape(name) : '' };
  if (version) {
    const v = Number(version);
    if (!Number.isSafeInteger(v)) throw invalidArgument(`Failed to convert version: ${version} to numeric.`);
    ref.version = v;
  }
  if (label) ref.label = unescape(label);
  return ref;
}

/**
 * Parses `uriPath` (path and query, e.g. `/v1/models/m:predict?x=1`, which is malformed);
 * throws INVALID_ARGUMENT "Malformed request" when nothing matches.
 */
function parseRestPath(method: string, uriPath: string): RestCall {
  if (method === 'POST') {
    const m = PREDICTION_API.exec(uriPath);
    if (m) {
      const model = modelRef(m[1], m[2], m[3]);
      if (VERBS.has(m[4])) return { kind: m[4] as 'predict' | 'classify' | 'regress', model };
    }
  } else if (method === 'GET') {
    const m = MODEL_STATUS_API.exec(uriPath);
    if (m) {
      const model = modelRef(m[1], m[2], m[3]);
      if (!model.name) throw invalidArgument(MSG.MISSING_MODEL_NAME);
      return { kind: m[4] === 'metadata' ? 'metadata' : 'status', model };
    }
  }
  throw invalidArgument(MSG.malformedRequest(method, uriPath));
}

/** restCall's answers by method and path: clients ask for the same few URLs over and over. */
const knownCalls = new Map<string, RestCall>();
/** Past this many paths the answers kept are dropped and kept anew (a client may send any number). */
const KNOWN_CALLS_MAX = 256;

/**
 * parseRestPath with checkModelRef, the answer kept for the same method and path (a regular
 * expression, a ModelRef and a RestCall per request were 1–1.5 µs of each :predict's). The
 * answer is shared: its callers only read it. What throws is not kept.
 */
export function restCall(method: string, uriPath: string): RestCall {
  // A method has no '/' and a path starts with one: the key names one pair.
  const key = method + uriPath;
  let call = knownCalls.get(key);
  if (call === undefined) {
    call = parseRestPath(method, uriPath);
    checkModelRef(call.model);
    if (knownCalls.size >= KNOWN_CALLS_MAX) knownCalls.clear();
    knownCalls.set(key, call);
  }
  return call;
}

/** FillModelSpecWithNameVersionAndLabel's check. */
function checkModelRef(ref: ModelRef): void {
  if (ref.version !== undefined && ref.label !== undefined) {
    throw invalidArgument(`Both model version (${ref.version}) and model version label (${ref.label}) cannot be supplied.`);
  }
}
