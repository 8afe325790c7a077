// The audio and CTC families as exports use them, served by the real server: one SavedModel
// written with tfgate's writer whose signatures are
//   - serving_default: the speech-commands front end as TF's examples/speech_commands/freeze.py
//     builds it — a scalar string `wav_data` → DecodeWav(desired_channels 1) → AudioSpectrogram
//     (magnitude_squared) → Mfcc(…, the decoded sample_rate) — fed WAV bytes as {"b64": …};
//   - mfcc: Mfcc alone, on the spectrogram TF's mfcc_op_test.cc states coefficients for;
//   - ctc_greedy: Keras' ctc_decode(greedy=True) head — transpose to time-major, log(p + 1e-7),
//     CTCGreedyDecoder, the SparseTensor's components and its SparseToDense(-1) — on the
//     probabilities of TF's ctc_decoder_ops_test.py;
//   - ctc_beam: CTCBeamSearchDecoder (beam 2, top 2 paths) on that test's beam-search inputs.
// The WAV holds spectrogram_op_test.cc's audio as 16-bit PCM at decode_wav_op_test.cc's rate.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { freePort, postJson, startServer, waitAvailable, type RunningServer } from '../helpers/server_process.js';
import { call, connect, type Clients } from '../helpers/grpc_client.js';
import { tempDir } from '../helpers/temp.js';
import { attr, GraphBuilder, Tensor } from '../../test_util/savedmodel/writer/graph_builder.js';
import { writeSavedModel } from '../../test_util/savedmodel/saved_model_writer.js';
import { opDefFromRegistration } from '../../test_util/savedmodel/writer/op_registration.js';
import { AUDIO_CASES, wavBytes } from '../runtimes/ops/cases/audio.js';
import { CTC_CASES } from '../runtimes/ops/cases/ctc.js';

const GRAPH_OPS = [
  `REGISTER_OP("Transpose")
    .Input("x: T")
    .Input("perm: Tperm")
    .Output("y: T")
    .Attr("T: type")
    .Attr("Tperm: {int32, int64} = DT_INT32")`,
  `REGISTER_OP("Log")
    .Input("x: T")
    .Output("y: T")
    .Attr("T: {bfloat16, half, float, double, complex64, complex128}")`,
  `REGISTER_OP("Shape")
    .Input("input: T")
    .Output("output: out_type")
    .Attr("T: type")
    .Attr("out_type: {int32, int64} = DT_INT32")`,
  `REGISTER_OP("StridedSlice")
    .Input("input: T")
    .Input("begin: Index")
    .Input("end: Index")
    .Input("strides: Index")
    .Output("output: T")
    .Attr("T: type")
    .Attr("Index: {int16, int32, int64}")
    .Attr("begin_mask: int = 0")
    .Attr("end_mask: int = 0")
    .Attr("ellipsis_mask: int = 0")
    .Attr("new_axis_mask: int = 0")
    .Attr("shrink_axis_mask: int = 0")`,
  `REGISTER_OP("Pack")
    .Input("values: N * T")
    .Output("output: T")
    .Attr("N: int >= 1")
    .Attr("T: type")
    .Attr("axis: int = 0")`,
  `REGISTER_OP("Cast")
    .Input("x: SrcT")
    .Output("y: DstT")
    .Attr("SrcT: type")
    .Attr("DstT: type")
    .Attr("Truncate: bool = false")`,
];

const i32 = (values: number[]) => ({ dtype: 'int32' as const, shape: [values.length], values: Int32Array.from(values) });
const node = (
  g: GraphBuilder,
  op: string,
  name: string,
  inputs: Tensor[],
  attrs: Record<string, Record<string, unknown>>,
  dtype: Tensor['dtype'],
  index = 0,
) => new Tensor(g.addNode(op, name, inputs, attrs), index, dtype, null);

/** wav_data → DecodeWav → AudioSpectrogram → Mfcc, as freeze.py's create_inference_graph (feature_bin_count as dct_coefficient_count). */
function speechFrontEnd(g: GraphBuilder) {
  const wav = g.placeholder('wav_data', 'string', []);
  const decode = g.addNode('DecodeWav', 'decoded_sample_data', [wav], { desired_channels: attr.i(1), desired_samples: attr.i(8) });
  const audio = new Tensor(decode, 0, 'float32', [8, 1]);
  const rate = new Tensor(decode, 1, 'int32', []);
  const spectrogram = node(
    g,
    'AudioSpectrogram',
    'AudioSpectrogram',
    [audio],
    { window_size: attr.i(8), stride: attr.i(1), magnitude_squared: attr.b(true) },
    'float32',
  );
  const mfcc = node(g, 'Mfcc', 'Mfcc', [spectrogram, rate], { dct_coefficient_count: attr.i(4) }, 'float32');
  return {
    inputs: { wav_data: wav },
    outputs: {
      spectrogram: g.identity('spectrogram', spectrogram),
      sample_rate: g.identity('sample_rate', rate),
      fingerprint: g.identity('fingerprint', mfcc),
    },
  };
}

