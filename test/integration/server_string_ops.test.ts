// The string family served end to end by the real server: the graph TF's own
// regex_replace_op_test.py testForwarding builds (tf.strings.substr(x, 0, 5) then
// tf.strings.regex_replace(…, r"\p{Ll}", ".")), beside tf.strings.unicode_decode_with_offsets
// and tf.strings.length(unit="UTF8_CHAR") on the docstring example of unicode_decode, as a
// TF 2 export writes them: one node each, int64 row splits. Asked over REST and gRPC; the
// default runtime serves it on the embedded runtime (ONNX Runtime takes no string tensors),
// RE2 running in the server's worker. A second signature is BERT's preprocessing as TF Text's
// BertTokenizer exports it: whitespace tokens, WordPiece over a vocabulary table the init op
// fills, and the ids of a StaticVocabularyTable (the table, or the OOV bucket). A third is the
// uncased BasicTokenizer's text pipeline (TF Text's bert_tokenizer.py): CaseFoldUTF8, NFD,
// combining marks dropped, controls to spaces, then RegexSplitWithOffsets on BERT's delimiters.
// A fourth is TF Text's UnicodeScriptTokenizer().tokenize_with_offsets as its Python builds it:
// UnicodeDecodeWithOffsets, UnicodeScriptTokenizeWithOffsets, the tokens encoded by UnicodeEncode.
// A fifth maps offsets in NFKC-normalized text back to the source (normalize_utf8_with_offsets_map,
// find_source_offsets on dense offsets); a sixth tries to return the offsets map, a DT_VARIANT.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { freePort, postJson, startServer, waitAvailable, type RunningServer } from '../helpers/server_process.js';
import { call, connect, type Clients } from '../helpers/grpc_client.js';
import { attr, GraphBuilder, i32, Tensor } from '../helpers/tiny_graphs.js';
import { tempDir } from '../helpers/temp.js';
import { writeSavedModel } from '../../test_util/savedmodel/saved_model_writer.js';
import { opDefFromRegistration } from '../../test_util/savedmodel/writer/op_registration.js';
import { UNICODE_REGISTRATIONS, WHITESPACE_CONFIG } from '../runtimes/ops/cases/string_unicode.js';
import { ENGLISH_VOCAB, WORDPIECE_REGISTRATIONS } from '../runtimes/ops/cases/string_wordpiece.js';
import {
  FAST_BERT_IDS,
  FAST_BERT_NORMALIZED,
  FAST_BERT_TEXT,
  FAST_WORDPIECE_CASES,
  fastBertTokenizerSignature,
} from '../runtimes/ops/cases/string_fast_wordpiece.js';
import { NORMALIZE_REGISTRATIONS } from '../runtimes/ops/cases/string_normalize.js';
import { REGEX_REGISTRATIONS } from '../runtimes/ops/cases/string_regex.js';
import { UNICODE_SCRIPT_REGISTRATIONS } from '../runtimes/ops/cases/string_unicode_script.js';
import { INIT_OP_SIGNATURE_KEY } from '../../src/savedmodel/signature_spec.js';

const TEXT = ['AbCdEfG', 'HiJkLmN'];
/** regex_replace_op_test.py@03049341 testForwarding. */
const MASKED = ['A.C.E', 'H.J.L'];
const UTF8 = ['G\u00f6\u00f6dnight', '\u{1f60a}'];
/** unicode_decode_op_test.py@30b8178a testDocstringExamples (decode_with_offsets). */
const CODE_POINTS = [71, 246, 246, 100, 110, 105, 103, 104, 116, 128522];
const ROW_SPLITS = [0, 9, 10];
const BYTE_STARTS = [0, 1, 3, 5, 6, 7, 8, 9, 10, 0];
/** The rows' lengths in characters (string_length_op_test.py testUnit's unit). */
const LENGTHS = [9, 1];
/** wordpiece_tokenizer_test.py@17c38bf0 (tensorflow/text): _ENGLISH_VOCAB, and "Basic case w/ int id lookup". */
const VOCAB = ENGLISH_VOCAB;
const SENTENCE = "don't tread cantfindme treadcantfindme";
const PIECE_IDS = [0, 1, 2, 3, 21, 21];
const PIECES_PER_WORD = [0, 3, 4, 5, 6];

