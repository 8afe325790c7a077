// The `spectral` op family (tensorflow/core/ops/spectral_ops.cc): FFT, IFFT, RFFT, IRFFT and
// their 2D and 3D forms, with the ops that make and read the complex64 tensors they pass
// (Complex, Real, Imag, ComplexAbs: TF's math_ops.cc registers them; they live here because
// only spectral graphs make complex tensors). tfjs-converter maps some of them but ignores
// fft_length, and the WASM backend has no kernel for any: tfgate computes all of them.
import type { NodeDef } from '../../../../savedmodel/graph/types.js';
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

/** The complex dtype a node of this family outputs (FFT*, RFFT*, Complex), for graphs that declare no signature; undefined for real outputs. */
export function complexOutputType(node: NodeDef): string | undefined {
  const kind = FFT_KINDS[node.op];
  if (node.op !== 'Complex' && !(kind && !(kind.real && !kind.forward))) return undefined;
  return String(node.attr?.[node.op === 'Complex' ? 'Tout' : 'Tcomplex']?.type ?? 'DT_COMPLEX64');
}
