// Tensors of rank 7 or more on tfjs-backend-wasm, computed right.
//
// What goes wrong upstream (tfjs-backend-wasm 4.22): the float32 paths of Add, Sub, Multiply,
// RealDiv, SquaredDifference and PadV2 call XNNPACK's N-d operators (xnn_setup_*_nd_f32,
// xnn_setup_constant_pad_nd_x32), which accept at most XNN_MAX_TENSOR_DIMS = 6 dimensions.
// For rank 7+ the setup fails with xnn_status_invalid_parameter; the kernel only logs
// "XNN status for xnn_setup_*_nd_f32 is not successful. Got status 4" and returns its output
// buffer unwritten, so the caller reads whatever the heap held (3.57e-41 …) as the answer.
// Every other kernel a rank-7 tensor can reach gives the CPU backend's values (the sweep in
// test/runtimes/wasm_kernel_fixes.test.ts checks them).
//
// The fix: for those six kernels, inputs of rank > 6 are computed by the CPU backend's kernel
// of the same name (tfjs-backend-cpu, a dependency, registered by backend.ts): inputs are
// copied to it, the result copied back into a WASM tensor. Rank ≤ 6 runs as before. Such
// tensors are rare, so the copies cost little where they happen and nothing elsewhere.
import { patchWasmKernel, runOnCpu } from './wasm_kernel_patch.js';

const XNN_MAX_TENSOR_DIMS = 6;
export const WASM_XNN_ND_KERNELS = ['Add', 'Sub', 'Multiply', 'RealDiv', 'SquaredDifference', 'PadV2'] as const;

/** Re-registers the six WASM kernels so that rank > 6 runs on the CPU kernel. Idempotent. */
export function fixWasmHighRankKernels(): void {
  for (const name of WASM_XNN_ND_KERNELS) {
    patchWasmKernel(name, (original) => (args) => {
      const tooHigh = Object.values(args.inputs).some((t) => t && t.shape.length > XNN_MAX_TENSOR_DIMS);
      return tooHigh ? runOnCpu(name, args) : original(args);
    });
  }
}
