// TF Text's FastWordpieceTokenizeWithOffsets and TFText>FastWordpieceDetokenize
// (text.FastWordpieceTokenizer, text.FastBertTokenizer; tensorflow_text/core/kernels/
// fast_wordpiece_tokenizer_kernel_template.h). The tokenizer's model is their last input, a
// uint8 FlatBuffer the export stores as a constant: read once per tensor
// (fast_wordpiece_model.ts), and at load when a Const gives it, so that a model TF Text's kernel
// would misread refuses the signature instead of failing every request.
import tf from '../../../tfjs_packages/tfjs_core.cjs';
import type * as tfconv from '@tensorflow/tfjs-converter';
import { invalidArgument, internal } from '../../../../errors/status.js';
import type { NodeDef } from '../../../../savedmodel/graph/types.js';
import type { ConstantInput } from '../../../shared/tfjs_op_table.js';
import { fastWordpieceModelOf, readFastWordpieceModel, type FastWordpieceModel } from './fast_wordpiece_model.js';
import {
  FastWordpieceTokenizer,
  NoProgressError,
  detokenizeToTokens,
  fastWordpieceUnicodeProblem,
  type TokenizerOutput,
} from './fast_wordpiece_tokenizer.js';
import { ModelFormatError } from './flatbuffer_table.js';
import { checkOutputBytes, intElements, shapeString, stringElements, stringTensor } from './string_tensors.js';

const TOKENIZE = 'FastWordpieceTokenizeWithOffsets';
const DETOKENIZE = 'FastWordpieceDetokenize';

function modelOf(op: string, t: tf.Tensor): FastWordpieceModel {
  if (t.rank !== 1) throw invalidArgument(`${op}: wp_model must be a vector, got shape ${shapeString(t.shape)}`);
  try {
    return fastWordpieceModelOf(t);
  } catch (e) {
    if (e instanceof ModelFormatError)
      throw invalidArgument(`${op}: wp_model is not a FastWordpieceTokenizerConfig flatbuffer: ${e.message}`);
    throw e;
  }
}

const int32 = (values: number[]) => tf.tensor(Int32Array.from(values), [values.length], 'int32');

export const fastWordpieceTokenizeWithOffsetsOp: tfconv.OpExecutor = (node) => {
  const [input, modelTensor] = node.inputs;
  if (input.rank !== 1) throw invalidArgument(`${TOKENIZE}: input_values must be a vector, got shape ${shapeString(input.shape)}`);
  const model = modelOf(TOKENIZE, modelTensor);
  const texts = stringElements(input, 'input_values');
  // A piece takes at least one input byte; it is at most its bytes, or unk_token, after the suffix indicator.
  const inputBytes = texts.reduce((n, s) => n + s.length, 0);
  checkOutputBytes(TOKENIZE, inputBytes * (1 + model.suffixIndicator.length + model.unkToken.length), inputBytes);
  const out: TokenizerOutput = { pieces: [], ids: [], starts: [], ends: [] };
  const tokenizer = new FastWordpieceTokenizer(model, out);
  const rowSplits = [0];
  for (const text of texts) {
    try {
      tokenizer.tokenize(text);
    } catch (e) {
      if (e instanceof NoProgressError) throw internal('Failed to make any progress in tokenizing the input text.');
      if (e instanceof ModelFormatError)
        throw invalidArgument(`${TOKENIZE}: wp_model is not a FastWordpieceTokenizerConfig flatbuffer: ${e.message}`);
      throw e;
    }
    rowSplits.push(out.ids.length);
  }
  return [stringTensor(out.pieces, [out.pieces.length]), int32(out.ids), int32(rowSplits), int32(out.starts), int32(out.ends)];
};

export const fastWordpieceDetokenizeOp: tfconv.OpExecutor = (node) => {
  const [values, splitsTensor, modelTensor] = node.inputs;
  if (values.rank !== 1) throw invalidArgument(`${DETOKENIZE}: input_values must be a vector, got shape ${shapeString(values.shape)}`);
  if (splitsTensor.rank !== 1)
    throw invalidArgument(`${DETOKENIZE}: input_row_splits must be a vector, got shape ${shapeString(splitsTensor.shape)}`);
  const model = modelOf(DETOKENIZE, modelTensor);
  const ids = intElements(values);
  const splits = intElements(splitsTensor);
  // TF Text reads the rows without checking their splits; here they must cut input_values.
  for (let i = 0; i < splits.length; i++) {
    if (splits[i] < (i > 0 ? splits[i - 1] : 0) || splits[i] > ids.length) {
      throw invalidArgument(`${DETOKENIZE}: input_row_splits must be non-decreasing and within input_values' ${ids.length} elements`);
    }
  }
  const sentences: Uint8Array[] = [];
  let bytes = 0;
  for (let i = 0; i + 1 < splits.length; i++) {
    const words = detokenizeToTokens(model, ids.subarray(splits[i], splits[i + 1]));
    const sentence = Buffer.concat(words.flatMap((w, k) => (k > 0 ? [SPACE, w] : [w])));
    bytes += sentence.length;
    checkOutputBytes(DETOKENIZE, bytes, sentences.length + 1);
    sentences.push(sentence);
  }
  return [stringTensor(sentences, [sentences.length])];
};

const SPACE = Uint8Array.of(0x20);

/** At load: a model given by a Const must be one TF Text's kernel reads. */
export function fastWordpieceNodeProblem(node: NodeDef, constant: ConstantInput): string | null {
  const unicode = node.op === TOKENIZE ? fastWordpieceUnicodeProblem(node.op) : null;
  if (unicode) return unicode;
  const ref = node.input?.[node.op === 'FastWordpieceTokenizeWithOffsets' ? 1 : 2];
  const model = ref === undefined ? undefined : constant(ref);
  if (!model) return null;
  try {
    readFastWordpieceModel(Uint8Array.from(model.values as ArrayLike<number>));
    return null;
  } catch (e) {
    if (e instanceof ModelFormatError) return `wp_model is not a FastWordpieceTokenizerConfig flatbuffer: ${e.message}`;
    throw e;
  }
}
