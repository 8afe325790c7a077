// TensorFlow Text's WordpieceTokenizeWithOffsets (text.WordpieceTokenizer, BERT's sub-word
// tokenizer; tensorflow_text/core/kernels/wordpiece_tokenizer.cc and wordpiece_kernel.cc). The
// vocabulary is the lookup table the graph passes; at load (savedmodel/graph/lookup_tables/
// lookup_rewrite.ts) the table input becomes the table's keys and values as constants, so this
// kernel takes (input_values, table keys, table values). As TF Text's LookupTableVocab, a key is
// in the vocabulary when its value is not -1. Each word is split greedily, longest match first,
// extending one code point at a time as ICU's U8_NEXT reads them (an ill-formed byte is one
// step); pieces after the first carry suffix_indicator. A word with no match becomes
// unknown_token (or stays whole), a word longer than max_bytes_per_word too — with, as TF Text's
// kernel, an end offset of unknown_token's length in that case.
import tf from '../../../tfjs_packages/tfjs_core.cjs';
import type * as tfconv from '@tensorflow/tfjs-converter';
import { bytesAttr, checkOutputBytes, intElements, stringElements, stringTensor } from './string_tensors.js';
import { decoderFor } from './unicode_codec.js';

const OP = 'WordpieceTokenizeWithOffsets';
const OUT_OF_VOCAB = -1;
const utf8 = decoderFor('UTF-8')!;
const latin1 = new TextDecoder('latin1');
const keyOf = (b: Uint8Array) => latin1.decode(b);

interface Vocabulary {
  keys: Set<string>;
  /** The longest key's bytes: no longer candidate can match, so none is looked up. */
  longest: number;
}
const vocabularies = new WeakMap<tf.Tensor, Vocabulary>();

/** The keys whose value is not -1, built once per table constant (the same tensor on every call). */
function vocabulary(keys: tf.Tensor, values: tf.Tensor): Vocabulary {
  let vocab = vocabularies.get(keys);
  if (!vocab) {
    const v = intElements(values);
    const inVocab = stringElements(keys, 'vocabulary keys').filter((_, i) => v[i] !== OUT_OF_VOCAB);
    vocab = { keys: new Set(inVocab.map(keyOf)), longest: inVocab.reduce((m, k) => Math.max(m, k.length), 0) };
    vocabularies.set(keys, vocab);
  }
  return vocab;
}

interface Options {
  suffix: Uint8Array;
  maxBytesPerWord: number;
  maxCharsPerToken: number;
  useUnknownToken: boolean;
  unknownToken: Uint8Array;
  splitUnknownCharacters: boolean;
  vocab: Vocabulary;
}

interface Pieces {
  values: Uint8Array[];
  starts: number[];
  ends: number[];
}

const concat = (a: Uint8Array, b: Uint8Array) => {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
};
const piece = (o: Options, word: Uint8Array, start: number, end: number) =>
  start > 0 ? concat(o.suffix, word.subarray(start, end)) : word.subarray(start, end);

/**
 * The byte ends of the code points from `start` on (at most maxCharsPerToken of them when
 * positive), up to the first whose candidate is longer than every key (TF goes on to the word's
 * end, and finds none of those longer candidates in the vocabulary).
 */
function codePointEnds(o: Options, word: Uint8Array, start: number): number[] {
  const { step } = utf8(word);
  const ends: number[] = [];
  const suffix = start > 0 ? o.suffix.length : 0;
  for (let i = start; i < word.length;) {
    i += step(word, i)[1];
    ends.push(i);
    if (o.maxCharsPerToken > 0 && ends.length === o.maxCharsPerToken) break;
    if (suffix + i - start > o.vocab.longest) break;
  }
  return ends;
}

/** One word's pieces, appended to `out` (wordpiece_tokenizer.cc's WordpieceTokenize). */
function tokenizeWord(o: Options, word: Uint8Array, out: Pieces): number {
  const whole = (end: number) => {
    out.values.push(o.useUnknownToken ? o.unknownToken : word);
    out.starts.push(0);
    out.ends.push(end);
    return 1;
  };
  if (word.length > o.maxBytesPerWord) return whole(o.useUnknownToken ? o.unknownToken.length : word.length);
  const found: Pieces = { values: [], starts: [], ends: [] };
  for (let start = 0; start < word.length;) {
    const ends = codePointEnds(o, word, start);
    let end = -1;
    let unknownCharacter = false;
    for (let i = ends.length - 1; i >= 0; i--) {
      if (o.vocab.keys.has(keyOf(piece(o, word, start, ends[i])))) {
        end = ends[i];
        break;
      }
      if (i === 0 && o.splitUnknownCharacters) {
        end = ends[0];
        unknownCharacter = true;
      }
    }
    if (end < 0) return whole(word.length);
    found.values.push(
      unknownCharacter && o.useUnknownToken ? (start > 0 ? concat(o.suffix, o.unknownToken) : o.unknownToken) : piece(o, word, start, end),
    );
    found.starts.push(start);
    found.ends.push(end);
    start = end;
  }
  out.values.push(...found.values);
  out.starts.push(...found.starts);
  out.ends.push(...found.ends);
  return found.values.length;
}

const decoder = new TextDecoder();

export const wordpieceTokenizeWithOffsetsOp: tfconv.OpExecutor = (node) => {
  const [input, keys, values] = node.inputs;
  const words = stringElements(input, 'input_values');
  const o: Options = {
    suffix: bytesAttr(node, 'suffix_indicator'),
    maxBytesPerWord: Number(node.attrs.max_bytes_per_word),
    maxCharsPerToken: Number(node.attrs.max_chars_per_token ?? 0),
    useUnknownToken: Boolean(node.attrs.use_unknown_token),
    unknownToken: bytesAttr(node, 'unknown_token'),
    splitUnknownCharacters: Boolean(node.attrs.split_unknown_characters),
    vocab: vocabulary(keys, values),
  };
  const splits = decoder.decode(bytesAttr(node, 'output_row_partition_type', new TextEncoder().encode('row_lengths'))) === 'row_splits';
  // Every piece is at most its word's bytes plus the suffix, or the unknown token plus the suffix.
  const perPiece = o.suffix.length + o.unknownToken.length;
  checkOutputBytes(
    OP,
    words.reduce((n, w) => n + w.length * (1 + perPiece), 0),
    words.reduce((n, w) => n + w.length, 0),
  );
  const out: Pieces = { values: [], starts: [], ends: [] };
  const partition: number[] = splits ? [0] : [];
  for (const word of words) {
    const n = tokenizeWord(o, word, out);
    partition.push(splits ? partition[partition.length - 1] + n : n);
  }
  return [
    stringTensor(out.values, [out.values.length]),
    tf.tensor(Int32Array.from(partition), [partition.length], 'int32'),
    tf.tensor(Int32Array.from(out.starts), [out.starts.length], 'int32'),
    tf.tensor(Int32Array.from(out.ends), [out.ends.length], 'int32'),
  ];
};
