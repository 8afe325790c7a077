// complex64 tensors on tfjs-backend-wasm.
//
// What is missing upstream (tfjs-backend-wasm 4.22): the backend allocates complex64 tensors
// (8 bytes an element in its heap, util.bytesPerElement) but has no Complex kernel to make one
// and its readSync throws "Unknown dtype complex64", so nothing complex runs on WASM: tfgate
// refused every RFFT at load there ("the wasm backend has no kernel 'Complex', 'FFT' …").
// Its Identity kernel (tf.clone, which tfjs-converter runs for Identity nodes) also throws on
// one; Reshape, ExpandDims and Squeeze only relabel the bytes and work.
//
// The fix: a complex64 tensor on WASM holds interleaved (re, im) float32 pairs, the layout the
// CPU backend's readSync answers; readSync returns them, a Complex kernel writes them, and
// Identity shares them (as the CPU backend's Identity does). tfgate's spectral ops
// (embedded/ops/spectral/) make and read complex tensors only through tf.complex and
// readSync, so they run the same on both backends; any other op that would read a complex64
// tensor on WASM is refused at load (embedded/backend_op_check.ts).
import tf from '../tfjs_packages/tfjs_core.cjs';
import tfjsWasm from '../tfjs_packages/tfjs_backend_wasm.cjs';
import { patchWasmKernel } from './wasm_kernel_patch.js';

interface WasmTensorData {
  memoryOffset: number;
  shape: number[];
  dtype: string;
}

interface WasmInternals {
  dataIdMap: { get(dataId: object): WasmTensorData | undefined };
  wasm: { HEAPU8: Uint8Array };
}

let patched = false;

/** Teaches the WASM backend to make, read and clone complex64 tensors. Idempotent. */
export function supportWasmComplex(): void {
  if (patched) return;
  patched = true;
  const proto = tfjsWasm.BackendWasm.prototype as unknown as {
    readSync(this: tfjsWasm.BackendWasm, dataId: object, start?: number, end?: number): tf.backend_util.BackendValues;
  };
  const readSync = proto.readSync;
  proto.readSync = function (dataId, start, end) {
    const data = (this as unknown as WasmInternals).dataIdMap.get(dataId);
    if (data?.dtype !== 'complex64') return readSync.call(this, dataId, start, end);
    const from = start ?? 0;
    const to = end ?? tf.util.sizeFromShape(data.shape);
    const bytes = (this as unknown as WasmInternals).wasm.HEAPU8.slice(data.memoryOffset + from * 8, data.memoryOffset + to * 8);
    return new Float32Array(bytes.buffer);
  };
  if (!tf.getKernel('Complex', 'wasm')) {
    tf.registerKernel({
      kernelName: 'Complex',
      backendName: 'wasm',
      kernelFunc: ({ inputs, backend }) => {
        const { real, imag } = inputs as { real: tf.TensorInfo; imag: tf.TensorInfo };
        const b = backend as tf.KernelBackend;
        const re = b.readSync(real.dataId) as Float32Array;
        const im = b.readSync(imag.dataId) as Float32Array;
        const pairs = new Float32Array(2 * re.length);
        for (let i = 0; i < re.length; i++) {
          pairs[2 * i] = re[i];
          pairs[2 * i + 1] = im[i];
        }
        return { dataId: b.write(pairs, real.shape, 'complex64'), shape: real.shape, dtype: 'complex64' };
      },
    });
  }
  patchWasmKernel('Identity', (original) => (args) => {
    const x = (args.inputs as { x: tf.TensorInfo }).x;
    if (x.dtype !== 'complex64') return original(args);
    (args.backend as tf.KernelBackend).incRef(x.dataId);
    return { dataId: x.dataId, shape: x.shape, dtype: x.dtype };
  });
}
