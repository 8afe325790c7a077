// TensorFlow's Mfcc (core/kernels/mfcc_op.cc over mfcc.cc, mfcc_mel_filterbank.cc,
// mfcc_dct.cc): each spectrogram frame (squared magnitudes) → dct_coefficient_count
// coefficients. The mel filterbank (HTK style, mel = 1127·ln(1 + f/700), DC excluded) sums
// sqrt(bin) under triangles between lower_ and upper_frequency_limit; each channel's log
// (floored at 1e-12) goes through an orthonormal DCT-II, all in double as TF computes it, the
// results rounded to float. Where TF's filterbank logs "Input too short" and leaves its output
// empty (a spectrogram with too few bins for the upper limit), the coefficients are zeros, as
// TF's are.
import tf from '../../../tfjs_packages/tfjs_core.cjs';
import type * as tfconv from '@tensorflow/tfjs-converter';
import { invalidArgument } from '../../../../errors/status.js';
import type { NodeDef } from '../../../../savedmodel/graph/types.js';
import { checkOutputElements } from '../output_bound.js';
import { shapeText } from '../spectral/complex_tensors.js';

interface MfccParams {
  upperFrequencyLimit: number;
  lowerFrequencyLimit: number;
  filterbankChannelCount: number;
  dctCoefficientCount: number;
}

const FILTERBANK_FLOOR = 1e-12;
/** filterbank_channel_count × dct_coefficient_count: the DCT's table, built per request as TF builds it. */
const MAX_DCT_TABLE = 2 ** 22;

const freqToMel = (freq: number) => 1127.0 * Math.log1p(freq / 700.0);

/** MfccMelFilterbank::Initialize; null where TF's returns false. */
function melFilterbank(inputLength: number, sampleRate: number, p: MfccParams) {
  const channels = p.filterbankChannelCount;
  const lower = p.lowerFrequencyLimit;
  const upper = p.upperFrequencyLimit;
  if (channels < 1 || sampleRate <= 0 || inputLength < 2 || lower < 0 || upper <= lower) return null;
  const centers = new Float64Array(channels + 1);
  const melLow = freqToMel(lower);
  const melSpacing = (freqToMel(upper) - melLow) / (channels + 1);
  for (let i = 0; i < channels + 1; i++) centers[i] = melLow + melSpacing * (i + 1);
  const hzPerBin = (0.5 * sampleRate) / (inputLength - 1);
  const start = Math.trunc(1.5 + lower / hzPerBin);
  const end = Math.trunc(upper / hzPerBin);
  const bandMapper = new Int32Array(inputLength);
  let channel = 0;
  for (let i = 0; i < inputLength; i++) {
    const melf = freqToMel(i * hzPerBin);
    if (i < start || i > end) bandMapper[i] = -2;
    else {
      while (channel < channels && centers[channel] < melf) channel++;
      bandMapper[i] = channel - 1;
    }
  }
  const weights = new Float64Array(inputLength);
  for (let i = 0; i < inputLength; i++) {
    const c = bandMapper[i];
    if (i < start || i > end) weights[i] = 0;
    else if (c >= 0) weights[i] = (centers[c + 1] - freqToMel(i * hzPerBin)) / (centers[c + 1] - centers[c]);
    else weights[i] = (centers[0] - freqToMel(i * hzPerBin)) / (centers[0] - melLow);
  }
  return { start, end, bandMapper, weights, channels };
}

/** MfccDct::Initialize; null where TF's returns false. */
function dctTable(inputLength: number, coefficients: number): Float64Array[] | null {
  if (coefficients < 1 || inputLength < 1 || coefficients > inputLength) return null;
  const fnorm = Math.sqrt(2.0 / inputLength);
  const arg = Math.PI / inputLength;
  return Array.from({ length: coefficients }, (_, i) =>
    Float64Array.from({ length: inputLength }, (_, j) => fnorm * Math.cos(i * arg * (j + 0.5))),
  );
}

