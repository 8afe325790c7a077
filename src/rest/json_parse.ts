// Request-body JSON as TF Serving's RapidJSON 1.1.0 parser reads it (json_tensor.cc ParseJson:
// iterative parsing, kParseNanAndInfFlag, kParseStopWhenDoneFlag), with the same error texts
// and byte offsets, plus tfgate's nesting-depth and element-count limits, enforced while
// parsing (before any tensor exists).
//
// What it accepts beyond JSON.parse, as RapidJSON does:
//   * bare NaN, Inf, Infinity, -Inf, -Infinity (and -NaN) as numbers;
//   * anything after the first complete value (stop-when-done), and a NUL character ends the text.
//
// Numbers: JS numbers, except integer literals outside ±(2^53 - 1) that still fit int64 / uint64
// (RapidJSON's Int64 / Uint64), which come back as exact bigints. Whether a number was written
// as an integer or as a float matters downstream (1 is an int32, 1.0 is not; a tf.Example
// feature [1, 2] is int64, [1.0, 2.0] float), so the parser records it without boxing: a
// number is float-kind when it is not an integer (1.5, NaN, Infinity), or when it is
// integral but was written with a fraction or exponent (1.0, 2e3, -0.0) or is an integer too
// large for uint64 (RapidJSON stores those as doubles). Only that last, integral group needs
// a record: each array / object that holds such members carries, under the non-enumerable
// FLOAT_MARKS symbol, their indices (ascending) or keys. Only this file touches the symbol:
// readers ask floatElements (a loop over an array), isFloatMember (one member) and numberIsFloat.
// A bare number at the root has no container and so no record (TF Serving's root is an object).
//
// Speed: one pass over the string with charCodeAt, numbers up to 15 digits with |exponent|
// ≤ 22 computed exactly in place (one correctly rounded multiply/divide), longer ones via
// Number(slice) (correctly rounded; RapidJSON's default parse may differ in the last ulp).
// Strings without escapes are single slices. Its speed next to JSON.parse: npm run bench:json.
import { invalidArgument } from '../errors/status.js';
import * as MSG from '../errors/messages.js';
import { parsedJsonBytes, stringBytes } from './json_footprint.js';

export interface JsonLimits {
  /** Deepest nesting of arrays/objects; the root container is depth 1. */
  maxDepth: number;
  /** Most values held in arrays and objects (list items + object members), over the whole body. */
  maxElements: number;
  /**
   * The root-object members the caller reads (e.g. signature_name, instances, inputs). When
   * set, a member under any other key that nests deeper than maxDepth is checked as JSON
   * without being built and is left out of the result: TF Serving's RapidJSON parses
   * iteratively, so depth alone fails nothing there, and a value nobody reads should cost no
   * memory. Absent: every member counts against the limits.
   */
  rootMembers?: ReadonlySet<string>;
  /**
   * Told, as the parse goes, of the memory its result grows by (an estimate, in steps of about
   * a megabyte); may throw to stop the parse (a memory budget that is full).
   */
  onGrowth?: (bytes: number) => void;
}

export type JsonValue = null | boolean | number | bigint | string | JsonValue[] | JsonObject;
export interface JsonObject {
  [key: string]: JsonValue;
}

/**
 * On an array: ascending indices of members that are integral numbers written as floats.
 * On an object: the keys of such members. Absent when there are none.
 */
const FLOAT_MARKS: unique symbol = Symbol('tfgate.json.floatMarks');

type Marked = { [FLOAT_MARKS]?: readonly number[] | readonly string[] };

/** The FLOAT_MARKS record of a parsed array/object, if any: the one place it is read. */
export function floatMarks(container: object): readonly number[] | readonly string[] | undefined {
  return (container as Marked)[FLOAT_MARKS];
}

/**
 * For a loop over a parsed array's elements in order: floatAt(k), asked for k = 0, 1, 2 … in
 * turn, tells whether element k is an integral number written as a float. undefined when no
 * element is (most arrays), so a hot loop can tell once that it never needs to ask.
 *   floatElements(parse('[1, 1.0, 2e0]'))  → floatAt(0) false, floatAt(1) true, floatAt(2) true
 */
export function floatElements(array: readonly JsonValue[]): ((k: number) => boolean) | undefined {
  const marks = floatMarks(array) as readonly number[] | undefined;
  if (marks === undefined) return undefined;
  let next = 0;
  return (k) => {
    if (marks[next] !== k) return false;
    next++;
    return true;
  };
}

