// TF Text's WordpieceTokenizeWithOffsets (text.WordpieceTokenizer, BERT preprocessing), its
// vocabulary a lookup table the init op fills, as TF Text's tests build it (_CreateTable:
// KeyValueTensorInitializer(vocab, range(size)) under a StaticVocabularyTableV1, whose handle is
// the HashTableV2's). Values from tensorflow/text tensorflow_text/python/ops/
// wordpiece_tokenizer_test.py@17c38bf0 (testWordPieceOpAndVerifyOffsets; where it states no
// offsets it checks that they cut each piece out of its word, which the offsets below do) and
// the kernel (wordpiece_tokenizer.cc) for the quirks.
import { attr, Tensor, type GraphBuilder } from '../../../../test_util/savedmodel/writer/graph_builder.js';
import { i64, str, type OpCase } from '../op_case.js';

const TEST = 'tensorflow/text tensorflow_text/python/ops/wordpiece_tokenizer_test.py@17c38bf0 testWordPieceOpAndVerifyOffsets';
const OP = 'WordpieceTokenizeWithOffsets';

/** _ENGLISH_VOCAB of the test named above (the server's string-ops test serves it too). */
export const ENGLISH_VOCAB: readonly string[] = [
  'don',
  "##'",
  '##t',
  'tread',
  '##ness',
  'hel',
  '##lo',
  'there',
  'my',
  'na',
  '##me',
  'is',
  'ter',
  '##ry',
  'what',
  '##cha',
  '##ma',
  '##call',
  '##it?',
  'you',
  'said',
];
const RUSSIAN_VOCAB = ['к', '##уп', '##иха'];

interface Options {
  vocab: readonly string[];
  unknownToken?: string | null;
  maxBytesPerWord?: number;
  maxCharsPerToken?: number;
  splitUnknownCharacters?: boolean;
}

/** words → per word its pieces, with their byte starts and ends. */
function wordpiece(
  name: string,
  source: string,
  words: string[],
  pieces: string[][],
  starts: number[][],
  ends: number[][],
  o: Options,
): OpCase {
  const splits = [0];
  for (const p of pieces) splits.push(splits[splits.length - 1] + p.length);
  const unknown = o.unknownToken === undefined ? '[UNK]' : o.unknownToken;
  return {
    name,
    source,
    op: OP,
    graph: (g: GraphBuilder) => {
      const table = g.addNode('HashTableV2', 'vocab_table', [], {
        container: attr.s(''),
        shared_name: attr.s('hash_table_vocab'),
        use_node_name_sharing: attr.b(false),
        key_dtype: attr.type('string'),
        value_dtype: attr.type('int64'),
      });
      const keys = g.constant('vocab_keys', str([o.vocab.length], o.vocab));
      const ids = g.constant(
        'vocab_ids',
        i64(
          [o.vocab.length],
          o.vocab.map((_, i) => i),
        ),
      );
      const init = g.addNode('InitializeTableV2', 'vocab_init', [table, keys.ref, ids.ref], {
        Tkey: attr.type('string'),
        Tval: attr.type('int64'),
      });
      const x = g.placeholder('words', 'string', [-1]);
      const tokenize = g.addNode(OP, 'wordpiece', [x, table], {
        suffix_indicator: attr.s('##'),
        max_bytes_per_word: attr.i(o.maxBytesPerWord ?? 100),
        max_chars_per_token: attr.i(o.maxCharsPerToken ?? 0),
        use_unknown_token: attr.b(Boolean(unknown)),
        unknown_token: attr.s(unknown ?? ''),
        split_unknown_characters: attr.b(o.splitUnknownCharacters ?? false),
        output_row_partition_type: attr.s('row_splits'),
      });
      const out = (i: number, dtype: 'string' | 'int64') => g.identity(`out_${i}`, new Tensor(tokenize, i, dtype, [-1]));
      return {
        inputs: { words: x },
        outputs: {
          output_values: out(0, 'string'),
          output_row_lengths: out(1, 'int64'),
          start_values: out(2, 'int64'),
          limit_values: out(3, 'int64'),
        },
        initOp: g.noOp('init_all_tables', [init]),
      };
    },
    feeds: { words: str([words.length], words) },
    want: {
      output_values: str([splits[splits.length - 1]], pieces.flat()),
      output_row_lengths: i64([splits.length], splits),
      start_values: i64([starts.flat().length], starts.flat()),
      limit_values: i64([ends.flat().length], ends.flat()),
    },
  };
}

