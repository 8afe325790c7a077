// TensorFlow Text's WhitespaceTokenizeWithOffsetsV2 (text.WhitespaceTokenizer; op name
// "TFText>WhitespaceTokenizeWithOffsetsV2"; tensorflow_text/core/kernels/whitespace_tokenizer.cc).
// The whitespace set comes with the graph: input_config is a bit array over code points (bit
// cp & 7 of byte cp >> 3) that TF Text's Python built from ICU's White_Space property, so the
// answer does not depend on this machine's Unicode tables. Each string is read one code point at
// a time as ICU's U8_NEXT reads it (an ill-formed sequence is one non-whitespace step of its
// maximal subpart); runs of non-whitespace are tokens, with byte offsets. As TF Text's kernel,
// a token ends one byte before the end of the whitespace character that closes it, so a token
// before a multi-byte space (U+3000) keeps that character's first bytes.
import tf from '../../../tfjs_packages/tfjs_core.cjs';
import type * as tfconv from '@tensorflow/tfjs-converter';
import { invalidArgument } from '../../../../errors/status.js';
import { shapeString, stringElements, stringTensor } from './string_tensors.js';
import { decoderFor } from './unicode_codec.js';

const OP = 'WhitespaceTokenizeWithOffsetsV2';
const utf8 = decoderFor('UTF-8')!;

function isWhitespace(config: Uint8Array, cp: number, error: boolean): boolean {
  return !error && cp >> 3 < config.length && (config[cp >> 3] & (1 << (cp & 7))) !== 0;
}

export const whitespaceTokenizeWithOffsetsV2Op: tfconv.OpExecutor = (node) => {
  const [input, configT] = node.inputs;
  if (input.rank !== 1) throw invalidArgument(`${OP}: input_values must be a vector, got shape ${shapeString(input.shape)}`);
  if (configT.rank !== 0) throw invalidArgument(`${OP}: input_config must be a scalar, got shape ${shapeString(configT.shape)}`);
  const config = stringElements(configT, 'input_config')[0];
  const tokens: Uint8Array[] = [];
  const starts: number[] = [];
  const ends: number[] = [];
  const splits = [0];
  for (const s of stringElements(input, 'input_values')) {
    const { step } = utf8(s);
    let position = 0;
    let start = -1;
    while (position < s.length) {
      const previous = position;
      const [cp, length, error] = step(s, position);
      position += length;
      if (isWhitespace(config, cp, error)) {
        if (start >= 0) {
          const end = position - 1;
          tokens.push(s.subarray(start, end));
          starts.push(start);
          ends.push(end);
          start = -1;
        }
      } else if (start < 0) start = previous;
    }
    if (start >= 0) {
      tokens.push(s.subarray(start, position));
      starts.push(start);
      ends.push(position);
    }
    splits.push(tokens.length);
  }
  return [
    stringTensor(tokens, [tokens.length]),
    tf.tensor(Int32Array.from(splits), [splits.length], 'int32'),
    tf.tensor(Int32Array.from(starts), [starts.length], 'int32'),
    tf.tensor(Int32Array.from(ends), [ends.length], 'int32'),
  ];
};
