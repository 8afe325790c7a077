// The `image` op family (tensorflow/core/ops/image_ops.cc): decoding encoded images as TF
// does, for image models that take JPEG bytes (TF Serving's `{"b64": …}`; tfjs-converter has
// none of them; the encoders are refused at load with the reason, encode_image.ts), and what
// the TF Object Detection API's exports run after the network — every NonMaxSuppression
// version, CombinedNonMaxSuppression, CropAndResize — in TF's float arithmetic and TF's output
// order (TF.js computes them in double precision, breaks ties its own way and has no
// NonMaxSuppressionWithOverlaps or CombinedNonMaxSuppression).
import type { TfjsOpTable } from '../../../shared/tfjs_op_table.js';
import { combinedNonMaxSuppressionOp } from './combined_non_max_suppression.js';
import { cropAndResizeNodeProblem, cropAndResizeOp } from './crop_and_resize.js';
import { decodeImageNodeProblem, decodeImageOp, extractJpegShapeOp } from './decode_image_op.js';
import { encodeImageProblem, encodeImageOp } from './encode_image.js';
import {
  nonMaxSuppressionV1Op,
  nonMaxSuppressionV2Op,
  nonMaxSuppressionV3Op,
  nonMaxSuppressionV4Op,
  nonMaxSuppressionV5Op,
  nonMaxSuppressionWithOverlapsOp,
} from './non_max_suppression.js';

export const IMAGE_OPS: TfjsOpTable = {
  DecodeJpeg: { execute: decodeImageOp('DecodeJpeg'), check: decodeImageNodeProblem },
  DecodeAndCropJpeg: { execute: decodeImageOp('DecodeAndCropJpeg'), check: decodeImageNodeProblem },
  DecodePng: { execute: decodeImageOp('DecodePng'), check: decodeImageNodeProblem },
  DecodeGif: { execute: decodeImageOp('DecodeGif'), check: decodeImageNodeProblem },
  DecodeBmp: { execute: decodeImageOp('DecodeBmp'), check: decodeImageNodeProblem },
  DecodeImage: { execute: decodeImageOp('DecodeImage'), check: decodeImageNodeProblem },
  ExtractJpegShape: { execute: extractJpegShapeOp },
  EncodeJpeg: { execute: encodeImageOp('EncodeJpeg'), check: encodeImageProblem },
  EncodeJpegVariableQuality: { execute: encodeImageOp('EncodeJpegVariableQuality'), check: encodeImageProblem },
  EncodePng: { execute: encodeImageOp('EncodePng'), check: encodeImageProblem },
  NonMaxSuppression: { execute: nonMaxSuppressionV1Op },
  NonMaxSuppressionV2: { execute: nonMaxSuppressionV2Op },
  NonMaxSuppressionV3: { execute: nonMaxSuppressionV3Op },
  NonMaxSuppressionV4: { execute: nonMaxSuppressionV4Op },
  NonMaxSuppressionV5: { execute: nonMaxSuppressionV5Op },
  NonMaxSuppressionWithOverlaps: { execute: nonMaxSuppressionWithOverlapsOp },
  CombinedNonMaxSuppression: { execute: combinedNonMaxSuppressionOp },
  CropAndResize: { execute: cropAndResizeOp, check: cropAndResizeNodeProblem },
};
