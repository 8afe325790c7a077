// Audio ops (tensorflow/core/ops/audio_ops.cc): the speech-commands front end, DecodeWav →
// AudioSpectrogram → Mfcc. Values from TF's kernel tests (tensorflow/core/kernels/
// decode_wav_op_test.cc, spectrogram_op_test.cc, mfcc_op_test.cc, core/lib/wav/wav_io_test.cc)
// and, where a test states a tolerance only, TF's exact arithmetic (wav_io.cc scales a sample
// by 1/32768).
import { Code } from '../../../../src/errors/status.js';
import { attr } from '../../../../test_util/savedmodel/writer/graph_builder.js';
import type { HostTensor } from '../../../../src/tensor/host_tensor.js';
import { f32, failsAtRun, i32, konst, refusedAtLoad, str, type OpCase, type OpFamilyCases } from '../op_case.js';

const AUDIO_REGISTRATIONS = [
  `REGISTER_OP("DecodeWav")
    .Input("contents: string")
    .Attr("desired_channels: int = -1")
    .Attr("desired_samples: int = -1")
    .Output("audio: float")
    .Output("sample_rate: int32")`,
  `REGISTER_OP("AudioSpectrogram")
    .Input("input: float")
    .Attr("window_size: int")
    .Attr("stride: int")
    .Attr("magnitude_squared: bool = false")
    .Output("spectrogram: float")`,
  `REGISTER_OP("Mfcc")
    .Input("spectrogram: float")
    .Input("sample_rate: int32")
    .Attr("upper_frequency_limit: float = 4000")
    .Attr("lower_frequency_limit: float = 20")
    .Attr("filterbank_channel_count: int = 40")
    .Attr("dct_coefficient_count: int = 13")
    .Output("output: float")`,
];

const DECODE_TEST = 'tensorflow/core/kernels/decode_wav_op_test.cc@1324aaf4';
const WAV_IO_TEST = 'tensorflow/core/lib/wav/wav_io_test.cc@09272db3';
const WAV_IO = 'tensorflow/core/lib/wav/wav_io.cc@06f3c933';
const SPECTROGRAM_TEST = 'tensorflow/core/kernels/spectrogram_op_test.cc@0d7247fd';
const MFCC_TEST = 'tensorflow/core/kernels/mfcc_op_test.cc@1538548d';
const MFCC_GOLDEN = 'tensorflow/core/kernels/mfcc_test.cc@1b5235fd';

const ascii = (s: string) => Array.from(s, (c) => c.charCodeAt(0));
const u32 = (v: number) => [v & 0xff, (v >>> 8) & 0xff, (v >>> 16) & 0xff, (v >>> 24) & 0xff];
const u16 = (v: number) => [v & 0xff, (v >>> 8) & 0xff];

/** A RIFF/WAVE file: a 16-byte fmt chunk (fields overridable) and a data chunk of int16 samples. */
export function wavBytes(
  samples: readonly number[],
  o: { channels?: number; rate?: number; bits?: number; blockAlign?: number; byteRate?: number } = {},
): Uint8Array {
  const channels = o.channels ?? 1;
  const rate = o.rate ?? 16000;
  const blockAlign = o.blockAlign ?? 2 * channels;
  const data = samples.flatMap((s) => u16(s & 0xffff));
  return Uint8Array.from([
    ...ascii('RIFF'),
    ...u32(36 + data.length),
    ...ascii('WAVE'),
    ...ascii('fmt '),
    ...u32(16),
    ...u16(1),
    ...u16(channels),
    ...u32(rate),
    ...u32(o.byteRate ?? rate * blockAlign),
    ...u16(blockAlign),
    ...u16(o.bits ?? 16),
    ...ascii('data'),
    ...u32(data.length),
    ...data,
  ]);
}