/** sentences → whitespace tokens → WordPiece → ids from the vocabulary, an unknown piece to the one OOV bucket (id 21). */
function bertTokenizer(g: GraphBuilder) {
  const sentences = g.placeholder('sentences', 'string', [-1]);
  const config = g.constant('whitespace_config', { dtype: 'string', shape: [], values: [WHITESPACE_CONFIG] });
  const words = new Tensor(g.addNode('TFText>WhitespaceTokenizeWithOffsetsV2', 'whitespace', [sentences, config]), 0, 'string', [-1]);
  const table = g.addNode('HashTableV2', 'vocab_table', [], {
    container: attr.s(''),
    shared_name: attr.s('hash_table_vocab'),
    use_node_name_sharing: attr.b(false),
    key_dtype: attr.type('string'),
    value_dtype: attr.type('int64'),
  });
  const vocabKeys = g.constant('vocab_keys', { dtype: 'string', shape: [VOCAB.length], values: VOCAB.map((v) => enc.encode(v)) });
  const vocabIds = g.constant('vocab_ids', {
    dtype: 'int64',
    shape: [VOCAB.length],
    values: BigInt64Array.from(VOCAB, (_, i) => BigInt(i)),
  });
  const init = g.addNode('InitializeTableV2', 'vocab_init', [table, vocabKeys, vocabIds], {
    Tkey: attr.type('string'),
    Tval: attr.type('int64'),
  });
  const wordpiece = g.addNode('WordpieceTokenizeWithOffsets', 'wordpiece', [words, table], {
    suffix_indicator: attr.s('##'),
    max_bytes_per_word: attr.i(100),
    max_chars_per_token: attr.i(0),
    use_unknown_token: attr.b(true),
    unknown_token: attr.s('[UNK]'),
    split_unknown_characters: attr.b(false),
    output_row_partition_type: attr.s('row_splits'),
  });
  const pieces = new Tensor(wordpiece, 0, 'string', [-1]);
  const found = new Tensor(
    g.addNode(
      'LookupTableFindV2',
      'lookup',
      [table, pieces, g.constant('oov', { dtype: 'int64', shape: [], values: BigInt64Array.of(-1n) })],
      { Tin: attr.type('string'), Tout: attr.type('int64') },
    ),
    0,
    'int64',
    [-1],
  );
  const bucket = new Tensor(g.addNode('StringToHashBucketFast', 'oov_bucket', [pieces], { num_buckets: attr.i(1) }), 0, 'int64', [-1]);
  const oovId = g.add(
    'oov_id',
    bucket,
    g.constant('vocab_size', { dtype: 'int64', shape: [], values: BigInt64Array.of(BigInt(VOCAB.length)) }),
  );
  const known = new Tensor(
    g.addNode('NotEqual', 'known', [found, g.constant('minus_one', { dtype: 'int64', shape: [], values: BigInt64Array.of(-1n) })], {
      T: attr.type('int64'),
    }),
    0,
    'bool',
    [-1],
  );
  const ids = new Tensor(g.addNode('SelectV2', 'ids', [known, found, oovId], { T: attr.type('int64') }), 0, 'int64', [-1]);
  return {
    inputs: { sentences },
    outputs: { ids, word_splits: new Tensor(wordpiece, 1, 'int64', [-1]) },
    initOp: g.noOp('init_all_tables', [init]),
  };
}

/** bert_tokenizer_test.py@17c38bf0 (tensorflow/text) test_basic_tokenize, lower_case=True. */
const UNCASED_TEXT = ['UNwant\u00e9d,running', 'A\u00f1ade la informaci\u00f3n del formulario y tus preguntas'];
const UNCASED_TOKENS = ['unwanted', ',', 'running', 'anade', 'la', 'informacion', 'del', 'formulario', 'y', 'tus', 'preguntas'];
const UNCASED_ROW_SPLITS = [0, 3, 11];
/** bert_tokenizer.py@17c38bf0 _DELIM_REGEX (whitespace, ASCII and Unicode punctuation, CJK ideographs), which regex_split_ops.py wraps in "(…)". */
const PUNCTUATION = '[!-/]|[:-@]|[\\[-`]|[{-~]|[\\p{P}]';
const CJK = [
  ['4E00', '9FFF'],
  ['3400', '4DBF'],
  ['20000', '2A6DF'],
  ['2A700', '2B73F'],
  ['2B740', '2B81F'],
  ['2B820', '2CEAF'],
  ['F900', 'FAFF'],
  ['2F800', '2FA1F'],
]
  .map(([from, to]) => `[\\x{${from}}-\\x{${to}}]`)
  .join('|');

