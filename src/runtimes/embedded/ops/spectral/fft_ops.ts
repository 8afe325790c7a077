// TensorFlow's FFT ops (core/kernels/fft_ops.cc over DUCC): FFT/IFFT, FFT2D/IFFT2D, FFT3D/IFFT3D
// on complex64 tensors, RFFT/IRFFT (and 2D, 3D) between float32 and complex64, over the
// innermost 1, 2 or 3 axes. tfjs-converter maps FFT, IFFT, RFFT and IRFFT only, and reads no
// fft_length (it transforms the whole axis: a cropped RFFT answered the wrong bins) and the
// WASM backend has no FFT kernels; tfgate computes all of them, with TF's semantics:
//   - RFFT: the input's transformed axes must each hold at least fft_length[i] elements (the
//     Python wrappers pad a shorter input in the graph); longer ones are cropped; the innermost
//     output axis holds fft_length/2 + 1 bins.
//   - IRFFT: the innermost input axis must hold at least fft_length/2 + 1 bins (cropped to
//     that); the imaginary parts of the DC bin, and of the Nyquist bin for an even length, are
//     ignored, as a c2r transform does; the result is scaled by 1/∏fft_length.
//   - IFFT scales by 1/∏n; FFT does not scale.
// Computed in double (dft.ts) and rounded once to float32.
import tf from '../../../tfjs_packages/tfjs_core.cjs';
import type * as tfconv from '@tensorflow/tfjs-converter';
import { invalidArgument } from '../../../../errors/status.js';
import type { NodeDef } from '../../../../savedmodel/graph/types.js';
import { checkOutputElements, checkWorkBound, MAX_TRANSFORM_ELEMENTS } from '../output_bound.js';
import { complexParts, complexTensor, shapeText } from './complex_tensors.js';
import { dftAxes } from './dft.js';

interface FftKind {
  rank: number;
  forward: boolean;
  /** RFFT/IRFFT: a float32 side and an fft_length input. */
  real: boolean;
}

export const FFT_KINDS: Readonly<Record<string, FftKind>> = {
  FFT: { rank: 1, forward: true, real: false },
  IFFT: { rank: 1, forward: false, real: false },
  FFT2D: { rank: 2, forward: true, real: false },
  IFFT2D: { rank: 2, forward: false, real: false },
  FFT3D: { rank: 3, forward: true, real: false },
  IFFT3D: { rank: 3, forward: false, real: false },
  RFFT: { rank: 1, forward: true, real: true },
  IRFFT: { rank: 1, forward: false, real: true },
  RFFT2D: { rank: 2, forward: true, real: true },
  IRFFT2D: { rank: 2, forward: false, real: true },
  RFFT3D: { rank: 3, forward: true, real: true },
  IRFFT3D: { rank: 3, forward: false, real: true },
};

const product = (xs: readonly number[]) => xs.reduce((a, b) => a * b, 1);

/** Row-major strides of `shape`. */
const stridesOf = (shape: readonly number[]) => shape.map((_, i) => product(shape.slice(i + 1)));

/**
 * Copies the leading corner of a `from`-shaped block into a `to`-shaped one (each `to` dim ≤
 * the `from` dim, the rest left zero), for each of `batch` blocks.
 */
function copyCorner(src: ArrayLike<number>, from: readonly number[], dst: Float64Array, to: readonly number[], batch: number): void {
  const fromSize = product(from);
  const toSize = product(to);
  const fromStrides = stridesOf(from);
  const index = new Array<number>(to.length).fill(0);
  for (let b = 0; b < batch; b++) {
    if (toSize === 0) break;
    index.fill(0);
    for (let j = 0; j < toSize; j++) {
      let s = 0;
      for (let d = 0; d < to.length; d++) s += index[d] * fromStrides[d];
      dst[b * toSize + j] = src[b * fromSize + s];
      for (let d = to.length - 1; d >= 0; d--) {
        if (++index[d] < to[d]) break;
        index[d] = 0;
      }
    }
  }
}