function mfcc(spectrogram: tf.Tensor, sampleRateT: tf.Tensor, p: MfccParams): tf.Tensor {
  if (spectrogram.rank !== 3) throw invalidArgument(`spectrogram must be 3-dimensional${shapeText(spectrogram.shape)}`);
  if (sampleRateT.rank !== 0)
    throw invalidArgument(`Input sample_rate should be a scalar tensor, got ${shapeText(sampleRateT.shape)} instead.`);
  const sampleRate = Number(sampleRateT.dataSync()[0]);
  const [audioChannels, frames, bins] = spectrogram.shape;
  const bank = melFilterbank(bins, sampleRate, p);
  const dct = dctTable(p.filterbankChannelCount, p.dctCoefficientCount);
  if (!bank || !dct) throw invalidArgument(`Mfcc initialization failed for channel count ${bins} and sample rate ${sampleRate}`);
  const outShape = [audioChannels, frames, p.dctCoefficientCount];
  checkOutputElements('Mfcc', outShape);
  const out = new Float32Array(audioChannels * frames * p.dctCoefficientCount);
  const x = spectrogram.dataSync() as Float32Array;
  const working = new Float64Array(bank.channels);
  for (let f = 0; f < audioChannels * frames; f++) {
    // TF: an input no longer than end_index leaves the filterbank output empty, so the DCT sums nothing.
    if (bins <= bank.end) continue;
    working.fill(0);
    for (let i = bank.start; i <= bank.end; i++) {
      const spec = Math.sqrt(x[f * bins + i]);
      const weighted = spec * bank.weights[i];
      let c = bank.bandMapper[i];
      if (c >= 0) working[c] += weighted;
      c++;
      if (c < bank.channels) working[c] += spec - weighted;
    }
    for (let c = 0; c < bank.channels; c++) working[c] = Math.log(working[c] < FILTERBANK_FLOOR ? FILTERBANK_FLOOR : working[c]);
    for (let i = 0; i < p.dctCoefficientCount; i++) {
      let sum = 0;
      for (let j = 0; j < bank.channels; j++) sum += dct[i][j] * working[j];
      out[f * p.dctCoefficientCount + i] = sum;
    }
  }
  return tf.tensor(out, outShape, 'float32');
}

const paramsOf = (a: Record<string, unknown>): MfccParams => ({
  upperFrequencyLimit: Number(a.upper_frequency_limit ?? 4000),
  lowerFrequencyLimit: Number(a.lower_frequency_limit ?? 20),
  filterbankChannelCount: Number(a.filterbank_channel_count ?? 40),
  dctCoefficientCount: Number(a.dct_coefficient_count ?? 13),
});

export const mfccOp: tfconv.OpExecutor = (node) => [mfcc(node.inputs[0], node.inputs[1], paramsOf(node.attrs))];

/**
 * What fails every request in TF (its Initialize checks the attributes with the input's
 * length and rate, at each run) is refused at load here, with TF's reason.
 */
export function mfccNodeProblem(node: NodeDef): string | null {
  const a = node.attr ?? {};
  const p = paramsOf({
    upper_frequency_limit: a.upper_frequency_limit?.f,
    lower_frequency_limit: a.lower_frequency_limit?.f,
    filterbank_channel_count: a.filterbank_channel_count?.i,
    dct_coefficient_count: a.dct_coefficient_count?.i,
  });
  const failed = 'TF fails every request (Mfcc initialization failed)';
  if (p.filterbankChannelCount < 1)
    return `filterbank_channel_count ${p.filterbankChannelCount}: Number of filterbank channels must be positive; ${failed}`;
  if (p.lowerFrequencyLimit < 0)
    return `lower_frequency_limit ${p.lowerFrequencyLimit}: Lower frequency limit must be nonnegative; ${failed}`;
  if (!(p.upperFrequencyLimit > p.lowerFrequencyLimit))
    return `upper_frequency_limit ${p.upperFrequencyLimit}: Upper frequency limit must be greater than lower frequency limit; ${failed}`;
  if (p.dctCoefficientCount < 1) return `dct_coefficient_count ${p.dctCoefficientCount}: Coefficient count must be positive; ${failed}`;
  if (p.dctCoefficientCount > p.filterbankChannelCount) {
    return `dct_coefficient_count ${p.dctCoefficientCount} > filterbank_channel_count ${p.filterbankChannelCount}: Coefficient count must be less than or equal to input length; ${failed}`;
  }
  if (p.dctCoefficientCount * p.filterbankChannelCount > MAX_DCT_TABLE)
    return `a DCT of ${p.dctCoefficientCount} × ${p.filterbankChannelCount}: more than tfgate computes (${MAX_DCT_TABLE})`;
  return null;
}
