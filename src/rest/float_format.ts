// Floats as TF Serving writes them in JSON (util/json_tensor.cc WriteDecimal), and C's printf
// "%.{p}g" for the metadata JSON: JavaScript's own number formatting differs from both.
//
// WriteDecimal tries "%g" (6 significant digits) and keeps it when it reads back as the same
// float32 / float64; otherwise it prints max_digits10 digits (9 / 17). Worked examples:
//   float32 0.1        → "%g" gives 0.1, which reads back as the same float32    → 0.1
//   float32 1/3        → "%g" gives 0.333333, a different float32               → 0.333333343
//   float64 0.1 + 0.2  → "%g" gives 0.3, a different double                     → 0.30000000000000004
//   3, 9e6, 1e-5       → whole numbers get ".0"; exponents as printf writes them → 3.0, 9e+06, 1e-05
// C's printf rounds exact ties to even, JavaScript's toExponential away from zero; isTie
// tells them apart: formatG(0.125, 2, true) → 0.12 (printf "%.2g"), where toExponential(1)
// gives 1.3e-1.

/** A float32 value as TF Serving writes it: 0.1, 3.0, 0.333333343, 1e-05, 9e+06, NaN, -Infinity. */
export function formatFloat32(v: number): string {
  return writeFloat32Digits(v) ?? writeDecimal(v, true);
}

/** A float64 value as TF Serving writes it: "%g" if it reads back, else "%.17g"; ".0" on whole numbers. */
export function formatFloat64(v: number): string {
  return writeDecimal(v, false);
}

/**
 * WriteDecimal: absl::StrCat (printf "%g", 6 significant digits) when that reads back as the
 * same float32 / float64, else "%.{max_digits10}g"; ".0" appended when there is neither a
 * '.' nor an exponent.
 *
 * Speed: short exact decimals (0.5, 3, 1234.25) come straight from String(v); otherwise one
 * toExponential(max_digits10 - 1) gives the long form, and the 6-digit candidate is rounded
 * from it (exactly, except when its tail is exactly 5000…, where it is recomputed).
 */
function writeDecimal(v: number, f32: boolean): string {
  if (!Number.isFinite(v)) return v !== v ? 'NaN' : v > 0 ? 'Infinity' : '-Infinity';
  if (v === 0) return Object.is(v, -0) ? '-0.0' : '0.0';
  const av = v < 0 ? -v : v;
  if (av >= 1e-4 && av < 1e6) {
    const t = av * 65536;
    if (t === Math.floor(t)) {
      // Few binary digits: String(v) is likely short, and when it has at most 6 significant
      // digits it is exactly what %g prints in this range.
      const s = String(v);
      if (significantDigits(s) <= 6) return s.indexOf('.') < 0 ? `${s}.0` : s;
    }
  }
  const neg = v < 0;
  const p = f32 ? 9 : 17;
  const full = v.toExponential(p - 1); // [-]d.ddd…e±x, p digits
  const d0 = neg ? 1 : 0;
  const ePos = full.indexOf('e', d0 + p);
  const exp = Number(full.slice(ePos + 1));

  // The 6-digit candidate, rounded from the p-digit form: exact unless its tail is exactly 5000….
  let d6 = full.charCodeAt(d0) - 0x30;
  for (let k = d0 + 2; k < d0 + 7; k++) d6 = d6 * 10 + (full.charCodeAt(k) - 0x30);
  let e6 = exp;
  const c7 = full.charCodeAt(d0 + 7);
  if (c7 === 0x35 && isZeros(full, d0 + 8, ePos)) {
    const s6 = v.toExponential(5);
    const k = s6.indexOf('e');
    d6 = Number(s6.charAt(d0) + s6.slice(d0 + 2, k));
    e6 = Number(s6.slice(k + 1));
  } else if (c7 >= 0x35 && ++d6 === 1000000) {
    d6 = 100000;
    e6++;
  }
  const q = e6 - 5;
  const back = q >= 0 ? (q <= 22 ? d6 * POW10[q] : Number(`${d6}e${q}`)) : q >= -22 ? d6 / POW10[-q] : Number(`${d6}e${q}`);
  if (f32 ? Math.fround(back) === av : back === av) return addPointZero(gLayout(String(d6), e6, 6, neg));

  // max_digits10, with C's round-half-even on exact ties (toExponential rounds them up).
  let digits = full.charAt(d0) + full.slice(d0 + 2, ePos);
  if ((digits.charCodeAt(p - 1) & 1) === 1 && (f32 ? isTie32(av, exp) : isTie(av, p))) {
    digits = digits.slice(0, p - 1) + String.fromCharCode(digits.charCodeAt(p - 1) - 1);
  }
  return addPointZero(gLayout(digits, exp, p, neg));
}

