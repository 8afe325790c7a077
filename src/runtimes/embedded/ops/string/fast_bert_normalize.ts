// TF Text's FastBertNormalize (text.FastBertNormalizer, the first step of text.FastBertTokenizer;
// tensorflow_text/core/kernels/fast_bert_normalizer.h and _kernel_template.h). The mapping is
// the graph's: a FastBertNormalizerModel FlatBuffer (fast_bert_normalizer_model.fbs) whose trie
// maps a code point's UTF-8 bytes to its normalized string in a pool (control characters to a
// space; with lower_case_nfd_strip_accents, lower-cased, NFD-decomposed, accents dropped), so
// the answer does not depend on this machine's Unicode tables. With get_offsets, each output
// byte maps to the input byte it came from (a changed code point: its first byte), plus one
// entry for the end.
import tf from '../../../tfjs_packages/tfjs_core.cjs';
import type * as tfconv from '@tensorflow/tfjs-converter';
import { invalidArgument } from '../../../../errors/status.js';
import type { NodeDef } from '../../../../savedmodel/graph/types.js';
import type { ConstantInput } from '../../../shared/tfjs_op_table.js';
import { DartsTrie, ROOT } from './darts_trie.js';
import { FlatTable, ModelFormatError } from './flatbuffer_table.js';
import { checkOutputBytes, shapeString, stringElements, stringTensor } from './string_tensors.js';
import { decoderFor } from './unicode_codec.js';

const OP = 'FastBertNormalize';
const utf8 = decoderFor('UTF-8')!;

// fast_bert_normalizer.h: bit 30 says the normalized string differs; bits 6-29 its offset in the pool, bits 0-5 its length.
const IS_DIFFERENT = 0x40000000;
const LENGTH_MASK = 0x3f;
const OFFSET_MASK = (IS_DIFFERENT - 1) ^ LENGTH_MASK;

interface NormalizerModel {
  trie: DartsTrie;
  dataForCodepointZero: number;
  pool: Uint8Array;
}

function readNormalizerModel(bytes: Uint8Array): NormalizerModel {
  const t = FlatTable.root(bytes);
  // Slots of table FastBertNormalizerModel: lower_case_nfd_strip_accents, trie_array, data_for_codepoint_zero, normalized_string_pool.
  const trie = t.words(1, 'trie_array');
  const pool = t.bytes(3, 'normalized_string_pool');
  if (!trie || !pool) throw new ModelFormatError('FastBertNormalizerModel or its required fields are null');
  return { trie: new DartsTrie(trie), dataForCodepointZero: t.int32(2, 'data_for_codepoint_zero'), pool };
}

const models = new WeakMap<tf.Tensor, NormalizerModel>();

function modelOf(t: tf.Tensor): NormalizerModel {
  if (t.rank !== 1) throw invalidArgument(`${OP}: fast_bert_normalizer_model must be a vector, got shape ${shapeString(t.shape)}`);
  let model = models.get(t);
  if (!model) {
    try {
      model = readNormalizerModel(Uint8Array.from(t.dataSync()));
    } catch (e) {
      if (e instanceof ModelFormatError)
        throw invalidArgument(`${OP}: fast_bert_normalizer_model is not a FastBertNormalizerModel flatbuffer: ${e.message}`);
      throw e;
    }
    models.set(t, model);
  }
  return model;
}

/** LookupData: the code point's encoded mapping, 0 when the trie has none (unchanged). */
function lookup(m: NormalizerModel, s: Uint8Array, from: number, to: number): number {
  if (to === from || s[from] === 0) return m.dataForCodepointZero;
  const node = m.trie.steps(ROOT, s, from, to);
  if (node < 0) return 0;
  const data = m.trie.value(node);
  return data < 0 ? 0 : data;
}

/** GetNormalizedString: a pool slice (empty when it lies outside the pool, as TF Text's). */
function normalizedString(m: NormalizerModel, data: number): Uint8Array {
  const length = data & LENGTH_MASK;
  const offset = (data & OFFSET_MASK) >>> 6;
  if (!length || offset + length > m.pool.length) return new Uint8Array(0);
  return m.pool.subarray(offset, offset + length);
}

/** NormalizeText, for one string: its normalized bytes, and its offset mapping appended to `offsets` when given. */
function normalizeText(m: NormalizerModel, input: Uint8Array, offsets: number[] | null, charge: (bytes: number) => void): Uint8Array {
  const parts: Uint8Array[] = [];
  let lastCopied = 0;
  const copyUnchanged = (end: number) => {
    if (lastCopied < end) {
      parts.push(input.subarray(lastCopied, end));
      if (offsets) for (let i = lastCopied; i < end; i++) offsets.push(i);
      lastCopied = end;
    }
  };
  const { step } = utf8(input);
  for (let pos = 0; pos < input.length;) {
    const end = pos + step(input, pos)[1];
    const data = lookup(m, input, pos, end);
    if ((data & IS_DIFFERENT) !== 0) {
      const normalized = normalizedString(m, data);
      charge(normalized.length);
      copyUnchanged(pos);
      parts.push(normalized);
      if (offsets) for (let i = 0; i < normalized.length; i++) offsets.push(pos);
      lastCopied = end;
    }
    pos = end;
  }
  if (lastCopied === 0) {
    if (offsets) for (let i = 0; i <= input.length; i++) offsets.push(i);
    return input;
  }
  copyUnchanged(input.length);
  offsets?.push(input.length);
  return Buffer.concat(parts);
}

export const fastBertNormalizeOp: tfconv.OpExecutor = (node) => {
  const [input, modelTensor] = node.inputs;
  if (input.rank !== 1) throw invalidArgument(`${OP}: input_values must be a vector, got shape ${shapeString(input.shape)}`);
  const model = modelOf(modelTensor);
  const getOffsets = Boolean(node.attrs.get_offsets);
  const texts = stringElements(input, 'input_values');
  const offsets: number[] | null = getOffsets ? [] : null;
  const rowSplits = [0];
  const normalized: Uint8Array[] = [];
  // The output is the input's bytes plus what normalized code points add (one can become 63
  // bytes), and with offsets 4 bytes per output byte: checked as it grows.
  const perByte = getOffsets ? 5 : 1;
  let bytes = texts.reduce((n, s) => n + s.length * perByte, 0);
  const charge = (added: number) => checkOutputBytes(OP, (bytes += added * perByte), texts.length);
  charge(0);
  for (const text of texts) {
    try {
      normalized.push(normalizeText(model, text, offsets, charge));
    } catch (e) {
      if (e instanceof ModelFormatError)
        throw invalidArgument(`${OP}: fast_bert_normalizer_model is not a FastBertNormalizerModel flatbuffer: ${e.message}`);
      throw e;
    }
    rowSplits.push(offsets ? offsets.length : 0);
  }
  return [
    stringTensor(normalized, input.shape),
    tf.tensor(Int32Array.from(offsets ?? []), [offsets?.length ?? 0], 'int32'),
    tf.tensor(Int32Array.from(rowSplits), [rowSplits.length], 'int32'),
  ];
};

/** At load: a model given by a Const must be one TF Text's kernel reads. */
export function fastBertNormalizeNodeProblem(node: NodeDef, constant: ConstantInput): string | null {
  const ref = node.input?.[1];
  const model = ref === undefined ? undefined : constant(ref);
  if (!model) return null;
  try {
    readNormalizerModel(Uint8Array.from(model.values as ArrayLike<number>));
    return null;
  } catch (e) {
    if (e instanceof ModelFormatError) return `fast_bert_normalizer_model is not a FastBertNormalizerModel flatbuffer: ${e.message}`;
    throw e;
  }
}
