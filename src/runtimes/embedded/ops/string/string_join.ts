// TensorFlow's StringJoin (core/kernels/string_join_op.cc): the inputs' strings joined
// element-wise with `separator`, as bytes. A scalar input is broadcast; every other input must
// have the shape of the first non-scalar one (TF's message otherwise), which the output takes.
// tfjs-converter has no StringJoin.
import type * as tfconv from '@tensorflow/tfjs-converter';
import { invalidArgument } from '../../../../errors/status.js';
import { bytesAttr, stringElements, stringTensor } from './string_tensors.js';
import { joinBytes } from '../../../shared/join_bytes.js';

export const stringJoinOp: tfconv.OpExecutor = (node) => {
  const separator = bytesAttr(node, 'separator');
  let shape: number[] = [];
  for (const t of node.inputs) {
    if (t.rank === 0) continue;
    if (shape.length === 0) shape = t.shape;
    else if (shape.length !== t.rank || shape.some((d, i) => d !== t.shape[i]))
      throw invalidArgument(`Input shapes do not match: [${shape}] vs. [${t.shape}]`);
  }
  const inputs = node.inputs.map((t, i) => ({ scalar: t.rank === 0, values: stringElements(t, `StringJoin input ${i}`) }));
  const size = shape.reduce((a, b) => a * b, 1);
  const out: Uint8Array[] = [];
  for (let i = 0; i < size; i++)
    out.push(
      joinBytes(
        inputs.map((x) => (x.scalar ? x.values[0] : x.values[i])),
        separator,
      ),
    );
  return [stringTensor(out, shape)];
};