function mfccAlone(g: GraphBuilder) {
  const spectrogram = g.placeholder('mfcc_spectrogram', 'float32', [-1, -1, 513]);
  const rate = g.placeholder('mfcc_sample_rate', 'int32', []);
  return {
    inputs: { spectrogram, sample_rate: rate },
    outputs: { mfcc: g.identity('mfcc_out', node(g, 'Mfcc', 'mfcc_only', [spectrogram, rate], {}, 'float32')) },
  };
}

/** keras.backend.ctc_decode(y_pred, input_length, greedy=True) as Keras 2 writes it. */
function kerasGreedyHead(g: GraphBuilder) {
  const yPred = g.placeholder('y_pred', 'float32', [-1, -1, 4]);
  const inputLength = g.placeholder('input_length', 'int32', [-1]);
  const timeMajor = node(
    g,
    'Transpose',
    'transpose',
    [yPred, g.constant('transpose/perm', i32([1, 0, 2]))],
    { T: attr.type('float32'), Tperm: attr.type('int32') },
    'float32',
  );
  const logits = node(
    g,
    'Log',
    'Log',
    [g.add('add', timeMajor, g.constant('add/y', { dtype: 'float32', shape: [], values: Float32Array.of(1e-7) }))],
    { T: attr.type('float32') },
    'float32',
  );
  const decoder = g.addNode('CTCGreedyDecoder', 'CTCGreedyDecoder', [logits, inputLength], {
    merge_repeated: attr.b(true),
    blank_index: attr.i(-1),
    T: attr.type('float32'),
  });
  const [indices, values, shape, logProb] = [0, 1, 2, 3].map((i) => new Tensor(decoder, i, i < 3 ? 'int64' : 'float32', null));
  // st = tf.SparseTensor(st.indices, st.values, (num_samples, num_steps)); tf.sparse.to_dense(st, default_value=-1)
  const dims = node(g, 'Shape', 'Shape', [yPred], { T: attr.type('float32'), out_type: attr.type('int32') }, 'int32');
  const dim = (i: number) =>
    node(
      g,
      'StridedSlice',
      'strided_slice',
      [dims, g.constant(`slice${i}/begin`, i32([i])), g.constant(`slice${i}/end`, i32([i + 1])), g.constant(`slice${i}/strides`, i32([1]))],
      { T: attr.type('int32'), Index: attr.type('int32'), shrink_axis_mask: attr.i(1) },
      'int32',
    );
  const denseShape32 = node(g, 'Pack', 'SparseTensor/dense_shape', [dim(0), dim(1)], { N: attr.i(2), T: attr.type('int32') }, 'int32');
  const denseShape = node(g, 'Cast', 'Cast', [denseShape32], { SrcT: attr.type('int32'), DstT: attr.type('int64') }, 'int64');
  const dense = node(
    g,
    'SparseToDense',
    'SparseToDense',
    [indices, denseShape, values, g.constant('SparseToDense/default_value', { dtype: 'int64', shape: [], values: BigInt64Array.of(-1n) })],
    { validate_indices: attr.b(true), T: attr.type('int64'), Tindices: attr.type('int64') },
    'int64',
  );
  return {
    inputs: { y_pred: yPred, input_length: inputLength },
    outputs: {
      decoded_indices: g.identity('decoded_indices', indices),
      decoded_values: g.identity('decoded_values', values),
      decoded_shape: g.identity('decoded_shape', shape),
      log_probability: g.identity('log_probability', logProb),
      decoded_dense: g.identity('decoded_dense', dense),
    },
  };
}

function beamSearch(g: GraphBuilder) {
  const inputs = g.placeholder('beam_inputs', 'float32', [-1, -1, 6]);
  const seqLen = g.placeholder('beam_sequence_length', 'int32', [-1]);
  const d = g.addNode('CTCBeamSearchDecoder', 'CTCBeamSearchDecoder', [inputs, seqLen], {
    beam_width: attr.i(2),
    top_paths: attr.i(2),
    merge_repeated: attr.b(true),
    T: attr.type('float32'),
  });
  const out = (name: string, i: number, dtype: Tensor['dtype']) => g.identity(name, new Tensor(d, i, dtype, null));
  return {
    inputs: { inputs, sequence_length: seqLen },
    outputs: {
      decoded_indices_0: out('beam_indices_0', 0, 'int64'),
      decoded_indices_1: out('beam_indices_1', 1, 'int64'),
      decoded_values_0: out('beam_values_0', 2, 'int64'),
      decoded_values_1: out('beam_values_1', 3, 'int64'),
      decoded_shape_0: out('beam_shape_0', 4, 'int64'),
      decoded_shape_1: out('beam_shape_1', 5, 'int64'),
      log_probability: out('beam_log_probability', 6, 'float32'),
    },
  };
}

