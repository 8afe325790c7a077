// complex64 tensors as the spectral ops pass them between each other. TF.js has the dtype: the
// CPU backend holds a complex tensor as a real and an imaginary float32 tensor, and its
// readSync answers them interleaved (re0, im0, re1, im1 …); the WASM backend stores the same
// interleaved pairs in its heap (8 bytes an element) but could neither make nor read one —
// tfgate's patch (tfjs_patches/wasm_complex.ts) gives it the Complex kernel and the read. So
// on both backends a complex tensor is made with tf.complex and read as interleaved pairs.
import tf from '../../../tfjs_packages/tfjs_core.cjs';
import { invalidArgument } from '../../../../errors/status.js';

/** The real and imaginary parts of a complex64 tensor. */
export interface ComplexParts {
  re: Float32Array;
  im: Float32Array;
}

export function complexParts(t: tf.Tensor, what: string): ComplexParts {
  if (t.dtype !== 'complex64') throw invalidArgument(`${what} must be complex64, got ${t.dtype}`);
  const pairs = t.dataSync() as Float32Array;
  const n = pairs.length >> 1;
  const re = new Float32Array(n);
  const im = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    re[i] = pairs[2 * i];
    im[i] = pairs[2 * i + 1];
  }
  return { re, im };
}

export function complexTensor(parts: ComplexParts, shape: readonly number[]): tf.Tensor {
  return tf.tidy(() => tf.complex(tf.tensor(parts.re, [...shape], 'float32'), tf.tensor(parts.im, [...shape], 'float32')));
}

/** TF's TensorShape::DebugString: [2,3], [] for a scalar. */
export const shapeText = (shape: readonly number[]) => `[${shape.join(',')}]`;
