// TensorFlow's StringNGrams (tf.strings.ngrams; core/kernels/string_ngrams_op.cc): the
// n-grams of each row of a ragged tensor of tokens (data + data_splits), for each width of
// ngram_widths in that order, joined with `separator`. Rows are padded with left_pad /
// right_pad, pad_width of them on each side (-1: width - 1; never more than width - 1). With
// preserve_short_sequences, a non-empty row too short for any n-gram gives one n-gram of the
// whole (padded) row. The output is ragged too: ngrams + ngrams_splits (the splits' shape).
import tf from '../../../tfjs_packages/tfjs_core.cjs';
import type * as tfconv from '@tensorflow/tfjs-converter';
import { invalidArgument } from '../../../../errors/status.js';
import { concatBytes } from '../../../shared/join_bytes.js';
import { bytesAttr, checkOutputBytes, intElements, stringElements, stringTensor } from './string_tensors.js';

const INT32_MAX = 2147483647;

interface NGramAttrs {
  separator: Uint8Array;
  leftPad: Uint8Array;
  rightPad: Uint8Array;
  widths: number[];
  padWidth: number;
  preserveShort: boolean;
}

const padWidthOf = (a: NGramAttrs, width: number) => Math.min(a.padWidth < 0 ? width - 1 : a.padWidth, width - 1);

function countNGrams(a: NGramAttrs, length: number, width: number): number {
  const pad = padWidthOf(a, width);
  if (pad > Math.trunc(INT32_MAX / 2) - length) throw invalidArgument(`Pad width could lead to integer overflow, got pad_width = ${pad}`);
  return Math.max(0, length + 2 * pad - width + 1);
}

/** The parts (pads, tokens, separators) of each n-gram of one row, as TF's CreateNgrams builds them. */
function* ngramParts(a: NGramAttrs, tokens: Uint8Array[], count: number, width: number): Generator<Uint8Array[]> {
  const pad = padWidthOf(a, width);
  for (let k = 0; k < count; k++) {
    const left = Math.max(0, pad - k);
    const right = Math.max(0, pad - (count - (k + 1)));
    const numTokens = width - (left + right);
    const first = left > 0 ? 0 : k - pad;
    const parts: Uint8Array[] = [];
    for (let n = 0; n < left; n++) parts.push(a.leftPad, a.separator);
    for (let n = 0; n < numTokens - 1; n++) parts.push(tokens[first + n], a.separator);
    if (numTokens > 0) {
      parts.push(tokens[first + numTokens - 1]);
      for (let n = 0; n < right; n++) parts.push(a.separator, a.rightPad);
    } else {
      for (let n = 0; n < right - 1; n++) parts.push(a.rightPad, a.separator);
      parts.push(a.rightPad);
    }
    yield parts;
  }
}

function validateSplits(splits: Int32Array, size: number): void {
  if (splits.length === 0) return;
  if (splits[0] !== 0) throw invalidArgument(`First split value must be 0, got ${splits[0]}`);
  for (let i = 1; i < splits.length; i++) {
    if (splits[i] < splits[i - 1] || splits[i] > size)
      throw invalidArgument(`Invalid split value ${splits[i]}, must be in [${splits[i - 1]}, ${size}]`);
  }
  const last = splits[splits.length - 1];
  if (last !== size) throw invalidArgument(`Last split value must be data size. Expected ${size}, got ${last}`);
}

function ngrams(a: NGramAttrs, data: Uint8Array[], splits: Int32Array): { values: Uint8Array[]; splits: Int32Array } {
  if (a.widths.some((w) => w <= 0)) throw invalidArgument('ngram_widths must contain positive values');
  validateSplits(splits, data.length);
  const outSplits = new Int32Array(splits.length);
  if (data.length === 0 || splits.length === 0) return { values: [], splits: outSplits };
  // Each row's n-grams, (width, count) in output order; their size is checked before any is built.
  const rows: Array<Array<[number, number]>> = [];
  let bytes = 0;
  for (let i = 0; i + 1 < splits.length; i++) {
    const tokens = data.slice(splits[i], splits[i + 1]);
    const plan: Array<[number, number]> = a.widths.map((w) => [w, countNGrams(a, tokens.length, w)]);
    if (a.preserveShort && tokens.length > 0 && plan.every(([, n]) => n === 0)) {
      if (a.padWidth < 0)
        throw invalidArgument(
          `Pad width should be >= 0 when preserve_short_sequences is True and ngram_widths are not provided, got ${a.padWidth}`,
        );
      plan.push([tokens.length + 2 * a.padWidth, 1]);
    }
    rows.push(plan);
    // A bound: each token is in at most w n-grams of width w, each n-gram has w pads or separators at most.
    const tokenBytes = tokens.reduce((n, t) => n + t.length, 0);
    const filler = Math.max(a.leftPad.length, a.rightPad.length) + a.separator.length;
    for (const [w, n] of plan) if (n > 0) bytes += w * tokenBytes + n * w * filler;
    outSplits[i + 1] = outSplits[i] + plan.reduce((s, [, n]) => s + n, 0);
  }
  checkOutputBytes('StringNGrams', bytes, outSplits[outSplits.length - 1]);
  const values: Uint8Array[] = [];
  rows.forEach((plan, i) => {
    const tokens = data.slice(splits[i], splits[i + 1]);
    for (const [w, n] of plan) for (const parts of ngramParts(a, tokens, n, w)) values.push(concatBytes(parts));
  });
  return { values, splits: outSplits };
}

export const stringNGramsOp: tfconv.OpExecutor = (node) => {
  const [data, splitsT] = node.inputs;
  const attrs = node.attrs as { ngram_widths?: number[]; pad_width?: number; preserve_short_sequences?: boolean };
  const a: NGramAttrs = {
    separator: bytesAttr(node, 'separator'),
    leftPad: bytesAttr(node, 'left_pad'),
    rightPad: bytesAttr(node, 'right_pad'),
    widths: (attrs.ngram_widths ?? []).map(Number),
    padWidth: Number(attrs.pad_width ?? 0),
    preserveShort: Boolean(attrs.preserve_short_sequences),
  };
  const out = ngrams(a, stringElements(data, 'data'), intElements(splitsT));
  const valuesShape = out.values.length === 0 && (data.size === 0 || splitsT.size === 0) ? data.shape : [out.values.length];
  return [stringTensor(out.values, valuesShape), tf.tensor(out.splits, splitsT.shape, 'int32')];
};