/**
 * writeDecimal(v, true) for most float32 values, its 9 significant digits found by arithmetic
 * instead of toExponential (about twice as fast). A float32 times a power of ten up to 10^22
 * is one correctly rounded double operation, off by under 2^-53 relative, so its 9-digit
 * rounding is exact unless the scaled value lies within 1e-6 of a half: those (exact ties
 * among them), zeros, non-finite values, values String(v) writes short and magnitudes
 * outside 1e-13…1e20 are left to writeDecimal (undefined).
 */
function writeFloat32Digits(v: number): string | undefined {
  const av = v < 0 ? -v : v;
  // Keeps every power of ten used below within POW10 (exponents -14…20 after the correction).
  if (!(av >= 1e-13 && av < 1e20)) return undefined;
  if (av >= 1e-4 && av < 1e6 && av * 65536 === Math.floor(av * 65536)) return undefined;
  let exp = Math.floor(Math.log10(av));
  let scaled = scaleBy10(av, 8 - exp);
  // log10 can be off by one next to a power of ten.
  if (scaled < 1e8) scaled = scaleBy10(av, 8 - --exp);
  else if (scaled >= 1e9) scaled = scaleBy10(av, 8 - ++exp);
  const floor = Math.floor(scaled);
  const frac = scaled - floor;
  if (frac > 0.499999 && frac < 0.500001) return undefined;
  let d9 = frac > 0.5 ? floor + 1 : floor;
  if (d9 === 1e9) {
    d9 = 1e8;
    exp++;
  }
  // The 6-digit candidate, rounded from the 9 digits as writeDecimal does.
  const tail = d9 % 1000;
  if (tail === 500) return undefined;
  let d6 = (d9 - tail) / 1000;
  let e6 = exp;
  if (tail > 500 && ++d6 === 1000000) {
    d6 = 100000;
    e6++;
  }
  const q = e6 - 5;
  const back = q >= 0 ? d6 * POW10[q] : d6 / POW10[-q];
  const neg = v < 0;
  if (Math.fround(back) === av) return addPointZero(gLayout(String(d6), e6, 6, neg));
  return addPointZero(gLayout(String(d9), exp, 9, neg));
}

/** x·10^k as one correctly rounded operation (|k| ≤ 22, POW10 exact). */
function scaleBy10(x: number, k: number): number {
  return k >= 0 ? x * POW10[k] : x / POW10[-k];
}

const POW10 = [
  1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
];

function addPointZero(s: string): string {
  return s.indexOf('.') < 0 && s.indexOf('e') < 0 ? `${s}.0` : s;
}

/** Significant digits of String(x) for 1e-4 <= |x| < 1e6 (no exponent there). */
function significantDigits(s: string): number {
  let i = s.charCodeAt(0) === 0x2d ? 1 : 0;
  if (s.charCodeAt(i) === 0x30) {
    i += 2; // "0."
    while (s.charCodeAt(i) === 0x30) i++;
    return s.length - i;
  }
  return s.indexOf('.') < 0 ? s.length - i : s.length - i - 1;
}

function isZeros(s: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) if (s.charCodeAt(i) !== 0x30) return false;
  return true;
}