// decode_wav_op_test.cc's file: mono, 14099 Hz, samples 0, 16383, 32767, -32768.
const TEST_WAV = Uint8Array.from([
  ...ascii('RIFF'),
  44,
  0,
  0,
  0,
  ...ascii('WAVEfmt '),
  16,
  0,
  0,
  0,
  1,
  0,
  1,
  0,
  0x13,
  0x37,
  0,
  0,
  0x26,
  0x6e,
  0,
  0,
  2,
  0,
  16,
  0,
  ...ascii('data'),
  8,
  0,
  0,
  0,
  0,
  0,
  0xff,
  0x3f,
  0xff,
  0x7f,
  0x00,
  0x80,
]);
// The same with a 28-byte JUNK chunk before "fmt " (DecodeWavWithJunkChunkTest).
const JUNK_WAV = Uint8Array.from([
  ...TEST_WAV.subarray(0, 12),
  ...ascii('JUNK'),
  28,
  0,
  0,
  0,
  ...new Array<number>(28).fill(0),
  ...TEST_WAV.subarray(12),
]);
// TF's exact values: Int16SampleToFloat is sample × (1 / 32768).
const TEST_SAMPLES = [0, 16383 / 32768, 32767 / 32768, -1];
// wav_io_test.cc BasicStereo: two frames of (0, 32767) and (0, -32768).
const STEREO_WAV = wavBytes([0, 32767, 0, -32768], { channels: 2, rate: 44100 });

const decode = (name: string, source: string, wav: Uint8Array | HostTensor, want: OpCase['want'], attrs: OpCase['attrs'] = {}): OpCase => ({
  name,
  source,
  op: 'DecodeWav',
  attrs,
  inputs: [wav instanceof Uint8Array ? str([], [wav]) : wav],
  want,
});

