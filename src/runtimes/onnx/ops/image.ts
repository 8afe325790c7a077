// ResizeBilinear / ResizeNearestNeighbor (NHWC) → ONNX Resize of axes 1 and 2, with TF's
// coordinate rules (tensorflow/core/util/image_resizer_state.h):
//   align_corners        in = out · (in − 1)/(out − 1)      → 'align_corners'
//   half_pixel_centers   bilinear: in = (out + ½)·scale − ½ → 'half_pixel'
//                        nearest:  in = ⌊(out + ½)·scale⌋   → 'tf_half_pixel_for_nn', floor
//   neither              in = out · scale                   → 'asymmetric'
// Nearest with align_corners rounds half away from zero (roundf) → 'round_prefer_ceil'.
// The object-detection ops are refused with the reason (IMAGE_OPS below).
import type { OpConverter } from '../convert_context.js';
import { isFloat } from '../onnx_dtype.js';

function resize(mode: 'linear' | 'nearest'): OpConverter {
  return (ctx) => {
    const x = ctx.input(0);
    if (ctx.rank(0) !== 4) ctx.fail(`${ctx.op} needs a rank-4 input`);
    const alignCorners = ctx.attrBool('align_corners');
    const halfPixel = ctx.attrBool('half_pixel_centers');
    if (alignCorners && halfPixel) ctx.fail('align_corners and half_pixel_centers together');
    let coord = 'asymmetric';
    let nearest = 'floor';
    if (alignCorners) {
      coord = 'align_corners';
      nearest = 'round_prefer_ceil';
    } else if (halfPixel) coord = mode === 'linear' ? 'half_pixel' : 'tf_half_pixel_for_nn';
    // Bilinear always answers float32 in TF.
    let input = ctx.use(0);
    const outType = mode === 'linear' ? 'float32' : x.dtype;
    if (mode === 'linear' && x.dtype !== 'float32') {
      if (!isFloat(x.dtype) && x.dtype !== 'int32' && x.dtype !== 'uint8') ctx.fail(`${ctx.op} on ${x.dtype}`);
      input = ctx.emit('Cast', [input], { to: 1 }, 'as_float');
    }
    // Sizes for all four NHWC axes, batch and channels as they come: ORT 1.30's layout
    // optimiser (level extended and up) rewrites a Resize with an `axes` attribute into one
    // whose sizes it finds empty, and the session fails to build.
    const shape = ctx.emit('Shape', [input], {}, 'shape');
    const batch = ctx.emit('Slice', [shape, ctx.int64s([0], 'n_begin'), ctx.int64s([1], 'n_end')], {}, 'batch');
    const channels = ctx.emit('Slice', [shape, ctx.int64s([3], 'c_begin'), ctx.int64s([4], 'c_end')], {}, 'channels');
    const sizes = ctx.emit('Concat', [batch, ctx.int64Input(1), channels], { axis: 0 }, 'sizes');
    const y = ctx.emit('Resize', [input, '', '', sizes], {
      mode,
      coordinate_transformation_mode: coord,
      ...(mode === 'nearest' ? { nearest_mode: nearest } : {}),
    });
    const hw = (ctx.known(1) ?? [null, null]).map((d) => d ?? -1);
    return [ctx.out(y, outType, [x.shape![0], hw[0], hw[1], x.shape![3]])];
  };
}

/**
 * Detection ops ONNX has a namesake of that computes something else: refused with the reason,
 * so that the signature runs on the embedded runtime (embedded/ops/image/).
 */
const refuse =
  (reason: string): OpConverter =>
  (ctx) =>
    ctx.fail(reason);

const NMS_REASON =
  "ONNX's NonMaxSuppression answers [class, box] triples in another order (per class, no padding, no valid_outputs) and computes IoU in its own arithmetic; not converted";

export const IMAGE_OPS: Record<string, OpConverter> = {
  ResizeBilinear: resize('linear'),
  ResizeNearestNeighbor: resize('nearest'),
  NonMaxSuppression: refuse(NMS_REASON),
  NonMaxSuppressionV2: refuse(NMS_REASON),
  NonMaxSuppressionV3: refuse(NMS_REASON),
  NonMaxSuppressionV4: refuse(NMS_REASON),
  NonMaxSuppressionV5: refuse(`${NMS_REASON}; ONNX has no soft-NMS`),
  NonMaxSuppressionWithOverlaps: refuse("ONNX's NonMaxSuppression takes boxes, not an overlaps matrix; not converted"),
  CombinedNonMaxSuppression: refuse('ONNX has no combined (per class, then global) NonMaxSuppression; not converted'),
  CropAndResize: refuse(
    "ONNX's RoiAlign averages sampling points over each bin, where TF's CropAndResize samples one point per output pixel (and extrapolates outside the image); not converted",
  ),
};
