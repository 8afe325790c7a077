// The encodings of TensorFlow's Unicode ops (core/kernels/unicode_ops.cc), which read text with
// ICU's converters and write it from an icu::UnicodeString.
//
// Reading: each step yields one code point and the bytes it took. Ill-formed input yields
// U+FFFD flagged as an error, one per maximal subpart of an ill-formed sequence — ICU's
// converters since ICU 60, the same rule as the WHATWG Encoding standard: "\xed\xa0\xbd" (a
// surrogate) is three errors, "\xf4\x90\x80\x80" (past U+10FFFF) four, a truncated "\xe4\xbd"
// at the end one.
//
// Writing: code points are appended to UTF-16 code units as ICU's UnicodeString does (a value
// past U+10FFFF or negative is dropped, a surrogate code point stays a lone unit, so two
// appended surrogates that pair become one character), then written as UTF-8 (a lone
// surrogate as U+FFFD, ICU's toUTF8String), UTF-16-BE (units as they are) or UTF-32-BE.

/** One decoding step: code point, bytes consumed, and whether the bytes were ill-formed. */
type DecodeStep = (s: Uint8Array, at: number) => [codePoint: number, length: number, error: boolean];

const REPLACEMENT = 0xfffd;

const decodeUtf8: DecodeStep = (s, at) => {
  const b = s[at];
  if (b < 0x80) return [b, 1, false];
  let need: number;
  let lower = 0x80;
  let upper = 0xbf;
  let cp: number;
  if (b >= 0xc2 && b <= 0xdf) [need, cp] = [1, b & 0x1f];
  else if (b >= 0xe0 && b <= 0xef) {
    [need, cp] = [2, b & 0x0f];
    if (b === 0xe0) lower = 0xa0;
    if (b === 0xed) upper = 0x9f;
  } else if (b >= 0xf0 && b <= 0xf4) {
    [need, cp] = [3, b & 0x07];
    if (b === 0xf0) lower = 0x90;
    if (b === 0xf4) upper = 0x8f;
  } else return [REPLACEMENT, 1, true];
  let i = at + 1;
  for (let k = 0; k < need; k++, i++) {
    if (i >= s.length || s[i] < lower || s[i] > upper) return [REPLACEMENT, i - at, true];
    cp = (cp << 6) | (s[i] & 0x3f);
    [lower, upper] = [0x80, 0xbf];
  }
  return [cp, need + 1, false];
};

const isHighSurrogate = (u: number) => u >= 0xd800 && u <= 0xdbff;
const isLowSurrogate = (u: number) => u >= 0xdc00 && u <= 0xdfff;

function utf16Decoder(bigEndian: boolean): DecodeStep {
  const unit = (s: Uint8Array, i: number) => (bigEndian ? (s[i] << 8) | s[i + 1] : s[i] | (s[i + 1] << 8));
  return (s, at) => {
    if (at + 2 > s.length) return [REPLACEMENT, s.length - at, true];
    const u = unit(s, at);
    if (isHighSurrogate(u)) {
      if (at + 4 <= s.length && isLowSurrogate(unit(s, at + 2)))
        return [0x10000 + ((u - 0xd800) << 10) + (unit(s, at + 2) - 0xdc00), 4, false];
      return [REPLACEMENT, 2, true];
    }
    return isLowSurrogate(u) ? [REPLACEMENT, 2, true] : [u, 2, false];
  };
}

function utf32Decoder(bigEndian: boolean): DecodeStep {
  return (s, at) => {
    if (at + 4 > s.length) return [REPLACEMENT, s.length - at, true];
    const v = bigEndian
      ? ((s[at] << 24) | (s[at + 1] << 16) | (s[at + 2] << 8) | s[at + 3]) >>> 0
      : ((s[at + 3] << 24) | (s[at + 2] << 16) | (s[at + 1] << 8) | s[at]) >>> 0;
    return v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff) ? [REPLACEMENT, 4, true] : [v, 4, false];
  };
}

/**
 * ICU's "UTF-16" and "UTF-32": a byte-order mark at the start of the string picks the byte
 * order and is dropped; without one the string is big-endian. (Each string is read from its
 * own start, as TF's tests read one string each.)
 */
