// The one envelope around every HTTP inference call (:predict, :classify, :regress, /v2 infer),
// as TF Serving's RestApiRequestDispatcher::ProcessRequest (model_servers/http_server.cc) and
// tfgate's gRPC unary() wrapper put theirs: admit → claim memory → read the body (limit, gzip)
// → parse → run under the deadline → format → record (metrics, Server-Timing) → release.
// A route supplies only its own three steps (InferenceRoute); whatever fails is thrown to the
// app's one error answer (error_response.ts) after it is counted here.
import type { Context } from 'hono';
import { Code, toStatusData } from '../errors/status.js';
import { UNLIMITED_BUDGET, type MemoryBudget, type MemoryClaim } from '../services/memory_budget.js';
import type { PredictionService } from '../services/prediction_service.js';
import type { ModelSpec, Release, RunStats } from '../services/servable_version.js';
import type { Metrics } from '../monitoring/metrics.js';
import { readRequestBodyBytes } from './request_body.js';
import { withTimeout } from './request_timeout.js';
import type { BodyParserPool } from './body_parser_pool.js';
import { releaseWhenSent } from './predict_answer.js';

/** What the envelope needs from the server: a subset of RestDeps and V2Deps. */
export interface EnvelopeDeps {
  prediction: PredictionService;
  limits: { maxBodyBytes: number; jsonMaxDepth: number; jsonMaxElements: number };
  /** --max_inflight_request_bytes, shared with gRPC; none: unbounded. */
  budget?: MemoryBudget;
  /** --rest_api_timeout_in_ms: a call still running then is answered DEADLINE_EXCEEDED. */
  timeoutMs: number;
  metrics: Metrics;
  /** Where large :predict bodies are parsed, off the event loop; none: all are parsed on it (yielding). */
  bodyParser?: BodyParserPool;
}

/** One call as a route's steps see it. */
interface InferenceCall {
  spec: ModelSpec;
  /** The request's share of --max_inflight_request_bytes: charge what is built before building it. */
  claim: MemoryClaim;
  /** performance.now() ms by which the run must start (RunOptions.deadline); none: no timeout. */
  deadline?: number;
  limits: EnvelopeDeps['limits'];
  /** A request header (lower-case name). */
  header(name: string): string | undefined;
  /**
   * Call once the request's tensors are built: its place in the version's admission queue is
   * given back (it waits in the queue proper now), and Server-Timing's parse ends here.
   */
  inputsBuilt(): void;
}

interface Answer {
  body: string | Uint8Array;
  headers: Record<string, string>;
  /** The body's buffer is this answer's alone: freed once sent. */
  ownsBuffer?: boolean;
}

/**
 * A route's own steps. `parse` reads the body (no tensors yet, unless the route needs none of
 * the signature); `run` calls the service — tensors are built inside it, against the
 * version's signature, then `call.inputsBuilt()` — and is what the deadline bounds; `format`
 * writes the answer.
 */
export interface InferenceRoute<Request, Result extends { stats: RunStats }> {
  /** request_count / request_latency's API label. */
  api: 'predict' | 'classify' | 'regress';
  /** runtime_latency's API label. */
  runtimeApi: 'Predict' | 'Classify' | 'Regress';
  parse(body: Uint8Array, call: InferenceCall): Promise<Request> | Request;
  run(request: Request, call: InferenceCall): Promise<Result>;
  format(result: Result, request: Request, call: InferenceCall): Promise<Answer> | Answer;
}

/**
 * `Server-Timing: parse;dur=0.1, queue;dur=0.8, handoff;dur=0.05, run;dur=2.0, handback;dur=0.04,
 * infer;dur=2.1, serialise;dur=0.02, batch;desc="7/8"`: where the request's time went. infer
 * (the executors as the main thread sees them) holds handoff, run and handback; batch is rows /
 * rows after padding.
 */
function serverTiming(s: RunStats): string {
  // Written straight into one string, no closure, no template per part: this runs for every answer.
  let out = '';
  if (s.parseMs !== undefined) out = 'parse;dur=' + fixed3(s.parseMs);
  if (s.queueMs !== undefined) out += (out ? ', queue;dur=' : 'queue;dur=') + fixed3(s.queueMs);
  if (s.handoffMs !== undefined) out += (out ? ', handoff;dur=' : 'handoff;dur=') + fixed3(s.handoffMs);
  if (s.computeMs !== undefined) out += (out ? ', run;dur=' : 'run;dur=') + fixed3(s.computeMs);
  if (s.handbackMs !== undefined) out += (out ? ', handback;dur=' : 'handback;dur=') + fixed3(s.handbackMs);
  if (s.inferMs !== undefined) out += (out ? ', infer;dur=' : 'infer;dur=') + fixed3(s.inferMs);
  if (s.serialiseMs !== undefined) out += (out ? ', serialise;dur=' : 'serialise;dur=') + fixed3(s.serialiseMs);
  if (s.batchSize !== undefined) out += `${out ? ', ' : ''}batch;desc="${s.batchSize}/${s.paddedBatchSize ?? s.batchSize}"`;
  return out;
}

