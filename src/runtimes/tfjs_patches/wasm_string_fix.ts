// String tensors through tfjs-backend-wasm's Tile and GatherNd, computed right.
//
// What goes wrong upstream (tfjs-backend-wasm 4.22): tf.tile and tf.gatherND accept string
// tensors, but the WASM kernels hand every input to C++ as a numeric buffer; a string input
// has none, and the module aborts ("Aborted(). Build with -sASSERTIONS for more info."), so
// the request fails. Estimator heads reach it: the class labels of a classification output
// are a string constant tiled over the batch (found on the TFX taxi Estimator). The CPU
// backend computes both on strings; the other WASM kernels a string reaches either handle
// strings (Slice, StridedSlice, Concat, Pack, Unpack, Reshape, Unique) or are refused by
// tf.* itself on both backends.
//
// The fix: string inputs of these two kernels run on the CPU backend's kernel of the same name.
import { patchWasmKernel, runOnCpu } from './wasm_kernel_patch.js';

const WASM_STRING_ABORT_KERNELS = ['Tile', 'GatherNd'] as const;

/** Re-registers the WASM Tile and GatherNd so that string tensors run on the CPU kernel. Idempotent. */
export function fixWasmStringKernels(): void {
  for (const name of WASM_STRING_ABORT_KERNELS) {
    patchWasmKernel(name, (original) => (args) => {
      const strings = Object.values(args.inputs).some((t) => t?.dtype === 'string');
      return strings ? runOnCpu(name, args) : original(args);
    });
  }
}