/** BasicTokenizer(lower_case=True).tokenize: case_fold_utf8, normalize_utf8 NFD, \p{Mn} dropped, \p{Cc}|\p{Cf} to spaces, regex split. */
function bertUncasedBasicTokenizer(g: GraphBuilder) {
  const text = g.placeholder('uncased_text', 'string', [-1]);
  const one = (op: string, name: string, input: Tensor, attrs: Parameters<GraphBuilder['addNode']>[3] = {}) =>
    new Tensor(g.addNode(op, name, [input], attrs), 0, 'string', [-1]);
  const replace = (name: string, input: Tensor, pattern: string, rewrite: string) =>
    one('StaticRegexReplace', name, input, { pattern: attr.s(pattern), rewrite: attr.s(rewrite), replace_global: attr.b(true) });
  const folded = one('CaseFoldUTF8', 'CaseFoldUTF8', text);
  const nfd = one('NormalizeUTF8', 'NormalizeUTF8', folded, { normalization_form: attr.s('NFD') });
  const clean = replace('StaticRegexReplace_1', replace('StaticRegexReplace_mn', nfd, '\\p{Mn}', ''), '\\p{Cc}|\\p{Cf}', ' ');
  const pattern = (name: string, p: string) => g.constant(name, { dtype: 'string', shape: [], values: [enc.encode(p)] });
  const split = g.addNode('RegexSplitWithOffsets', 'BertBasicTokenizer', [
    clean,
    pattern('delim_regex_pattern', `(\\s+|${PUNCTUATION}|${CJK})`),
    pattern('keep_delim_regex_pattern', `(${PUNCTUATION}|${CJK})`),
  ]);
  return {
    inputs: { uncased_text: text },
    outputs: { tokens: new Tensor(split, 0, 'string', [-1]), row_splits: new Tensor(split, 3, 'int64', [-1]) },
  };
}

/** unicode_script_tokenizer_test.py@17c38bf0 (tensorflow/text) testInternationalization, and the docstring's 累計7239人 (unicode_script_tokenizer.py:125). */
const SCRIPT_TEXT = ["J'adore la灯", '¡Escríbeme!', '累計7239人'];
const SCRIPT_TOKENS = ['J', "'", 'adore', 'la', '灯', '¡', 'Escríbeme', '!', '累計', '7239', '人'];
const SCRIPT_TOKEN_SPLITS = [0, 5, 8, 11];
/** The stated byte offsets [[0, 1, 2, 8, 10], [0, 2, 12], [0, 6, 10]] and ends, in code points (what the op answers before the wrapper maps them to bytes). */
const SCRIPT_STARTS = [0, 1, 2, 8, 10, 0, 1, 10, 0, 2, 6];
const SCRIPT_LIMITS = [1, 2, 7, 10, 11, 1, 10, 11, 2, 6, 7];

/** UnicodeScriptTokenizer()._tokenize_with_offsets_encode_decode_wrapper: decode, tokenize the code points, encode the tokens. */
function unicodeScriptTokenizer(g: GraphBuilder) {
  const text = g.placeholder('script_text', 'string', [-1]);
  const decode = g.addNode('UnicodeDecodeWithOffsets', 'UnicodeScriptTokenize/UnicodeDecodeWithOffsets', [text], {
    input_encoding: attr.s('UTF-8'),
    errors: attr.s('replace'),
    replacement_char: attr.i(0xfffd),
    replace_control_characters: attr.b(false),
    Tsplits: attr.type('int64'),
  });
  const tokenize = g.addNode(
    'UnicodeScriptTokenizeWithOffsets',
    'UnicodeScriptTokenize/UnicodeScriptTokenizeWithOffsets',
    [new Tensor(decode, 1, 'int32', [-1]), new Tensor(decode, 0, 'int64', [-1])],
    { Tsplits: attr.type('int64'), keep_whitespace: attr.b(false) },
  );
  const encode = g.addNode(
    'UnicodeEncode',
    'UnicodeScriptTokenize/UnicodeEncode',
    [new Tensor(tokenize, 0, 'int32', [-1]), new Tensor(tokenize, 1, 'int64', [-1])],
    { output_encoding: attr.s('UTF-8'), errors: attr.s('replace'), replacement_char: attr.i(0xfffd), Tsplits: attr.type('int64') },
  );
  return {
    inputs: { script_text: text },
    outputs: {
      tokens: new Tensor(encode, 0, 'string', [-1]),
      token_splits: new Tensor(tokenize, 4, 'int64', [-1]),
      starts: new Tensor(tokenize, 2, 'int64', [-1]),
      limits: new Tensor(tokenize, 3, 'int64', [-1]),
    },
  };
}