const DECODE_WAV_CASES: OpCase[] = [
  decode(
    'mono 16-bit PCM: [0, 0.5, 1, -1] (0, 16383, 32767, -32768 / 32768), sample_rate 14099',
    `${DECODE_TEST} DecodeWavTest; ${WAV_IO} Int16SampleToFloat`,
    TEST_WAV,
    {
      audio: f32([4, 1], TEST_SAMPLES),
      sample_rate: i32([], [14099]),
    },
  ),
  decode('a JUNK chunk before "fmt " is skipped', `${DECODE_TEST} DecodeWavWithJunkChunkTest`, JUNK_WAV, {
    audio: f32([4, 1], TEST_SAMPLES),
    sample_rate: i32([], [14099]),
  }),
  decode(
    'desired_samples 6 pads with zeros',
    `${DECODE_TEST}; api_def DecodeWav ("cropped or padded with zeroes")`,
    TEST_WAV,
    { audio: f32([6, 1], [...TEST_SAMPLES, 0, 0]) },
    { desired_samples: attr.i(6) },
  ),
  decode(
    'desired_samples 2 crops',
    `${DECODE_TEST}; api_def DecodeWav`,
    TEST_WAV,
    { audio: f32([2, 1], TEST_SAMPLES.slice(0, 2)) },
    { desired_samples: attr.i(2) },
  ),
  decode(
    'desired_channels 2 on a mono file repeats the last channel',
    'api_def DecodeWav ("the last channel will be duplicated")',
    TEST_WAV,
    {
      audio: f32(
        [4, 2],
        TEST_SAMPLES.flatMap((s) => [s, s]),
      ),
    },
    { desired_channels: attr.i(2) },
  ),
  decode('a stereo file: [frames, channels]', `${WAV_IO_TEST} BasicStereo`, STEREO_WAV, {
    audio: f32([2, 2], [0, 32767 / 32768, 0, -1]),
    sample_rate: i32([], [44100]),
  }),
  decode(
    'desired_channels 1 on a stereo file keeps the first channel',
    'api_def DecodeWav ("the additional channels will be ignored")',
    STEREO_WAV,
    { audio: f32([2, 1], [0, 0]) },
    { desired_channels: attr.i(1) },
  ),
  decode(
    "not RIFF: TF's message",
    `${WAV_IO} ExpectText`,
    Uint8Array.from([...ascii('RIFX'), ...TEST_WAV.subarray(4)]),
    failsAtRun('Header mismatch: Expected RIFF but found RIFX'),
  ),
  decode(
    "8-bit samples: TF's message",
    `${WAV_IO} DecodeLin16WaveAsFloatVector`,
    wavBytes([0, 1], { bits: 8 }),
    failsAtRun('Can only read 16-bit WAV files, but received 8'),
  ),
  decode(
    "a format other than PCM: TF's message (no space before the number, as TF writes it)",
    `${WAV_IO} DecodeLin16WaveAsFloatVector`,
    Uint8Array.from([...TEST_WAV.subarray(0, 20), 3, 0, ...TEST_WAV.subarray(22)]),
    failsAtRun('Bad audio format for WAV: Expected 1 (PCM), but got3'),
  ),
  decode(
    "a block align that is not 2 × channels: TF's message",
    `${WAV_IO} DecodeLin16WaveAsFloatVector`,
    wavBytes([0, 1], { blockAlign: 4, byteRate: 32000 }),
    failsAtRun('Bad bytes per sample in WAV header: Expected 2 but got 4'),
  ),
  decode(
    "a data chunk shorter than its size: TF's message",
    `${WAV_IO} IncrementOffset`,
    TEST_WAV.subarray(0, TEST_WAV.length - 4),
    failsAtRun('Data too short when trying to read string'),
  ),
  decode(
    "no data chunk: TF's message",
    `${WAV_IO} DecodeLin16WaveAsFloatVector`,
    TEST_WAV.subarray(0, 36),
    failsAtRun('No data chunk found in WAV'),
  ),
  decode(
    "a chunk size over 2^31 − 1: TF's message",
    `${WAV_IO_TEST} ChunkSizeOverflow`,
    Uint8Array.from([
      ...wavBytes([0, 32767, 0, -32768], { rate: 44100 }),
      ...ascii('fooo'),
      0xff,
      0xff,
      0xff,
      0xf8,
      0,
      0,
      0xff,
      0x7f,
      0,
      0,
      0x00,
      0x80,
    ]),
    failsAtRun("WAV data chunk 'fooo' is too large: 4177526783 bytes, but the limit is 2147483647"),
  ),
  decode(
    'contents must be a scalar',
    'tensorflow/core/kernels/decode_wav_op.cc',
    str([1], [TEST_WAV]),
    failsAtRun('contents must be scalar, got shape [1]'),
  ),
  decode(
    'desired_channels −2 is refused when the graph is built',
    `${DECODE_TEST} DecodeWav_ShapeFn`,
    TEST_WAV,
    refusedAtLoad(/DecodeWav \(node DecodeWav: channels must be non-negative, got -2\)/),
    { desired_channels: attr.i(-2) },
  ),
  decode(
    'desired_samples −2 is refused when the graph is built',
    `${DECODE_TEST} DecodeWav_ShapeFn`,
    TEST_WAV,
    refusedAtLoad(/DecodeWav \(node DecodeWav: samples must be non-negative, got -2\)/),
    { desired_samples: attr.i(-2) },
  ),
  decode(
    'desired_samples 2^27 with desired_channels 1 would fail every request on the bound: refused at load',
    "tfgate's bound on one op output (src/runtimes/embedded/ops/output_bound.ts)",
    TEST_WAV,
    refusedAtLoad(
      /DecodeWav \(node DecodeWav: every output would hold 134217728 elements \(shape \[134217728,1\]\), more than tfgate allows one op output \(67108864\)\)/,
    ),
    { desired_samples: attr.i(2 ** 27), desired_channels: attr.i(1) },
  ),
  decode(
    'a 52-byte file of 32767 channels padded to desired_samples 4096 would be 134 M floats: RESOURCE_EXHAUSTED before allocating',
    "tfgate's bound on one op output (src/runtimes/embedded/ops/output_bound.ts); TF would allocate 512 MiB",
    wavBytes([], { channels: 32767, rate: 1 }),
    failsAtRun(/^DecodeWav: the output would hold 134213632 elements \(shape \[4096,32767\]\)/, Code.RESOURCE_EXHAUSTED),
    { desired_samples: attr.i(4096) },
  ),
];

// spectrogram_op_test.cc's audio: [-1, 0, 1, 0, -1, 0, 1, 0].
const SQUARE_WAVE = [-1, 0, 1, 0, -1, 0, 1, 0];
const spectrogram = (
  name: string,
  source: string,
  input: HostTensor,
  attrs: OpCase['attrs'],
  want: OpCase['want'],
  tol?: number,
): OpCase => ({
  name,
  source,
  op: 'AudioSpectrogram',
  attrs,
  inputs: [input],
  want,
  ...(tol !== undefined ? { tol } : {}),
});
const window = (size: number, stride: number, squared = false) => ({
  window_size: attr.i(size),
  stride: attr.i(stride),
  magnitude_squared: attr.b(squared),
});