interface FftShapes {
  /** Leading (batch) dims, ∏. */
  batch: number;
  /** The transform's lengths (fft_length for RFFT/IRFFT, the input's dims for FFT). */
  n: number[];
  outShape: number[];
}

/** TF's FFTBase::Compute checks and output shape. */
function fftShapes(op: string, kind: FftKind, inShape: readonly number[], fftLength: tf.Tensor | undefined): FftShapes {
  const k = kind.rank;
  if (inShape.length < k) throw invalidArgument(`Input must have rank of at least ${k} but got: ${shapeText(inShape)}`);
  const outShape = [...inShape];
  let n: number[];
  if (kind.real) {
    if (!fftLength || fftLength.rank !== 1 || fftLength.shape[0] !== k) throw invalidArgument(`fft_length must have shape [${k}]`);
    const lengths = Array.from(fftLength.dataSync(), Number);
    n = [];
    lengths.forEach((len, i) => {
      if (len < 0) throw invalidArgument(`fft_length[${i}] must >= 0, but got: ${len}`);
      const innermost = i === k - 1;
      const minimum = !kind.forward && innermost ? Math.floor(len / 2) + 1 : len;
      const at = inShape.length - k + i;
      if (!(inShape[at] === 0 || inShape[at] >= minimum))
        throw invalidArgument(`Input dimension ${at} must have length of at least ${minimum} but got: ${inShape[at]}`);
      outShape[at] = kind.forward && innermost && len !== 0 ? Math.floor(len / 2) + 1 : len;
      n.push(len);
    });
  } else n = inShape.slice(inShape.length - k);
  checkOutputElements(op, outShape);
  checkWorkBound(op, product(n), MAX_TRANSFORM_ELEMENTS, 'the elements of one transform');
  return { batch: product(inShape.slice(0, inShape.length - k)), n, outShape };
}

/** RFFT*: the cropped real block transformed, the innermost axis kept to n/2 + 1 bins. */
function realForward(x: tf.Tensor, s: FftShapes, k: number): tf.Tensor {
  const inner = x.shape.slice(x.rank - k);
  const size = product(s.n);
  const outInner = s.outShape.slice(s.outShape.length - k);
  const outSize = product(outInner);
  const re = new Float32Array(s.batch * outSize);
  const im = new Float32Array(s.batch * outSize);
  if (size > 0 && product(inner) > 0) {
    const blockRe = new Float64Array(s.batch * size);
    copyCorner(x.dataSync() as Float32Array, inner, blockRe, s.n, s.batch);
    const lineRe = new Float64Array(size);
    const lineIm = new Float64Array(size);
    const keep = new Float64Array(outSize);
    for (let b = 0; b < s.batch; b++) {
      lineRe.set(blockRe.subarray(b * size, (b + 1) * size));
      lineIm.fill(0);
      dftAxes(
        lineRe,
        lineIm,
        s.n,
        s.n.map((_, i) => i),
        false,
      );
      copyCorner(lineRe, s.n, keep, outInner, 1);
      re.set(keep, b * outSize);
      copyCorner(lineIm, s.n, keep, outInner, 1);
      im.set(keep, b * outSize);
    }
  }
  return complexTensor({ re, im }, s.outShape);
}

/** FFT and IFFT (1–3D): complex to complex over the innermost k axes. */
function complexTransform(x: tf.Tensor, s: FftShapes, k: number, forward: boolean): tf.Tensor {
  const { re: inRe, im: inIm } = complexParts(x, 'input');
  const size = product(s.n);
  const re = new Float32Array(inRe.length);
  const im = new Float32Array(inIm.length);
  const lineRe = new Float64Array(size);
  const lineIm = new Float64Array(size);
  const scale = forward ? 1 : 1 / size;
  for (let b = 0; b < s.batch && size > 0; b++) {
    lineRe.set(inRe.subarray(b * size, (b + 1) * size));
    lineIm.set(inIm.subarray(b * size, (b + 1) * size));
    dftAxes(
      lineRe,
      lineIm,
      s.n,
      Array.from({ length: k }, (_, i) => i),
      !forward,
    );
    for (let j = 0; j < size; j++) {
      re[b * size + j] = lineRe[j] * scale;
      im[b * size + j] = lineIm[j] * scale;
    }
  }
  return complexTensor({ re, im }, s.outShape);
}

