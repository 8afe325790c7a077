// RE2 for the regex ops, as TensorFlow builds it: `RE2 re(pattern)` with the default options
// (UTF-8, leftmost-first, `.` not matching \n), matched with RE2::Match from a byte position.
//
// The engine is re2-wasm, Google's RE2 compiled to WebAssembly: the RE2 syntax, its errors
// and its matching, not JavaScript's RegExp. Its WrappedRE2 class is used directly (its RE2
// class translates JavaScript syntax first: `\u0041` or `/` would mean other things than in
// RE2). It matches JavaScript strings, so it only sees text that is valid UTF-8: TF's RE2
// matches other bytes too (a lone \xff is no character there, but is one U+FFFD for a
// decoder), so an op refuses such a string rather than answer what TF might not (Re2Text).
//
// Cost: each match call hands the text from the current position to the end to WebAssembly
// (~40 ns a character measured here), so n matches in a string of length L cost about n·L/2;
// MATCH_WORK_LIMIT bounds what one op may spend that way.
import { createRequire } from 'node:module';
import { Code, ServingError } from '../../../../errors/status.js';

interface WasmMatch {
  match: string;
  /** In code points. */
  index: number;
  groups: Array<string | undefined>;
}
interface WrappedRE2 {
  ok(): boolean;
  error(): string;
  match(input: string, start: number, getCapturingGroups: boolean): WasmMatch;
  delete(): void;
}
type WrappedRE2Constructor = new (pattern: string, ignoreCase: boolean, multiline: boolean, dotAll: boolean) => WrappedRE2;

const require = createRequire(import.meta.url);
const { WrappedRE2 } = require('re2-wasm/build/wasm/re2.js') as { WrappedRE2: WrappedRE2Constructor };

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });
const encoder = new TextEncoder();

/** Code points handed to RE2 by one op's matches, at most (~4 s here). */
const MATCH_WORK_LIMIT = 100_000_000;

/** A string to match: its bytes, as a JS string, and where each code point starts. */
export class Re2Text {
  readonly str: string;
  /** Byte offset of code point i (and of the end, at i = count). */
  private readonly cpByte: Int32Array;
  /** UTF-16 offset of code point i. */
  private readonly cpUnit: Int32Array;
  /** Code point index starting at byte b, or -1 inside a character. */
  private readonly byteCp: Int32Array;

  private constructor(
    readonly bytes: Uint8Array,
    str: string,
  ) {
    this.str = str;
    // Walked by code point without spreading the string: [...str] would make one JS string
    // per character (tens of bytes each) for a request's long text.
    let count = 0;
    for (let u = 0; u < str.length; u += str.codePointAt(u)! > 0xffff ? 2 : 1) count++;
    this.cpByte = new Int32Array(count + 1);
    this.cpUnit = new Int32Array(count + 1);
    this.byteCp = new Int32Array(bytes.length + 1).fill(-1);
    let b = 0;
    let u = 0;
    for (let i = 0; i < count; i++) {
      this.cpByte[i] = b;
      this.cpUnit[i] = u;
      this.byteCp[b] = i;
      const cp = str.codePointAt(u)!;
      b += cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
      u += cp > 0xffff ? 2 : 1;
    }
    this.cpByte[count] = b;
    this.cpUnit[count] = u;
    this.byteCp[b] = count;
  }

  /** The text, or null when its bytes are not UTF-8 (see the header). */
  static of(bytes: Uint8Array): Re2Text | null {
    try {
      return new Re2Text(bytes, strictUtf8.decode(bytes));
    } catch {
      return null;
    }
  }

  get length(): number {
    return this.bytes.length;
  }

  /** The byte length of the character at byte `at` (at a character's start). */
  charLength(at: number): number {
    const i = this.byteCp[at];
    return this.cpByte[i + 1] - this.cpByte[i];
  }

  cpAt(byte: number): number {
    return this.byteCp[byte];
  }

  byteAt(cp: number): number {
    return this.cpByte[cp];
  }

  unitAt(cp: number): number {
    return this.cpUnit[cp];
  }
}

export interface Re2Match {
  /** Byte offsets of the whole match. */
  start: number;
  end: number;
  /** Each capturing group's bytes, undefined when it took no part. */
  groups: Array<Uint8Array | undefined>;
}

/** A pattern RE2 compiled, or its error in RE2's words. */
export class Re2 {
  private work = 0;

  private constructor(
    private readonly re: WrappedRE2,
    private readonly anchored: WrappedRE2,
    readonly groupCount: number,
  ) {}

  /** Compiles `pattern`; returns RE2's error text (for TF's "Invalid pattern: …, error: …") when it fails. */
  static compile(pattern: Uint8Array): Re2 | string {
    let source: string;
    try {
      source = strictUtf8.decode(pattern);
    } catch {
      return 'invalid UTF-8';
    }
    const re = new WrappedRE2(source, false, false, false);
    if (!re.ok()) {
      const error = re.error();
      re.delete();
      return error;
    }
    // The anchored form for FullMatch; `\E` closes a `\Q` the pattern leaves open.
    let anchored = new WrappedRE2(`^(?:${source})\\z`, false, false, false);
    if (!anchored.ok()) {
      anchored.delete();
      anchored = new WrappedRE2(`^(?:${source}\\E)\\z`, false, false, false);
    }
    // `(?:p)|` matches the empty text, and reports every group of p.
    const probe = new WrappedRE2(`(?:${source})|`, false, false, false);
    const groupCount = probe.ok() ? probe.match('', 0, true).groups.length : anchored.match('', 0, true).groups.length;
    probe.delete();
    return new Re2(re, anchored, groupCount);
  }

  /** Frees the WebAssembly memory of the compiled pattern. */
  dispose(): void {
    this.re.delete();
    this.anchored.delete();
  }

  /** Starts an op's count of MATCH_WORK_LIMIT. */
  resetWork(): void {
    this.work = 0;
  }

  private charge(op: string, codePoints: number): void {
    this.work += codePoints;
    if (this.work > MATCH_WORK_LIMIT) {
      throw new ServingError(
        Code.RESOURCE_EXHAUSTED,
        `${op}: matching would hand RE2 more than ${MATCH_WORK_LIMIT} characters for this request (many matches in a long string), the embedded runtime's limit`,
      );
    }
  }

  /**
   * RE2::Match(text, at, text.size(), UNANCHORED): the leftmost-first match at or after byte
   * `at` (a character's start), seeing the text before `at` as RE2 does (for \b and (?m)^).
   */
  match(op: string, text: Re2Text, at: number, withGroups: boolean): Re2Match | null {
    const cp = text.cpAt(at);
    // RE2 looks back one character at most (\b, \B, (?m)^), so the text before it can go.
    const from = Math.max(0, cp - 1);
    const suffix = text.str.slice(text.unitAt(from));
    this.charge(op, text.cpAt(text.length) - from);
    const m = this.re.match(suffix, cp - from, withGroups);
    if (m.index < 0) return null;
    const start = text.byteAt(from + m.index);
    return {
      start,
      end: start + encoder.encode(m.match).length,
      groups: m.groups.map((g) => (g === undefined ? undefined : encoder.encode(g))),
    };
  }

  /** RE2::FullMatch(text, re). */
  fullMatch(op: string, text: Re2Text): boolean {
    this.charge(op, text.cpAt(text.length));
    return this.anchored.match(text.str, 0, false).index === 0;
  }
}
