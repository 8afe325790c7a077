// CTC decoders (tensorflow/core/ops/ctc_ops.cc), the heads of OCR and speech exports. Values
// from TF's kernel test (tensorflow/python/kernel_tests/nn_ops/ctc_decoder_ops_test.py): the
// inputs are built as the test builds them (np.log of float32 probabilities; probabilities
// + 2.0 for the beam search), in float32.
import { Code } from '../../../../src/errors/status.js';
import { attr } from '../../../../test_util/savedmodel/writer/graph_builder.js';
import { f32, f64, failsAtRun, i32, i64, refusedAtLoad, type OpCase, type OpFamilyCases } from '../op_case.js';

const CTC_REGISTRATIONS = [
  `REGISTER_OP("CTCGreedyDecoder")
    .Input("inputs: T")
    .Input("sequence_length: int32")
    .Attr("merge_repeated: bool = false")
    .Attr("blank_index: int = -1")
    .Output("decoded_indices: int64")
    .Output("decoded_values: int64")
    .Output("decoded_shape: int64")
    .Output("log_probability: T")
    .Attr("T: {float, double} = DT_FLOAT")`,
  `REGISTER_OP("CTCBeamSearchDecoder")
    .Input("inputs: T")
    .Input("sequence_length: int32")
    .Attr("beam_width: int >= 1")
    .Attr("top_paths: int >= 1")
    .Attr("merge_repeated: bool = true")
    .Output("decoded_indices: top_paths * int64")
    .Output("decoded_values: top_paths * int64")
    .Output("decoded_shape: top_paths * int64")
    .Output("log_probability: T")
    .Attr("T: {float, double} = DT_FLOAT")`,
];

const TEST = 'tensorflow/python/kernel_tests/nn_ops/ctc_decoder_ops_test.py@16e3ced2';
const KERNEL = 'tensorflow/core/kernels/ctc_decoder_ops.cc@18e1f92e';
const f = Math.fround;

