// The :predict answer's JSON: a large one written on a body-parser thread as bytes (the event
// loop then only sends them), a small one here, a row-format one giving the loop back as it goes.
// Bytes written for one answer are its alone: freed once sent, not at the event loop's next
// full collection (which let four 30 MB answers pile up there).
import type { ServerResponse } from 'node:http';
import type { Context } from 'hono';
import type { HostTensor } from '../tensor/host_tensor.js';
import { releaseBuffer } from '../util/release_buffer.js';
import type { JsonFormat } from './json_tensor.js';
import { predictResponseJsonYielding } from './json_tensor_writer.js';
import type { BodyParserPool } from './body_parser_pool.js';

/**
 * `bodyParser`: where large answers are written (none: all here). As bytes, in a buffer of their
 * own. `movable`: nothing reads the outputs after this (see BodyParserPool.formatPredict).
 */
export function writeAnswer(
  outputs: Record<string, HostTensor>,
  format: JsonFormat,
  bodyParser?: BodyParserPool,
  movable = false,
): Promise<string | Uint8Array> {
  let values = 0;
  for (const t of Object.values(outputs)) values += t.values.length;
  return bodyParser?.writes(values) ? bodyParser.formatPredict(outputs, format, movable) : predictResponseJsonYielding(outputs, format);
}

/**
 * Frees `body`'s buffer once Node has handed the whole response to the socket ('finish'); never
 * on 'close' without it (a write still pending reads the buffer). Without Node's response (an
 * in-process request) the GC frees it.
 */
export function releaseWhenSent(c: Context, body: Uint8Array): void {
  const outgoing = (c.env as { outgoing?: ServerResponse } | undefined)?.outgoing;
  outgoing?.once('finish', () => releaseBuffer(body.buffer));
}