async function writeModel(base: string): Promise<void> {
  const g = new GraphBuilder();
  const signatures = { serving_default: speechFrontEnd(g), mfcc: mfccAlone(g), ctc_greedy: kerasGreedyHead(g), ctc_beam: beamSearch(g) };
  const opDefs = [...(AUDIO_CASES.registrations ?? []), ...(CTC_CASES.registrations ?? []), ...GRAPH_OPS].map(opDefFromRegistration);
  await writeSavedModel(path.join(base, '1'), g, signatures, { opDefs });
}

// spectrogram_op_test.cc's audio [-1, 0, 1, 0, -1, 0, 1, 0] as 16-bit PCM (1 → 32767), at decode_wav_op_test.cc's 14099 Hz.
const WAV = wavBytes([-32768, 0, 32767, 0, -32768, 0, 32767, 0], { rate: 14099 });
/** SquaredTest: [0, 1, 4, 1, 0] within 1e-3 (32767/32768 for 1 moves bin 2 by 1.2e-4). */
const STATED_SPECTROGRAM = [0, 1, 4, 1, 0];
const MFCC_STATED = [
  29.13970072, -6.41568601, -0.61903012, -0.96778652, -0.26819878, -0.40907028, -0.15614748, -0.23203119, -0.10481487, -0.1543029,
  -0.0769791, -0.10806114, -0.06047613,
];
// ctc_decoder_ops_test.py testCTCGreedyDecoder's probabilities, batch-major as Keras' y_pred.
const Y_PRED = [
  [
    [1.0, 0.0, 0.0, 0.0],
    [0.0, 0.0, 0.4, 0.6],
    [0.0, 0.0, 0.4, 0.6],
    [0.0, 0.9, 0.1, 0.0],
    [0.0, 0.0, 0.0, 0.0],
    [0.0, 0.0, 0.0, 0.0],
  ],
  [
    [0.1, 0.9, 0.0, 0.0],
    [0.0, 0.9, 0.1, 0.0],
    [0.0, 0.0, 0.1, 0.9],
    [0.0, 0.9, 0.1, 0.1],
    [0.9, 0.1, 0.0, 0.0],
    [0.0, 0.0, 0.0, 0.0],
  ],
];
const BEAM_ROWS = [
  [0.30999, 0.309938, 0.0679938, 0.0673362, 0.0708352, 0.173908],
  [0.215136, 0.439699, 0.0370931, 0.0393967, 0.0381581, 0.230517],
  [0.199959, 0.489485, 0.0233221, 0.0251417, 0.0233289, 0.238763],
  [0.279611, 0.452966, 0.0204795, 0.0209126, 0.0194803, 0.20655],
  [0.51286, 0.288951, 0.0243026, 0.0220788, 0.0219297, 0.129878],
];

function assertNear(got: number[], want: number[], tolerance: number, what: string): void {
  assert.equal(got.length, want.length, `${what}: ${got}`);
  got.forEach((v, i) => assert.ok(Math.abs(v - want[i]) <= tolerance, `${what}[${i}]: ${v}, TF states ${want[i]} (±${tolerance})`));
}

