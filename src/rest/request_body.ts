// A REST request's body as text: bounded by --max_request_body_bytes, and inflated first when
// it comes gzip-encoded, as TF Serving's HTTP server does for every handler
// (util/net_http: auto_uncompress_input, on by default, for any Content-Encoding containing
// "gzip").
import { promisify } from 'node:util';
import { gunzip } from 'node:zlib';
import { IncomingMessage } from 'node:http';
import type { Context } from 'hono';
import { Code, ServingError } from '../errors/status.js';
import type { MemoryClaim } from '../services/memory_budget.js';
import { holdsSlot, type BodyReadGate, type BodySlot } from './body_read_gate.js';
import type { BodyBuffers } from './body_buffers.js';
import { releaseBuffer } from '../util/release_buffer.js';

const gunzipAsync = promisify(gunzip);

/** A body over --max_request_body_bytes, before or after inflating: RESOURCE_EXHAUSTED, answered 413. */
class BodyTooLarge extends ServingError {
  constructor(max: number) {
    super(Code.RESOURCE_EXHAUSTED, `Request body is larger than the limit of ${max} bytes (--max_request_body_bytes)`, {
      cause: 'body_too_large',
    });
  }
}

/**
 * A request header (lower-case name) as c.req.header() gives it, read from Node's parsed
 * headers when the request is Node's HTTP/1 one: the same value (Node's parser trims it,
 * refuses control characters and a second Content-Length, and joins the others as Hono does),
 * without Hono's name check and header view (0.3–0.5 µs a header).
 */
function requestHeader(c: Context, name: 'content-length' | 'content-encoding'): string | undefined {
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
  if (incoming instanceof IncomingMessage) return incoming.headers[name];
  return c.req.header(name);
}

/**
 * The raw body, refused past `max` bytes. A declared Content-Length is checked before
 * reading; a chunked body is read as a stream and cut off at the limit. (Hono's bodyLimit
 * middleware does the same but makes every request build a web stream: 4× slower here.)
 */
async function readBytes(
  c: Context,
  max: number,
  claim?: MemoryClaim,
  gate?: BodyReadGate,
  buffers?: BodyBuffers,
): Promise<[Uint8Array, BodySlot?]> {
  const declared = requestHeader(c, 'content-length');
  if (declared !== undefined) {
    if (Number(declared) > max) throw new BodyTooLarge(max);
    // Claimed before reading: a body the budget has no room for is not even buffered.
    claim?.add(Number(declared));
    // A large body waits for its turn unread (body_read_gate.ts); its slot is given back by the
    // parser (letGoOfBody) or, at the latest, when the request's claim is.
    let slot: BodySlot | undefined;
    if (claim && gate?.applies(Number(declared))) {
      slot = await gate.enter();
      const taken = slot;
      claim.whenReleased(() => taken.leave());
    }
    const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
    // Straight from Node's request: one copy of the chunks. Request#arrayBuffer copies twice
    // more (its Buffer, then an ArrayBuffer slice of it): a second per 20 MB body, measured.
    // (What arrived while the body waited for its turn is buffered there, and read first.)
    // A small body has mostly arrived with its headers: Hono's read of it is cheaper per request.
    if (incoming && !incoming.readableEnded && !incoming.readableDidRead && (slot !== undefined || incoming.readableLength === 0))
      return [await readIncoming(incoming, Number(declared), slot, buffers), slot];
    const bytes = new Uint8Array(await c.req.arrayBuffer());
    slot?.read();
    return [bytes, slot];
  }
  const reader = c.req.raw.body?.getReader();
  if (!reader) return [new Uint8Array(0)];
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.length;
    if (size > max) {
      await reader.cancel();
      throw new BodyTooLarge(max);
    }
    try {
      claim?.add(value.length);
    } catch (e) {
      await reader.cancel();
      throw e;
    }
    chunks.push(value);
  }
  return [Buffer.concat(chunks)];
}

/**
 * The body of `declared` bytes, each chunk copied into one buffer of that size as it comes (a
 * buffer of its own, so a parser thread can be given it): chunks kept until the end and then
 * joined held the body twice (5 Mi rows: 40 MB for a 20 MB body until the GC took the chunks).
 * A large body's buffer is one `buffers` has kept, when it has one.
 */
