// Decimal → double, correctly rounded, without a string: the JSON tensor reader hands over the
// digits it read as integers and gets the nearest double, or NaN when it cannot be sure (then
// it parses the text with Number(), which is always right).
//
// A decimal is w · 10^p with w its significant digits (up to 19: w = w1 · 10^k2 + w2, w1 the
// first 15 digits, w2 the next k2 ≤ 4) and p its exponent less its fraction digits:
//   "0.3333333432674408" → w1 333333343267440, w2 8, k2 1, p -16
// * Up to 15 digits and |p| ≤ 22 (Clinger's fast path): w and 10^p are exact doubles, so one
//   correctly rounded multiply or divide is the answer.
// * 16 to 19 digits and |p| ≤ 22 (most floats as Python, NumPy or JavaScript print them): w is
//   made exact as a double-double (Dekker's product, no FMA needed), multiplied or divided by
//   10^p in double-double arithmetic (relative error below 2^-91), and rounded once. That
//   rounding is the right one unless the exact value lies within 2^-80 of it of a halfway
//   point between two doubles: then NaN (about one number in 2^27).
// * Anything else (more digits, larger exponents): NaN.
// What RapidJSON does with the same text (its default parse may be one ulp off in rare cases)
// is not copied: the general parser (json_parse.ts) reads numbers correctly rounded too, and
// the two must give the same answer.

/** Exact powers of ten as doubles (10^22 is the last). */
const POW10 = [
  1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
];
/** Veltkamp's splitting constant for doubles: 2^27 + 1. */
const SPLIT = 134217729;
const POW10_HI = POW10.map((x) => {
  const c = SPLIT * x;
  return c - (c - x);
});
const POW10_LO = POW10.map((x, k) => x - POW10_HI[k]);

/** The most significant digits the reader collects: w1 holds 15 of them, w2 up to 4 more. */
export const MAX_DIGITS = 19;
export const W1_DIGITS = 15;
const MAX_FAST_EXPONENT = 22;

/** 2^-80: the margin around a result within which its rounding is not trusted. */
const MARGIN = 8.271806125530277e-25;

/**
 * fl(h + l) (h ≥ |l| ≥ 0) when it is also the double nearest to h + l + δ for every error
 * |δ| ≤ h · 2^-81 (what the products and quotients below may have lost is at most h · 2^-91);
 * else NaN. Rounding is monotonic, so it is enough that both ends of the interval round to it.
 */
function settle(h: number, l: number): number {
  const r = h + l;
  const t = l - (r - h);
  const m = r * MARGIN;
  return r + (t + m) === r && r + (t - m) === r ? r : NaN;
}

/**
 * The double nearest to (w1 · 10^k2 + w2) · 10^p for w1 < 10^15, w2 < 10^k2, k2 ≤ 4; NaN when
 * not certain (see the file's header). Non-negative: the caller applies the sign.
 */
export function nearestDouble(w1: number, w2: number, k2: number, p: number): number {
  if (p < -MAX_FAST_EXPONENT || p > MAX_FAST_EXPONENT) return NaN;
  if (k2 === 0) return p < 0 ? w1 / POW10[-p] : w1 * POW10[p];
  // w = w1 · 10^k2 + w2 exactly, as wh + wl.
  const m = POW10[k2];
  let wh = w1 * m;
  let wl: number;
  {
    const c = SPLIT * w1;
    const ah = c - (c - w1);
    const al = w1 - ah;
    wl = ah * POW10_HI[k2] - wh + ah * POW10_LO[k2] + al * POW10_HI[k2] + al * POW10_LO[k2];
  }
  // + w2 (two-sum), the small parts gathered: all of them are integers below 2^53.
  const s = wh + w2;
  const bv = s - wh;
  wl += wh - (s - bv) + (w2 - bv);
  wh = s;
  // Exact: one rounding, to even on a tie, as the sum's own.
  if (p === 0) return wh + wl;
  if (p > 0) {
    // (wh + wl) · 10^p: wh's product exact (Dekker), wl's rounded (far below the margin).
    const P = POW10[p];
    const h = wh * P;
    const c = SPLIT * wh;
    const ah = c - (c - wh);
    const al = wh - ah;
    const e = ah * POW10_HI[p] - h + ah * POW10_LO[p] + al * POW10_HI[p] + al * POW10_LO[p];
    return settle(h, e + wl * P);
  }
  // (wh + wl) / 10^-p: a first quotient, its exact remainder, a second quotient.
  const q = -p;
  const P = POW10[q];
  const q1 = wh / P;
  const c = SPLIT * q1;
  const qh = c - (c - q1);
  const ql = q1 - qh;
  const ph = q1 * P;
  const pl = qh * POW10_HI[q] - ph + qh * POW10_LO[q] + ql * POW10_HI[q] + ql * POW10_LO[q];
  const remainder = wh - ph - pl + wl;
  return settle(q1, remainder / P);
}
