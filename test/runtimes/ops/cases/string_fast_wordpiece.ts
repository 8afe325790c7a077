// TF Text's fast BERT tokenizer ops (text.FastBertTokenizer, text.FastWordpieceTokenizer,
// text.FastBertNormalizer): FastWordpieceTokenizeWithOffsets, TFText>FastWordpieceDetokenize,
// FastBertNormalize. Their models are FlatBuffers the graph holds as uint8 constants:
// TF Text's own test-data files where its tests built them (text_models/PROVENANCE.md), else
// built from the vocabulary its tests state (test_util/text/fast_wordpiece_model_builder.ts).
// Values from tensorflow/text's C++ tests (fast_wordpiece_tokenizer_test.cc,
// fast_bert_normalizer_test.cc) and its ops' docs; every spec of the tokenizer test is run on
// the kernel by fast_wordpiece_specs.test.ts.
import fs from 'node:fs';
import path from 'node:path';
import { Code } from '../../../../src/errors/status.js';
import type { HostTensor } from '../../../../src/tensor/host_tensor.js';
import { attr, Tensor, type GraphBuilder } from '../../../../test_util/savedmodel/writer/graph_builder.js';
import { buildFastWordpieceModel, type FastWordpieceOptions } from '../../../../test_util/text/fast_wordpiece_model_builder.js';
import { REPO_ROOT } from '../../../helpers/paths.js';
import { failsAtRun, i32, i64, konst, str, type OpCase, type OpFamilyCases } from '../op_case.js';
import { ENGLISH_VOCAB } from './string_wordpiece.js';

const TEXT = 'tensorflow/text tensorflow_text';
const WP_TEST = `${TEXT}/core/kernels/fast_wordpiece_tokenizer_test.cc@17c38bf0`;
const NORM_TEST = `${TEXT}/core/kernels/fast_bert_normalizer_test.cc@17c38bf0`;

const MODELS = path.join(REPO_ROOT, 'test', 'runtimes', 'ops', 'cases', 'text_models');
const modelFile = (name: string) => new Uint8Array(fs.readFileSync(path.join(MODELS, name)));
const u8 = (values: Uint8Array): HostTensor => ({ dtype: 'uint8', shape: [values.length], values });
const hex = (h: string) => Uint8Array.from(Buffer.from(h, 'hex'));

/** The vocabulary TF Text's test-data model was built from (pywrap_fast_wordpiece_tokenizer_model_builder_test.py). */
const VOCAB = ['a', 'abc', 'abcdefghi', '##de', '##defgxy', '##deh', '##f', '##ghz', '<unk>'];

interface Row {
  input: string;
  tokens: string[];
  ids: number[];
  starts: number[];
  ends: number[];
}

function tokenize(name: string, source: string, model: Uint8Array, rows: Row[]): OpCase {
  const splits = [0];
  for (const r of rows) splits.push(splits[splits.length - 1] + r.ids.length);
  const n = splits[splits.length - 1];
  return {
    name,
    source,
    op: 'FastWordpieceTokenizeWithOffsets',
    inputs: [
      str(
        [rows.length],
        rows.map((r) => r.input),
      ),
      konst(u8(model)),
    ],
    want: {
      output_subwords: str(
        [n],
        rows.flatMap((r) => r.tokens),
      ),
      output_ids: i64(
        [n],
        rows.flatMap((r) => r.ids),
      ),
      output_row_splits: i64([splits.length], splits),
      start_values: i64(
        [n],
        rows.flatMap((r) => r.starts),
      ),
      end_values: i64(
        [n],
        rows.flatMap((r) => r.ends),
      ),
    },
  };
}

/** An end-to-end model (no_pretokenization=False) with trie keys for the punctuation of `text` (see the builder's `punctuation`). */
const textModel = (o: FastWordpieceOptions, text: string) => buildFastWordpieceModel({ ...o, punctuation: text });

