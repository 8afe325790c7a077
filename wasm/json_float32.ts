// Float32 numbers of a JSON list, read from a window of the body in memory [0, end)
// (a 0 byte after it), stored as f32 from `out` on.
const POW10: StaticArray<f64> = [1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22];
const EXACT_INTEGER: u64 = 9007199254740992;
/** The bracket around an inexact quotient within which its float32 must not change: ±2^-47. */
const BRACKET_LOW: f64 = 1 - 7.105427357601002e-15;
const BRACKET_HIGH: f64 = 1 + 7.105427357601002e-15;
/** Veltkamp's splitting constant for doubles: 2^27 + 1. */
const SPLIT: f64 = 134217729;
/** 2^-80: the margin around a result within which its rounding is not trusted. */
const MARGIN: f64 = 8.271806125530277e-25;

/** Numbers stored by the last call. */
let stored: i32 = 0;
/** Lists of `width` read by the last rows() call. */
let rowsRead: i32 = 0;
/** 1 when the last call ended after the list's closing bracket, 0 when it stopped before an item. */
let closed: i32 = 0;
/** Where the last call gave up on the item it stopped before (the window's end: the item was cut). */
let gaveUp: usize = 0;

export function getStored(): i32 { return stored; }
export function getRows(): i32 { return rowsRead; }
export function getClosed(): i32 { return closed; }
export function getGaveUp(): usize { return gaveUp; }

/** x's high 26 bits (Veltkamp: x = hi + (x - hi) exactly). */
@inline function high(x: f64): f64 {
  const c = SPLIT * x;
  return c - (c - x);
}

/**
 * The double nearest to w / 10^q for 2^53 < w < 2^64, q ≤ 22, or NaN when not certain: as
 * decimal_double.ts nearestDouble computes it (w split exactly into wh + wl; a first quotient,
 * its exact remainder by Dekker's product, a second quotient; trusted only when the result is
 * not within 2^-80 of a halfway point between two doubles).
 */
function nearest(w: u64, q: i32): f64 {
  const wh = <f64>(w & 0xfffffffffffff800);
  const wl = <f64>(w & 0x7ff);
  if (q == 0) return wh + wl;
  const P = unchecked(POW10[q]);
  const q1 = wh / P;
  const qh = high(q1);
  const ql = q1 - qh;
  const Ph = high(P);
  const Pl = P - Ph;
  const ph = q1 * P;
  const pl = qh * Ph - ph + qh * Pl + ql * Ph + ql * Pl;
  const remainder = wh - ph - pl + wl;
  const l = remainder / P;
  const r = q1 + l;
  const t = l - (r - q1);
  const m = r * MARGIN;
  return r + (t + m) == r && r + (t - m) == r ? r : NaN;
}

/** Space, \n, \r and \t as bits of a u64 (bit c for byte c). */
const WHITESPACE: u64 = 0x100002600;
@inline function isWs(c: u32): bool { return c <= 0x20 && ((WHITESPACE >> <u64>c) & 1) != 0; }

/** 8 bytes less '0' each: a digit byte is then 0 to 9. */
const ASCII_ZEROS: u64 = 0x3030303030303030;
const POW10_U64: StaticArray<u64> = [1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000];

/**
 * How many of t's first bytes (the lowest first; each a byte less '0') are digits, 0 to 8. A
 * byte below '0' sets its own top bit (and borrows from the bytes after it), one above '9'
 * reaches the top bit once 0x76 is added (and may carry into the bytes after it): either way
 * only bytes after the first non-digit are disturbed, and those are not counted.
 */
@inline function digitCount(t: u64): i32 {
  return <i32>(ctz(((t + 0x7676767676767676) | t) & 0x8080808080808080) >> 3);
}

/** The value of t's first n digits (1 ≤ n ≤ 8): moved to the top bytes, zeros below them, then summed pairwise (fast_float's eight-digit step). */
@inline function digitsValue(t: u64, n: i32): u64 {
  let v = t << (<u64>(64 - (n << 3)));
  v = v * 10 + (v >> 8);
  return (((v & 0x000000ff000000ff) * 0x000f424000000064 + ((v >> 16) & 0x000000ff000000ff) * 0x0000271000000001) >> 32);
}