/** normalize_ops_test.py@17c38bf0 (tensorflow/text) test_one_string and test_tensor_input. */
const OFFSETS_TEXT = [
  '\u682a\u5f0f\u4f1a\u793e\uff2b\uff21\uff24\uff2f\uff2b\uff21\uff37\uff21',
  '\uff2b\uff21\uff24\uff2f\uff2b\uff21\uff37\uff21',
];
const OFFSETS_NORMALIZED = ['\u682a\u5f0f\u4f1a\u793eKADOKAWA', 'KADOKAWA'];
const POST_NORM_OFFSETS = [
  [0, 3, 13, 21],
  [0, 1, 2, 8],
];
const PRE_NORM_OFFSETS = [
  [0, 3, 15, 36],
  [0, 3, 6, 24],
];

/**
 * normalize_utf8_with_offsets_map(text, "NFKC") then find_source_offsets(offsets_map, offsets) for
 * dense [rows, n] offsets: the wrapper's RaggedTensor.from_tensor (flat values, uniform row
 * splits range(rows + 1) * n, int64), the map reshaped to [-1], and back to [rows, n].
 */
function sourceOffsetsSignature(g: GraphBuilder) {
  const text = g.placeholder('offsets_text', 'string', [-1]);
  const offsets = g.placeholder('post_norm_offsets', 'int64', [-1, -1]);
  const norm = g.addNode('NormalizeUTF8WithOffsetsMap', 'NormalizeUTF8WithOffsetsMap', [text], { normalization_form: attr.s('NFKC') });
  const i64c = (name: string, shape: number[], values: number[]) =>
    g.constant(name, { dtype: 'int64', shape, values: BigInt64Array.from(values, (v) => BigInt(v)) });
  const node = (
    op: string,
    name: string,
    inputs: Array<Tensor | string>,
    attrs: Parameters<GraphBuilder['addNode']>[3],
    dtype: 'int64' | 'int32' = 'int64',
  ) => new Tensor(g.addNode(op, name, inputs, attrs), 0, dtype, null);
  const shape = node('Shape', 'FindSourceOffsets/Shape', [offsets], { T: attr.type('int64'), out_type: attr.type('int64') });
  const dim = (k: number) =>
    node(
      'StridedSlice',
      `FindSourceOffsets/strided_slice_${k}`,
      [shape, i32c(g, `b${k}`, k), i32c(g, `e${k}`, k + 1), i32c(g, `s${k}`, 1)],
      {
        T: attr.type('int64'),
        Index: attr.type('int32'),
        shrink_axis_mask: attr.i(1),
      },
    );
  const rows = dim(0);
  const plus1 = node('AddV2', 'FindSourceOffsets/add', [rows, i64c('FindSourceOffsets/one', [], [1])], { T: attr.type('int64') });
  const range = node(
    'Range',
    'FindSourceOffsets/range',
    [i64c('FindSourceOffsets/zero', [], [0]), plus1, i64c('FindSourceOffsets/delta', [], [1])],
    {
      Tidx: attr.type('int64'),
    },
  );
  const splits = node('Mul', 'FindSourceOffsets/row_splits', [range, dim(1)], { T: attr.type('int64') });
  const minus1 = i64c('FindSourceOffsets/flat', [1], [-1]);
  const values = node('Reshape', 'FindSourceOffsets/Reshape', [offsets, minus1], { T: attr.type('int64'), Tshape: attr.type('int64') });
  const map = g.addNode('Reshape', 'FindSourceOffsets/Reshape_1', [`${norm}:1`, minus1], {
    T: attr.type('DT_VARIANT'),
    Tshape: attr.type('int64'),
  });
  const found = node('FindSourceOffsets', 'FindSourceOffsets/FindSourceOffsets', [map, values, splits], { Tsplits: attr.type('int64') });
  const back = node('Reshape', 'FindSourceOffsets/Reshape_2', [found, shape], { T: attr.type('int64'), Tshape: attr.type('int64') });
  return {
    offsets: {
      inputs: { offsets_text: text, post_norm_offsets: offsets },
      outputs: { normalized: new Tensor(norm, 0, 'string', [-1]), pre_norm_offsets: back },
    },
    // The offsets map itself as an output: a DT_VARIANT, which no API returns.
    offsets_map: { inputs: { offsets_text: text }, outputs: { offsets_map: { name: `${norm}:1`, dtype: 'DT_VARIANT', shape: null } } },
  };
}