const E2E_ROWS: Row[] = [
  { input: '', tokens: [], ids: [], starts: [], ends: [] },
  { input: ' \t ', tokens: [], ids: [], starts: [], ends: [] },
  { input: 'abcdef', tokens: ['abc', '##de', '##f'], ids: [1, 3, 6], starts: [0, 3, 5], ends: [3, 5, 6] },
  { input: 'abcd', tokens: ['<unk>'], ids: [8], starts: [0], ends: [4] },
  {
    input: 'abcdef \t\t \tabcf',
    tokens: ['abc', '##de', '##f', 'abc', '##f'],
    ids: [1, 3, 6, 1, 6],
    starts: [0, 3, 5, 11, 14],
    ends: [3, 5, 6, 14, 15],
  },
  {
    input: '\tabcdef  abcf ',
    tokens: ['abc', '##de', '##f', 'abc', '##f'],
    ids: [1, 3, 6, 1, 6],
    starts: [1, 4, 6, 9, 12],
    ends: [4, 6, 7, 12, 13],
  },
];
/** TestPunctuationVersionMismatch: U+1B7F is punctuation from Unicode 16 on (this Node's tables: process.versions.unicode). */
const PUNCTUATION_ROW: Row = {
  input: 'abc>abc\u1b7fabc',
  tokens: ['abc', '<unk>', 'abc', '<unk>', 'abc'],
  ids: [1, 8, 1, 8, 1],
  starts: [0, 3, 4, 7, 10],
  ends: [3, 4, 7, 10, 13],
};
/** fast_wordpiece_tokenizer_test.cc's vocabulary of Test 27–30: <unk> then wordpiece_tokenizer_test.py's _ENGLISH_VOCAB. */
const BERT_VOCAB = ['<unk>', ...ENGLISH_VOCAB];
const BERT_ROWS: Row[] = [
  {
    input: 'hello there my name is terry',
    tokens: ['hel', '##lo', 'there', 'my', 'na', '##me', 'is', 'ter', '##ry'],
    ids: [6, 7, 8, 9, 10, 11, 12, 13, 14],
    starts: [0, 3, 6, 12, 15, 17, 20, 23, 26],
    ends: [3, 5, 11, 14, 17, 19, 22, 26, 28],
  },
  {
    input: 'whatchamacallit? you said',
    tokens: ['<unk>', '<unk>', 'you', 'said'],
    ids: [0, 0, 20, 21],
    starts: [0, 15, 17, 21],
    ends: [15, 16, 20, 25],
  },
];

const TOKENIZE_CASES: OpCase[] = [
  tokenize(
    "TF Text's own model file: longest match first, failure pops, unknown characters, a leading suffix indicator",
    `${WP_TEST}:181,194,207,233,259,286,168 (model: ${TEXT}/python/ops/test_data/fast_wordpiece_tokenizer_model.fb@17c38bf0)`,
    modelFile('fast_wordpiece_tokenizer_model.fb'),
    [
      { input: 'abcdefghz', tokens: ['abc', '##de', '##f', '##ghz'], ids: [1, 3, 6, 7], starts: [0, 3, 5, 6], ends: [3, 5, 6, 9] },
      { input: 'abcdef', tokens: ['abc', '##de', '##f'], ids: [1, 3, 6], starts: [0, 3, 5], ends: [3, 5, 6] },
      { input: 'X', tokens: ['<unk>'], ids: [8], starts: [0], ends: [1] },
      { input: 'abcXde', tokens: ['<unk>'], ids: [8], starts: [0], ends: [6] },
      { input: '##deh', tokens: ['##deh'], ids: [5], starts: [0], ends: [5] },
      { input: '##', tokens: ['<unk>'], ids: [8], starts: [0], ends: [2] },
      { input: '', tokens: [], ids: [], starts: [], ends: [] },
    ],
  ),
  tokenize(
    'end to end (no_pretokenization=False): words split on whitespace and punctuation, offsets in the text',
    `${WP_TEST}:1306,1319,1332,1345,1359,1372,65 TestPunctuationVersionMismatch`,
    textModel({ vocab: VOCAB, unkToken: '<unk>' }, [...E2E_ROWS, PUNCTUATION_ROW].map((r) => r.input).join('')),
    [...E2E_ROWS, PUNCTUATION_ROW],
  ),
  tokenize(
    "BERT's vocabulary, end to end: a word with no split is <unk>, and so is an unknown punctuation character",
    `${WP_TEST}:1675,1694`,
    textModel({ vocab: BERT_VOCAB, unkToken: '<unk>' }, BERT_ROWS.map((r) => r.input).join('')),
    BERT_ROWS,
  ),
  tokenize(
    'max_bytes_per_token 10: a word of 9 or 10 bytes is split, then a punctuation character of 2 bytes is <unk>',
    `${WP_TEST}:2024,2037,2051`,
    textModel({ vocab: ['<unk>', '01234', '##5678', '##56789', '##\u05c3'], unkToken: '<unk>', maxBytesPerToken: 10 }, '\u05c3'),
    [
      { input: '  012345678 ', tokens: ['01234', '##5678'], ids: [1, 2], starts: [2, 7], ends: [7, 11] },
      { input: '  0123456789 ', tokens: ['01234', '##56789'], ids: [1, 3], starts: [2, 7], ends: [7, 12] },
      { input: '  012345678\u05c3 ', tokens: ['01234', '##5678', '<unk>'], ids: [1, 2, 0], starts: [2, 7, 11], ends: [7, 11, 13] },
    ],
  ),
  {
    name: 'a model that is not a FlatBuffer of the config is refused at load',
    source: 'tfgate: TF Text reads the buffer unverified',
    op: 'FastWordpieceTokenizeWithOffsets',
    inputs: [str([1], ['abc']), konst(u8(Uint8Array.of(200, 0, 0, 0, 1, 2)))],
    want: { at: 'load', message: /wp_model is not a FastWordpieceTokenizerConfig flatbuffer: the root table lies outside the buffer/ },
  },
];