/**
 * A number at p stored at `at`; the position after it, or 0 (nothing certain stored). The
 * common form, -?(0|[1-9][0-9]*)(.[0-9]+)? of at most 19 digits after the integer part's
 * leading zero, is read with its fraction 8 bytes at a time and its sign without a branch (a
 * fraction's length and a sign vary from number to number: each mispredicted branch costs
 * more than the digit it reads); anything else by numByDigit, which stores or leaves it as the
 * digit-by-digit reading always has (w and the fraction's length are the same either way).
 */
@inline function num(p: usize, at: usize): usize {
  const start = p;
  let c = <u32>load<u8>(p);
  const neg = c == 0x2d;
  p += <usize>neg;
  c = <u32>load<u8>(p);
  let w: u64 = 0;
  let digits: i32 = 0;
  if (c == 0x30) {
    c = <u32>load<u8>(++p);
  } else {
    if (c - 0x31 > 8) return numByDigit(start, at);
    do {
      w = w * 10 + <u64>(c - 0x30);
      digits++;
      c = <u32>load<u8>(++p);
    } while (c - 0x30 <= 9);
  }
  let fraction: i32 = 0;
  if (c == 0x2e) {
    ++p;
    // The first 16 bytes loaded at once (the second 8 do not wait for the first's count).
    const t = load<u64>(p) - ASCII_ZEROS;
    const u = load<u64>(p, 8) - ASCII_ZEROS;
    let n = digitCount(t);
    fraction = n;
    if (n == 0 || fraction + digits > 19) return numByDigit(start, at);
    w = w * unchecked(POW10_U64[n]) + digitsValue(t, n);
    p += <usize>n;
    if (n == 8) {
      n = digitCount(u);
      fraction += n;
      if (fraction + digits > 19) return numByDigit(start, at);
      if (n != 0) {
        w = w * unchecked(POW10_U64[n]) + digitsValue(u, n);
        p += <usize>n;
      }
      while (n == 8) {
        const v = load<u64>(p) - ASCII_ZEROS;
        n = digitCount(v);
        fraction += n;
        if (fraction + digits > 19) return numByDigit(start, at);
        if (n == 0) break;
        w = w * unchecked(POW10_U64[n]) + digitsValue(v, n);
        p += <usize>n;
      }
    }
    c = <u32>load<u8>(p);
  }
  if ((c | 0x20) == 0x65 || c - 0x30 <= 9 || digits > 19) return numByDigit(start, at);
  let v: f64;
  let f: f32;
  if (w <= EXACT_INTEGER) {
    v = <f64>(<i64>w) / unchecked(POW10[fraction]);
    f = <f32>v;
  } else {
    v = <f64>w / unchecked(POW10[fraction]);
    f = <f32>v;
    if (<f32>(v * BRACKET_LOW) != f || <f32>(v * BRACKET_HIGH) != f) {
      v = nearest(w, fraction);
      if (v != v) return numByDigit(start, at);
      f = <f32>v;
    }
  }
  store<f32>(at, select<f32>(-f, f, neg && (w != 0 || fraction != 0)));
  return p;
}

