// GatherV2 with batch_dims on tfjs-backend-wasm, computed right.
//
// What goes wrong upstream (tfjs-backend-wasm 4.22, cc/kernels/Gather.cc): the JS side
// flattens indices to [batchSize, n] (n = indices per batch), but the C++ loop reads
// `indices_ptr[batch_loc * batch_size + indices_loc]`, using the number of batches as the
// row stride instead of n. The answer is right only when n = batchSize (or there is one
// batch); otherwise batch b reads batch b·batchSize/n's indices — wrong values, or indices
// past the end. Example: x [4, 8], indices [4, 8], axis 1, batch_dims 1 (what
// ReverseSequence and tf.gather(batch_dims=1) do) returns row 1 as [0, 2, 1, 0, 2, 1, 0, 0]
// instead of [2, 1, 0, 0, 0, 0, 0, 0].
//
// The fix: those cases run on the CPU backend's GatherV2; the others as before.
import type * as tf from '@tensorflow/tfjs-core';
import { patchWasmKernel, runOnCpu } from './wasm_kernel_patch.js';

/** Whether the WASM kernel's indexing is wrong for this call. */
export function wasmGatherMisindexes(xShape: readonly number[], indicesShape: readonly number[], batchDims: number): boolean {
  if (!batchDims) return false;
  const dims = batchDims < 0 ? batchDims + indicesShape.length : batchDims;
  const batchSize = xShape.slice(0, dims).reduce((a, b) => a * b, 1);
  const perBatch = indicesShape.reduce((a, b) => a * b, 1) / batchSize;
  return batchSize > 1 && perBatch !== batchSize;
}

export function fixWasmGather(): void {
  patchWasmKernel('GatherV2', (original) => (args) => {
    const { x, indices } = args.inputs as { x: tf.TensorInfo; indices: tf.TensorInfo };
    const batchDims = Number(args.attrs?.batchDims ?? 0);
    return wasmGatherMisindexes(x.shape, indices.shape, batchDims) ? runOnCpu('GatherV2', args) : original(args);
  });
}