/**
 * `ms.toFixed(3)`, the same text, without toFixed's runtime call (about 0.2 µs each, seven per
 * answer) for the durations answers carry: 0 to 10^9 ms. Their thousandths are the product
 * rounded unless it lies near a half (the product's own rounding error is under 10^-4 there),
 * which, like anything negative or larger, toFixed writes.
 */
export function fixed3(ms: number): string {
  if (!(ms >= 0 && ms < 1e9)) return ms.toFixed(3);
  const k = Math.round(ms * 1000);
  const off = ms * 1000 - k;
  if (off > 0.49 || off < -0.49) return ms.toFixed(3);
  const whole = Math.floor(k / 1000);
  const frac = k - whole * 1000;
  return whole + (frac < 10 ? '.00' : frac < 100 ? '.0' : '.') + frac;
}

/** An InferenceCall whose inputsBuilt is a method, not a closure made for each request. */
class EnvelopeCall implements InferenceCall {
  /** performance.now() when the tensors were built. */
  parsedAt?: number;

  constructor(
    private readonly c: Context,
    readonly spec: ModelSpec,
    readonly claim: MemoryClaim,
    readonly deadline: number | undefined,
    readonly limits: EnvelopeDeps['limits'],
    private readonly admitted: Release,
  ) {}

  /** Bound: a route may take it out of the call (v2's parse does). */
  readonly header = (name: string): string | undefined => this.c.req.header(name);

  inputsBuilt(): void {
    this.parsedAt ??= performance.now();
    this.admitted();
  }
}

/** Serves one inference call of `route` for `spec`; throws what failed (counted) for the app's error answer. */
export async function serveInference<Request, Result extends { stats: RunStats }>(
  c: Context,
  spec: ModelSpec,
  deps: EnvelopeDeps,
  route: InferenceRoute<Request, Result>,
): Promise<Response> {
  const started = performance.now();
  let release: Release | undefined;
  let claim: MemoryClaim | undefined;
  try {
    // Under overload the excess is refused here, before its body is read and parsed: that
    // work would otherwise take the CPU the executors need for the requests admitted.
    release = deps.prediction.admit(spec);
    // Body, parse and tensors are charged as they are taken, and given back once answered.
    claim = (deps.budget ?? UNLIMITED_BUDGET).claim();
    const call = new EnvelopeCall(c, spec, claim, deps.timeoutMs > 0 ? started + deps.timeoutMs : undefined, deps.limits, release);
    // A large body to be parsed on a parser thread is read when one is free for it (body_read_gate.ts).
    const gate = route.api === 'predict' ? deps.bodyParser?.gate : undefined;
    const body = await readRequestBodyBytes(c, deps.limits.maxBodyBytes, claim, gate, gate && deps.bodyParser?.buffers);
    // Steps that answer at once are not awaited: each await of a value costs a turn of the microtask queue.
    const parsed = route.parse(body, call);
    const request = parsed instanceof Promise ? await parsed : parsed;
    const result = await withTimeout(route.run(request, call), deps.timeoutMs);
    const answeredAt = performance.now();
    const formatted = route.format(result, request, call);
    const answer = formatted instanceof Promise ? await formatted : formatted;
    result.stats.parseMs = (call.parsedAt ?? answeredAt) - started;
    result.stats.serialiseMs = performance.now() - answeredAt;
    deps.metrics.recordRuntimeLatency(spec.name, route.runtimeApi, result.stats.inferMs);
    deps.metrics.recordRequest(spec.name, route.api, 'REST', started, 'OK');
    // A Response with plain headers: @hono/node-server writes them as they are, where c.body()
    // with two or more builds a Headers object (set, sort, iterate) for every answer. Copied
    // member by member: a spread with a member after it ({...h, k: v}) took V8 1.7 µs, this 0.08.
    const headers: Record<string, string> = {};
    for (const name in answer.headers) headers[name] = answer.headers[name];
    headers['Server-Timing'] = serverTiming(result.stats);
    const response = new Response(answer.body as string, { status: 200, headers });
    if (answer.ownsBuffer && answer.body instanceof Uint8Array) releaseWhenSent(c, answer.body);
    return response;
  } catch (e) {
    deps.metrics.recordRequest(spec.name, route.api, 'REST', started, Code[toStatusData(e).code]);
    throw e;
  } finally {
    release?.();
    claim?.release();
  }
}