function detokenize(name: string, source: string, o: FastWordpieceOptions, ids: number[][], want: string[]): OpCase {
  const splits = [0];
  for (const r of ids) splits.push(splits[splits.length - 1] + r.length);
  return {
    name,
    source,
    op: 'TFText>FastWordpieceDetokenize',
    inputs: [i32([splits[splits.length - 1]], ids.flat()), i64([splits.length], splits), konst(u8(buildFastWordpieceModel(o)))],
    want: { output_words: str([want.length], want) },
  };
}

const DETOKENIZE_CASES: OpCase[] = [
  ...[
    { line: 2496, vocab: ['a', 'abc', '##de', '##defgxy', '##deh', '##f', '##ghz', '<unk>'], ids: [1, 2, 5, 6], want: 'abcdefghz' },
    { line: 2507, vocab: ['a', 'abc', '##de', '##c', '##f', '<unk>'], ids: [0, 1, 1, 2, 5], want: 'a abc abcde <unk>' },
    { line: 2517, vocab: ['a', 'abc', '##de', '##deh', '##f', '<unk>'], ids: [3, 1, 2], want: '##deh abcde' },
  ].map((t) =>
    detokenize(
      `${JSON.stringify(t.ids)} → ${JSON.stringify(t.want)}: suffix pieces join their word, words a space; a leading suffix piece keeps the indicator`,
      `${WP_TEST}:${t.line}`,
      { vocab: t.vocab, unkToken: '<unk>', noPretokenization: true, supportDetokenization: true },
      [t.ids],
      [t.want],
    ),
  ),
  {
    name: 'a model built without support_detokenization: FAILED_PRECONDITION',
    source: `${TEXT}/core/kernels/fast_wordpiece_tokenizer.cc@17c38bf0 DetokenizeToTokens`,
    op: 'TFText>FastWordpieceDetokenize',
    inputs: [i32([1], [0]), i64([2], [0, 1]), konst(u8(modelFile('fast_wordpiece_tokenizer_model.fb')))],
    want: failsAtRun(
      'Detokenize function is only enabled when support_detokenization is true in the config flatbuffer. Please rebuild the model flatbuffer by setting support_detokenization=true.',
      Code.FAILED_PRECONDITION,
    ),
  },
  {
    name: 'an id past the vocabulary: OUT_OF_RANGE',
    source: `${TEXT}/core/kernels/fast_wordpiece_tokenizer.cc@17c38bf0 DetokenizeToTokens`,
    op: 'TFText>FastWordpieceDetokenize',
    inputs: [
      i32([2], [0, 6]),
      i64([2], [0, 2]),
      konst(u8(buildFastWordpieceModel({ vocab: ['a', '##b', '<unk>'], unkToken: '<unk>', supportDetokenization: true }))),
    ],
    want: failsAtRun('Token ID out of bounds: 6', Code.OUT_OF_RANGE),
  },
];