const i32c = (g: GraphBuilder, name: string, k: number) => g.constant(`FindSourceOffsets/${name}`, i32([1], [k]));

async function writeModel(): Promise<string> {
  const g = new GraphBuilder();
  const text = g.placeholder('text', 'string', [-1]);
  const utf8 = g.placeholder('utf8', 'string', [-1]);
  const pos = g.constant('Substr/pos', i32([], [0]));
  const len = g.constant('Substr/len', i32([], [5]));
  const sub = new Tensor(
    g.addNode('Substr', 'Substr', [text, pos, len], { T: attr.type('int32'), unit: attr.s('BYTE') }),
    0,
    'string',
    [-1],
  );
  const masked = new Tensor(
    g.addNode('StaticRegexReplace', 'StaticRegexReplace', [sub], {
      pattern: attr.s('\\p{Ll}'),
      rewrite: attr.s('.'),
      replace_global: attr.b(true),
    }),
    0,
    'string',
    [-1],
  );
  const decode = g.addNode('UnicodeDecodeWithOffsets', 'UnicodeDecodeWithOffsets', [utf8], {
    input_encoding: attr.s('UTF-8'),
    errors: attr.s('replace'),
    replacement_char: attr.i(0xfffd),
    replace_control_characters: attr.b(false),
    Tsplits: attr.type('int64'),
  });
  const length = new Tensor(g.addNode('StringLength', 'StringLength', [utf8], { unit: attr.s('UTF8_CHAR') }), 0, 'int32', [-1]);
  const bert = bertTokenizer(g);
  const fastText = g.placeholder('fast_text', 'string', [-1]);
  const uncased = bertUncasedBasicTokenizer(g);
  const scripts = unicodeScriptTokenizer(g);
  const offsets = sourceOffsetsSignature(g);
  const dir = path.join(tempDir('tfgate-string-ops-'), 'strings', '1');
  await writeSavedModel(
    dir,
    g,
    {
      serving_default: {
        inputs: { text, utf8 },
        outputs: {
          masked,
          row_splits: new Tensor(decode, 0, 'int64', [-1]),
          char_values: new Tensor(decode, 1, 'int32', [-1]),
          char_to_byte_starts: new Tensor(decode, 2, 'int64', [-1]),
          length,
        },
      },
      bert: { inputs: bert.inputs, outputs: bert.outputs },
      fast_bert: { inputs: { text: fastText }, outputs: fastBertTokenizerSignature(g, fastText) },
      bert_uncased: uncased,
      script_tokens: scripts,
      offsets: offsets.offsets,
      offsets_map: offsets.offsets_map,
      [INIT_OP_SIGNATURE_KEY]: {
        methodName: '',
        inputs: {},
        outputs: { [INIT_OP_SIGNATURE_KEY]: { name: bert.initOp, dtype: 'DT_INVALID', shape: null } },
      },
    },
    {
      opDefs: [
        ...UNICODE_REGISTRATIONS,
        ...WORDPIECE_REGISTRATIONS,
        ...NORMALIZE_REGISTRATIONS,
        ...REGEX_REGISTRATIONS,
        ...FAST_WORDPIECE_CASES.registrations!,
        ...UNICODE_SCRIPT_REGISTRATIONS,
      ].map(opDefFromRegistration),
    },
  );
  return path.dirname(dir);
}

