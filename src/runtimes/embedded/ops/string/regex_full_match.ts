// TensorFlow's RegexFullMatch and StaticRegexFullMatch (tf.strings.regex_full_match;
// core/kernels/regex_full_match_op.cc): whether RE2 matches each whole string (RE2::FullMatch).
// The pattern is RE2's (re2.ts); a string that is not UTF-8 is refused there.
import tf from '../../../tfjs_packages/tfjs_core.cjs';
import type * as tfconv from '@tensorflow/tfjs-converter';
import type { Re2 } from './re2.js';
import { Re2Text } from './re2.js';
import { compileInput, notUtf8, patternInput, staticPattern } from './regex_replace.js';
import { bytesAttr, stringElements } from './string_tensors.js';

function fullMatch(op: string, input: tf.Tensor, re: Re2): tf.Tensor {
  re.resetWork();
  const matched = stringElements(input, 'input').map((bytes, i) => {
    const s = Re2Text.of(bytes);
    if (!s) throw notUtf8(op, i);
    return re.fullMatch(op, s) ? 1 : 0;
  });
  return tf.tensor(Uint8Array.from(matched), input.shape, 'bool');
}

export const staticRegexFullMatchOp: tfconv.OpExecutor = (node) => [
  fullMatch('StaticRegexFullMatch', node.inputs[0], staticPattern(bytesAttr(node, 'pattern'))),
];

export const regexFullMatchOp: tfconv.OpExecutor = (node) => {
  const re = compileInput(patternInput(node.inputs[1]));
  try {
    return [fullMatch('RegexFullMatch', node.inputs[0], re)];
  } finally {
    re.dispose();
  }
};
