// Large request bodies read a few at a time: a body that would wait in memory for a busy
// parser thread waits unread instead, its bytes left in the socket (the kernel's buffer, then
// the client's: TCP flow control). Four 20 MB :predict bodies sent at once to one parser thread
// were all read at once and held 80 MB while the thread parsed them one by one; read one per
// thread, a body is held only while it is parsed.
//
// A slot is taken before the body is read and given back once the body is let go of (the parser
// thread freed it, letGoOfBody), or when the request ends, whichever comes first. A body that is
// still being read but has received less than PROGRESS_BYTES in the last STALL_MS does not count:
// a stalled client, or one trickling a byte at a time, holds no other body back for longer than
// that; nor does a body without a declared size (it is read as it comes, bounded by
// --max_request_body_bytes).

/** A body whose client has sent less than PROGRESS_BYTES for this long no longer holds its slot's place. */
const STALL_MS = 200;
/** What a body being read must receive per STALL_MS to hold its place (320 KB/s). */
const PROGRESS_BYTES = 64 * 1024;

export class BodySlot {
  private reading = true;
  private lastProgress = performance.now();
  private sinceProgress = 0;
  private left = false;

  constructor(private readonly gate: BodyReadGate) {}

  /** `bytes` arrived. */
  data(bytes: number): void {
    this.sinceProgress += bytes;
    if (this.sinceProgress < PROGRESS_BYTES) return;
    this.sinceProgress = 0;
    this.lastProgress = performance.now();
  }

  /** The whole body is read: held now, until leave(). */
  read(): void {
    this.reading = false;
  }

  /** The body is let go of (freed, or the request ended); the next body may be read. Once. */
  leave(): void {
    if (this.left) return;
    this.left = true;
    this.gate.left(this);
  }

  /** @internal Whether it holds its place now. */
  counts(now: number): boolean {
    return !this.reading || now - this.lastProgress < STALL_MS;
  }
}

export class BodyReadGate {
  private readonly holders = new Set<BodySlot>();
  private readonly waiting: Array<(slot: BodySlot) => void> = [];
  private timer?: NodeJS.Timeout;

  constructor(
    /** Bodies held or being read at once (the parser threads: one each). */
    private readonly slots: number,
    /** Bodies of at least this many bytes go through the gate. */
    private readonly minBytes: number,
  ) {}

  /** Whether a body of `bytes` is read through the gate. */
  applies(bytes: number): boolean {
    return bytes >= this.minBytes;
  }

  /** Bodies holding a slot now (read or being read). */
  get held(): number {
    return this.holders.size;
  }

  /** Bodies waiting for a slot. */
  get queued(): number {
    return this.waiting.length;
  }

  /** A slot, at once when one is free, else once a body ahead is let go of or stalls. */
  enter(): Promise<BodySlot> {
    return new Promise((resolve) => {
      this.waiting.push(resolve);
      this.admit();
    });
  }

  /** @internal */
  left(slot: BodySlot): void {
    this.holders.delete(slot);
    this.admit();
  }

  private admit(): void {
    const now = performance.now();
    let counted = 0;
    for (const h of this.holders) if (h.counts(now)) counted++;
    while (this.waiting.length > 0 && counted < this.slots) {
      const slot = new BodySlot(this);
      this.holders.add(slot);
      counted++;
      this.waiting.shift()!(slot);
    }
    // Waiters behind a stalled read are looked at again when it has stalled long enough.
    if (this.waiting.length > 0 && !this.timer) {
      this.timer = setInterval(() => this.admit(), STALL_MS / 2);
      this.timer.unref();
    } else if (this.waiting.length === 0 && this.timer) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
  }
}

/** The slot of each body read through a gate, until it is let go of. */
const slots = new WeakMap<Uint8Array, BodySlot>();

/** Records that `body` holds `slot`. */
export function holdsSlot(body: Uint8Array, slot: BodySlot): void {
  slots.set(body, slot);
}

/** `body` is freed (or will not be read again): its slot goes to the next body. */
export function letGoOfBody(body: Uint8Array): void {
  slots.get(body)?.leave();
  slots.delete(body);
}