interface NormRow {
  input: string | Uint8Array;
  output: string | Uint8Array;
  offsets: number[];
}

function normalize(name: string, source: string, file: string, rows: NormRow[], getOffsets = true): OpCase {
  const splits = [0];
  for (const r of rows) splits.push(splits[splits.length - 1] + (getOffsets ? r.offsets.length : 0));
  return {
    name,
    source: `${source} (model: ${TEXT}/python/ops/test_data/${file}@17c38bf0)`,
    op: 'FastBertNormalize',
    attrs: { get_offsets: attr.b(getOffsets) },
    inputs: [
      str(
        [rows.length],
        rows.map((r) => r.input),
      ),
      konst(u8(modelFile(file))),
    ],
    want: {
      output_values: str(
        [rows.length],
        rows.map((r) => r.output),
      ),
      output_offsets: i64([getOffsets ? splits[splits.length - 1] : 0], getOffsets ? rows.flatMap((r) => r.offsets) : []),
      output_row_splits: i64([splits.length], splits),
    },
  };
}

const INVALID_UTF8 = hex('618020ff20f82061e06120f39c9d');
const CASED_ROWS: NormRow[] = [
  { input: '', output: '', offsets: [0] },
  { input: 'Test #1.', output: 'Test #1.', offsets: [0, 1, 2, 3, 4, 5, 6, 7, 8] },
  { input: 'Test\u00c0A\u0300 #1.', output: 'Test\u00c0A\u0300 #1.', offsets: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13] },
  { input: 'Te\x11st #1.', output: 'Te st #1.', offsets: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9] },
  { input: 'Test \t\n#1.', output: 'Test   #1.', offsets: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10] },
  { input: INVALID_UTF8, output: INVALID_UTF8, offsets: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14] },
];
const UNCASED_ROWS: NormRow[] = [
  { input: '', output: '', offsets: [0] },
  { input: 'Test #1.', output: 'test #1.', offsets: [0, 1, 2, 3, 4, 5, 6, 7, 8] },
  { input: 'Test\u00c0A\u0300 #1.', output: 'testaa #1.', offsets: [0, 1, 2, 3, 4, 6, 9, 10, 11, 12, 13] },
  { input: 'Te\x11st #1.', output: 'te st #1.', offsets: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9] },
  { input: 'Test \t\n#1.', output: 'test   #1.', offsets: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10] },
  { input: 'a\u00bc', output: 'a1\u20444', offsets: [0, 1, 1, 1, 1, 1, 3] },
  { input: 'a\u01f2', output: 'adz', offsets: [0, 1, 1, 3] },
  { input: 'a\u0389', output: 'a\u03b7', offsets: [0, 1, 1, 3] },
  { input: INVALID_UTF8, output: INVALID_UTF8, offsets: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14] },
];

const NORMALIZE_CASES: OpCase[] = [
  normalize(
    'lower_case_nfd_strip_accents=False: control characters and whitespace become spaces; offsets per output byte',
    `${NORM_TEST}:50-96,141 Test 0-4, 13`,
    'fast_bert_normalizer_model.fb',
    CASED_ROWS,
  ),
  normalize(
    'lower_case_nfd_strip_accents=True: lower-cased, NFD, accents dropped; a changed code point maps to its first byte',
    `${NORM_TEST}:97-148 Test 5-12, 14`,
    'fast_bert_normalizer_model_lower_case_nfd_strip_accents.fb',
    UNCASED_ROWS,
  ),
  normalize(
    'get_offsets=False: no offsets, row splits all zero (as the kernel fills them)',
    `${TEXT}/core/kernels/fast_bert_normalizer_kernel_template.h@17c38bf0 InvokeRealWork`,
    'fast_bert_normalizer_model_lower_case_nfd_strip_accents.fb',
    UNCASED_ROWS.slice(1, 3),
    false,
  ),
];