const enc = new TextEncoder();
const dec = new TextDecoder();
/** A TensorProto's integers, from its typed field or its tensor_content (little-endian). */
function integers(t: { int_val?: number[]; int64_val?: Array<string | number>; tensor_content?: Uint8Array; dtype: string }): number[] {
  if (t.int_val?.length) return t.int_val;
  if (t.int64_val?.length) return t.int64_val.map(Number);
  const b = Buffer.from(t.tensor_content ?? []);
  const wide = t.dtype === 'DT_INT64';
  return Array.from({ length: b.length / (wide ? 8 : 4) }, (_, i) => (wide ? Number(b.readBigInt64LE(8 * i)) : b.readInt32LE(4 * i)));
}
const stringProto = (values: string[]) => ({
  dtype: 'DT_STRING',
  tensor_shape: { dim: [{ size: values.length }] },
  string_val: values.map((v) => enc.encode(v)),
});

describe('string ops served end to end (real process)', () => {
  let server: RunningServer;
  let clients: Clients;

  before(async () => {
    const base = await writeModel();
    const grpcPort = await freePort();
    server = await startServer([`--port=${grpcPort}`, '--model_name=strings', `--model_base_path=${base}`, '--num_executors=1']);
    await waitAvailable(server, ['strings'], 60_000);
    clients = connect(`127.0.0.1:${grpcPort}`);
  });

  after(async () => {
    clients?.close();
    await server?.stop();
  });

  it('REST :predict answers what TF states: substr + \\p{Ll} masking, code points, byte offsets, lengths', async () => {
    const res = await postJson(server.url('/v1/models/strings:predict'), { inputs: { text: TEXT, utf8: UTF8 } });
    assert.equal(res.status, 200, res.text);
    const out = res.json.outputs as Record<string, unknown>;
    assert.deepEqual(out.masked, MASKED);
    assert.deepEqual(out.row_splits, ROW_SPLITS);
    assert.deepEqual(out.char_values, CODE_POINTS);
    assert.deepEqual(out.char_to_byte_starts, BYTE_STARTS);
    assert.deepEqual(out.length, LENGTHS);
  });

  it('gRPC Predict answers the same', async () => {
    const res = await call(clients.prediction, 'Predict', {
      model_spec: { name: 'strings' },
      inputs: { text: stringProto(TEXT), utf8: stringProto(UTF8) },
    });
    assert.deepEqual(
      res.outputs.masked.string_val.map((b: Uint8Array) => dec.decode(b)),
      MASKED,
    );
    assert.deepEqual(integers(res.outputs.char_values), CODE_POINTS);
    assert.deepEqual(integers(res.outputs.row_splits), ROW_SPLITS);
    assert.deepEqual(integers(res.outputs.char_to_byte_starts), BYTE_STARTS);
    assert.deepEqual(integers(res.outputs.length), LENGTHS);
  });

  it("BERT's tokenizer (whitespace, WordPiece over the init op's vocabulary table, ids with an OOV bucket) answers TF Text's stated ids", async () => {
    const res = await postJson(server.url('/v1/models/strings:predict'), { signature_name: 'bert', inputs: { sentences: [SENTENCE] } });
    assert.equal(res.status, 200, res.text);
    const out = res.json.outputs as Record<string, unknown>;
    assert.deepEqual(out.ids, PIECE_IDS);
    assert.deepEqual(out.word_splits, PIECES_PER_WORD);
  });

  it("TF Text's FastBertTokenizer (FastBertNormalize, FastWordpieceTokenizeWithOffsets, RaggedTensorToTensor) answers TF Text's stated ids", async () => {
    const res = await postJson(server.url('/v1/models/strings:predict'), { signature_name: 'fast_bert', inputs: { text: FAST_BERT_TEXT } });
    assert.equal(res.status, 200, res.text);
    const out = res.json.outputs as Record<string, unknown>;
    assert.deepEqual(out.normalized, FAST_BERT_NORMALIZED);
    assert.deepEqual(out.input_word_ids, FAST_BERT_IDS);
    const grpc = await call(clients.prediction, 'Predict', {
      model_spec: { name: 'strings', signature_name: 'fast_bert' },
      inputs: { text: stringProto(FAST_BERT_TEXT) },
    });
    assert.deepEqual(
      grpc.outputs.input_word_ids.tensor_shape.dim.map((d: { size: string | number }) => Number(d.size)),
      [2, 9],
    );
    assert.deepEqual(integers(grpc.outputs.input_word_ids), FAST_BERT_IDS.flat());
  });

  it("BERT's uncased basic tokenizer (CaseFoldUTF8, NFD, accents dropped, split) answers TF Text's stated tokens; a code point of another Unicode is refused by name", async () => {
    const res = await postJson(server.url('/v1/models/strings:predict'), {
      signature_name: 'bert_uncased',
      inputs: { uncased_text: UNCASED_TEXT },
    });
    assert.equal(res.status, 200, res.text);
    const out = res.json.outputs as Record<string, unknown>;
    assert.deepEqual(out.tokens, UNCASED_TOKENS);
    assert.deepEqual(out.row_splits, UNCASED_ROW_SPLITS);
    const refused = await postJson(server.url('/v1/models/strings:predict'), {
      signature_name: 'bert_uncased',
      inputs: { uncased_text: ['\ua7c0'] },
    });
    assert.equal(refused.status, 501, refused.text);
    assert.match(refused.json.error, /CaseFoldUTF8: the input holds U\+A7C0/);
  });

  it("TF Text's UnicodeScriptTokenizer (UnicodeDecodeWithOffsets, UnicodeScriptTokenizeWithOffsets, UnicodeEncode) answers TF Text's stated tokens; a code point whose script differs between Unicode versions is refused by name", async () => {
    const res = await postJson(server.url('/v1/models/strings:predict'), {
      signature_name: 'script_tokens',
      inputs: { script_text: SCRIPT_TEXT },
    });
    assert.equal(res.status, 200, res.text);
    const out = res.json.outputs as Record<string, unknown>;
    assert.deepEqual(out.tokens, SCRIPT_TOKENS);
    assert.deepEqual(out.token_splits, SCRIPT_TOKEN_SPLITS);
    assert.deepEqual(out.starts, SCRIPT_STARTS);
    assert.deepEqual(out.limits, SCRIPT_LIMITS);
    const grpc = await call(clients.prediction, 'Predict', {
      model_spec: { name: 'strings', signature_name: 'script_tokens' },
      inputs: { script_text: stringProto(SCRIPT_TEXT) },
    });
    assert.deepEqual(
      grpc.outputs.tokens.string_val.map((b: Uint8Array) => dec.decode(b)),
      SCRIPT_TOKENS,
    );
    assert.deepEqual(integers(grpc.outputs.token_splits), SCRIPT_TOKEN_SPLITS);
    const refused = await postJson(server.url('/v1/models/strings:predict'), {
      signature_name: 'script_tokens',
      inputs: { script_text: ['a\u{1fae8}'] },
    });
    assert.equal(refused.status, 501, refused.text);
    assert.match(refused.json.error, /UnicodeScriptTokenizeWithOffsets: the input holds U\+1FAE8/);
  });

  it('NFKC offsets map back to the source (normalize_utf8_with_offsets_map, find_source_offsets) as TF Text states; the offsets map itself is not returned', async () => {
    const res = await postJson(server.url('/v1/models/strings:predict'), {
      signature_name: 'offsets',
      inputs: { offsets_text: OFFSETS_TEXT, post_norm_offsets: POST_NORM_OFFSETS },
    });
    assert.equal(res.status, 200, res.text);
    const out = res.json.outputs as Record<string, unknown>;
    assert.deepEqual(out.normalized, OFFSETS_NORMALIZED);
    assert.deepEqual(out.pre_norm_offsets, PRE_NORM_OFFSETS);
    const variant = await postJson(server.url('/v1/models/strings:predict'), {
      signature_name: 'offsets_map',
      inputs: { offsets_text: OFFSETS_TEXT },
    });
    assert.equal(variant.status, 400, variant.text);
    assert.match(variant.json.error, /^Failed to write JSON value for tensor type: variant/);
  });

  it('text RE2 here cannot match byte-exactly (not UTF-8) is refused by name, and the server keeps serving', async () => {
    const bad = await postJson(server.url('/v1/models/strings:predict'), {
      inputs: { text: [{ b64: Buffer.from([0x41, 0xff]).toString('base64') }], utf8: ['x'] },
    });
    assert.notEqual(bad.status, 200, bad.text);
    assert.match(bad.json.error, /StaticRegexReplace: input string 0 is not valid UTF-8/);
    const good = await postJson(server.url('/v1/models/strings:predict'), { inputs: { text: TEXT, utf8: UTF8 } });
    assert.equal(good.status, 200, good.text);
  });
});