/** A number at p stored at `at`, a digit at a time: the position after it, or 0 (nothing certain stored). Its leading zeros after the point are not counted as digits. */
function numByDigit(p: usize, at: usize): usize {
  let c = <u32>load<u8>(p);
  const neg = c == 0x2d;
  if (neg) c = <u32>load<u8>(++p);
  let w: u64 = 0;
  let digits: i32 = 0;
  if (c == 0x30) {
    c = <u32>load<u8>(++p);
  } else {
    if (c - 0x31 > 8) {
      gaveUp = p;
      return 0;
    }
    do {
      w = w * 10 + <u64>(c - 0x30);
      digits++;
      c = <u32>load<u8>(++p);
    } while (c - 0x30 <= 9);
  }
  let fraction: i32 = 0;
  if (c == 0x2e) {
    c = <u32>load<u8>(++p);
    const start = p;
    // Zeros before the first significant digit (0.000123) are not digits of w.
    if (w == 0) while (c == 0x30) c = <u32>load<u8>(++p);
    const significant = p;
    while (c - 0x30 <= 9) {
      w = w * 10 + <u64>(c - 0x30);
      c = <u32>load<u8>(++p);
    }
    fraction = <i32>(p - start);
    digits += <i32>(p - significant);
    if (fraction == 0 || fraction > 22) {
      gaveUp = p;
      return 0;
    }
  }
  gaveUp = p;
  if (c == 0x65 || c == 0x45 || c - 0x30 <= 9 || digits > 19) return 0;
  let v = <f64>w / unchecked(POW10[fraction]);
  let f = <f32>v;
  if (w > EXACT_INTEGER) {
    // v is within 2^-52 of the decimal (w rounded once, then the quotient): when every double
    // within 2^-47 of it rounds to the same float32, so does the correctly rounded double.
    // Else (near a float32 halfway point) that double itself, exactly.
    if (<f32>(v * BRACKET_LOW) != f || <f32>(v * BRACKET_HIGH) != f) {
      v = nearest(w, fraction);
      if (v != v) return 0;
      f = <f32>v;
    }
  }
  store<f32>(at, neg && (w != 0 || fraction != 0) ? -f : f);
  return p;
}

/**
 * The numbers of a flat list from p (the start of an item) on, at most `limit`: returns where
 * it ended (after the closing bracket: closed = 1) or the start of the item it left (closed = 0).
 */
export function flat(p: usize, out: usize, limit: i32): usize {
  let n: i32 = 0;
  closed = 0;
  while (n < limit) {
    const q = num(p, out + (<usize>n << 2));
    if (q == 0) break;
    let r = q;
    let c = <u32>load<u8>(r);
    while (isWs(c)) c = <u32>load<u8>(++r);
    if (c == 0x2c) {
      c = <u32>load<u8>(++r);
      while (isWs(c)) c = <u32>load<u8>(++r);
      n++;
      p = r;
      continue;
    }
    if (c == 0x5d) {
      n++;
      closed = 1;
      p = r + 1;
    } else gaveUp = r;
    break;
  }
  stored = n;
  return p;
}

/**
 * Lists of exactly `width` numbers from p (a list's opening bracket) on, at most `limit` of
 * them, up to the closing bracket of the list holding them (closed = 1, after it) or the
 * start of the list it left (closed = 0).
 */
export function rows(p: usize, out: usize, limit: i32, width: i32): usize {
  let n: i32 = 0;
  let k: i32 = 0;
  closed = 0;
  while (k < limit) {
    const r = row(p, out + (<usize>n << 2), width);
    if (r == 0) break;
    let c = <u32>load<u8>(r);
    if (c == 0x2c) {
      let s = r + 1;
      c = <u32>load<u8>(s);
      while (isWs(c)) c = <u32>load<u8>(++s);
      n += width;
      k++;
      p = s;
      continue;
    }
    if (c == 0x5d) {
      n += width;
      k++;
      closed = 1;
      p = r + 1;
    } else gaveUp = r;
    break;
  }
  stored = n;
  rowsRead = k;
  return p;
}

/** One list of `width` numbers at p stored from `at`: the position of what follows it (whitespace skipped), or 0. */
@inline function row(p: usize, at: usize, width: i32): usize {
  if (load<u8>(p) != 0x5b) {
    gaveUp = p;
    return 0;
  }
  let r = p + 1;
  let c = <u32>load<u8>(r);
  while (isWs(c)) c = <u32>load<u8>(++r);
  for (let j = 1; ; j++) {
    const q = num(r, at);
    if (q == 0) return 0;
    at += 4;
    r = q;
    c = <u32>load<u8>(r);
    while (isWs(c)) c = <u32>load<u8>(++r);
    if (j == width) break;
    if (c != 0x2c) {
      gaveUp = r;
      return 0;
    }
    c = <u32>load<u8>(++r);
    while (isWs(c)) c = <u32>load<u8>(++r);
  }
  if (c != 0x5d) {
    gaveUp = r;
    return 0;
  }
  c = <u32>load<u8>(++r);
  while (isWs(c)) c = <u32>load<u8>(++r);
  return r;
}
