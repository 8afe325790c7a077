// The `audio` op family (tensorflow/core/ops/audio_ops.cc): the speech-commands front end —
// DecodeWav (WAV bytes → samples), AudioSpectrogram, Mfcc — as TF computes them (its
// freeze.py exports wav_data → DecodeWav → AudioSpectrogram → Mfcc → the classifier).
// tfjs-converter has none of them.
import type { TfjsOpTable } from '../../../shared/tfjs_op_table.js';
import { audioSpectrogramNodeProblem, audioSpectrogramOp } from './audio_spectrogram.js';
import { decodeWavNodeProblem, decodeWavOp } from './decode_wav.js';
import { mfccNodeProblem, mfccOp } from './mfcc.js';

export const AUDIO_OPS: TfjsOpTable = {
  DecodeWav: { execute: decodeWavOp, check: decodeWavNodeProblem },
  AudioSpectrogram: { execute: audioSpectrogramOp, check: audioSpectrogramNodeProblem },
  Mfcc: { execute: mfccOp, check: mfccNodeProblem },
};