const SPECTROGRAM_CASES: OpCase[] = [
  spectrogram(
    'window 8, stride 1 over [-1, 0, 1, 0, -1, 0, 1, 0]: [[[0, 1, 2, 1, 0]]]',
    `${SPECTROGRAM_TEST} SimpleTest`,
    f32([8, 1], SQUARE_WAVE),
    window(8, 1),
    { spectrogram: f32([1, 1, 5], [0, 1, 2, 1, 0]) },
    1e-3,
  ),
  spectrogram(
    'magnitude_squared: [[[0, 1, 4, 1, 0]]]',
    `${SPECTROGRAM_TEST} SquaredTest`,
    f32([8, 1], SQUARE_WAVE),
    window(8, 1, true),
    { spectrogram: f32([1, 1, 5], [0, 1, 4, 1, 0]) },
    1e-3,
  ),
  spectrogram(
    'two identical channels (window 8, stride 2): one slice each',
    `${SPECTROGRAM_TEST} MultichannelTest`,
    f32(
      [8, 2],
      SQUARE_WAVE.flatMap((x) => [x, x]),
    ),
    window(8, 2),
    { spectrogram: f32([2, 1, 5], [0, 1, 2, 1, 0, 0, 1, 2, 1, 0]) },
    1e-3,
  ),
  spectrogram(
    "window 6 is zero-padded to an 8-point FFT (5 bins); an impulse at the window's peak (Hann weight 1) has magnitude 1 in every bin",
    'tensorflow/core/ops/audio_ops.cc SpectrogramShapeFn (1 + NextPowerOfTwo(window_size) / 2); spectrogram.cc GetPeriodicHann: w[3] of 6 = 0.5 − 0.5·cos(π) = 1',
    f32([6, 1], [0, 0, 0, 1, 0, 0]),
    window(6, 6, true),
    { spectrogram: f32([1, 1, 5], [1, 1, 1, 1, 1]) },
    1e-6,
  ),
  spectrogram(
    'fewer samples than the window: no frames',
    'tensorflow/core/kernels/spectrogram_op.cc (length_minus_window < 0: output_height 0)',
    f32([4, 1], [1, 2, 3, 4]),
    window(8, 1),
    { spectrogram: f32([1, 0, 5], []) },
  ),
  spectrogram(
    'frames every `stride` samples: 1 + (10 − 4) / 3 = 3',
    'tensorflow/core/kernels/spectrogram_op.cc (output_height)',
    f32([10, 1], new Array<number>(10).fill(0)),
    window(4, 3),
    { spectrogram: f32([1, 3, 3], new Array<number>(9).fill(0)) },
  ),
  spectrogram(
    'window size 1 is refused when the kernel is built',
    `${SPECTROGRAM_TEST} InvalidWindowSize`,
    f32([8, 1], SQUARE_WAVE),
    window(1, 1),
    refusedAtLoad(/AudioSpectrogram \(node AudioSpectrogram: window_size must be > 1, got 1\)/),
  ),
  spectrogram(
    'stride 0 is refused when the kernel is built',
    `${SPECTROGRAM_TEST} InvalidStride`,
    f32([8, 1], SQUARE_WAVE),
    window(2, 0),
    refusedAtLoad(/AudioSpectrogram \(node AudioSpectrogram: stride must be > 0, got 0\)/),
  ),
  spectrogram(
    "a 1-D input: TF's message",
    'tensorflow/core/kernels/spectrogram_op.cc',
    f32([8], SQUARE_WAVE),
    window(8, 1),
    failsAtRun('input must be 2-dimensional[8]'),
  ),
  spectrogram(
    '132 095 samples, window 1024, stride 1 would be 131 072 frames × 513 bins (67 M floats): RESOURCE_EXHAUSTED before allocating',
    "tfgate's bound on one op output (src/runtimes/embedded/ops/output_bound.ts); TF would allocate 256 MiB",
    f32([132095, 1], new Array<number>(132095).fill(0)),
    window(1024, 1),
    failsAtRun(/^AudioSpectrogram: the output would hold 67239936 elements \(shape \[1,131072,513\]\)/, Code.RESOURCE_EXHAUSTED),
  ),
  spectrogram(
    "a window of 2^23 samples (a transform past tfgate's bound) is refused at load",
    "tfgate's bound on one transform (src/runtimes/embedded/ops/output_bound.ts)",
    f32([8, 1], SQUARE_WAVE),
    window(2 ** 23, 1),
    refusedAtLoad(
      /AudioSpectrogram \(node AudioSpectrogram: window_size 8388608: tfgate computes transforms of at most 4194304 elements\)/,
    ),
  ),
];