describe('audio and CTC graphs served end to end (real process)', () => {
  let server: RunningServer;
  let clients: Clients;

  before(async () => {
    const base = path.join(tempDir('tfgate-speech-'), 'speech');
    await writeModel(base);
    const grpcPort = await freePort();
    server = await startServer([`--port=${grpcPort}`, '--model_name=speech', `--model_base_path=${base}`, '--num_executors=1']);
    await waitAvailable(server, ['speech'], 60_000);
    clients = connect(`127.0.0.1:${grpcPort}`);
  });

  after(async () => {
    clients?.close();
    await server?.stop();
  });

  it('REST: WAV bytes as {"b64"} through DecodeWav → AudioSpectrogram → Mfcc: TF\'s spectrogram and sample rate', async () => {
    const res = await postJson(server.url('/v1/models/speech:predict'), { inputs: { b64: Buffer.from(WAV).toString('base64') } });
    assert.equal(res.status, 200, res.text);
    const { spectrogram, sample_rate: rate, fingerprint } = res.json.outputs;
    assertNear(spectrogram.flat(2), STATED_SPECTROGRAM, 1e-3, 'spectrogram');
    assert.equal(rate, 14099);
    assert.deepEqual([fingerprint.length, fingerprint[0].length, fingerprint[0][0].length], [1, 1, 4]);
  });

  it("REST: a file that is not a WAV is a 400 with TF's message, and the server serves on", async () => {
    const res = await postJson(server.url('/v1/models/speech:predict'), {
      inputs: { b64: Buffer.from('RIFX0000WAVE').toString('base64') },
    });
    assert.equal(res.status, 400, res.text);
    assert.match(res.json.error, /Header mismatch: Expected RIFF but found RIFX/);
  });

  it("REST: the Mfcc signature on TF's stated spectrogram gives its 13 coefficients", async () => {
    const spectrogram = [[Array.from({ length: 513 }, (_, i) => i + 1)]];
    const res = await postJson(server.url('/v1/models/speech:predict'), {
      signature_name: 'mfcc',
      inputs: { spectrogram, sample_rate: 22050 },
    });
    assert.equal(res.status, 200, res.text);
    assertNear(res.json.outputs.flat(2), MFCC_STATED, 1e-3, 'mfcc');
  });

  it("REST: the Keras greedy ctc_decode head answers TF's decoded paths, as a SparseTensor's three components and as dense rows padded with -1", async () => {
    const res = await postJson(server.url('/v1/models/speech:predict'), {
      signature_name: 'ctc_greedy',
      inputs: { y_pred: Y_PRED, input_length: [4, 5] },
    });
    assert.equal(res.status, 200, res.text);
    const o = res.json.outputs;
    assert.deepEqual(o.decoded_indices, [
      [0, 0],
      [0, 1],
      [1, 0],
      [1, 1],
      [1, 2],
    ]);
    assert.deepEqual(o.decoded_values, [0, 1, 1, 1, 0]);
    assert.deepEqual(o.decoded_shape, [2, 3]);
    assert.deepEqual(o.decoded_dense, [
      [0, 1, -1, -1, -1, -1],
      [1, 1, 0, -1, -1, -1],
    ]);
    // TF states −Σ log p of the best path; log(p + 1e-7) moves it by less than 1e-6.
    assertNear(o.log_probability.flat(), [1.1270118, 0.5268026], 1e-6, 'log_probability');
  });

  it("REST: the beam search answers TF's two paths and their log probabilities", async () => {
    const inputs = [
      ...BEAM_ROWS.map((r) => [r.map((p) => Math.fround(Math.fround(p) + 2))]),
      [new Array<number>(6).fill(0)],
      [new Array<number>(6).fill(0)],
    ];
    const res = await postJson(server.url('/v1/models/speech:predict'), {
      signature_name: 'ctc_beam',
      inputs: { inputs, sequence_length: [5] },
    });
    assert.equal(res.status, 200, res.text);
    const o = res.json.outputs;
    assert.deepEqual(
      [o.decoded_indices_0, o.decoded_values_0, o.decoded_shape_0],
      [
        [
          [0, 0],
          [0, 1],
        ],
        [1, 0],
        [1, 2],
      ],
    );
    assert.deepEqual([o.decoded_indices_1, o.decoded_values_1, o.decoded_shape_1], [[[0, 0]], [1], [1, 1]]);
    assertNear(o.log_probability.flat(), [-5.811451, -6.63339], 1e-5, 'log_probability');
  });

  it('gRPC Predict with the WAV as a DT_STRING scalar answers the same spectrogram', async () => {
    const res = await call(clients.prediction, 'Predict', {
      model_spec: { name: 'speech' },
      inputs: { wav_data: { dtype: 'DT_STRING', tensor_shape: {}, string_val: [WAV] } },
      output_filter: ['spectrogram'],
    });
    const out = res.outputs.spectrogram;
    assert.deepEqual(
      out.tensor_shape.dim.map((d: { size: string }) => Number(d.size)),
      [1, 1, 5],
    );
    const values: number[] = out.float_val?.length ? out.float_val : [...new Float32Array(new Uint8Array(out.tensor_content).buffer)];
    assertNear(values, STATED_SPECTROGRAM, 1e-3, 'gRPC spectrogram');
  });

  it('runs every signature on the embedded runtime, saying why not ONNX Runtime', () => {
    for (const sig of ['serving_default', 'mfcc', 'ctc_greedy', 'ctc_beam'])
      assert.match(server.logs(), new RegExp(`signature '${sig}' runs on wasm \\(not ONNX Runtime: `), server.logs());
  });
});
