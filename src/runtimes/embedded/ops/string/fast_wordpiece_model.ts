// TF Text's FastWordpieceTokenizerConfig (tensorflow_text/core/kernels/
// fast_wordpiece_tokenizer_model.fbs), the FlatBuffer text.FastWordpieceTokenizer builds at
// export and stores in the graph as a uint8 constant, read into typed arrays once per tensor.
// Fields by their slot in the schema's table, as flatc numbers them.
import type * as tf from '@tensorflow/tfjs-core';
import { DartsTrie, NULL_NODE } from './darts_trie.js';
import { FlatTable, ModelFormatError } from './flatbuffer_table.js';

export interface FastWordpieceModel {
  trie: DartsTrie;
  /** failure_struct_array: per node, its failure link and its encoded failure pops (offset << 8 | length - 1). */
  failureLinks: Uint32Array;
  failurePops: Uint32Array;
  failurePopsPool: Int32Array;
  trieSuffixRoot: number;
  maxBytesPerToken: number;
  suffixIndicator: Uint8Array;
  unkToken: Uint8Array;
  unkTokenId: number;
  precomputedResultForSuffixIndicator: Int32Array;
  triePunctFailureLinkNode: number;
  endToEnd: boolean;
  supportDetokenization: boolean;
  vocab: Uint8Array[] | null;
  vocabIsSuffix: Uint8Array | null;
}

const SLOT = {
  trie_array: 0,
  failure_struct_array: 1,
  failure_pops_pool: 2,
  trie_suffix_root: 3,
  max_bytes_per_token: 4,
  suffix_indicator: 5,
  unk_token: 6,
  unk_token_id: 7,
  precomputed_result_for_suffix_indicator: 8,
  trie_punct_failure_link_node: 9,
  end_to_end: 10,
  support_detokenization: 11,
  vocab_array: 12,
  vocab_is_suffix_array: 13,
} as const;

/** Reads the config; throws ModelFormatError for a buffer TF Text's kernel would misread. */
export function readFastWordpieceModel(bytes: Uint8Array): FastWordpieceModel {
  const t = FlatTable.root(bytes);
  const trieArray = t.words(SLOT.trie_array, 'trie_array');
  // TF Text's own refusal (FastWordpieceTokenizer::Create).
  if (!trieArray) throw new ModelFormatError('FastWordpieceTokenizerConfig or its trie_array is null.');
  const failure = t.words(SLOT.failure_struct_array, 'failure_struct_array', 2) ?? new Uint32Array(0);
  const failureLinks = new Uint32Array(failure.length / 2);
  const failurePops = new Uint32Array(failure.length / 2);
  for (let i = 0; i < failureLinks.length; i++) {
    failureLinks[i] = failure[2 * i];
    failurePops[i] = failure[2 * i + 1];
  }
  const model: FastWordpieceModel = {
    trie: new DartsTrie(trieArray),
    failureLinks,
    failurePops,
    failurePopsPool: new Int32Array((t.words(SLOT.failure_pops_pool, 'failure_pops_pool') ?? new Uint32Array(0)).buffer),
    trieSuffixRoot: t.uint32(SLOT.trie_suffix_root, 'trie_suffix_root'),
    maxBytesPerToken: t.int32(SLOT.max_bytes_per_token, 'max_bytes_per_token'),
    suffixIndicator: t.string(SLOT.suffix_indicator, 'suffix_indicator') ?? new Uint8Array(0),
    unkToken: t.string(SLOT.unk_token, 'unk_token') ?? new Uint8Array(0),
    unkTokenId: t.int32(SLOT.unk_token_id, 'unk_token_id'),
    precomputedResultForSuffixIndicator: new Int32Array(
      (t.words(SLOT.precomputed_result_for_suffix_indicator, 'precomputed_result_for_suffix_indicator') ?? new Uint32Array(0)).buffer,
    ),
    triePunctFailureLinkNode: t.uint32(SLOT.trie_punct_failure_link_node, 'trie_punct_failure_link_node'),
    endToEnd: t.bool(SLOT.end_to_end, 'end_to_end'),
    supportDetokenization: t.bool(SLOT.support_detokenization, 'support_detokenization'),
    vocab: t.strings(SLOT.vocab_array, 'vocab_array'),
    vocabIsSuffix: t.bytes(SLOT.vocab_is_suffix_array, 'vocab_is_suffix_array'),
  };
  if (!model.trie.has(model.trieSuffixRoot)) throw new ModelFormatError('trie_suffix_root is not a node of the trie');
  if (model.triePunctFailureLinkNode !== NULL_NODE && !model.trie.has(model.triePunctFailureLinkNode))
    throw new ModelFormatError('trie_punct_failure_link_node is not a node of the trie');
  return model;
}

const models = new WeakMap<tf.Tensor, FastWordpieceModel>();

/** The model of a uint8 tensor (TF.js holds uint8 as int32), read once per tensor: a graph's constant is the same tensor on every call. */
export function fastWordpieceModelOf(t: tf.Tensor): FastWordpieceModel {
  let model = models.get(t);
  if (!model) {
    model = readFastWordpieceModel(Uint8Array.from(t.dataSync()));
    models.set(t, model);
  }
  return model;
}
