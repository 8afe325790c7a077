// tfgate's canonical codes are gRPC's status codes (same numbering): an error crosses as
// its code and TF Serving's message.
//
// The message travels in the grpc-message trailer, percent-encoded, and trailers have
// limits: HTTP/2 peers refuse a header list past their SETTINGS_MAX_HEADER_LIST_SIZE (Node's
// default 64 KiB: grpc-js then never delivers the status, and the client waits for its
// deadline), and gRPC's C core clients (Python grpcio …) refuse trailing metadata past 8 KiB.
// TF Serving's own messages can be longer: "input size does not match signature" lists every
// input key sent, so 20 000 unknown keys make a message of ~300 KB. Past MAX_MESSAGE_BYTES
// encoded, the message is cut and says how much was left out; its beginning — the part that
// says what is wrong — and its code stay TF Serving's.
import { Metadata, type ServiceError } from '@grpc/grpc-js';
import { toStatusData } from '../errors/status.js';

/** Most bytes of grpc-message, percent-encoded as grpc-js sends it (encodeURI), well under C core's 8 KiB. */
export const MAX_MESSAGE_BYTES = 4096;

/** A UTF-16 surrogate without its pair (encodeURI throws on one, and grpc-js would never send the status). */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * `message` as it fits the trailer: whole when it fits, else its beginning and what was cut;
 * a lone surrogate (a request's name decoded from bytes that are no UTF-8) as U+FFFD.
 */
export function trailerMessage(text: string): string {
  const message = text.replace(LONE_SURROGATE, '\uFFFD');
  if (encodeURI(message).length <= MAX_MESSAGE_BYTES) return message;
  // Room for the note: its digits are at most those of the message's length.
  const room = MAX_MESSAGE_BYTES - encodeURI(cutNote(message.length)).length;
  let end = 0;
  let bytes = 0;
  for (const ch of message) {
    const size = encodeURI(ch).length;
    if (bytes + size > room) break;
    bytes += size;
    end += ch.length;
  }
  return message.slice(0, end) + cutNote(message.length - end);
}

const cutNote = (omitted: number) => `… (${omitted} more characters not sent)`;

export function grpcError(e: unknown): Partial<ServiceError> {
  const status = toStatusData(e);
  return { code: status.code as number, details: trailerMessage(status.message), metadata: new Metadata() };
}