/** printf's %g layout of `p` significant digits `digits` × 10^exp (one digit before the point). */
function gLayout(digits: string, exp: number, p: number, neg: boolean): string {
  let out: string;
  if (exp < -4 || exp >= p) {
    const m = stripZeros(digits, 1);
    const ae = exp < 0 ? -exp : exp;
    out = `${m.length > 1 ? `${m[0]}.${m.slice(1)}` : m}e${exp < 0 ? '-' : '+'}${ae < 10 ? '0' : ''}${ae}`;
  } else if (exp >= 0) {
    const frac = stripZeros(digits.slice(exp + 1), 0);
    out = frac.length > 0 ? `${digits.slice(0, exp + 1)}.${frac}` : digits.slice(0, exp + 1);
  } else {
    out = `0.${stripZeros('0'.repeat(-exp - 1) + digits, 0)}`;
  }
  return neg ? `-${out}` : out;
}

/**
 * C's printf("%.{p}g") of a finite x. JS's toExponential rounds exact ties away from zero
 * where C rounds them to even; `halfEven` corrects that.
 */
export function formatG(x: number, p: number, halfEven: boolean): string {
  if (x === 0) return Object.is(x, -0) ? '-0' : '0';
  const s = x.toExponential(p - 1);
  const neg = x < 0;
  const ePos = s.indexOf('e');
  const exp = Number(s.slice(ePos + 1));
  let digits = p === 1 ? s.slice(neg ? 1 : 0, ePos) : s.charAt(neg ? 1 : 0) + s.slice(neg ? 3 : 2, ePos);
  if (halfEven && (digits.charCodeAt(p - 1) & 1) === 1 && isTie(Math.abs(x), p)) {
    digits = digits.slice(0, p - 1) + String.fromCharCode(digits.charCodeAt(p - 1) - 1);
  }
  return gLayout(digits, exp, p, neg);
}

function stripZeros(s: string, keep: number): string {
  let e = s.length;
  while (e > keep && s.charCodeAt(e - 1) === 0x30) e--;
  return s.slice(0, e);
}

/** Is ax (> 0) exactly halfway between two p-significant-digit decimals? */
function isTie(ax: number, p: number): boolean {
  const t = ax.toExponential(p); // p + 1 digits
  const ePos = t.indexOf('e');
  if (t.charCodeAt(ePos - 1) !== 0x35) return false; // the digit after the p-th must be a 5
  const digits = BigInt(t.slice(0, 1) + t.slice(2, ePos));
  return exactlyEquals(ax, digits, Number(t.slice(ePos + 1)) - p);
}

/** isTie(ax, 9) for a float32 ax whose 9-digit form has exponent exp: a float pre-check first. */
function isTie32(ax: number, exp: number): boolean {
  const k = 8 - exp;
  const f = k >= 0 ? ax * 10 ** k : ax / 10 ** -k; // ≈ the digits as a number with 9 integer digits
  const frac = f - Math.floor(f);
  if (frac < 0.4999 || frac > 0.5001) return false;
  return isTie(ax, 9);
}

const f64 = new Float64Array(1);
const u64 = new BigUint64Array(f64.buffer);

/** ax === digits × 10^q, exactly (ax finite, > 0). */
function exactlyEquals(ax: number, digits: bigint, q: number): boolean {
  f64[0] = ax;
  const bits = u64[0];
  const expField = Number((bits >> 52n) & 0x7ffn);
  let m = bits & 0xfffffffffffffn;
  let p2: number;
  if (expField === 0) p2 = -1074;
  else {
    m |= 1n << 52n;
    p2 = expField - 1075;
  }
  // m·2^p2 == digits·5^q·2^q
  let lhs = m;
  let rhs = digits;
  let rp2 = 0;
  if (q >= 0) {
    rhs *= 5n ** BigInt(q);
    rp2 = q;
  } else {
    lhs *= 5n ** BigInt(-q);
    p2 += -q;
  }
  const d = p2 - rp2;
  return d >= 0 ? lhs << BigInt(d) === rhs : lhs === rhs << BigInt(-d);
}
