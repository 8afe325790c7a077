// TensorFlow's DecodeWav (core/kernels/decode_wav_op.cc): a scalar string of WAV bytes →
// audio [samples, channels] float32 in [-1, 1) and the header's sample_rate. desired_samples
// crops or pads with zeros; desired_channels drops channels past it or repeats the last one
// (-1 for either: as the file has). The speech-commands graphs decode their `wav_data` input
// with it (desired_channels 1, desired_samples the clip length).
import tf from '../../../tfjs_packages/tfjs_core.cjs';
import type * as tfconv from '@tensorflow/tfjs-converter';
import { invalidArgument } from '../../../../errors/status.js';
import type { NodeDef } from '../../../../savedmodel/graph/types.js';
import { checkOutputElements, fixedOutputProblem } from '../output_bound.js';
import { stringElements } from '../string/string_tensors.js';
import { shapeText } from '../spectral/complex_tensors.js';
import { decodeLin16Wav } from './wav.js';

const intAttr = (a: unknown, dflt: number) => (a === undefined || a === null ? dflt : Number(a));

export const decodeWavOp: tfconv.OpExecutor = (node) => {
  const contents = node.inputs[0];
  if (contents.rank !== 0) throw invalidArgument(`contents must be scalar, got shape ${shapeText(contents.shape)}`);
  const desiredChannels = intAttr(node.attrs.desired_channels, -1);
  const desiredSamples = intAttr(node.attrs.desired_samples, -1);
  const wav = decodeLin16Wav(stringElements(contents, 'contents')[0]);
  if (desiredChannels < -1) throw invalidArgument(`desired_channels must be >= -1, got ${desiredChannels}`);
  if (desiredSamples < -1) throw invalidArgument(`desired_samples must be >= -1, got ${desiredSamples}`);
  // C++ int32: counts from the header wrap as they do in TF.
  const samples = desiredSamples === -1 ? wav.frames | 0 : desiredSamples;
  const channels = desiredChannels === -1 ? wav.channels : desiredChannels;
  if (samples < 0) throw invalidArgument(`Output sample count must be >= 0, got ${samples}`);
  checkOutputElements('DecodeWav', [samples, channels]);
  const audio = new Float32Array(samples * channels);
  const frames = Math.min(samples, wav.frames);
  for (let s = 0; s < frames; s++) {
    for (let c = 0; c < channels; c++) audio[s * channels + c] = wav.samples[s * wav.channels + Math.min(c, wav.channels - 1)];
  }
  return [tf.tensor(audio, [samples, channels], 'float32'), tf.scalar(wav.sampleRate | 0, 'int32')];
};

/** TF's shape function refuses negative sizes other than -1 when the graph is built. */
export function decodeWavNodeProblem(node: NodeDef): string | null {
  const channels = Number(node.attr?.desired_channels?.i ?? -1);
  const samples = Number(node.attr?.desired_samples?.i ?? -1);
  if (channels < -1) return `channels must be non-negative, got ${channels}`;
  if (samples < -1) return `samples must be non-negative, got ${samples}`;
  // Both fixed: the output's size is the graph's, and past the bound every request would fail.
  return samples >= 0 && channels >= 0 ? fixedOutputProblem([samples, channels]) : null;
}
