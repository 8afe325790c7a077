// EncodeJpeg and EncodePng, refused at load. TF's bytes come from libjpeg-turbo with
// jpeg_set_defaults (the accurate ISLOW forward DCT, JFIF density 300 dpi) and from libpng over
// zlib (its filter heuristic, Z_FILTERED, memLevel 9). The JPEG encoder tfgate has (TurboJPEG
// through @julusian/jpeg-turbo) always uses the fast forward DCT, so its coefficients, and
// the pixels a client decodes, differ from TF's; no PNG writer here reproduces libpng's
// filter choices and zlib stream byte for byte. A signature that returns encoded images is
// refused rather than answered with other bytes.
import type * as tfconv from '@tensorflow/tfjs-converter';
import { unimplemented } from '../../../../errors/status.js';
import type { NodeDef } from '../../../../savedmodel/graph/types.js';

const REASONS: Record<string, string> = {
  EncodeJpeg:
    "tfgate's JPEG encoder (TurboJPEG) uses the fast forward DCT; TensorFlow's libjpeg-turbo call uses the accurate one, so the bytes and the pixels they decode to would differ",
  EncodePng:
    "tfgate has no PNG writer that reproduces libpng's filter choices and zlib stream, so the bytes would differ from TensorFlow's",
};
REASONS.EncodeJpegVariableQuality = REASONS.EncodeJpeg;

export const encodeImageProblem = (node: NodeDef): string | null => REASONS[node.op] ?? null;

/** Never reached: the load check refuses every node of these ops. */
export const encodeImageOp =
  (op: string): tfconv.OpExecutor =>
  () => {
    throw unimplemented(`${op}: ${REASONS[op]}`);
  };
