// Tensors whose storage one request alone holds. The request decoders (REST JSON, gRPC
// TensorProto, a batch's stacked rows) allocate them and say so here; the executor pool then
// moves (transfers) their buffers to the executor thread instead of copying them. Moving
// detaches the buffer on this side, so anything not marked is copied as before: a signature's
// default inputs go out with every request that omits them, constants live on, and a view
// into a larger buffer would take its neighbours along.
// Measured with a thread that answers at once: posting 150 528 floats (a 224×224×3 image)
// took the main thread 277 µs copied, 33 µs moved; 3 floats 18.8 µs against 14.5 µs.
// Below a kilobyte a move costs more than a copy: in a message of 9 requests, 3 floats each
// took 2–9 µs per request copied and 9–25 µs moved (and 256 floats about the same either way,
// 4096 floats 18–47 µs copied against 3–13 µs moved), so small buffers are not marked.
import type { HostTensor } from './host_tensor.js';

const owned = new WeakSet<ArrayBuffer>();

/** Buffers smaller than this are copied when sent, even when their request owns them. */
export const MIN_MOVED_BYTES = 1024;

/** Says that `t`'s storage is its request's alone, to be moved, not copied, when it is sent (from MIN_MOVED_BYTES on). */
export function markRequestOwned(t: HostTensor): HostTensor {
  const v = t.values;
  // Only a whole, plain ArrayBuffer: never a view into a larger one, never shared memory.
  if (
    !Array.isArray(v) &&
    v.byteLength >= MIN_MOVED_BYTES &&
    v.buffer instanceof ArrayBuffer &&
    v.byteOffset === 0 &&
    v.byteLength === v.buffer.byteLength
  )
    owned.add(v.buffer);
  return t;
}

/**
 * Says that `t`'s values, a view, are the only part of their buffer anyone reads once its
 * request's tensors are decoded (a gRPC message grpc-js joined for this request alone): to be
 * moved, the rest of the buffer along with them unread, instead of a copy of the values made.
 */
export function markRequestOwnedView(t: HostTensor): HostTensor {
  const v = t.values;
  if (!Array.isArray(v) && v.byteLength >= MIN_MOVED_BYTES && v.buffer instanceof ArrayBuffer) owned.add(v.buffer);
  return t;
}

/**
 * The buffers among `tensors` that were marked, each once (a transfer list naming one twice
 * fails), and no longer marked: once moved they are gone from this thread.
 */
export function takeTransferList(tensors: Iterable<HostTensor>): ArrayBuffer[] {
  const list: ArrayBuffer[] = [];
  for (const t of tensors) {
    const v = t.values;
    // The size first: none smaller was marked, and a small typed array's .buffer is made when
    // first asked for (V8 keeps up to 64 bytes on its heap): 0.5 µs for a tensor of 3 floats.
    if (Array.isArray(v) || v.byteLength < MIN_MOVED_BYTES || !(v.buffer instanceof ArrayBuffer) || !owned.has(v.buffer)) continue;
    owned.delete(v.buffer);
    list.push(v.buffer);
  }
  return list;
}

const repliesAlone = new WeakSet<ArrayBuffer>();

/**
 * Says that `buffer` (a run-line reply's packed bytes) holds the outputs of one request and
 * nothing else anyone reads: a view of it may take it along when it is moved.
 */
export function markReplyAlone(buffer: ArrayBuffer): void {
  repliesAlone.add(buffer);
}

/** Whether `buffer` was marked by markReplyAlone. */
export function isReplyAlone(buffer: ArrayBufferLike): boolean {
  return buffer instanceof ArrayBuffer && repliesAlone.has(buffer);
}
