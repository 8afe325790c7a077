// SAME-padded convolutions on tfjs-backend-wasm, made to give TensorFlow's answer.
//
// What goes wrong upstream (tfjs-backend-wasm 4.22, XNNPACK inside): for padding 'same' the
// WASM Conv2D, DepthwiseConv2dNative, FusedConv2D and FusedDepthwiseConv2D kernels pass zero
// pads plus XNN_FLAG_TENSORFLOW_SAME_PADDING, and XNNPACK then computes the total padding of
// each spatial dimension as
//     total = (out - 1) * stride + effective_kernel - in          (size_t, not clamped)
// TensorFlow clamps it at 0 (kernel_shape_util.cc, GetWindowedOutputSizeVerbose:
// `padding_needed = std::max(int64_t{0}, (*output_size - 1) * stride + effective_filter_size -
// input_size)`). When the unclamped value is negative — exactly when (in - 1) mod stride >=
// effective_kernel in either dimension, e.g. in = 16, k = 3, stride 4 or 8, and also a
// dimension of kernel size 1 of a 1×k kernel — the size_t wraps, the padding is huge and
// every output is 0 (a conv layer then answers relu(bias)). Example: x = 1..16 shaped
// [1,1,16,1], a [1,3,1,1] filter of ones, strides [1,1,8,1]: TF says [6, 30], WASM [0, 0].
// XNNPACK's deconvolution already clamps (it uses doz()); 1×1 kernels (which take a path
// that reads no padding) and pools give TF's values.
//
// The fix: where the wrap would happen, give the kernel TF's pads explicitly (clamped at 0)
// instead of 'same'. The kernels accept explicit pads (computeConv2DInfo reads them) and then
// pass no SAME flag, so XNNPACK uses them as given; the output size is unchanged
// (floor((in + total - k_eff) / s) + 1 = ceil(in / s) whether or not total was clamped).
// Where no wrap happens the kernels run exactly as before (see wasm_kernel_patch.ts for how).
import type * as tf from '@tensorflow/tfjs-core';
import { patchWasmKernel } from './wasm_kernel_patch.js';

export const WASM_SAME_CONV_KERNELS = ['Conv2D', 'DepthwiseConv2dNative', 'FusedConv2D', 'FusedDepthwiseConv2D'] as const;

/** TensorFlow's SAME padding [before, after] of one spatial dimension. */
export function tfSamePadding(inSize: number, filterSize: number, stride: number, dilation: number): [number, number] {
  const out = Math.ceil(inSize / stride);
  const effective = (filterSize - 1) * dilation + 1;
  const needed = Math.max(0, (out - 1) * stride + effective - inSize);
  const before = Math.floor(needed / 2);
  return [before, needed - before];
}

/** Whether XNNPACK's unclamped SAME total padding is negative (and so wraps) for this dimension. */
export function xnnSamePaddingWraps(inSize: number, filterSize: number, stride: number, dilation: number): boolean {
  const out = Math.ceil(inSize / stride);
  return (out - 1) * stride + (filterSize - 1) * dilation + 1 - inSize < 0;
}

const pair = (v: unknown, fallback: number): [number, number] => {
  if (Array.isArray(v)) return [Number(v[0]), Number(v[1] ?? v[0])];
  return typeof v === 'number' ? [v, v] : [fallback, fallback];
};

/**
 * The explicit pads to use instead of 'same' for an NHWC conv whose SAME padding XNNPACK
 * would wrap, or null to leave the call as it is.
 */
function explicitPadsForWasm(
  xShape: readonly number[],
  filterShape: readonly number[],
  attrs: tf.NamedAttrMap,
): tf.backend_util.ExplicitPadding | null {
  if (attrs.pad !== 'same') return null;
  // The WASM kernels refuse channels-first themselves; nothing to fix there.
  if (attrs.dataFormat !== undefined && attrs.dataFormat !== 'NHWC' && attrs.dataFormat !== 'channelsLast') return null;
  if (xShape.length !== 4 || filterShape.length !== 4) return null;
  const [sh, sw] = pair(attrs.strides, 1);
  const [dh, dw] = pair(attrs.dilations, 1);
  const [, h, w] = xShape;
  const [kh, kw] = filterShape;
  if (!xnnSamePaddingWraps(h, kh, sh, dh) && !xnnSamePaddingWraps(w, kw, sw, dw)) return null;
  return [[0, 0], tfSamePadding(h, kh, sh, dh), tfSamePadding(w, kw, sw, dw), [0, 0]];
}

/** Re-registers the WASM SAME-conv kernels with TF's pads where XNNPACK would wrap. Idempotent. */
export function fixWasmSameConvKernels(): void {
  for (const name of WASM_SAME_CONV_KERNELS) {
    patchWasmKernel(name, (original) => (args) => {
      const { x, filter } = args.inputs as { x: tf.TensorInfo; filter: tf.TensorInfo };
      const pad = explicitPadsForWasm(x.shape, filter.shape, args.attrs ?? {});
      return original(pad ? { ...args, attrs: { ...args.attrs, pad } } : args);
    });
  }
}
