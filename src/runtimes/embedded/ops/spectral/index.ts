// The `spectral` op family (tensorflow/core/ops/spectral_ops.cc): FFT, IFFT, RFFT, IRFFT and
// their 2D and 3D forms, with the ops that make and read the complex64 tensors they pass
// (Complex, Real, Imag, ComplexAbs: TF's math_ops.cc registers them; they live here because
// only spectral graphs make complex tensors). tfjs-converter maps some of them but ignores
// fft_length, and the WASM backend has no kernel for any: tfgate computes all of them.
import type { TfjsOpTable } from '../../../shared/tfjs_op_table.js';
import { complexAbsOp, complexOp, complexOpNodeProblem, imagOp, realOp } from './complex_ops.js';
import { FFT_KINDS, fftExecutor, fftNodeProblem } from './fft_ops.js';

export const SPECTRAL_OPS: TfjsOpTable = {
  ...Object.fromEntries(Object.keys(FFT_KINDS).map((op) => [op, { execute: fftExecutor(op), check: fftNodeProblem }])),
  Complex: { execute: complexOp, check: complexOpNodeProblem },
  Real: { execute: realOp, check: complexOpNodeProblem },
  Imag: { execute: imagOp, check: complexOpNodeProblem },
  ComplexAbs: { execute: complexAbsOp, check: complexOpNodeProblem },
};
