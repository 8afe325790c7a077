// The one error answer of every REST route, /v1 and /v2: `{"error": "<message>"}`, the status
// and headers from http_status.ts. /v1 lays it out as TF Serving's PrettyWriter does (4-space
// indent); the Open Inference Protocol writes it compact.
import type { Context } from 'hono';
import { toStatusData } from '../errors/status.js';
import { errorHeaders, httpStatusOf } from './http_status.js';

const JSON_HEADERS = { 'Content-Type': 'application/json' };

/** The error a request was answered with, for the access log (TF Serving logs it at VLOG(1)). */
export const ERROR_KEY = 'servingError';
export type RestEnv = { Variables: { [ERROR_KEY]: string } };

/** Notes `message` for the access log: the answer a request got when it was refused without a JSON body. */
export function noteError(c: Context, message: string): void {
  (c as Context<RestEnv>).set(ERROR_KEY, message);
}

export function errorResponse(c: Context, e: unknown, layout: 'pretty' | 'compact'): Response {
  const { message } = toStatusData(e);
  noteError(c, message);
  const text = layout === 'pretty' ? JSON.stringify({ error: message }, null, 4) : JSON.stringify({ error: message });
  return c.body(text, httpStatusOf(e) as 400, { ...JSON_HEADERS, ...errorHeaders(e) });
}
