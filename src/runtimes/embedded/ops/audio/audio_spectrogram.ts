// TensorFlow's AudioSpectrogram (core/kernels/spectrogram_op.cc over spectrogram.cc): audio
// [samples, channels] → [channels, frames, fft_length/2 + 1], where a frame is `window_size`
// samples every `stride`, times a periodic Hann window 0.5 − 0.5·cos(2πi/window_size), zero
// padded to fft_length = the next power of two ≥ window_size, and each bin is re² + im² (or
// its float square root unless magnitude_squared). As in TF the window, the transform and
// re² + im² are computed in double, then rounded to float.
import tf from '../../../tfjs_packages/tfjs_core.cjs';
import type * as tfconv from '@tensorflow/tfjs-converter';
import { invalidArgument } from '../../../../errors/status.js';
import type { NodeDef } from '../../../../savedmodel/graph/types.js';
import { checkOutputElements, MAX_TRANSFORM_ELEMENTS } from '../output_bound.js';
import { shapeText } from '../spectral/complex_tensors.js';
import { dft, nextPowerOfTwo } from '../spectral/dft.js';

/** The window TF's GetPeriodicHann computes (its π is atan(1)·4, Math.PI). */
function periodicHann(length: number): Float64Array {
  const w = new Float64Array(length);
  for (let i = 0; i < length; i++) w[i] = 0.5 - 0.5 * Math.cos((2 * Math.PI * i) / length);
  return w;
}

function spectrogram(audio: tf.Tensor, windowSize: number, stride: number, magnitudeSquared: boolean): tf.Tensor {
  if (audio.rank !== 2) throw invalidArgument(`input must be 2-dimensional${shapeText(audio.shape)}`);
  const [samples, channels] = audio.shape;
  const fftLength = nextPowerOfTwo(windowSize);
  const bins = 1 + fftLength / 2;
  const frames = samples < windowSize ? 0 : 1 + Math.floor((samples - windowSize) / stride);
  const outShape = [channels, frames, bins];
  checkOutputElements('AudioSpectrogram', outShape);
  const out = new Float32Array(channels * frames * bins);
  const x = audio.dataSync() as Float32Array;
  const window = periodicHann(windowSize);
  const re = new Float64Array(fftLength);
  const im = new Float64Array(fftLength);
  for (let c = 0; c < channels; c++) {
    for (let f = 0; f < frames; f++) {
      re.fill(0);
      im.fill(0);
      for (let j = 0; j < windowSize; j++) re[j] = x[(f * stride + j) * channels + c] * window[j];
      dft(re, im, false);
      const at = (c * frames + f) * bins;
      for (let k = 0; k < bins; k++) {
        const power = Math.fround(re[k] * re[k] + im[k] * im[k]);
        out[at + k] = magnitudeSquared ? power : Math.sqrt(power);
      }
    }
  }
  return tf.tensor(out, outShape, 'float32');
}

export const audioSpectrogramOp: tfconv.OpExecutor = (node) => {
  const a = node.attrs as { window_size?: number; stride?: number; magnitude_squared?: boolean };
  return [spectrogram(node.inputs[0], Number(a.window_size), Number(a.stride), a.magnitude_squared === true)];
};

/** TF's kernel constructor checks. */
export function audioSpectrogramNodeProblem(node: NodeDef): string | null {
  const windowSize = Number(node.attr?.window_size?.i);
  const stride = Number(node.attr?.stride?.i);
  if (!(windowSize > 1)) return `window_size must be > 1, got ${node.attr?.window_size?.i}`;
  if (!(stride > 0)) return `stride must be > 0, got ${node.attr?.stride?.i}`;
  if (nextPowerOfTwo(windowSize) > MAX_TRANSFORM_ELEMENTS)
    return `window_size ${windowSize}: tfgate computes transforms of at most ${MAX_TRANSFORM_ELEMENTS} elements`;
  return null;
}
