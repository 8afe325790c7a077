// Kernels tfjs-backend-wasm does not have, borrowed from the CPU backend.
//
// tfjs-backend-wasm 4.22 lacks kernels the CPU backend has; a graph that needs one cannot run
// on WASM at all (tfgate refuses it at load, naming the kernel). Real exports reach some of
// them: Keras TextVectorization pads its ragged token ids with RaggedTensorToTensor, ragged
// feature columns gather with RaggedGather / RaggedRange, and segment sums over unsorted ids
// (tf.math.unsorted_segment_sum) appear in attention and pooling code. For these, the WASM
// backend gets a kernel that runs the CPU backend's (inputs copied over, results copied back:
// runOnCpu), so such a graph runs on WASM with the CPU backend's values. They are mostly
// index and shape work on small tensors, where the copies cost little.
//
// Left out on purpose: the gradient kernels only training graphs use. (Complex tensors and
// FFTs: wasm_complex.ts and tfgate's spectral ops.)
import tf from '../tfjs_packages/tfjs_core.cjs';
import { runOnCpu } from './wasm_kernel_patch.js';

const WASM_KERNELS_FROM_CPU = [
  'RaggedTensorToTensor',
  'RaggedGather',
  'RaggedRange',
  'UnsortedSegmentSum',
  'DepthwiseConv2dNativeBackpropInput',
] as const;

/** Registers, for WASM, each kernel above that WASM lacks and the CPU backend has. Idempotent. */
export function borrowCpuKernelsForWasm(): void {
  for (const kernelName of WASM_KERNELS_FROM_CPU) {
    if (tf.getKernel(kernelName, 'wasm') || !tf.getKernel(kernelName, 'cpu')) continue;
    tf.registerKernel({ kernelName, backendName: 'wasm', kernelFunc: (args) => runOnCpu(kernelName, args) });
  }
}
