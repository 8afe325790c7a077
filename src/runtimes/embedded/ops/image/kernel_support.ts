// What the image kernels share: C++'s float arithmetic (each +, -, *, / rounded to float, as
// TF's x86-64 release builds compute: -mavx, no FMA contraction; std::min / std::max with
// their NaN behaviour), Eigen::half rounding, TF's shape text, raw type attributes, and the
// bound on outputs whose size a request chooses.
import type * as tfconv from '@tensorflow/tfjs-converter';
import { Code, ServingError } from '../../../../errors/status.js';
import { halfToFloat } from '../../../../tensor/half.js';
import { floatToHalf } from '../../../../tensor/half_encode.js';

export const f32 = Math.fround;

/** Eigen::half(x) for a float x: round to nearest even half, back as a number. */
export const toHalf = (x: number): number => halfToFloat(floatToHalf(x));

/** std::min(a, b): `(b < a) ? b : a` (a NaN `a` stays, a NaN `b` is not taken). */
export const cmin = (a: number, b: number): number => (b < a ? b : a);
/** std::max(a, b): `(a < b) ? b : a`. */
export const cmax = (a: number, b: number): number => (a < b ? b : a);

/** TensorShape::DebugString: `[2,3]`, `[]`. */
export const shapeText = (shape: readonly number[]): string => `[${shape.join(',')}]`;

const DT_HALF = 19;

/** Whether the executing node's type attribute `name` is DT_HALF (tfjs-converter reads half as float32). */
export function isHalfAttr(node: tfconv.GraphNode, name: string): boolean {
  const inner = (node as unknown as { node?: { rawAttrs?: Record<string, { type?: string | number }> } }).node;
  const t = inner?.rawAttrs?.[name]?.type;
  return t === 'DT_HALF' || t === DT_HALF;
}

/**
 * The most elements tfgate lets one op output hold when a request's values set its size
 * (a padded NonMaxSuppression, CombinedNonMaxSuppression's max_total_size, CropAndResize's
 * crop_size): 2^27, 512 MiB of float32, above Faster R-CNN's crops (300 boxes of 14×14×1024
 * features are 60 M elements). TF would try to allocate and fail with RESOURCE_EXHAUSTED.
 */
export const MAX_REQUESTED_OUTPUT_ELEMENTS = 2 ** 27;

/** Refuses, before anything is allocated, an output of `shape` over the bound. */
export function checkRequestedOutput(op: string, what: string, shape: readonly number[]): void {
  const n = shape.reduce((a, b) => a * b, 1);
  if (n > MAX_REQUESTED_OUTPUT_ELEMENTS) {
    throw new ServingError(
      Code.RESOURCE_EXHAUSTED,
      `${op}: ${what} of shape ${shapeText(shape)} would hold ${n} elements, over tfgate's bound of ${MAX_REQUESTED_OUTPUT_ELEMENTS} for an output whose size the request sets`,
    );
  }
}
