// The ops that make and read the complex64 tensors the FFT ops pass (TF registers them in
// math_ops.cc): Complex (real and imaginary parts, broadcast as TF's binary ops broadcast),
// Real, Imag, and ComplexAbs (tf.abs of a complex tensor: |z| = hypot(re, im) in float).
// tfgate computes them for both backends over complex_tensors.ts, so that the WASM backend,
// which has no complex kernels, runs them too.
import tf from '../../../tfjs_packages/tfjs_core.cjs';
import type * as tfconv from '@tensorflow/tfjs-converter';
import { invalidArgument } from '../../../../errors/status.js';
import type { NodeDef } from '../../../../savedmodel/graph/types.js';
import { complexParts, complexTensor, shapeText } from './complex_tensors.js';

/** numpy broadcasting of two shapes, or TF's BCast message. */
function broadcastShape(a: readonly number[], b: readonly number[]): number[] {
  const rank = Math.max(a.length, b.length);
  const out: number[] = [];
  for (let i = 0; i < rank; i++) {
    const x = a[a.length - rank + i] ?? 1;
    const y = b[b.length - rank + i] ?? 1;
    if (x !== y && x !== 1 && y !== 1) throw invalidArgument(`Incompatible shapes: ${shapeText(a)} vs. ${shapeText(b)}`);
    out.push(x === 1 ? y : x);
  }
  return out;
}

export const complexOp: tfconv.OpExecutor = (node) => {
  const [real, imag] = node.inputs;
  const shape = broadcastShape(real.shape, imag.shape);
  const values = (t: tf.Tensor) => tf.tidy(() => tf.broadcastTo(t, shape).dataSync() as Float32Array);
  return [complexTensor({ re: values(real), im: values(imag) }, shape)];
};

export const realOp: tfconv.OpExecutor = (node) => [tf.tensor(complexParts(node.inputs[0], 'input').re, node.inputs[0].shape, 'float32')];

export const imagOp: tfconv.OpExecutor = (node) => [tf.tensor(complexParts(node.inputs[0], 'input').im, node.inputs[0].shape, 'float32')];

export const complexAbsOp: tfconv.OpExecutor = (node) => {
  const { re, im } = complexParts(node.inputs[0], 'x');
  const out = new Float32Array(re.length);
  for (let i = 0; i < re.length; i++) out[i] = Math.hypot(re[i], im[i]);
  return [tf.tensor(out, node.inputs[0].shape, 'float32')];
};

const typeAttr = (node: NodeDef, name: string, dflt: string) => String(node.attr?.[name]?.type ?? dflt);

/** Load-time check: the float32 ↔ complex64 forms only (TF.js has no complex128; float64 it holds as float32). */
export function complexOpNodeProblem(node: NodeDef): string | null {
  const [realAttr, complexAttr] = node.op === 'Complex' ? ['T', 'Tout'] : ['Tout', 'T'];
  const real = typeAttr(node, realAttr, 'DT_FLOAT');
  const complex = typeAttr(node, complexAttr, 'DT_COMPLEX64');
  if (complex !== 'DT_COMPLEX64')
    return `${complexAttr} ${complex}: the embedded runtime computes complex64 only (TF.js has no complex128)`;
  if (real !== 'DT_FLOAT') return `${realAttr} ${real}: the embedded runtime computes float32 only`;
  return null;
}
