// expf as glibc (≥ 2.28) computes it, what std::exp(float) is in TF's Linux builds: soft-NMS
// weights go through it, and it is not correctly rounded (about 6 inputs in 10 000 differ by
// one ulp from Math.fround(Math.exp(x))). glibc's algorithm (from Arm's optimized-routines):
// x·32/ln2 = k + r, exp(x) = 2^(k/32) · p(r) with a cubic p, all in double, rounded to float
// once at the end. 2^(i/32) is computed here exactly (integer roots); the polynomial and
// 32/ln2 are glibc's constants. glibc picks an FMA build of the same code on CPUs that have
// FMA; the two round differently only for results within ~2^-50 of a float rounding boundary.

/** A double from the hex digits of its 53-bit significand (with the leading 1) and its binary exponent. */
const hexFloat = (significand: string, exponent: number) => Number.parseInt(significand, 16) * 2 ** (exponent - 52);

const N = 32;
const INV_LN2_N = hexFloat('171547652b82fe', 5); // 32 / ln 2
const C0 = hexFloat('1c6af84b912394', -20); // the polynomial, scaled by 1/32^3, 1/32^2, 1/32
const C1 = hexFloat('1ebfce50fac4f3', -13);
const C2 = hexFloat('162e42ff0c52d6', -6);
const SHIFT = 1.5 * 2 ** 52; // adding it rounds to an integer
const OVERFLOW = hexFloat('162e42e0000000', 6); // 0x1.62e42ep6f
const UNDERFLOW = -hexFloat('19fe3680000000', 6); // -0x1.9fe368p6f

/** 2^(i/32) rounded to nearest double: the integer 32nd root of 2^(i + 32·80), then 53 bits. */
function twoToTheIOver32(i: number): number {
  const target = 1n << BigInt(i + 32 * 80);
  let lo = 1n << 80n;
  let hi = 1n << 81n;
  while (hi - lo > 1n) {
    const mid = (lo + hi) >> 1n;
    if (mid ** 32n <= target) lo = mid;
    else hi = mid;
  }
  // lo = floor(2^(i/32) · 2^80), 81 bits: keep 53, rounding (never a tie: 2^(i/32) is irrational for i > 0).
  const kept = (lo + (1n << 27n)) >> 28n;
  return Number(kept) * 2 ** -52;
}

const TABLE = Float64Array.from({ length: N }, (_, i) => twoToTheIOver32(i));

const bits = new Float32Array(1);
const word = new Uint32Array(bits.buffer);
const TOP12_88 = 0x42b; // top 12 bits of 88.0f

/** glibc's expf of a float `x`. */
export function glibcExpf(x: number): number {
  bits[0] = x;
  const abstop = (word[0] >>> 20) & 0x7ff;
  if (abstop >= TOP12_88) {
    if (x === -Infinity) return 0;
    if (abstop >= 0x7f8) return x + x;
    if (x > OVERFLOW) return Infinity;
    if (x < UNDERFLOW) return 0;
  }
  const z = INV_LN2_N * x;
  const kd = z + SHIFT - SHIFT;
  const r = z - kd;
  // 2^(k/32) = 2^(k mod 32 / 32) · 2^⌊k/32⌋, exact in double.
  const i = ((kd % N) + N) % N;
  const s = TABLE[i] * 2 ** ((kd - i) / N);
  const p = C0 * r + C1;
  const r2 = r * r;
  const y = C2 * r + 1;
  return Math.fround((p * r2 + y) * s);
}
