// TensorFlow's CropAndResize (tf.image.crop_and_resize: Faster R-CNN's and Mask R-CNN's
// crops), as core/kernels/image/crop_and_resize_op.cc computes it on CPU: for each box
// (normalized corners, either order) and each output pixel, the source coordinate
// y1·(h−1) + y·(y2−y1)·(h−1)/(crop_h−1) in float arithmetic (a 1-pixel crop samples the box's
// centre, computed in double as TF's 0.5 literal makes it); outside [0, h−1] the pixel is
// extrapolation_value; bilinear interpolation lerps the four neighbours in float, nearest
// takes roundf's neighbour. Any image dtype is read as float; the output is float.
import tf from '../../../tfjs_packages/tfjs_core.cjs';
import type * as tfconv from '@tensorflow/tfjs-converter';
import { Code, ServingError, invalidArgument } from '../../../../errors/status.js';
import type { NodeDef } from '../../../../savedmodel/graph/types.js';
import { attrString } from '../../../../savedmodel/graph/types.js';
import { checkRequestedOutput, f32, shapeText } from './kernel_support.js';

/** roundf for x ≥ 0 (the only values it sees here): halves away from zero. */
const roundHalfUp = (x: number) => Math.floor(x + 0.5);

interface Geometry {
  height: number;
  width: number;
  depth: number;
  cropHeight: number;
  cropWidth: number;
}

/** CropAndResizePerBox for box `b` into `out` at `base`. */
function cropBox(
  image: ArrayLike<number>,
  imageBase: number,
  y1: number,
  x1: number,
  y2: number,
  x2: number,
  g: Geometry,
  bilinear: boolean,
  extrapolation: number,
  out: Float32Array,
  base: number,
): void {
  const { height, width, depth, cropHeight, cropWidth } = g;
  const heightScale = cropHeight > 1 ? f32(f32(f32(y2 - y1) * (height - 1)) / (cropHeight - 1)) : 0;
  const widthScale = cropWidth > 1 ? f32(f32(f32(x2 - x1) * (width - 1)) / (cropWidth - 1)) : 0;
  // A column's source does not depend on the row: TF computes it per pixel, the same float
  // operations once per column here. -1: outside the image (extrapolation_value).
  const left = new Int32Array(cropWidth);
  const right = new Int32Array(cropWidth);
  const xLerp = new Float32Array(cropWidth);
  for (let x = 0; x < cropWidth; x++) {
    const sx = cropWidth > 1 ? f32(f32(x1 * (width - 1)) + f32(x * widthScale)) : f32(0.5 * f32(x1 + x2) * (width - 1));
    if (sx < 0 || sx > width - 1) {
      left[x] = -1;
      continue;
    }
    if (bilinear) {
      left[x] = Math.floor(sx) * depth;
      right[x] = Math.ceil(sx) * depth;
      xLerp[x] = f32(sx - Math.floor(sx));
    } else left[x] = roundHalfUp(sx) * depth;
  }
  const rowSize = width * depth;
  for (let y = 0; y < cropHeight; y++) {
    const row = base + y * cropWidth * depth;
    const inY = cropHeight > 1 ? f32(f32(y1 * (height - 1)) + f32(y * heightScale)) : f32(0.5 * f32(y1 + y2) * (height - 1));
    if (inY < 0 || inY > height - 1) {
      out.fill(extrapolation, row, row + cropWidth * depth);
      continue;
    }
    const top = imageBase + Math.floor(inY) * rowSize;
    const bottom = imageBase + Math.ceil(inY) * rowSize;
    const yLerp = f32(inY - Math.floor(inY));
    const nearestRow = imageBase + roundHalfUp(inY) * rowSize;
    for (let x = 0; x < cropWidth; x++) {
      const at = row + x * depth;
      if (left[x] < 0) {
        out.fill(extrapolation, at, at + depth);
        continue;
      }
      if (bilinear) {
        const tl = top + left[x];
        const tr = top + right[x];
        const bl = bottom + left[x];
        const br = bottom + right[x];
        const xl = xLerp[x];
        for (let d = 0; d < depth; d++) {
          const topLeft = f32(image[tl + d]);
          const topRight = f32(image[tr + d]);
          const bottomLeft = f32(image[bl + d]);
          const bottomRight = f32(image[br + d]);
          const upper = f32(topLeft + f32(f32(topRight - topLeft) * xl));
          const lower = f32(bottomLeft + f32(f32(bottomRight - bottomLeft) * xl));
          out[at + d] = f32(upper + f32(f32(lower - upper) * yLerp));
        }
      } else {
        const src = nearestRow + left[x];
        for (let d = 0; d < depth; d++) out[at + d] = f32(image[src + d]);
      }
    }
  }
}

