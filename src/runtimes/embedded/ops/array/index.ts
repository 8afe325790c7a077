// The `array` op family: ReverseSequence, which tfjs-converter lacks.
import type { TfjsOpTable } from '../../../shared/tfjs_op_table.js';
import { reverseSequenceNodeProblem, reverseSequenceOp } from './reverse_sequence.js';

export const ARRAY_OPS: TfjsOpTable = {
  ReverseSequence: { execute: reverseSequenceOp, check: reverseSequenceNodeProblem },
};
