// TensorFlow's StringJoin (core/kernels/string_join_op.cc): the inputs' strings joined
// element-wise with `separator`, as bytes. A scalar input is broadcast; every other input must
// have the shape of the first non-scalar one (TF's message otherwise), which the output takes.
// tfjs-converter has no StringJoin.
import type * as tfconv from '@tensorflow/tfjs-converter';
import { invalidArgument } from '../../../../errors/status.js';
import { bytesAttr, stringElements, stringTensor } from './string_tensors.js';

function join(parts: readonly Uint8Array[], separator: Uint8Array): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0) + separator.length * Math.max(0, parts.length - 1));
  let at = 0;
  parts.forEach((p, i) => {
    if (i > 0) {
      out.set(separator, at);
      at += separator.length;
    }
    out.set(p, at);
    at += p.length;
  });
  return out;
}

export const stringJoinOp: tfconv.OpExecutor = (node) => {
  const separator = bytesAttr(node, 'separator');
  let shape: number[] = [];
  for (const t of node.inputs) {
    if (t.rank === 0) continue;
    if (shape.length === 0) shape = t.shape;
    else if (shape.length !== t.rank || shape.some((d, i) => d !== t.shape[i])) throw invalidArgument(`Input shapes do not match: [${shape}] vs. [${t.shape}]`);
  }
  const inputs = node.inputs.map((t, i) => ({ scalar: t.rank === 0, values: stringElements(t, `StringJoin input ${i}`) }));
  const size = shape.reduce((a, b) => a * b, 1);
  const out: Uint8Array[] = [];
  for (let i = 0; i < size; i++) out.push(join(inputs.map((x) => (x.scalar ? x.values[0] : x.values[i])), separator));
  return [stringTensor(out, shape)];
};
