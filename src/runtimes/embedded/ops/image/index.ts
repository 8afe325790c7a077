// The `image` op family: what the TF Object Detection API's exports run after the network —
// every NonMaxSuppression version, CombinedNonMaxSuppression, CropAndResize — in TF's float
// arithmetic and TF's output order (TF.js computes them in double precision, breaks ties its
// own way and has no NonMaxSuppressionWithOverlaps or CombinedNonMaxSuppression).
import type { TfjsOpTable } from '../../../shared/tfjs_op_table.js';
import { combinedNonMaxSuppressionOp } from './combined_non_max_suppression.js';
import { cropAndResizeNodeProblem, cropAndResizeOp } from './crop_and_resize.js';
import {
  nonMaxSuppressionV1Op,
  nonMaxSuppressionV2Op,
  nonMaxSuppressionV3Op,
  nonMaxSuppressionV4Op,
  nonMaxSuppressionV5Op,
  nonMaxSuppressionWithOverlapsOp,
} from './non_max_suppression.js';

export const IMAGE_OPS: TfjsOpTable = {
  NonMaxSuppression: { execute: nonMaxSuppressionV1Op },
  NonMaxSuppressionV2: { execute: nonMaxSuppressionV2Op },
  NonMaxSuppressionV3: { execute: nonMaxSuppressionV3Op },
  NonMaxSuppressionV4: { execute: nonMaxSuppressionV4Op },
  NonMaxSuppressionV5: { execute: nonMaxSuppressionV5Op },
  NonMaxSuppressionWithOverlaps: { execute: nonMaxSuppressionWithOverlapsOp },
  CombinedNonMaxSuppression: { execute: combinedNonMaxSuppressionOp },
  CropAndResize: { execute: cropAndResizeOp, check: cropAndResizeNodeProblem },
};
