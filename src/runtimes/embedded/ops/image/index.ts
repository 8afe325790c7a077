// The `image` op family (tensorflow/core/ops/image_ops.cc): decoding encoded images as TF
// does, for image models that take JPEG bytes (TF Serving's `{"b64": …}`). tfjs-converter has
// none of them. The encoders are refused at load with the reason (encode_image.ts).
import type { TfjsOpTable } from '../../../shared/tfjs_op_table.js';
import { decodeImageNodeProblem, decodeImageOp, extractJpegShapeOp } from './decode_image_op.js';
import { encodeImageProblem, encodeImageOp } from './encode_image.js';

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
};
