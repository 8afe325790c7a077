// Large request bodies read into buffers used before. Memory fresh from the kernel costs a page
// fault per 4 KiB page the first time it is written, and glibc gives a block this large back to
// the kernel when it is freed (mmap, munmap), so every large body paid them again: on a 2-core
// VM, reading a 3.37 MB body into a fresh buffer took the event loop 11–12 ms (817 faults),
// into a buffer already written 0.2 ms. A body parsed on a parser thread comes back from it
// (body_parser_thread.ts) once its tensors are built, and the next large body is read into it.
//
// Bounded: at most MAX_KEPT buffers and MAX_KEPT_BYTES (counted at their capacity) are kept,
// none larger than MAX_BUFFER_BYTES, and all are let go after IDLE_MS without a large body, so
// a burst of large bodies does not hold its memory afterwards. (What is kept is charged to no
// request: --max_inflight_request_bytes counts the requests in flight.)

/** Bodies this large or larger are read into kept buffers (smaller ones come from malloc's heap, already touched). */
export const MIN_BUFFER_BYTES = 256 * 1024;
const MAX_BUFFER_BYTES = 32 * 1024 * 1024;
const MAX_KEPT = 8;
const MAX_KEPT_BYTES = 64 * 1024 * 1024;
const IDLE_MS = 30_000;

/** A buffer's size for a body of `bytes`: the next power of two, so that bodies of about one size share buffers (pages never written cost nothing). */
function capacityFor(bytes: number): number {
  return Math.max(MIN_BUFFER_BYTES, 2 ** Math.ceil(Math.log2(bytes)));
}

export class BodyBuffers {
  private readonly kept: ArrayBuffer[] = [];
  private keptBytes = 0;
  /** Buffers handed out by take(): a view of one may be moved to a thread whole. */
  private readonly lent = new WeakSet<ArrayBufferLike>();
  private idle?: NodeJS.Timeout;

  constructor(private readonly idleMs = IDLE_MS) {}

  /** Whether a body of `bytes` is read into one of these buffers. */
  takes(bytes: number): boolean {
    return bytes >= MIN_BUFFER_BYTES && capacityFor(bytes) <= MAX_BUFFER_BYTES;
  }

  /** `bytes` bytes (not zeroed) at the start of a kept buffer, the smallest that fits, or of a new one. */
  take(bytes: number): Uint8Array {
    let best = -1;
    for (let i = 0; i < this.kept.length; i++)
      if (this.kept[i].byteLength >= bytes && (best < 0 || this.kept[i].byteLength < this.kept[best].byteLength)) best = i;
    let buffer: ArrayBuffer;
    if (best >= 0) {
      buffer = this.kept[best];
      this.kept.splice(best, 1);
      this.keptBytes -= buffer.byteLength;
    } else {
      buffer = Buffer.allocUnsafeSlow(capacityFor(bytes)).buffer as ArrayBuffer;
    }
    this.lent.add(buffer);
    return Buffer.from(buffer, 0, bytes);
  }

  /** Whether `body` is a view of a buffer from take(), which it may be moved with. */
  lentBuffer(body: Uint8Array): boolean {
    return body.byteOffset === 0 && this.lent.has(body.buffer);
  }

  /** A buffer back (its views are no longer read); kept if there is room, else left to the GC. */
  give(buffer: ArrayBuffer): void {
    const size = buffer.byteLength;
    // (A buffer moved away since reads 0 bytes long.)
    if (size < MIN_BUFFER_BYTES || size > MAX_BUFFER_BYTES) return;
    if (this.kept.length >= MAX_KEPT || this.keptBytes + size > MAX_KEPT_BYTES) return;
    this.kept.push(buffer);
    this.keptBytes += size;
    if (this.idle) this.idle.refresh();
    else {
      this.idle = setTimeout(() => this.clear(), this.idleMs);
      this.idle.unref();
    }
  }

  /** How many buffers, and bytes, are kept. */
  get size(): { buffers: number; bytes: number } {
    return { buffers: this.kept.length, bytes: this.keptBytes };
  }

  /** Lets every kept buffer go. */
  clear(): void {
    this.kept.length = 0;
    this.keptBytes = 0;
    if (this.idle) clearTimeout(this.idle);
    this.idle = undefined;
  }
}
