// A REST :predict taken straight from Node's request and answered straight into Node's response,
// past @hono/node-server's bridging: its Request over Node's request, the listener's closures and
// close handler, the Response and the two async functions that write it (about 2.5 KB of the
// event loop's garbage a request, of ~22 KB, measured with the sampling heap profiler on
// half_plus_two under wrk). Taken only when nothing else would see the request (no middleware:
// the app's direct dispatch applies, rest_app.ts) and its body is one the envelope reads from
// Node's request as it is (a Content-Length within the limit, no Content-Encoding, no turn to
// wait for, nothing read yet). Anything else, and every answer but a 200, goes to the app as
// before: an error is handed to it with the request (failedDirectly) and answered there, as the
// app answers it, through @hono/node-server.
import { IncomingMessage, type RequestListener, type Server, type ServerResponse } from 'node:http';
import type { Context } from 'hono';
import type { ModelSpec, RunStats } from '../services/servable_version.js';
import { answerInference, type EnvelopeDeps, type InferenceRoute, type Respond } from './request_envelope.js';
import type { RestExchange } from './rest_exchange.js';
import { REST_API_PATH, restCall } from './rest_paths.js';

/**
 * @hono/node-server's tests for a request URL it takes as sent (its Request's url is then the
 * scheme, the Host header and this): anything else it parses with URL(), which may rewrite
 * the path (dot segments, escapes) or refuse the request; that is left to it.
 */
const TAKEN_AS_SENT = /^\/[!#$&-;=?-\[\]_a-z~]*$/;
const DOT_SEGMENT = /\/\.\.?(?:[/?#]|$)/;
const PLAIN_HOST = /^[a-z0-9._-]+(?::(?:[1-5]\d{3,4}|[6-9]\d{3}))?$/;

/** The failure of a :predict served directly, for the app to answer (set on Node's response). */
const FAILED = Symbol('failedDirectly');

/** What a directly served :predict failed with, when `outgoing` is its response; taken once. */
export function failedDirectly(outgoing: ServerResponse | undefined): { error: unknown } | undefined {
  const failed = (outgoing as { [FAILED]?: { error: unknown } } | undefined)?.[FAILED];
  if (failed) delete (outgoing as { [FAILED]?: unknown })[FAILED];
  return failed;
}

/** Node's request and response as the envelope reads them: @hono/node-server's env is the same pair. */
class NodeCall implements RestExchange {
  constructor(
    readonly incoming: IncomingMessage,
    readonly outgoing: ServerResponse,
  ) {}
  get env(): this {
    return this;
  }
  /** Never read for a body taken here (readRequestBodyBytes reads Node's request; :predict reads no header). */
  get req(): Context['req'] {
    throw new Error('a :predict served from Node directly has no Hono request');
  }
}

/**
 * http1's Content-Length left for Node to write, as @hono/node-server's responseViaCache leaves
 * it for a Response with plain headers (trySetContentLength): the same header, in the same place.
 */
function letNodeWriteLength(outgoing: ServerResponse, status: number, length: number): boolean {
  const http1 = outgoing as ServerResponse & {
    _contentLength: number | null;
    _hasBody: boolean;
    _removedContLen: boolean;
    useChunkedEncodingByDefault: boolean;
  };
  if (
    http1._contentLength === null &&
    http1._hasBody &&
    http1.useChunkedEncodingByDefault &&
    !http1._removedContLen &&
    status >= 200 &&
    status !== 204 &&
    status !== 304 &&
    !outgoing.hasHeader('content-length') &&
    !outgoing.hasHeader('transfer-encoding') &&
    !outgoing.hasHeader('trailer')
  ) {
    http1._contentLength = length;
    return true;
  }
  return false;
}

/** A 200 written as @hono/node-server writes a Response with plain headers (none of them Content-Length). */
const writeOk: Respond<NodeCall, void> = (c, body, headers) => {
  const { outgoing } = c;
  const length = typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength;
  outgoing.writeHead(200, letNodeWriteLength(outgoing, 200, length) ? headers : { ...headers, 'Content-Length': String(length) });
  outgoing.end(body);
};

/**
 * Whether the envelope will read this body from Node's request as it is (readRequestBodyBytes'
 * first case), so that nothing here needs Hono's request view.
 */
function readsDirectly(incoming: IncomingMessage, deps: EnvelopeDeps): boolean {
  const declared = incoming.headers['content-length'];
  if (declared === undefined || incoming.headers['content-encoding'] !== undefined) return false;
  const size = Number(declared);
  return (
    size <= deps.limits.maxBodyBytes &&
    !deps.bodyParser?.gate?.applies(size) &&
    !incoming.readableEnded &&
    !incoming.readableDidRead &&
    incoming.readableLength === 0
  );
}

/**
 * Has `server` serve each POST …:predict it can directly, and everything else with the listener
 * it had (@hono/node-server's, over the app). `predict`: the app's :predict route.
 */
export function servePredictsDirectly<Request, Result extends { stats: RunStats }>(
  server: Server,
  deps: EnvelopeDeps,
  predict: InferenceRoute<Request, Result>,
): void {
  const [app] = server.listeners('request') as RequestListener[];
  server.removeListener('request', app);
  server.on('request', (incoming: IncomingMessage, outgoing: ServerResponse) => {
    const url = incoming.url ?? '';
    const host = incoming.headers.host;
    let spec: ModelSpec | undefined;
    if (
      incoming.method === 'POST' &&
      REST_API_PATH.test(url) &&
      incoming instanceof IncomingMessage &&
      TAKEN_AS_SENT.test(url) &&
      !DOT_SEGMENT.test(url) &&
      host !== undefined &&
      PLAIN_HOST.test(host)
    ) {
      try {
        const call = restCall('POST', url);
        if (call.kind === 'predict') spec = call.model;
      } catch {
        // Answered by the app, which makes the same error.
      }
    }
    if (spec === undefined || !readsDirectly(incoming, deps)) return app(incoming, outgoing);
    answerInference(new NodeCall(incoming, outgoing), spec, deps, predict, writeOk).catch((error: unknown) => {
      (outgoing as { [FAILED]?: { error: unknown } })[FAILED] = { error };
      app(incoming, outgoing);
    });
  });
}