/** True when member `key` of a parsed array/object is an integral number written as a float (1.0, 1e3). */
export function isFloatMember(container: object, key: number | string): boolean {
  const marks = floatMarks(container);
  if (marks === undefined) return false;
  if (typeof key === 'string') return (marks as readonly string[]).includes(key);
  // Indices are ascending: binary search.
  const m = marks as readonly number[];
  let lo = 0;
  let hi = m.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (m[mid] === key) return true;
    if (m[mid] < key) lo = mid + 1;
    else hi = mid - 1;
  }
  return false;
}

/**
 * RapidJSON's IsDouble for a parsed number: true for fractions, NaN/±Infinity, and integral
 * values written as floats (`marked`, from isFloatMember); false for integer literals.
 */
export function numberIsFloat(v: number | bigint, marked: boolean): boolean {
  return typeof v === 'number' && (marked || !Number.isInteger(v));
}

/** Parses a request body; throws ServingError INVALID_ARGUMENT with TF Serving's texts. */
export function parseJsonBody(text: string, limits: JsonLimits): JsonValue {
  if (text.length === 0) throw invalidArgument(MSG.JSON_DOCUMENT_EMPTY);
  const parser = new Parser(text, limits);
  // One unbounded slice: never PENDING.
  return parser.finish(parser.resume(Number.POSITIVE_INFINITY) as JsonValue);
}

/**
 * Characters parsed per event-loop turn by parseJsonBodyYielding: about 20–50 ms of work on
 * one core, so other clients are answered while a large body is parsed.
 */
const PARSE_SLICE_CHARS = 256 * 1024;

/**
 * parseJsonBody, giving the event loop back every PARSE_SLICE_CHARS characters. The same
 * result and errors; a body of one slice or less is parsed at once.
 */
