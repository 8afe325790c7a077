// The `ctc` op family (tensorflow/core/ops/ctc_ops.cc): the decoders OCR and speech exports
// end in — CTCGreedyDecoder (Keras' ctc_decode(greedy=True)) and CTCBeamSearchDecoder — with
// their sparse outputs. tfjs-converter has neither.
import type { TfjsOpTable } from '../../../shared/tfjs_op_table.js';
import {
  ctcBeamSearchDecoderNodeProblem,
  ctcBeamSearchDecoderOp,
  ctcGreedyDecoderNodeProblem,
  ctcGreedyDecoderOp,
} from './ctc_decoders.js';

export const CTC_OPS: TfjsOpTable = {
  CTCGreedyDecoder: { execute: ctcGreedyDecoderOp, check: ctcGreedyDecoderNodeProblem },
  CTCBeamSearchDecoder: { execute: ctcBeamSearchDecoderOp, check: ctcBeamSearchDecoderNodeProblem },
};
