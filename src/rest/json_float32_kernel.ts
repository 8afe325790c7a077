// The float32 lists of a JSON body read by WebAssembly (wasm/json_float32.ts, built into
// json_float32_wasm.ts): the tensor reader's loops over a list of numbers (float32Row) and
// over lists of `width` numbers (float32Rows) hand each run of plain items to it, and read
// themselves only what it leaves: an item it is not sure of (an exponent, more than 19
// digits, NaN, a float32 near a halfway point, anything malformed), which it does not store.
// It stores what readFloat32 would: the correctly rounded double of the decimal, rounded to
// float32 (exact below 2^53; past it, only when every double within 2^-47 rounds to the same
// float32).
//
// The module's memory holds a window of the body (64 KiB, then a 0 byte that ends any item
// cut by it) and the numbers read from it; a window is copied once and read by every call
// that starts inside it, and moved on when its end cuts an item.
import { JSON_FLOAT32_WASM } from './json_float32_wasm.js';

interface KernelExports {
  memory: WebAssembly.Memory;
  flat(p: number, out: number, limit: number): number;
  rows(p: number, out: number, limit: number, width: number): number;
  getStored(): number;
  getRows(): number;
  getClosed(): number;
  getGaveUp(): number;
}

const WINDOW = 1 << 16;
/** Where the window is copied (after the module's own data), and where its numbers are stored. */
const IN = 4096;
const OUT = IN + WINDOW + 64;
/**
 * A body whose numbers the kernel mostly leaves (exponents, 20 digits …) is read without it:
 * after this many calls that read nothing, when they are more than GIVE_UP_RATIO times those
 * that read something (each costs a call, then the item is read anyway).
 */
const GIVE_UP_MISSES = 16;
const GIVE_UP_RATIO = 4;
/** Spans up to this many bytes are copied (into the window, out of it) one by one: a subarray to copy them by would cost more. */
const SHORT_COPY = 256;
/** At most one number per two bytes of the window (a digit and a comma). */
const OUT_CAPACITY = (WINDOW >> 1) + 1;

const kernel = new WebAssembly.Instance(new WebAssembly.Module(Buffer.from(JSON_FLOAT32_WASM, 'base64')), {})
  .exports as unknown as KernelExports;
if (kernel.memory.buffer.byteLength < OUT + 4 * OUT_CAPACITY) throw new Error('json_float32: the module has too little memory');
const bytes = new Uint8Array(kernel.memory.buffer);
const floats = new Float32Array(kernel.memory.buffer);

/** A body's window in the module's memory (one per walk over a body: nothing is kept after it). */
export class Float32Window {
  private start = 0;
  private end = -1;
  /** After read(): numbers stored, lists read, and whether the list holding them was closed. */
  stored = 0;
  rows = 0;
  closed = false;
  /** Calls that read something, and calls that read nothing (the body's numbers are not its kind: then it stops trying). */
  private hits = 0;
  private misses = 0;

  constructor(private readonly b: Uint8Array) {}

  /**
   * The items of a list from b[i] (an item's first byte) into out from `at`: numbers (width 0)
   * or lists of `width` numbers, at most `limit` items and no more than `out` has room for.
   * Returns the index after the list's closing bracket (closed) or of the first item it left.
   */
  read(i: number, out: Float32Array, at: number, limit: number, width: number): number {
    let stored = 0;
    let rows = 0;
    let cut = false;
    this.closed = false;
    if (this.misses >= GIVE_UP_MISSES && this.misses > GIVE_UP_RATIO * this.hits) {
      this.stored = this.rows = 0;
      return i;
    }
    for (;;) {
      const size = width === 0 ? 1 : width;
      const room = Math.min(
        limit - (width === 0 ? stored : rows),
        Math.floor((out.length - at - stored) / size),
        Math.floor(OUT_CAPACITY / size),
      );
      if (room <= 0) break;
      // A window's end may have cut the whitespace before an item: the item is where the caller looks.
      i = this.skipWhitespace(i);
      const fresh = cut || i < this.start || i >= this.end;
      if (fresh) this.load(i);
      const p = IN + i - this.start;
      const q = width === 0 ? kernel.flat(p, OUT, room) : kernel.rows(p, OUT, room, width);
      const n = kernel.getStored();
      if (n > SHORT_COPY >> 2) out.set(floats.subarray(OUT >> 2, (OUT >> 2) + n), at + stored);
      else for (let k = 0; k < n; k++) out[at + stored + k] = floats[(OUT >> 2) + k];
      stored += n;
      if (width !== 0) rows += kernel.getRows();
      i += q - p;
      if (kernel.getClosed() === 1) {
        this.closed = true;
        break;
      }
      // Stopped before an item: the caller reads it, unless the window's end cut it (then
      // the next window starts at it; an item longer than a window is the caller's too).
      cut = this.end < this.b.length && kernel.getGaveUp() >= IN + this.end - this.start;
      if (!cut || (q === p && fresh)) break;
    }
    this.stored = stored;
    this.rows = rows;
    if (stored === 0 && !this.closed) this.misses++;
    else this.hits++;
    return this.closed ? i : this.skipWhitespace(i);
  }

  private skipWhitespace(i: number): number {
    const b = this.b;
    for (let c = b[i]; c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09; c = b[++i]);
    return i;
  }

  private load(i: number): void {
    const b = this.b;
    const end = Math.min(b.length, i + WINDOW);
    if (end - i <= SHORT_COPY) for (let k = i; k < end; k++) bytes[IN + k - i] = b[k];
    else bytes.set(b.subarray(i, end), IN);
    bytes[IN + end - i] = 0;
    this.start = i;
    this.end = end;
  }
}