export async function parseJsonBodyYielding(text: string, limits: JsonLimits, sliceChars = PARSE_SLICE_CHARS): Promise<JsonValue> {
  if (text.length === 0) throw invalidArgument(MSG.JSON_DOCUMENT_EMPTY);
  const parser = new Parser(text, limits);
  for (;;) {
    const r = parser.resume(sliceChars);
    if (r !== PENDING) return parser.finish(r);
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}

// ---- implementation ---------------------------------------------------------------------------

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const LBRACKET = 0x5b;
const RBRACKET = 0x5d;
const LBRACE = 0x7b;
const RBRACE = 0x7d;
const MINUS = 0x2d;
const PLUS = 0x2b;
const DOT = 0x2e;
const ZERO = 0x30;
const NINE = 0x39;

const POW10 = [
  1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
];
/** Returned by Parser.resume when the slice ended before the document did. */
const PENDING: unique symbol = Symbol('tfgate.json.pending');
/** onGrowth is told every this many values (about a megabyte). */
const GROWTH_STEP_VALUES = 1 << 15;
/** Stands for a root member checked but not built (see JsonLimits.rootMembers). */
const SKIPPED: JsonValue = Object.freeze([]) as unknown as JsonValue;
/** Arrays up to this length are copied to their exact size when they close. */
const SHRINK_MAX = 4096;
const INT64_MIN = -(2n ** 63n);
const UINT64_MAX = 2n ** 64n - 1n;
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

interface Frame {
  isArray: boolean;
  arr: JsonValue[];
  obj: JsonObject;
  /** Pending member key (objects). */
  key: string;
  marks: Array<number | string> | null;
}

class Parser {
  private readonly src: string;
  /** Index of the end of input: the text length or the first NUL (RapidJSON stops there). */
  private readonly end: number;
  private readonly maxDepth: number;
  private readonly maxElements: number;
  private readonly rootMembers: ReadonlySet<string> | undefined;
  // What the parse has built, counted as json_footprint.ts counts it (JsonCounts).
  elements = 0;
  containers = 0;
  members = 0;
  stringBytes = 0;
  /** Estimated bytes already reported to onGrowth. */
  private reported = 0;
  private readonly onGrowth: ((bytes: number) => void) | undefined;
  /** Where a sliced parse stopped: the open containers and the index of the next value. */
  private stack: Frame[] = [];
  private at = -1;
  /** Set by parseNumber: the number just read is integral but float-kind. */
  private marked = false;
  /** Set by afterKey: the member key just read. */
  private key = '';
  /** Set by parseString / parseNumber / parseLiteral: index after the token. */
  private pos = 0;

  constructor(src: string, limits: JsonLimits) {
    this.src = src;
    const nul = src.indexOf('\u0000');
    this.end = nul < 0 ? src.length : nul;
    this.maxDepth = limits.maxDepth;
    this.maxElements = limits.maxElements;
    this.rootMembers = limits.rootMembers;
    this.onGrowth = limits.onGrowth;
  }

  /** Reports the estimated growth since the last report to onGrowth. */
  private grow(): void {
    if (!this.onGrowth) return;
    const estimate = parsedJsonBytes(this);
    const delta = estimate - this.reported;
    this.reported = estimate;
    this.onGrowth(delta);
  }

  /** The parsed value, after a last growth report. */
  finish(value: JsonValue): JsonValue {
    this.grow();
    return value;
  }

  private fail(text: string, index: number): never {
    // RapidJSON reports byte offsets into the UTF-8 body.
    const offset = index === 0 ? 0 : Buffer.byteLength(this.src.slice(0, index), 'utf8');
    throw invalidArgument(MSG.jsonParseError(text, offset));
  }

  private ws(i: number): number {
    const src = this.src;
    const end = this.end;
    while (i < end) {
      const c = src.charCodeAt(i);
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) i++;
      else break;
    }
    return i;
  }

  private open(stack: Frame[], isArray: boolean): Frame {
    if (stack.length >= this.maxDepth) throw invalidArgument(MSG.jsonTooDeep(this.maxDepth));
    this.containers++;
    const frame: Frame = { isArray, arr: isArray ? [] : (EMPTY_ARR as JsonValue[]), obj: isArray ? EMPTY_OBJ : {}, key: '', marks: null };
    stack.push(frame);
    return frame;
  }

  /** Reads a member key at i (a '"'), the colon and the whitespace before the value. */
  private memberKey(frame: Frame, i: number): number {
    i = this.afterKey(i);
    frame.key = this.key;
    return i;
  }

  /**
   * Parses on from where the last slice stopped, about `sliceChars` characters (the value
   * that crosses the boundary is finished first); PENDING when the document goes on.
   */
  resume(sliceChars: number): JsonValue | typeof PENDING {
    const src = this.src;
    const end = this.end;
    const stack = this.stack;
    let i = this.at;
    if (i < 0) {
      i = this.ws(0);
      if (i >= end) this.fail(MSG.RAPIDJSON.documentEmpty, i);
    }
    const sliceEnd = i + sliceChars;

    for (;;) {
      if (i >= sliceEnd) {
        this.at = i;
        return PENDING;
      }
      // ---- one value at i (i < end, not whitespace) ----
      let value: JsonValue;
      let marked = false;
      const c = src.charCodeAt(i);
      if ((c === LBRACKET || c === LBRACE) && stack.length >= this.maxDepth && this.inUnreadRootMember(stack)) {
        i = this.skipUnreadMember(stack, i);
        value = SKIPPED;
      } else if (c === LBRACKET) {
        const frame = this.open(stack, true);
        i = this.ws(i + 1);
        if (i >= end) this.fail(MSG.RAPIDJSON.valueInvalid, i);
        if (src.charCodeAt(i) !== RBRACKET) continue;
        i++;
        stack.pop();
        value = frame.arr;
      } else if (c === LBRACE) {
        const frame = this.open(stack, false);
        i = this.ws(i + 1);
        if (i >= end) this.fail(MSG.RAPIDJSON.objectMissName, i);
        const k = src.charCodeAt(i);
        if (k === QUOTE) {
          i = this.memberKey(frame, i);
          continue;
        }
        if (k !== RBRACE) this.fail(MSG.RAPIDJSON.objectMissName, i);
        i++;
        stack.pop();
        value = frame.obj;
      } else if (c === QUOTE) {
        value = this.parseString(i);
        i = this.pos;
      } else if (c === 0x74 /* t */ || c === 0x66 /* f */ || c === 0x6e /* n */) {
        value = this.parseLiteral(i, c);
        i = this.pos;
      } else if (c === COMMA || c === COLON || c === RBRACKET || c === RBRACE) {
        // RapidJSON's state machine: a structural token where a value should start.
        this.fail(stack.length === 0 ? MSG.RAPIDJSON.documentEmpty : MSG.RAPIDJSON.valueInvalid, i);
      } else {
        value = this.parseNumber(i);
        marked = this.marked;
        i = this.pos;
      }

      // ---- attach the value to its container; close containers as they end ----
      for (;;) {
        const frame = stack[stack.length - 1];
        if (frame === undefined) return value; // stop when done: trailing text is ignored
        if (++this.elements > this.maxElements) throw invalidArgument(MSG.jsonTooManyElements(this.maxElements));
        if ((this.elements & (GROWTH_STEP_VALUES - 1)) === 0) this.grow();
        if (frame.isArray) {
          const arr = frame.arr;
          if (marked) (frame.marks ??= []).push(arr.length);
          arr.push(value);
          i = this.ws(i);
          if (i >= end) this.fail(MSG.RAPIDJSON.arrayMissCommaOrSquareBracket, i);
          const k = src.charCodeAt(i);
          if (k === COMMA) {
            i = this.ws(i + 1);
            if (i >= end || src.charCodeAt(i) === RBRACKET) this.fail(MSG.RAPIDJSON.valueInvalid, i);
            break;
          }
          if (k !== RBRACKET) this.fail(MSG.RAPIDJSON.arrayMissCommaOrSquareBracket, i);
          i++;
        } else {
          const obj = frame.obj;
          const key = frame.key;
          // RapidJSON keeps duplicate members and FindMember returns the first: keep the first.
          if (value !== SKIPPED && !Object.prototype.hasOwnProperty.call(obj, key)) {
            if (key === '__proto__') Object.defineProperty(obj, key, { value, writable: true, enumerable: true, configurable: true });
            else obj[key] = value;
            this.members++;
            if (marked) (frame.marks ??= []).push(key);
          }
          i = this.ws(i);
          if (i >= end) this.fail(MSG.RAPIDJSON.objectMissCommaOrCurlyBracket, i);
          const k = src.charCodeAt(i);
          if (k === COMMA) {
            i = this.ws(i + 1);
            if (i >= end || src.charCodeAt(i) !== QUOTE) this.fail(MSG.RAPIDJSON.objectMissName, i);
            i = this.memberKey(frame, i);
            break;
          }
          if (k !== RBRACE) this.fail(MSG.RAPIDJSON.objectMissCommaOrCurlyBracket, i);
          i++;
        }
        // The container is complete: it becomes the value attached to its parent.
        stack.pop();
        // A pushed-to array keeps V8's growth capacity (16 slots for a one-item row: 176 bytes
        // instead of 40); small ones are copied to their exact size.
        value = frame.isArray ? (frame.arr.length <= SHRINK_MAX ? frame.arr.slice() : frame.arr) : frame.obj;
        if (frame.marks !== null) Object.defineProperty(value, FLOAT_MARKS, { value: frame.marks, enumerable: false });
        marked = false;
      }
    }
  }

  /** True inside a root-object member the caller does not read (JsonLimits.rootMembers). */
  private inUnreadRootMember(stack: Frame[]): boolean {
    const root = stack[0];
    return this.rootMembers !== undefined && root !== undefined && !root.isArray && !this.rootMembers.has(root.key);
  }

  /**
   * Checks the rest of an unread root member as JSON without building it, from a container
   * opening at i while `stack` holds the root object and the member's containers opened so far;
   * drops those, and returns the index after the member's value. The open containers are one
   * byte each (array or object), so a million levels cost a megabyte at most.
   */
  private skipUnreadMember(stack: Frame[], i: number): number {
    const src = this.src;
    const end = this.end;
    let kinds = new Uint8Array(Math.max(64, stack.length * 2));
    let depth = 0;
    for (const frame of stack.splice(1)) kinds[depth++] = frame.isArray ? 1 : 0;
    const push = (isArray: boolean) => {
      if (depth === kinds.length) {
        const grown = new Uint8Array(kinds.length * 2);
        grown.set(kinds);
        kinds = grown;
      }
      kinds[depth++] = isArray ? 1 : 0;
    };
    for (;;) {
      // ---- one value at i ----
      const c = src.charCodeAt(i);
      if (c === LBRACKET) {
        push(true);
        i = this.ws(i + 1);
        if (i >= end) this.fail(MSG.RAPIDJSON.valueInvalid, i);
        if (src.charCodeAt(i) !== RBRACKET) continue;
        i++;
        depth--;
      } else if (c === LBRACE) {
        push(false);
        i = this.ws(i + 1);
        if (i >= end) this.fail(MSG.RAPIDJSON.objectMissName, i);
        const k = src.charCodeAt(i);
        if (k === QUOTE) {
          i = this.afterKey(i);
          continue;
        }
        if (k !== RBRACE) this.fail(MSG.RAPIDJSON.objectMissName, i);
        i++;
        depth--;
      } else if (c === QUOTE) {
        this.parseString(i);
        i = this.pos;
      } else if (c === 0x74 || c === 0x66 || c === 0x6e) {
        this.parseLiteral(i, c);
        i = this.pos;
      } else if (c === COMMA || c === COLON || c === RBRACKET || c === RBRACE) {
        this.fail(MSG.RAPIDJSON.valueInvalid, i);
      } else {
        this.parseNumber(i);
        i = this.pos;
      }
      // ---- after a value: the next one, or close containers ----
      for (;;) {
        if (depth === 0) return i;
        i = this.ws(i);
        const isArray = kinds[depth - 1] === 1;
        if (i >= end) this.fail(isArray ? MSG.RAPIDJSON.arrayMissCommaOrSquareBracket : MSG.RAPIDJSON.objectMissCommaOrCurlyBracket, i);
        const k = src.charCodeAt(i);
        if (k === COMMA) {
          i = this.ws(i + 1);
          if (isArray) {
            if (i >= end || src.charCodeAt(i) === RBRACKET) this.fail(MSG.RAPIDJSON.valueInvalid, i);
          } else {
            if (i >= end || src.charCodeAt(i) !== QUOTE) this.fail(MSG.RAPIDJSON.objectMissName, i);
            i = this.afterKey(i);
          }
          break;
        }
        if (k !== (isArray ? RBRACKET : RBRACE))
          this.fail(isArray ? MSG.RAPIDJSON.arrayMissCommaOrSquareBracket : MSG.RAPIDJSON.objectMissCommaOrCurlyBracket, i);
        i++;
        depth--;
      }
    }
  }

  /** Reads a member key at i (a '"') into `key`, its colon and the whitespace before the value; returns the value's index. */
  private afterKey(i: number): number {
    this.key = this.parseString(i);
    i = this.ws(this.pos);
    if (i >= this.end || this.src.charCodeAt(i) !== COLON) this.fail(MSG.RAPIDJSON.objectMissColon, i);
    i = this.ws(i + 1);
    if (i >= this.end) this.fail(MSG.RAPIDJSON.valueInvalid, i);
    return i;
  }

  private parseLiteral(i: number, c: number): JsonValue {
    const word = c === 0x74 ? 'true' : c === 0x66 ? 'false' : 'null';
    const src = this.src;
    for (let k = 1; k < word.length; k++) {
      if (i + k >= this.end || src.charCodeAt(i + k) !== word.charCodeAt(k)) this.fail(MSG.RAPIDJSON.valueInvalid, i + k);
    }
    this.pos = i + word.length;
    return c === 0x74 ? true : c === 0x66 ? false : null;
  }

  /** A string token at i (src[i] is '"'); sets pos after the closing quote. */
  private parseString(i: number): string {
    const src = this.src;
    const end = this.end;
    const start = i + 1;
    let j = start;
    while (j < end) {
      const c = src.charCodeAt(j);
      if (c === QUOTE) {
        this.pos = j + 1;
        this.stringBytes += stringBytes(j - start, false);
        return src.slice(start, j);
      }
      if (c === BACKSLASH) return this.parseEscapedString(start, j);
      if (c < 0x20) this.fail(MSG.RAPIDJSON.stringEscapeInvalid, j);
      j++;
    }
    return this.fail(MSG.RAPIDJSON.stringMissQuotationMark, end);
  }

  private parseEscapedString(start: number, j: number): string {
    const src = this.src;
    const end = this.end;
    let out = src.slice(start, j);
    let run = j;
    while (j < end) {
      const c = src.charCodeAt(j);
      if (c === QUOTE) {
        this.pos = j + 1;
        const value = out + src.slice(run, j);
        this.stringBytes += stringBytes(value.length, true);
        return value;
      }
      if (c < 0x20) this.fail(MSG.RAPIDJSON.stringEscapeInvalid, j);
      if (c !== BACKSLASH) {
        j++;
        continue;
      }
      out += src.slice(run, j);
      const escapeAt = j;
      const e = j + 1 < end ? src.charCodeAt(j + 1) : -1;
      j += 2;
      switch (e) {
        case QUOTE:
          out += '"';
          break;
        case BACKSLASH:
          out += '\\';
          break;
        case 0x2f:
          out += '/';
          break;
        case 0x62:
          out += '\b';
          break;
        case 0x66:
          out += '\f';
          break;
        case 0x6e:
          out += '\n';
          break;
        case 0x72:
          out += '\r';
          break;
        case 0x74:
          out += '\t';
          break;
        case 0x75: {
          const hi = this.hex4(j, escapeAt);
          j += 4;
          if (hi >= 0xd800 && hi <= 0xdbff) {
            if (!(j + 1 < end && src.charCodeAt(j) === BACKSLASH && src.charCodeAt(j + 1) === 0x75)) {
              this.fail(MSG.RAPIDJSON.stringUnicodeSurrogateInvalid, escapeAt);
            }
            const lo = this.hex4(j + 2, escapeAt);
            if (lo < 0xdc00 || lo > 0xdfff) this.fail(MSG.RAPIDJSON.stringUnicodeSurrogateInvalid, escapeAt);
            j += 6;
            out += String.fromCharCode(hi, lo);
          } else {
            out += String.fromCharCode(hi);
          }
          break;
        }
        default:
          this.fail(MSG.RAPIDJSON.stringEscapeInvalid, escapeAt);
      }
      run = j;
    }
    return this.fail(MSG.RAPIDJSON.stringMissQuotationMark, end);
  }

  private hex4(j: number, escapeAt: number): number {
    let v = 0;
    for (let k = 0; k < 4; k++) {
      const c = j + k < this.end ? this.src.charCodeAt(j + k) : -1;
      let d: number;
      if (c >= ZERO && c <= NINE) d = c - ZERO;
      else if (c >= 0x41 && c <= 0x46) d = c - 0x37;
      else if (c >= 0x61 && c <= 0x66) d = c - 0x57;
      else return this.fail(MSG.RAPIDJSON.stringUnicodeEscapeInvalidHex, escapeAt);
      v = v * 16 + d;
    }
    return v;
  }

  /** A number token at i, RapidJSON's grammar and errors; sets pos and marked. */
  private parseNumber(start: number): number | bigint {
    const src = this.src;
    const end = this.end;
    let j = start;
    this.marked = false;
    const minus = src.charCodeAt(j) === MINUS;
    if (minus) j++;
    let c = j < end ? src.charCodeAt(j) : -1;

    // NaN, Inf, Infinity (kParseNanAndInfFlag).
    if (c === 0x4e /* N */ || c === 0x49 /* I */) {
      const word = c === 0x4e ? 'NaN' : 'Inf';
      for (let k = 0; k < 3; k++) {
        if (j + k >= end || src.charCodeAt(j + k) !== word.charCodeAt(k)) this.fail(MSG.RAPIDJSON.valueInvalid, j + k);
      }
      j += 3;
      if (c === 0x4e) {
        this.pos = j;
        return NaN;
      }
      if (j < end && src.charCodeAt(j) === 0x69 /* i */) {
        for (let k = 0; k < 5; k++) {
          if (j + k >= end || src.charCodeAt(j + k) !== 'inity'.charCodeAt(k)) this.fail(MSG.RAPIDJSON.valueInvalid, j + k);
        }
        j += 5;
      }
      this.pos = j;
      return minus ? -Infinity : Infinity;
    }

    // Integer part: 0 | [1-9][0-9]*
    const intStart = j;
    let mant = 0;
    if (c === ZERO) {
      j++;
    } else if (c > ZERO && c <= NINE) {
      do {
        mant = mant * 10 + (c - ZERO);
        j++;
        c = j < end ? src.charCodeAt(j) : -1;
      } while (c >= ZERO && c <= NINE);
    } else {
      this.fail(MSG.RAPIDJSON.valueInvalid, j);
    }
    const intDigits = j - intStart;
    c = j < end ? src.charCodeAt(j) : -1;

    if (c !== DOT && c !== 0x65 && c !== 0x45) {
      // An integer literal: RapidJSON's Int / Uint / Int64 / Uint64, or a double past uint64.
      this.pos = j;
      if (intDigits <= 15) return minus ? (mant === 0 ? 0 : -mant) : mant;
      let big = BigInt(src.slice(intStart, j));
      if (minus) big = -big;
      if (minus ? big >= INT64_MIN : big <= UINT64_MAX) {
        return big > MAX_SAFE || big < -MAX_SAFE ? big : Number(big);
      }
      this.checkIntegerPart(start, intStart, j);
      this.marked = true;
      return Number(src.slice(start, j));
    }

    // Fraction.
    let fracDigits = 0;
    let fracStart = j;
    if (c === DOT) {
      j++;
      fracStart = j;
      c = j < end ? src.charCodeAt(j) : -1;
      if (!(c >= ZERO && c <= NINE)) this.fail(MSG.RAPIDJSON.numberMissFraction, j);
      do {
        mant = mant * 10 + (c - ZERO);
        j++;
        c = j < end ? src.charCodeAt(j) : -1;
      } while (c >= ZERO && c <= NINE);
      fracDigits = j - fracStart;
    }
    const fracEnd = j;

    // Exponent.
    let exp = 0;
    if (c === 0x65 || c === 0x45) {
      j++;
      c = j < end ? src.charCodeAt(j) : -1;
      let expMinus = false;
      if (c === PLUS || c === MINUS) {
        expMinus = c === MINUS;
        j++;
        c = j < end ? src.charCodeAt(j) : -1;
      }
      if (!(c >= ZERO && c <= NINE)) this.fail(MSG.RAPIDJSON.numberMissExponent, j);
      do {
        if (exp < 1e6) exp = exp * 10 + (c - ZERO);
        j++;
        c = j < end ? src.charCodeAt(j) : -1;
      } while (c >= ZERO && c <= NINE);
      if (expMinus) exp = -exp;
      else if (exp > 308 && exp > 308 - rapidjsonExpFrac(src.slice(intStart, intStart + intDigits), src.slice(fracStart, fracEnd))) {
        this.fail(MSG.RAPIDJSON.numberTooBig, start);
      }
    }
    this.pos = j;
    if (intDigits > 308) this.checkIntegerPart(start, intStart, intStart + intDigits);

    let v: number;
    const p = exp - fracDigits;
    if (intDigits + fracDigits <= 15 && p >= -22 && p <= 22) {
      // Exact integer mantissa and one correctly rounded operation.
      v = p < 0 ? mant / POW10[-p] : mant * POW10[p];
      if (minus) v = -v;
    } else {
      v = Number(src.slice(start, j));
    }
    this.marked = Number.isInteger(v);
    return v;
  }

  /** RapidJSON stops with "Number too big" once an integer part reaches DBL_MAX / 10 with digits left. */
  private checkIntegerPart(start: number, intStart: number, intEnd: number): void {
    if (intEnd - intStart < 309) return;
    if (intEnd - intStart > 309 || Number(this.src.slice(intStart, intStart + 308)) >= 1.7976931348623157e307) {
      this.fail(MSG.RAPIDJSON.numberTooBig, start);
    }
  }
}

