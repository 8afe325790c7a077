// TF Text's older WhitespaceTokenizeWithOffsets (text.WhitespaceTokenizer before the V2 op took
// strings and a whitespace config; tensorflow_text/core/kernels/whitespace_tokenize_kernel.cc):
// over code points (int32, a ragged row per string: input_splits), a token is a run of code
// points that are not ICU's White_Space (u_isUWhiteSpace). Offsets are code point indices from
// the string's first code point; a token's limit leaves out the white space after it. White_Space
// is the same in every Unicode version TF Text has been built with, so nothing is refused.
import type * as tfconv from '@tensorflow/tfjs-converter';
import { intElements } from './string_tensors.js';
import { checkCodePointSplits, emptyTokens, tokenOutputs, WHITE_SPACE_POINTS, type CodePointTokens } from './code_point_tokens.js';

const OP = 'WhitespaceTokenizeWithOffsets';

/** The kernel's loop, over validated splits. */
function tokenize(values: Int32Array, splits: Int32Array): CodePointTokens {
  const out = emptyTokens();
  for (let row = 0; row + 1 < splits.length; row++) {
    out.outerSplits.push(out.starts.length);
    const first = splits[row];
    let started = false;
    let skippedSpaces = 0;
    for (let i = first; i < splits[row + 1]; i++) {
      const cp = values[i];
      if (WHITE_SPACE_POINTS.has(cp)) {
        if (started) out.limits.push(i - first - skippedSpaces);
        started = false;
        skippedSpaces++;
        continue;
      }
      if (!started) {
        out.starts.push(i - first);
        out.innerSplits.push(out.values.length);
        started = true;
      }
      out.values.push(cp);
      skippedSpaces = 0;
    }
    if (started) out.limits.push(splits[row + 1] - first - skippedSpaces);
  }
  out.outerSplits.push(out.starts.length);
  out.innerSplits.push(out.values.length);
  return out;
}

export const whitespaceTokenizeWithOffsetsOp: tfconv.OpExecutor = (node) => {
  const [valuesT, splitsT] = node.inputs;
  // The kernel reads both inputs flat (flat<int32>(), flat<Tsplits>()).
  const values = intElements(valuesT);
  const splits = intElements(splitsT);
  checkCodePointSplits(OP, splits, values.length);
  return tokenOutputs(tokenize(values, splits), splitsT.shape);
};