const MFCC_STATED = [
  29.13970072, -6.41568601, -0.61903012, -0.96778652, -0.26819878, -0.40907028, -0.15614748, -0.23203119, -0.10481487, -0.1543029,
  -0.0769791, -0.10806114, -0.06047613,
];
const IOTA_513 = f32(
  [1, 1, 513],
  Array.from({ length: 513 }, (_, i) => i + 1),
);

const MFCC_CASES: OpCase[] = [
  {
    name: "spectrogram 1, 2, … 513 at 22050 Hz, default attrs: TF's 13 coefficients",
    source: `${MFCC_TEST} SimpleTest; ${MFCC_GOLDEN} AgreesWithPythonGoldenValues`,
    op: 'Mfcc',
    inputs: [IOTA_513, konst(i32([], [22050]))],
    want: { output: f32([1, 1, 13], MFCC_STATED) },
    tol: 1e-4, // mfcc_test.cc AgreesWithPythonGoldenValues: EXPECT_NEAR(…, 1e-04)
  },
  {
    name: 'the sample rate fed at run time, as DecodeWav gives it',
    source: `${MFCC_TEST} SimpleTest; ${MFCC_GOLDEN} AgreesWithPythonGoldenValues`,
    op: 'Mfcc',
    inputs: [IOTA_513, i32([], [22050])],
    want: { output: f32([1, 1, 13], MFCC_STATED) },
    tol: 1e-4, // mfcc_test.cc AgreesWithPythonGoldenValues: EXPECT_NEAR(…, 1e-04)
  },
  {
    name: "a spectrogram with fewer bins than the upper limit needs: TF's filterbank gives nothing, the coefficients are 0",
    source:
      'tensorflow/core/kernels/mfcc_mel_filterbank.cc@15a09654 Compute ("Input too short to compute filterbank"); mfcc_dct.cc Compute over no input',
    op: 'Mfcc',
    inputs: [f32([1, 1, 5], [1, 2, 3, 4, 5]), konst(i32([], [100]))],
    want: { output: f32([1, 1, 13], new Array<number>(13).fill(0)) },
  },
  {
    name: "a sample rate of 0: TF's message",
    source: 'tensorflow/core/kernels/mfcc_op.cc@0db332dc; mfcc_mel_filterbank.cc Initialize ("Sample rate must be positive")',
    op: 'Mfcc',
    inputs: [IOTA_513, i32([], [0])],
    want: failsAtRun('Mfcc initialization failed for channel count 513 and sample rate 0'),
  },
  {
    name: "sample_rate must be a scalar: TF's message",
    source: 'tensorflow/core/kernels/mfcc_op.cc@0db332dc',
    op: 'Mfcc',
    inputs: [IOTA_513, i32([1], [22050])],
    want: failsAtRun('Input sample_rate should be a scalar tensor, got [1] instead.'),
  },
  {
    name: 'more DCT coefficients than filterbank channels fails every request in TF: refused at load',
    source: 'tensorflow/core/kernels/mfcc_dct.cc@b68e59c1 Initialize ("Coefficient count must be less than or equal to input length")',
    op: 'Mfcc',
    attrs: { dct_coefficient_count: attr.i(50) },
    inputs: [IOTA_513, konst(i32([], [22050]))],
    want: refusedAtLoad(
      /Mfcc \(node Mfcc: dct_coefficient_count 50 > filterbank_channel_count 40: Coefficient count must be less than or equal to input length/,
    ),
  },
];

export const AUDIO_CASES: OpFamilyCases = {
  family: 'audio',
  registrations: AUDIO_REGISTRATIONS,
  cases: [
    // DecodeWav takes the WAV as a string tensor, which ONNX Runtime takes none of in tfgate.
    ...DECODE_WAV_CASES.map((c) => ({
      ...c,
      engines: { onnx: { skip: 'a string input: ONNX Runtime takes no string tensors in tfgate' } },
    })),
    // No ONNX converter: ONNX has no spectrogram op, and TF computes the frames' transforms and
    // the mel filterbank in double; ONNX Runtime's DFT is float32 (see the README).
    ...[...SPECTROGRAM_CASES, ...MFCC_CASES].map((c) => ({
      ...c,
      engines: { onnx: { refuse: new RegExp(`${c.op} \\(node ${c.op}: no ONNX converter\\)`) } },
    })),
  ],
};