const EMPTY_ARR: readonly JsonValue[] = [];
const EMPTY_OBJ: JsonObject = Object.freeze({}) as JsonObject;

/**
 * RapidJSON's `expFrac` for a number with a fraction, which bounds its positive exponent
 * (exp > 308 - expFrac is "Number too big"): fraction digits count while the significand
 * still fits 2^53 - 1, then only while fewer than 17 significant digits were taken.
 */
function rapidjsonExpFrac(intPart: string, frac: string): number {
  let significand = 0;
  let i64 = 0n;
  let useDouble = false;
  // Integer part: 32/64-bit accumulation, then double past uint64.
  for (let k = 0; k < intPart.length; k++) {
    const d = BigInt(intPart.charCodeAt(k) - ZERO);
    if (i64 > (UINT64_MAX - d) / 10n) {
      useDouble = true;
      break;
    }
    i64 = i64 * 10n + d;
    if (k > 0) significand++;
  }
  let expFrac = 0;
  let k = 0;
  if (!useDouble) {
    for (; k < frac.length; k++) {
      if (i64 > 0x1fffffffffffffn) break;
      i64 = i64 * 10n + BigInt(frac.charCodeAt(k) - ZERO);
      expFrac--;
      if (i64 !== 0n) significand++;
    }
  }
  let d = Number(i64);
  for (; k < frac.length; k++) {
    if (significand < 17) {
      d = d * 10 + (frac.charCodeAt(k) - ZERO);
      expFrac--;
      if (d > 0) significand++;
    }
  }
  return expFrac;
}