// testCTCGreedyDecoder: two batch entries, time-major [6, 2, 4], inputs = np.log(float32 probabilities).
const GREEDY_PROBS = [
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
/** [time][batch][class] with the classes reordered by `order`. */
const greedyInputs = (order = [0, 1, 2, 3]) =>
  f32(
    [6, 2, 4],
    Array.from({ length: 6 }, (_, t) => [0, 1].flatMap((b) => order.map((c) => f(Math.log(f(GREEDY_PROBS[b][t][c])))))).flat(),
  );
// The test moves the blank (the last column) to index 2.
const BLANK_AT_2 = [0, 1, 3, 2];
const GREEDY_SEQ_LEN = i32([2], [4, 5]);
const GREEDY_TRUTH = {
  decoded_indices: i64([5, 2], [0, 0, 0, 1, 1, 0, 1, 1, 1, 2]),
  decoded_values: i64([5], [0, 1, 1, 1, 0]),
  decoded_shape: i64([2], [2, 3]),
  // np.sum(-np.log([1.0, 0.6, 0.6, 0.9])), np.sum(-np.log([0.9] * 5)) as float32.
  log_probability: f32([2, 1], [-Math.log(1.0) - Math.log(0.6) - Math.log(0.6) - Math.log(0.9), -5 * Math.log(0.9)]),
};

const greedy = (name: string, source: string, inputs: OpCase['inputs'], want: OpCase['want'], attrs: OpCase['attrs'] = {}): OpCase => ({
  name,
  source,
  op: 'CTCGreedyDecoder',
  attrs: { merge_repeated: attr.b(true), ...attrs },
  inputs,
  want,
  tol: 1e-6,
});

const GREEDY_CASES: OpCase[] = [
  greedy(
    'best path of two batch entries: [0, 1] and [1, 1, 0], blanks dropped and repeats merged',
    `${TEST} testCTCGreedyDecoder`,
    [greedyInputs(), GREEDY_SEQ_LEN],
    GREEDY_TRUTH,
  ),
  greedy(
    'blank_index 2 with the blank column moved there',
    `${TEST} testCTCGreedyDecoder (blank_index=2)`,
    [greedyInputs(BLANK_AT_2), GREEDY_SEQ_LEN],
    GREEDY_TRUTH,
    { blank_index: attr.i(2) },
  ),
  greedy(
    'blank_index −2 counts from the end',
    `${TEST} testCTCGreedyDecoder (blank_index=-2)`,
    [greedyInputs(BLANK_AT_2), GREEDY_SEQ_LEN],
    GREEDY_TRUTH,
    { blank_index: attr.i(-2) },
  ),
  greedy(
    'merge_repeated false keeps a class repeated over steps',
    "api_def CTCGreedyDecoder (\"'A B B * B B' becomes … 'A B B B B' if merge_repeated = False\")",
    [greedyInputs(), GREEDY_SEQ_LEN],
    { decoded_values: i64([6], [0, 1, 1, 1, 1, 0]), decoded_shape: i64([2], [2, 4]) },
    { merge_repeated: attr.b(false) },
  ),
  greedy(
    "blank_index out of range: TF's message",
    KERNEL,
    [greedyInputs(), GREEDY_SEQ_LEN],
    failsAtRun('blank_index expected to be between -4 and 3 but was 4'),
    { blank_index: attr.i(4) },
  ),
  greedy(
    "a sequence_length past max_time: TF's FailedPrecondition",
    KERNEL,
    [greedyInputs(), i32([2], [7, 5])],
    failsAtRun('sequence_length(0) <= 6', Code.FAILED_PRECONDITION),
  ),
  greedy(
    "a sequence_length of the wrong size: TF's FailedPrecondition",
    KERNEL,
    [greedyInputs(), i32([1], [4])],
    failsAtRun('len(sequence_length) != batch_size.  len(sequence_length):  1 batch_size: 2', Code.FAILED_PRECONDITION),
  ),
  {
    name: 'T double is refused on the embedded runtime: it holds float64 as float32',
    source: 'tensorflow/core/ops/ctc_ops.cc (T: {float, double})',
    op: 'CTCGreedyDecoder',
    attrs: { merge_repeated: attr.b(true), T: attr.type('DT_DOUBLE') },
    inputs: [f64([1, 1, 2], [0, 0]), i32([1], [1])],
    want: refusedAtLoad(/CTCGreedyDecoder \(node CTCGreedyDecoder: T double: the embedded runtime computes float32 only/),
  },
  greedy(
    "inputs of rank 2: TF's message",
    KERNEL,
    [f32([2, 4], new Array<number>(8).fill(0)), i32([2], [1, 1])],
    failsAtRun('inputs is not a 3-Tensor'),
  ),
];

// testCTCDecoderBeamSearch: one batch entry, depth 6, 5 steps of probabilities + 2.0 (not logs), then 2 steps of zeros.
const BEAM_PROBS = [
  [0.30999, 0.309938, 0.0679938, 0.0673362, 0.0708352, 0.173908],
  [0.215136, 0.439699, 0.0370931, 0.0393967, 0.0381581, 0.230517],
  [0.199959, 0.489485, 0.0233221, 0.0251417, 0.0233289, 0.238763],
  [0.279611, 0.452966, 0.0204795, 0.0209126, 0.0194803, 0.20655],
  [0.51286, 0.288951, 0.0243026, 0.0220788, 0.0219297, 0.129878],
];
const BEAM_INPUTS = f32([7, 1, 6], [...BEAM_PROBS.flatMap((row) => row.map((p) => f(f(p) + 2))), ...new Array<number>(12).fill(0)]);

// ctc_beam_search_test.cc DecodingWithAndWithoutDictionary: one batch entry, 6 classes (the blank
// last, never likely), the plain decoder with the default scorer, beam width 10 × top_paths.
const BEAM_SEARCH_TEST = 'tensorflow/core/util/ctc/ctc_beam_search_test.cc@074d88ff';
const DICTIONARY_PROBS = [
  [0, 0.6, 0, 0.4, 0, 0],
  [0, 0.5, 0, 0.5, 0, 0],
  [0, 0.4, 0, 0.6, 0, 0],
  [0, 0.4, 0, 0.6, 0, 0],
  [0, 0.4, 0, 0.6, 0, 0],
];
const DICTIONARY_INPUTS = f32(
  [5, 1, 6],
  DICTIONARY_PROBS.flat().map((p) => f(Math.log(p))),
);

const beam = (name: string, source: string, attrs: OpCase['attrs'], want: OpCase['want']): OpCase => ({
  name,
  source,
  op: 'CTCBeamSearchDecoder',
  attrs,
  inputs: [BEAM_INPUTS, i32([1], [5])],
  want,
  tol: 1e-6,
});

const BEAM_CASES: OpCase[] = [
  beam(
    'beam width 2, top 2 paths: [1, 0] (−5.811451) and [1] (−6.63339)',
    `${TEST} testCTCDecoderBeamSearch`,
    { beam_width: attr.i(2), top_paths: attr.i(2) },
    {
      decoded_indices_0: i64([2, 2], [0, 0, 0, 1]),
      decoded_values_0: i64([2], [1, 0]),
      decoded_shape_0: i64([2], [1, 2]),
      decoded_indices_1: i64([1, 2], [0, 0]),
      decoded_values_1: i64([1], [1]),
      decoded_shape_1: i64([2], [1, 1]),
      log_probability: f32([1, 2], [-5.811451, -6.63339]),
    },
  ),
  beam(
    'merge_repeated false (tf.nn.ctc_beam_search_decoder in TF 2, Keras ctc_decode(greedy=False)): the same two paths and scores',
    `${TEST} testCTCDecoderBeamSearch; tensorflow/core/util/ctc/ctc_beam_search.h@0f4829a1 TopPaths (merge_repeated only collapses repeats in LabelSeq; these paths have none)`,
    { beam_width: attr.i(2), top_paths: attr.i(2), merge_repeated: attr.b(false) },
    {
      decoded_values_0: i64([2], [1, 0]),
      decoded_values_1: i64([1], [1]),
      log_probability: f32([1, 2], [-5.811451, -6.63339]),
    },
  ),
  beam(
    'top_paths 3 > beam_width 2: TF fails every request ("requested more paths than the beam width."), tfgate refuses at load',
    `${TEST} testCTCDecoderBeamSearch; tensorflow/core/util/ctc/ctc_beam_search.h TopPaths`,
    { beam_width: attr.i(2), top_paths: attr.i(3) },
    refusedAtLoad(
      /CTCBeamSearchDecoder \(node CTCBeamSearchDecoder: top_paths 3 > beam_width 2: TF fails every request with "requested more paths than the beam width\."\)/,
    ),
  ),
  {
    name: 'beam width 30, top 3 paths over log-probabilities with −inf entries: [1, 3], [1, 3, 1], [3, 1, 3]',
    source: `${BEAM_SEARCH_TEST} DecodingWithAndWithoutDictionary (expected_output)`,
    op: 'CTCBeamSearchDecoder',
    attrs: { beam_width: attr.i(30), top_paths: attr.i(3) },
    inputs: [DICTIONARY_INPUTS, i32([1], [5])],
    want: {
      decoded_indices_0: i64([2, 2], [0, 0, 0, 1]),
      decoded_values_0: i64([2], [1, 3]),
      decoded_shape_0: i64([2], [1, 2]),
      decoded_values_1: i64([3], [1, 3, 1]),
      decoded_shape_1: i64([2], [1, 3]),
      decoded_values_2: i64([3], [3, 1, 3]),
      decoded_shape_2: i64([2], [1, 3]),
    },
  },
  {
    name: '1 000 steps × beam 100 × 100 labels would make 10 M beam entries: RESOURCE_EXHAUSTED before the search',
    source: "tfgate's bound on a beam search's entries (src/runtimes/embedded/ops/ctc/ctc_decoders.ts); TF would build them all",
    op: 'CTCBeamSearchDecoder',
    attrs: { beam_width: attr.i(100), top_paths: attr.i(1) },
    inputs: [f32([1000, 1, 101], new Array<number>(101000).fill(0)), i32([1], [1000])],
    want: failsAtRun(
      /^CTCBeamSearchDecoder: the beam entries of one batch entry \(.*\) would be 10000000, more than tfgate allows \(4194304\)$/,
      Code.RESOURCE_EXHAUSTED,
    ),
  },
];

// Graph validation refuses it on every engine, before any converter, with TF's words.
const BEAM_WIDTH_ZERO: OpCase = beam(
  "beam_width 0: the registration's minimum, TF's message",
  'tensorflow/core/ops/ctc_ops.cc (Attr("beam_width: int >= 1")); tensorflow/core/framework/op_def_util.cc ValidateAttrValue',
  { beam_width: attr.i(0), top_paths: attr.i(1) },
  refusedAtLoad(/Value for attr 'beam_width' of 0 must be at least minimum 1/),
);

export const CTC_CASES: OpFamilyCases = {
  family: 'ctc',
  registrations: CTC_REGISTRATIONS,
  // No ONNX converter: ONNX has no CTC decoder; the greedy one could be composed (ArgMax,
  // NonZero, CumSum, GatherND) but an ONNX graph cannot fail a run, so TF's checks of
  // sequence_length (FAILED_PRECONDITION past max_time) would become answers; the beam
  // search's data-dependent tree of entries has no ONNX form at all.
  cases: [
    ...[...GREEDY_CASES, ...BEAM_CASES].map((c) => ({
      ...c,
      engines: { onnx: { refuse: new RegExp(`${c.op} \\(node ${c.op}: no ONNX converter\\)`) } },
    })),
    BEAM_WIDTH_ZERO,
  ],
};
