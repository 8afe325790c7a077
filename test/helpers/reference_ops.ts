// Plain-JS reference computations for the kernel tests: written from the ops' definitions
// (loops over every index, float64 sums), sharing no code with TF.js or tfgate's ops.

/** Row-major strides of `shape`. */
const stridesOf = (shape: readonly number[]) => shape.map((_, i) => shape.slice(i + 1).reduce((a, b) => a * b, 1));
const size = (shape: readonly number[]) => shape.reduce((a, b) => a * b, 1);

export interface ConvRefOptions {
  strides: [number, number];
  dilations?: [number, number];
  /** SAME as TF defines it (kernel_shape_util.cc), or VALID. */
  padding: 'SAME' | 'VALID';
  /** Depthwise: filter [kh, kw, in, multiplier], output channel c*multiplier + m. */
  depthwise?: boolean;
}

/** NHWC conv2d / depthwise conv2d with an HWIO (or HWIM) filter. Returns [shape, values]. */
export function conv2dRef(
  x: ArrayLike<number>,
  xShape: number[],
  w: ArrayLike<number>,
  wShape: number[],
  o: ConvRefOptions,
): [number[], Float64Array] {
  const [n, h, wd, c] = xShape;
  const [kh, kw, , m] = wShape;
  const [sh, sw] = o.strides;
  const [dh, dw] = o.dilations ?? [1, 1];
  const dim = (inSize: number, k: number, s: number, d: number): [number, number] => {
    const eff = (k - 1) * d + 1;
    if (o.padding === 'VALID') return [Math.floor((inSize - eff) / s) + 1, 0];
    const out = Math.ceil(inSize / s);
    const total = Math.max(0, (out - 1) * s + eff - inSize);
    return [out, Math.floor(total / 2)];
  };
  const [oh, top] = dim(h, kh, sh, dh);
  const [ow, left] = dim(wd, kw, sw, dw);
  const oc = o.depthwise ? c * m : m;
  const out = new Float64Array(n * oh * ow * oc);
  for (let b = 0; b < n; b++)
    for (let i = 0; i < oh; i++)
      for (let j = 0; j < ow; j++)
        for (let q = 0; q < oc; q++) {
          let acc = 0;
          for (let p = 0; p < kh; p++)
            for (let r = 0; r < kw; r++) {
              const y = i * sh + p * dh - top;
              const xx = j * sw + r * dw - left;
              if (y < 0 || y >= h || xx < 0 || xx >= wd) continue;
              if (o.depthwise) {
                const ci = Math.floor(q / m);
                acc += x[((b * h + y) * wd + xx) * c + ci] * w[((p * kw + r) * c + ci) * m + (q % m)];
              } else {
                for (let ci = 0; ci < c; ci++) acc += x[((b * h + y) * wd + xx) * c + ci] * w[((p * kw + r) * c + ci) * m + q];
              }
            }
          out[((b * oh + i) * ow + j) * oc + q] = acc;
        }
  return [[n, oh, ow, oc], out];
}

/**
 * einsum by definition: for every assignment of the labels, multiply the operands' elements
 * and add into the output element. Equations with `...` are given with the ellipsis already
 * spelled out as labels by the caller (e.g. `...ij` over rank 4 as `xyij`), except that a
 * label may stand for a broadcast dimension of size 1 in one operand.
 */
export function einsumRef(
  equation: string,
  operands: Array<{ shape: number[]; values: ArrayLike<number> }>,
): { shape: number[]; values: Float64Array } {
  const [lhs, out] = equation.split('->');
  const subs = lhs.split(',');
  const sizes = new Map<string, number>();
  subs.forEach((s, i) => [...s].forEach((l, axis) => sizes.set(l, Math.max(sizes.get(l) ?? 1, operands[i].shape[axis]))));
  const labels = [...sizes.keys()];
  const outShape = [...out].map((l) => sizes.get(l)!);
  const result = new Float64Array(size(outShape));
  const outStrides = stridesOf(outShape);
  const opStrides = operands.map((o) => stridesOf(o.shape));
  const index = new Map<string, number>(labels.map((l) => [l, 0]));
  const total = size(labels.map((l) => sizes.get(l)!));
  for (let t = 0; t < total; t++) {
    let rest = t;
    for (let k = labels.length - 1; k >= 0; k--) {
      const s = sizes.get(labels[k])!;
      index.set(labels[k], rest % s);
      rest = Math.floor(rest / s);
    }
    let prod = 1;
    subs.forEach((s, i) => {
      let off = 0;
      [...s].forEach((l, axis) => (off += (operands[i].shape[axis] === 1 ? 0 : index.get(l)!) * opStrides[i][axis]));
      prod *= operands[i].values[off];
    });
    let o = 0;
    [...out].forEach((l, axis) => (o += index.get(l)! * outStrides[axis]));
    result[o] += prod;
  }
  return { shape: outShape, values: result };
}

/**
 * FakeQuant by TF's formula (fake_quant_ops_functor.h), element by element in float32;
 * `channels` ranges along the last dimension (one range: per-tensor). `divide`: …Vars form.
 */
export function fakeQuantRef(
  x: ArrayLike<number>,
  mins: number[],
  maxs: number[],
  numBits: number,
  narrowRange: boolean,
  divide = false,
): Float32Array {
  const f = Math.fround;
  const qmin = narrowRange ? 1 : 0;
  const qmax = 2 ** numBits - 1;
  const d = mins.length;
  const out = new Float32Array(x.length);
  for (let e = 0; e < x.length; e++) {
    const min = mins[e % d];
    const max = maxs[e % d];
    if (min === 0 && max === 0) continue;
    const scale = f(f(max - min) / (qmax - qmin));
    const inv = f((qmax - qmin) / f(max - min));
    const zpFromMin = f(qmin - f(min / scale));
    const zp = zpFromMin < qmin ? qmin : zpFromMin > qmax ? qmax : Math.round(zpFromMin);
    const nmin = f((qmin - zp) * scale);
    const nmax = f((qmax - zp) * scale);
    const qz = Math.floor(f(f(-nmin * inv) + 0.5));
    const clamped = Math.max(Math.min(f(x[e]), nmax), nmin);
    const shifted = f(clamped - nmin);
    const scaled = divide ? f(shifted / scale) : f(shifted * inv);
    out[e] = f(Math.floor(f(f(scaled - qz) + 0.5)) * scale);
  }
  return out;
}

/** ReverseSequence by its definition (reverse_sequence docs). */
export function reverseSequenceRef(
  x: ArrayLike<number>,
  shape: number[],
  lengths: number[],
  seqDim: number,
  batchDim: number,
): Float64Array {
  const st = stridesOf(shape);
  const out = new Float64Array(x.length);
  for (let e = 0; e < x.length; e++) {
    const idx = shape.map((_, a) => Math.floor(e / st[a]) % shape[a]);
    const len = lengths[idx[batchDim]];
    const src = [...idx];
    if (idx[seqDim] < len) src[seqDim] = len - 1 - idx[seqDim];
    out[e] = x[src.reduce((o, v, a) => o + v * st[a], 0)];
  }
  return out;
}

/** Deterministic values in [-2, 2). */
export const sample = (n: number, seed: number) =>
  Array.from({ length: n }, (_, i) => Math.fround(Math.sin(i * 12.9898 + seed * 78.233) * 2));
