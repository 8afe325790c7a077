// Discrete Fourier transforms in double precision, of any length in O(n log n) as TF's DUCC
// computes them: radix-2 for powers of two, Bluestein's chirp-z transform (a power-of-two
// convolution) for the other lengths. TF transforms float32 tensors in float32; these are
// computed in double and rounded once when written to a float32 tensor, so they agree with
// TF to within TF's own float32 rounding (the op cases hold both to TF's analytic values).

/** Twiddles cos(2πk/n), sin(2πk/n) for k < n/2, per power-of-two n (few sizes occur). */
const twiddles = new Map<number, { cos: Float64Array; sin: Float64Array }>();

function twiddlesOf(n: number): { cos: Float64Array; sin: Float64Array } {
  let t = twiddles.get(n);
  if (!t) {
    const half = n >> 1;
    t = { cos: new Float64Array(half), sin: new Float64Array(half) };
    for (let k = 0; k < half; k++) {
      t.cos[k] = Math.cos((2 * Math.PI * k) / n);
      t.sin[k] = Math.sin((2 * Math.PI * k) / n);
    }
    if (twiddles.size > 64) twiddles.clear();
    twiddles.set(n, t);
  }
  return t;
}

const isPowerOfTwo = (n: number) => n > 0 && (n & (n - 1)) === 0;

export function nextPowerOfTwo(n: number): number {
  let p = 1;
  while (p < n) p *= 2;
  return p;
}

/** Iterative radix-2 transform in place; `n` a power of two. */
function radix2(re: Float64Array, im: Float64Array, inverse: boolean): void {
  const n = re.length;
  for (let i = 1, j = 0; i < n; i++) {
    let bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) {
      [re[i], re[j]] = [re[j], re[i]];
      [im[i], im[j]] = [im[j], im[i]];
    }
  }
  const { cos, sin } = twiddlesOf(n);
  const sign = inverse ? 1 : -1;
  for (let len = 2; len <= n; len <<= 1) {
    const half = len >> 1;
    const step = n / len;
    for (let start = 0; start < n; start += len) {
      for (let k = 0; k < half; k++) {
        const wr = cos[k * step];
        const wi = sign * sin[k * step];
        const a = start + k;
        const b = a + half;
        const tr = re[b] * wr - im[b] * wi;
        const ti = re[b] * wi + im[b] * wr;
        re[b] = re[a] - tr;
        im[b] = im[a] - ti;
        re[a] += tr;
        im[a] += ti;
      }
    }
  }
}

/**
 * Bluestein: 2jk = j² + k² − (k − j)², so X_k = w_k · Σ_j (x_j·w_j)·conj(w_{k−j}) with
 * w_k = e^(∓iπk²/n), a convolution done with power-of-two transforms.
 */
function bluestein(re: Float64Array, im: Float64Array, inverse: boolean): void {
  const n = re.length;
  const m = nextPowerOfTwo(2 * n - 1);
  const sign = inverse ? 1 : -1;
  const wr = new Float64Array(n);
  const wi = new Float64Array(n);
  for (let k = 0; k < n; k++) {
    // k² mod 2n keeps the angle small (exact: k² < 2^53 for any length tfgate allows).
    const angle = (Math.PI * ((k * k) % (2 * n))) / n;
    wr[k] = Math.cos(angle);
    wi[k] = sign * Math.sin(angle);
  }
  const ar = new Float64Array(m);
  const ai = new Float64Array(m);
  for (let k = 0; k < n; k++) {
    ar[k] = re[k] * wr[k] - im[k] * wi[k];
    ai[k] = re[k] * wi[k] + im[k] * wr[k];
  }
  const br = new Float64Array(m);
  const bi = new Float64Array(m);
  br[0] = wr[0];
  bi[0] = -wi[0];
  for (let k = 1; k < n; k++) {
    br[k] = br[m - k] = wr[k];
    bi[k] = bi[m - k] = -wi[k];
  }
  radix2(ar, ai, false);
  radix2(br, bi, false);
  for (let k = 0; k < m; k++) {
    const r = ar[k] * br[k] - ai[k] * bi[k];
    ai[k] = ar[k] * bi[k] + ai[k] * br[k];
    ar[k] = r;
  }
  radix2(ar, ai, true);
  for (let k = 0; k < n; k++) {
    const cr = ar[k] / m;
    const ci = ai[k] / m;
    re[k] = cr * wr[k] - ci * wi[k];
    im[k] = cr * wi[k] + ci * wr[k];
  }
}

/** In place: X_k = Σ_j x_j·e^(∓2πi·jk/n) (− forward, + inverse), not scaled. */
export function dft(re: Float64Array, im: Float64Array, inverse: boolean): void {
  const n = re.length;
  if (n <= 1) return;
  if (isPowerOfTwo(n)) radix2(re, im, inverse);
  else bluestein(re, im, inverse);
}

/**
 * Transforms a row-major block of `shape` along each of `axes` (each line gathered, transformed
 * and put back), in place.
 */
export function dftAxes(re: Float64Array, im: Float64Array, shape: readonly number[], axes: readonly number[], inverse: boolean): void {
  for (const axis of axes) {
    const len = shape[axis];
    if (len <= 1) continue;
    const inner = shape.slice(axis + 1).reduce((a, b) => a * b, 1);
    const outer = shape.slice(0, axis).reduce((a, b) => a * b, 1);
    const lineRe = new Float64Array(len);
    const lineIm = new Float64Array(len);
    for (let o = 0; o < outer; o++) {
      for (let i = 0; i < inner; i++) {
        const base = o * len * inner + i;
        for (let k = 0; k < len; k++) {
          lineRe[k] = re[base + k * inner];
          lineIm[k] = im[base + k * inner];
        }
        dft(lineRe, lineIm, inverse);
        for (let k = 0; k < len; k++) {
          re[base + k * inner] = lineRe[k];
          im[base + k * inner] = lineIm[k];
        }
      }
    }
  }
}