// The ops as REGISTER_TF_OP_SHIM registers them from the kernels' Inputs/Outputs/Attrs.
const REGISTRATIONS: readonly string[] = [
  `REGISTER_OP("FastWordpieceTokenizeWithOffsets")
    .Input("input_values: string")
    .Input("wp_model: uint8")
    .Output("output_subwords: string")
    .Output("output_ids: int64")
    .Output("output_row_splits: int64")
    .Output("start_values: int64")
    .Output("end_values: int64")`,
  `REGISTER_OP("TFText>FastWordpieceDetokenize")
    .Input("input_values: int32")
    .Input("input_row_splits: int64")
    .Input("wp_model: uint8")
    .Output("output_words: string")`,
  `REGISTER_OP("FastBertNormalize")
    .Input("input_values: string")
    .Input("fast_bert_normalizer_model: uint8")
    .Output("output_values: string")
    .Output("output_offsets: int64")
    .Output("output_row_splits: int64")
    .Attr("get_offsets: bool = false")`,
];

export const FAST_WORDPIECE_CASES: OpFamilyCases = {
  family: 'text',
  registrations: REGISTRATIONS,
  engines: {
    onnx: {
      skip: 'ONNX Runtime takes no string tensors here: the converter refuses a DT_STRING input or output (tf_to_onnx.ts), so --runtime=auto serves these ops on the embedded runtime',
    },
  },
  cases: [...TOKENIZE_CASES, ...DETOKENIZE_CASES, ...NORMALIZE_CASES],
};

/**
 * text.FastBertTokenizer(vocab, lower_case_nfd_strip_accents=True).tokenize(text).to_tensor()
 * as an export writes it (the server's string-ops test serves it): FastBertNormalize (TF Text's
 * lower-casing model file), FastWordpieceTokenizeWithOffsets end to end, the ragged ids padded
 * with 0 by RaggedTensorToTensor, as a BERT preprocessor feeds its encoder.
 */
export function fastBertTokenizerSignature(g: GraphBuilder, text: Tensor) {
  const normalizer = g.constant('fast_bert_normalizer_model', u8(modelFile('fast_bert_normalizer_model_lower_case_nfd_strip_accents.fb')));
  const normalized = new Tensor(
    g.addNode('FastBertNormalize', 'FastBertNormalize', [text, normalizer], { get_offsets: attr.b(false) }),
    0,
    'string',
    [-1],
  );
  // An export's model holds a trie key for every punctuation character; the text's are the only
  // ones its walk can reach (the builder's `punctuation`), and keep the SavedModel small.
  const wpModel = g.constant('wp_model', u8(textModel({ vocab: BERT_VOCAB, unkToken: '<unk>' }, FAST_BERT_TEXT.join(''))));
  const tokenize = g.addNode('FastWordpieceTokenizeWithOffsets', 'FastWordpieceTokenizeWithOffsets', [normalized, wpModel]);
  const rowSplits = new Tensor(tokenize, 2, 'int64', [-1]);
  const padded = g.addNode(
    'RaggedTensorToTensor',
    'RaggedTensorToTensor',
    [g.constant('shape', i64([], [-1])), new Tensor(tokenize, 1, 'int64', [-1]), g.constant('default_value', i64([], [0])), rowSplits],
    {
      T: attr.type('int64'),
      Tindex: attr.type('int64'),
      Tshape: attr.type('int64'),
      num_row_partition_tensors: attr.i(1),
      row_partition_types: attr.strings(['ROW_SPLITS']),
    },
  );
  return {
    input_word_ids: new Tensor(padded, 0, 'int64', [-1, -1]),
    normalized: g.identity('normalized', normalized),
  };
}

/** Upper case lowered (fast_bert_normalizer_test.cc Test 6: "Test #1." → "test #1."), then Test 27's and 28's inputs. */
export const FAST_BERT_TEXT = ['Hello there my NAME is Terry', 'WhatChamacallit? you SAID'];
export const FAST_BERT_NORMALIZED = BERT_ROWS.map((r) => r.input);
/** Test 27's and 28's ids (fast_wordpiece_tokenizer_test.cc@17c38bf0:1675,1694), padded with 0 to the longer row. */
export const FAST_BERT_IDS = [
  [6, 7, 8, 9, 10, 11, 12, 13, 14],
  [0, 0, 20, 21, 0, 0, 0, 0, 0],
];
