// What TF Text's tokenizers over code points share (UnicodeScriptTokenizeWithOffsets, the older
// WhitespaceTokenizeWithOffsets): ICU's White_Space (u_isUWhiteSpace: the same 25 code points in
// every Unicode version from 12.1 to 17.0, which the table generator checks), the input splits
// checked, and the five outputs as the kernels allocate them.
import tf from '../../../tfjs_packages/tfjs_core.cjs';
import { invalidArgument } from '../../../../errors/status.js';
import { WHITE_SPACE } from './unicode_script_table.js';

export const WHITE_SPACE_POINTS: ReadonlySet<number> = new Set(
  WHITE_SPACE.split(' ').flatMap((r) => {
    const [a, b = a] = r.split('-').map((h) => parseInt(h, 16));
    return Array.from({ length: b - a + 1 }, (_, i) => a + i);
  }),
);

/** A kernel's tokens: code points of each token, offsets in code points from each string's start. */
export interface CodePointTokens {
  values: number[];
  innerSplits: number[];
  starts: number[];
  limits: number[];
  outerSplits: number[];
}

export const emptyTokens = (): CodePointTokens => ({ values: [], innerSplits: [], starts: [], limits: [], outerSplits: [] });

/**
 * TF Text reads the splits unchecked (an empty or out-of-range one is undefined behaviour there);
 * here each must lie within input_values, in order.
 */
export function checkCodePointSplits(op: string, splits: Int32Array, size: number): void {
  if (splits.length === 0) throw invalidArgument(`${op}: input_splits must have at least one element`);
  for (let i = 0; i < splits.length; i++) {
    const lower = i === 0 ? 0 : splits[i - 1];
    if (splits[i] < lower || splits[i] > size) {
      throw invalidArgument(
        `${op}: input_splits must be non-decreasing and within [0, ${size}] (input_values' size); input_splits[${i}] = ${splits[i]}`,
      );
    }
  }
}

const vector = (v: number[]) => tf.tensor1d(Int32Array.from(v), 'int32');

/** The outputs in the op's order; int64 ones as TF.js holds them (int32); output_outer_splits keeps input_splits' shape. */
export function tokenOutputs(t: CodePointTokens, splitsShape: readonly number[]): tf.Tensor[] {
  return [
    vector(t.values),
    vector(t.innerSplits),
    vector(t.starts),
    vector(t.limits),
    tf.tensor(Int32Array.from(t.outerSplits), [...splitsShape], 'int32'),
  ];
}