function withByteOrderMark(width: 2 | 4): (s: Uint8Array) => { step: DecodeStep; skip: number } {
  const [be, le] = width === 2 ? [utf16Decoder(true), utf16Decoder(false)] : [utf32Decoder(true), utf32Decoder(false)];
  return (s) => {
    if (width === 2 && s[0] === 0xfe && s[1] === 0xff) return { step: be, skip: 2 };
    if (width === 2 && s[0] === 0xff && s[1] === 0xfe) return { step: le, skip: 2 };
    if (width === 4 && s[0] === 0 && s[1] === 0 && s[2] === 0xfe && s[3] === 0xff) return { step: be, skip: 4 };
    if (width === 4 && s[0] === 0xff && s[1] === 0xfe && s[2] === 0 && s[3] === 0) return { step: le, skip: 4 };
    return { step: be, skip: 0 };
  };
}

const latin1: DecodeStep = (s, at) => [s[at], 1, false];
const ascii: DecodeStep = (s, at) => (s[at] < 0x80 ? [s[at], 1, false] : [REPLACEMENT, 1, true]);

/** How one string is read: the step, and the bytes of a byte-order mark it starts with. */
export type StringDecoder = (s: Uint8Array) => { step: DecodeStep; skip: number };
const plain =
  (step: DecodeStep): StringDecoder =>
  () => ({ step, skip: 0 });

/** ICU matches converter names ignoring case and every character but letters and digits. */
const canonicalName = (name: string) => name.toLowerCase().replace(/[^a-z0-9]/g, '');

const DECODERS: Record<string, StringDecoder> = {
  utf8: plain(decodeUtf8),
  utf16: withByteOrderMark(2),
  utf16be: plain(utf16Decoder(true)),
  utf16le: plain(utf16Decoder(false)),
  utf32: withByteOrderMark(4),
  utf32be: plain(utf32Decoder(true)),
  utf32le: plain(utf32Decoder(false)),
  ...Object.fromEntries(['iso88591', 'latin1', 'l1', 'cp819', 'ibm819', 'iso885911987'].map((n) => [n, plain(latin1)])),
  ...Object.fromEntries(['usascii', 'ascii', 'ansix341968', 'us', 'cp367', 'ibm367', 'iso646us'].map((n) => [n, plain(ascii)])),
};

/** The decoder of an `input_encoding` attr, or null for one tfgate does not implement. */
export const decoderFor = (encoding: string): StringDecoder | null => DECODERS[canonicalName(encoding)] ?? null;

export const DECODABLE_ENCODINGS = 'UTF-8, UTF-16(-BE, -LE), UTF-32(-BE, -LE), ISO-8859-1, US-ASCII';

/** UTF-16 code units as ICU's UnicodeString::append(UChar32) builds them. */
export class CodeUnits {
  private units: number[] = [];

  append(cp: number): void {
    if (cp < 0 || cp > 0x10ffff) return;
    if (cp <= 0xffff) this.units.push(cp);
    else this.units.push(0xd800 + ((cp - 0x10000) >> 10), 0xdc00 + ((cp - 0x10000) & 0x3ff));
  }

  /** The code points, pairing surrogates; a lone one stays (StringCharacterIterator::next32PostInc). */
  private *codePoints(): Generator<number> {
    const u = this.units;
    for (let i = 0; i < u.length; i++) {
      if (isHighSurrogate(u[i]) && i + 1 < u.length && isLowSurrogate(u[i + 1])) {
        yield 0x10000 + ((u[i] - 0xd800) << 10) + (u[i + 1] - 0xdc00);
        i++;
      } else yield u[i];
    }
  }

  encode(encoding: OutputEncoding): Uint8Array {
    const out: number[] = [];
    if (encoding === 'UTF-16-BE') for (const u of this.units) out.push(u >> 8, u & 0xff);
    else if (encoding === 'UTF-32-BE') for (const c of this.codePoints()) out.push(c >>> 24, (c >> 16) & 0xff, (c >> 8) & 0xff, c & 0xff);
    else {
      for (let c of this.codePoints()) {
        if (c >= 0xd800 && c <= 0xdfff) c = REPLACEMENT;
        if (c < 0x80) out.push(c);
        else if (c < 0x800) out.push(0xc0 | (c >> 6), 0x80 | (c & 0x3f));
        else if (c < 0x10000) out.push(0xe0 | (c >> 12), 0x80 | ((c >> 6) & 0x3f), 0x80 | (c & 0x3f));
        else out.push(0xf0 | (c >> 18), 0x80 | ((c >> 12) & 0x3f), 0x80 | ((c >> 6) & 0x3f), 0x80 | (c & 0x3f));
      }
    }
    return Uint8Array.from(out);
  }
}

export const OUTPUT_ENCODINGS = ['UTF-8', 'UTF-16-BE', 'UTF-32-BE'] as const;
export type OutputEncoding = (typeof OUTPUT_ENCODINGS)[number];