export const cropAndResizeOp: tfconv.OpExecutor = (node) => {
  const [imageT, boxesT, boxIndexT, cropSizeT] = node.inputs;
  if (imageT.rank !== 4) throw invalidArgument(`input image must be 4-D${shapeText(imageT.shape)}`);
  const [batch, height, width, depth] = imageT.shape;
  if (!(height > 0 && width > 0)) throw invalidArgument('image dimensions must be positive');
  if (boxesT.rank !== 2) throw invalidArgument(`boxes must be 2-D, got: ${shapeText(boxesT.shape)}`);
  if (boxIndexT.rank !== 1) throw invalidArgument(`box_indices must be rank 1 but is shape ${shapeText(boxIndexT.shape)}`);
  let numBoxes = 0;
  if (boxesT.size !== 0 || boxIndexT.size !== 0) {
    numBoxes = boxesT.shape[0];
    if (boxesT.shape[1] !== 4) throw invalidArgument('boxes must have 4 columns');
    if (boxIndexT.shape[0] !== numBoxes) throw invalidArgument('box_index has incompatible shape');
  }
  if (cropSizeT.rank !== 1) throw invalidArgument(`crop_size must be 1-D${shapeText(cropSizeT.shape)}`);
  if (cropSizeT.shape[0] !== 2) throw invalidArgument(`crop_size must have two elements${shapeText(cropSizeT.shape)}`);
  const [cropHeight, cropWidth] = cropSizeT.dataSync();
  if (!(cropHeight > 0 && cropWidth > 0)) throw invalidArgument('crop dimensions must be positive');
  const shape = [numBoxes, cropHeight, cropWidth, depth];
  checkRequestedOutput('CropAndResize', 'crops', shape);
  const boxIndex = boxIndexT.dataSync();
  for (let b = 0; b < numBoxes; b++) {
    if (!(boxIndex[b] >= 0 && boxIndex[b] < batch))
      throw new ServingError(Code.OUT_OF_RANGE, 'box_index has values outside [0, batch_size)');
  }
  const boxes = boxesT.dataSync();
  if (numBoxes > 0 && !boxes.every(Number.isFinite)) throw invalidArgument('Boxes contains at least one element that is not finite');
  const out = new Float32Array(numBoxes * cropHeight * cropWidth * depth);
  const g: Geometry = { height, width, depth, cropHeight, cropWidth };
  const image = imageT.dataSync();
  const bilinear = node.attrs.method !== 'nearest';
  const extrapolation = f32(Number(node.attrs.extrapolation_value ?? 0));
  for (let b = 0; b < numBoxes; b++) {
    const [y1, x1, y2, x2] = boxes.subarray(b * 4, b * 4 + 4);
    cropBox(
      image,
      boxIndex[b] * height * width * depth,
      y1,
      x1,
      y2,
      x2,
      g,
      bilinear,
      extrapolation,
      out,
      b * cropHeight * cropWidth * depth,
    );
  }
  return [tf.tensor4d(out, shape as [number, number, number, number], 'float32')];
};

/** The constructor's check, with TF's message. */
export function cropAndResizeNodeProblem(node: NodeDef): string | null {
  const method = attrString(node.attr?.method) || 'bilinear';
  return method === 'bilinear' || method === 'nearest' ? null : `method must be 'bilinear' or 'nearest'${method}`;
}