function readIncoming(incoming: IncomingMessage, declared: number, slot?: BodySlot, buffers?: BodyBuffers): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    // The client may have gone while the body waited for its turn: its events have been and gone.
    if (incoming.destroyed) return reject(new ServingError(Code.CANCELLED, 'the client closed the connection'));
    let body: Uint8Array | undefined;
    let size = 0;
    let ended = false;
    const end = () => {
      ended = true;
      slot?.read();
      if (body === undefined) resolve(new Uint8Array(0));
      else resolve(size === body.length ? body : body.subarray(0, size));
    };
    incoming.on('data', (chunk: Buffer) => {
      if (ended) return;
      if (body === undefined) {
        // The whole body in one chunk (a small one nearly always): Node's parser gives each chunk
        // a buffer of its own (the socket's is reused), so it is the body as it is, not copied.
        if (chunk.length === declared && chunk.byteOffset === 0 && chunk.byteLength === chunk.buffer.byteLength) {
          body = chunk;
          size = chunk.length;
          slot?.data(chunk.length);
          return end();
        }
        // Not zeroed first: only the bytes received are ever read.
        body = buffers?.takes(declared) ? buffers.take(declared) : Buffer.allocUnsafeSlow(declared);
      }
      // Node's HTTP parser gives no more than Content-Length; grown all the same if it did.
      if (size + chunk.length > body.length) {
        const grown = Buffer.allocUnsafeSlow(Math.max(size + chunk.length, 2 * body.length));
        grown.set(body.subarray(0, size));
        body = grown;
      }
      body.set(chunk, size);
      size += chunk.length;
      slot?.data(chunk.length);
      // The chunk is a copy of its own (Node's parser copies each out of the socket's buffer)
      // that nothing reads after this listener: freed now, its memory is the next chunk's.
      // Left to the GC, which runs seldom for external memory, each 64 KiB chunk of a large
      // body was memory fresh from the kernel, a page fault per 4 KiB when written: on a
      // 2-core VM, 830 faults and 11–14 ms of event loop for a 3.37 MB body.
      if (incoming.listenerCount('data') === 1 && chunk.byteOffset === 0 && chunk.byteLength === chunk.buffer.byteLength)
        releaseBuffer(chunk.buffer);
      // Whole once Content-Length bytes are in: 'end' is not waited for (a listener fewer per request).
      if (size >= declared) end();
    });
    // `on`, not `once`: each of these comes at most once to a request, and once() wraps every
    // listener and takes it off again when it fires, for each request.
    if (declared === 0) incoming.on('end', end);
    // Node's request emits 'error' only to a listener, and 'close' after it and after 'aborted'
    // (a client gone mid-body): 'close' alone tells. Another stream may throw without a listener.
    if (!(incoming instanceof IncomingMessage)) (incoming as NodeJS.ReadableStream).on('error', reject);
    // 'close' follows every request's end too: the error (its stack) is made only when it did not end.
    incoming.on('close', () => {
      if (!ended) reject(new ServingError(Code.CANCELLED, 'the client closed the connection'));
    });
  });
}

/**
 * Inflates a gzip body on libuv's thread pool, stopping as soon as the output passes `max`
 * (a small body that inflates to gigabytes costs `max` bytes, not gigabytes). A body that is
 * not valid gzip reads as empty, as net_http hands the handler nothing when zlib fails
 * (TF Serving then answers "JSON Parse error: The document is empty").
 */
async function inflate(body: Uint8Array, max: number): Promise<Uint8Array> {
  try {
    return await gunzipAsync(body, { maxOutputLength: max });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') throw new BodyTooLarge(max);
    return new Uint8Array(0);
  }
}

/** A body's bytes as UTF-8 text, its characters added to `claim`. */
export function bodyText(body: Uint8Array, claim?: MemoryClaim): string {
  const text = Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8');
  claim?.add(text.length);
  return text;
}

/**
 * The request body's bytes, inflated when Content-Encoding names gzip; at most `max` bytes
 * either way. The bytes held (raw, inflated) are added to `claim`. A large body is read through
 * `gate` (a parser thread's turn), holding its slot until letGoOfBody(body) or the claim's release,
 * into one of `buffers` (the buffers of bodies the parser threads are done with).
 */
export async function readRequestBodyBytes(
  c: Context,
  max: number,
  claim?: MemoryClaim,
  gate?: BodyReadGate,
  buffers?: BodyBuffers,
): Promise<Uint8Array> {
  let [body, slot] = await readBytes(c, max, claim, gate, buffers);
  // net_http matches the header by substring, case-sensitively ("gzip", "x-gzip").
  if (requestHeader(c, 'content-encoding')?.includes('gzip')) {
    body = await inflate(body, max);
    claim?.add(body.byteLength);
  }
  if (slot) holdsSlot(body, slot);
  return body;
}