export const WORDPIECE_CASES: readonly OpCase[] = [
  wordpiece(
    "don't, treadness: longest match first, suffixes marked ##",
    TEST,
    ["don't", 'treadness'],
    [
      ['don', "##'", '##t'],
      ['tread', '##ness'],
    ],
    [
      [0, 3, 4],
      [0, 5],
    ],
    [
      [3, 4, 5],
      [5, 9],
    ],
    { vocab: ENGLISH_VOCAB },
  ),
  wordpiece(
    'two sentences of words',
    TEST,
    ['hello', 'there', 'my', 'name', 'is', 'terry', 'whatchamacallit?', 'you', 'said'],
    [
      ['hel', '##lo'],
      ['there'],
      ['my'],
      ['na', '##me'],
      ['is'],
      ['ter', '##ry'],
      ['what', '##cha', '##ma', '##call', '##it?'],
      ['you'],
      ['said'],
    ],
    [[0, 3], [0], [0], [0, 2], [0], [0, 3], [0, 4, 7, 9, 13], [0], [0]],
    [[3, 5], [5], [2], [2, 4], [2], [3, 5], [4, 7, 9, 13, 16], [3], [4]],
    { vocab: ENGLISH_VOCAB },
  ),
  wordpiece('UTF-8: Russian pieces, offsets in bytes', TEST, ['купиха'], [['к', '##уп', '##иха']], [[0, 2, 6]], [[2, 6, 12]], {
    vocab: RUSSIAN_VOCAB,
  }),
  wordpiece(
    "a word with no complete split is [UNK] (end offset: the word's bytes, wordpiece_tokenizer.cc NoTokenFound)",
    TEST,
    ["don't", 'tread', 'cantfindme', 'treadcantfindme'],
    [['don', "##'", '##t'], ['tread'], ['[UNK]'], ['[UNK]']],
    [[0, 3, 4], [0], [0], [0]],
    [[3, 4, 5], [5], [10], [15]],
    { vocab: ENGLISH_VOCAB },
  ),
  wordpiece(
    'without an unknown token the word stays whole',
    TEST,
    ["don't", 'tread', 'cantfindme', 'treadcantfindme'],
    [['don', "##'", '##t'], ['tread'], ['cantfindme'], ['treadcantfindme']],
    [[0, 3, 4], [0], [0], [0]],
    [[3, 4, 5], [5], [10], [15]],
    { vocab: ENGLISH_VOCAB, unknownToken: null },
  ),
  wordpiece(
    "a word over max_bytes_per_word (5) is [UNK], its end offset the unknown token's length (stated: [[3, 4, 5], [5]])",
    TEST,
    ["don't", 'treadness'],
    [['don', "##'", '##t'], ['[UNK]']],
    [[0, 3, 4], [0]],
    [[3, 4, 5], [5]],
    { vocab: ENGLISH_VOCAB, maxBytesPerWord: 5 },
  ),
  wordpiece(
    'unknown characters not split: the whole word is [UNK]',
    TEST,
    ['nap', 'hello!me'],
    [['[UNK]'], ['[UNK]']],
    [[0], [0]],
    [[3], [8]],
    { vocab: ENGLISH_VOCAB },
  ),
  wordpiece(
    'split_unknown_characters: each unknown character is ##[UNK]',
    TEST,
    ['nap', 'hello!me'],
    [
      ['na', '##[UNK]'],
      ['hel', '##lo', '##[UNK]', '##me'],
    ],
    [
      [0, 2],
      [0, 3, 5, 6],
    ],
    [
      [2, 3],
      [3, 5, 6, 8],
    ],
    { vocab: ENGLISH_VOCAB, splitUnknownCharacters: true },
  ),
  wordpiece(
    'split_unknown_characters without an unknown token: the character itself',
    TEST,
    ['nap', 'hello!me'],
    [
      ['na', '##p'],
      ['hel', '##lo', '##!', '##me'],
    ],
    [
      [0, 2],
      [0, 3, 5, 6],
    ],
    [
      [2, 3],
      [3, 5, 6, 8],
    ],
    { vocab: ENGLISH_VOCAB, unknownToken: null, splitUnknownCharacters: true },
  ),
  wordpiece(
    'max_chars_per_token 4: "tread" is not tried, so trea + ##d',
    TEST,
    ["don't", 'treadness'],
    [
      ['don', "##'", '##t'],
      ['trea', '##d', '##ness'],
    ],
    [
      [0, 3, 4],
      [0, 4, 5],
    ],
    [
      [3, 4, 5],
      [4, 5, 9],
    ],
    { vocab: [...ENGLISH_VOCAB, 'trea', '##d'], maxCharsPerToken: 4 },
  ),
];

// tensorflow/text tensorflow_text/core/ops/wordpiece_op.cc
export const WORDPIECE_REGISTRATIONS: readonly string[] = [
  `REGISTER_OP("WordpieceTokenizeWithOffsets")
    .Input("input_values: string")
    .Input("vocab_lookup_table: resource")
    .Attr("suffix_indicator: string")
    .Attr("max_bytes_per_word: int")
    .Attr("max_chars_per_token: int = 0")
    .Attr("use_unknown_token: bool")
    .Attr("unknown_token: string")
    .Attr("split_unknown_characters: bool = false")
    .Attr("output_row_partition_type: {'row_lengths', 'row_splits'}"
          " = 'row_lengths'")
    .Output("output_values: string")
    .Output("output_row_lengths: int64")
    .Output("start_values: int64")
    .Output("limit_values: int64")`,
];
