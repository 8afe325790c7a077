// The `ragged` op family: TextVectorization's padding and ragged feature columns. TF.js has
// kernels for them but its converter never maps them (ragged.ts).
import type { TfjsOpTable } from '../../../shared/tfjs_op_table.js';
import { raggedGatherOp, raggedRangeOp, raggedTensorToTensorOp } from './ragged.js';

export const RAGGED_OPS: TfjsOpTable = {
  RaggedTensorToTensor: { execute: raggedTensorToTensorOp },
  RaggedGather: { execute: raggedGatherOp },
  RaggedRange: { execute: raggedRangeOp },
};
