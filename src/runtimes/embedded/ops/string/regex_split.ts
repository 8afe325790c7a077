// TensorFlow Text's RegexSplitWithOffsets (text.regex_split_with_offsets, BERT's BasicTokenizer;
// tensorflow_text/core/kernels/regex_split.cc): each string is cut at every match of the
// delimiter pattern (RE2::FindAndConsume from the end of the last match), the non-empty text
// between matches becomes a token, and a delimiter whose group 1 fully matches the keep
// pattern becomes a token too; byte offsets of each token, row splits per string. As TF
// Text's kernel: the text ends at its first NUL byte (it is read as a C string), the delimiter
// token is group 1 (the Python wrapper writes "(pattern)"), and the keep pattern applies when it
// is non-empty. Where TF Text's kernel would not finish (an empty delimiter match consumes
// nothing, so FindAndConsume finds it again forever) the request fails naming the op.
import tf from '../../../tfjs_packages/tfjs_core.cjs';
import type * as tfconv from '@tensorflow/tfjs-converter';
import { unimplemented } from '../../../../errors/status.js';
import { Re2Text } from './re2.js';
import { compileInput, notUtf8, patternInput } from './regex_replace.js';
import { checkOutputBytes, stringElements, stringTensor } from './string_tensors.js';

const OP = 'RegexSplitWithOffsets';

export const regexSplitWithOffsetsOp: tfconv.OpExecutor = (node) => {
  const [input, delimT, keepT] = node.inputs;
  const delimPattern = patternInput(delimT);
  const keepPattern = patternInput(keepT);
  const delim = compileInput(delimPattern);
  const keep = compileInput(keepPattern);
  try {
    const shouldKeep = keepPattern.length > 0;
    const tokens: Uint8Array[] = [];
    const begins: number[] = [];
    const ends: number[] = [];
    const splits = [0];
    const strings = stringElements(input, 'input');
    checkOutputBytes(
      OP,
      strings.reduce((n, s) => n + s.length, 0),
      0,
    );
    strings.forEach((whole, i) => {
      const nul = whole.indexOf(0);
      const bytes = nul < 0 ? whole : whole.subarray(0, nul);
      const text = Re2Text.of(bytes);
      if (!text) throw notUtf8(OP, i);
      let at = 0;
      let lastEnd = 0;
      for (let rest = text; ; rest = Re2Text.of(bytes.subarray(at))!) {
        // FindAndConsume searches what is left as a text of its own: ^ and \b see no byte before it.
        const found = delim.match(OP, rest, 0, true);
        if (!found) break;
        const m = { start: found.start + at, end: found.end + at, groups: found.groups };
        const group = m.groups[0];
        // Group 1 is where the delimiter token is; the wrapper's "(…)" makes it the whole match.
        if (group === undefined || group.length !== m.end - m.start)
          throw unimplemented(
            `${OP}: the delimiter pattern's group 1 is not its whole match; tfgate takes the delimiter patterns tensorflow_text's regex_split writes ("(pattern)")`,
          );
        if (m.end === at)
          throw unimplemented(
            `${OP}: the delimiter pattern matched the empty text at byte ${at} of string ${i}; TF Text's kernel would search there forever`,
          );
        if (m.start > lastEnd) {
          tokens.push(bytes.subarray(lastEnd, m.start));
          begins.push(lastEnd);
          ends.push(m.start);
        }
        const delimiter = bytes.subarray(m.start, m.end);
        if (shouldKeep) {
          const d = Re2Text.of(delimiter)!;
          if (keep.fullMatch(OP, d)) {
            tokens.push(delimiter);
            begins.push(m.start);
            ends.push(m.end);
          }
        }
        at = m.end;
        lastEnd = m.end;
      }
      if (lastEnd < bytes.length) {
        tokens.push(bytes.subarray(lastEnd));
        begins.push(lastEnd);
        ends.push(bytes.length);
      }
      splits.push(tokens.length);
    });
    return [
      stringTensor(tokens, [tokens.length]),
      tf.tensor(Int32Array.from(begins), [begins.length], 'int32'),
      tf.tensor(Int32Array.from(ends), [ends.length], 'int32'),
      tf.tensor(Int32Array.from(splits), [splits.length], 'int32'),
    ];
  } finally {
    delim.dispose();
    keep.dispose();
  }
};