/** IRFFT*: the other axes inverse-transformed on the half spectrum, then c2r on the innermost. */
function realInverse(x: tf.Tensor, s: FftShapes, k: number): tf.Tensor {
  const out = new Float32Array(product(s.outShape));
  const size = product(s.n);
  const inner = x.shape.slice(x.rank - k);
  const last = s.n[k - 1];
  const half = Math.floor(last / 2) + 1;
  const halfShape = [...s.n.slice(0, k - 1), half];
  const halfSize = product(halfShape);
  if (size > 0 && product(inner) > 0) {
    const { re: inRe, im: inIm } = complexParts(x, 'input');
    const blockRe = new Float64Array(s.batch * halfSize);
    const blockIm = new Float64Array(s.batch * halfSize);
    copyCorner(inRe, inner, blockRe, halfShape, s.batch);
    copyCorner(inIm, inner, blockIm, halfShape, s.batch);
    const lines = halfSize / half;
    const fullRe = new Float64Array(last);
    const fullIm = new Float64Array(last);
    for (let b = 0; b < s.batch; b++) {
      const hRe = blockRe.subarray(b * halfSize, (b + 1) * halfSize);
      const hIm = blockIm.subarray(b * halfSize, (b + 1) * halfSize);
      dftAxes(
        hRe,
        hIm,
        halfShape,
        Array.from({ length: k - 1 }, (_, i) => i),
        true,
      );
      for (let line = 0; line < lines; line++) {
        // The Hermitian line: X[n − j] = conj(X[j]); DC (and Nyquist, n even) real only.
        fullRe.fill(0);
        fullIm.fill(0);
        for (let j = 0; j < half; j++) {
          const r = hRe[line * half + j];
          const i = hIm[line * half + j];
          fullRe[j] = r;
          fullIm[j] = i;
          if (j > 0 && last - j !== j) {
            fullRe[last - j] = r;
            fullIm[last - j] = -i;
          }
        }
        fullIm[0] = 0;
        if (last % 2 === 0) fullIm[last / 2] = 0;
        dftAxes(fullRe, fullIm, [last], [0], true);
        for (let j = 0; j < last; j++) out[b * size + line * last + j] = fullRe[j] / size;
      }
    }
  }
  return tf.tensor(out, s.outShape, 'float32');
}

/** The executor of FFT op `op`. */
export function fftExecutor(op: string): tfconv.OpExecutor {
  const kind = FFT_KINDS[op];
  return (node) => {
    const [x, fftLength] = node.inputs;
    const s = fftShapes(op, kind, x.shape, kind.real ? fftLength : undefined);
    if (!kind.real) return [complexTransform(x, s, kind.rank, kind.forward)];
    return [kind.forward ? realForward(x, s, kind.rank) : realInverse(x, s, kind.rank)];
  };
}

const typeAttr = (node: NodeDef, name: string, dflt: string) => String(node.attr?.[name]?.type ?? dflt);

/** Load-time check: float32/complex64 only (TF.js holds float64 as float32 and has no complex128). */
export function fftNodeProblem(node: NodeDef): string | null {
  const kind = FFT_KINDS[node.op];
  const complex = typeAttr(node, 'Tcomplex', 'DT_COMPLEX64');
  if (complex !== 'DT_COMPLEX64') return `Tcomplex ${complex}: the embedded runtime computes complex64 only (TF.js has no complex128)`;
  if (kind.real) {
    const real = typeAttr(node, 'Treal', 'DT_FLOAT');
    if (real !== 'DT_FLOAT') return `Treal ${real}: the embedded runtime computes float32 only (it holds float64 as float32)`;
  }
  return null;
}
