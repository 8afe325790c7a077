// TensorFlow's Einsum for TF.js, by decomposition into sums, transposes, reshapes and one
// batched matMul — tfjs-backend-wasm has no Einsum kernel, and Keras' MultiHeadAttention
// emits Einsum for every projection and for the attention itself:
//   abc,cde->abde   aecd,abcd->acbe   acbe,aecd->abcd   abcd,cde->abe
//
// Semantics follow TF's EinsumOp (core/kernels/linalg/einsum_op_impl.h): one or two operands
// and an explicit `->`; a label in both operands and the output is a batch dimension, in both
// operands only is contracted, in one operand and the output is free, in one operand only is
// summed away first; `...` stands for broadcasting dimensions, aligned from the right and
// broadcast numpy-style, and must appear in the output if any operand has such dimensions.
// Not supported (refused at load, naming the equation): a label repeated within one
// subscript (diagonals such as `ii->i`, or `i->ii`), more than two operands (TF's op takes at
// most two too), and more than 26 distinct labels.
import tf from '../../../tfjs_packages/tfjs_core.cjs';
import type * as tfconv from '@tensorflow/tfjs-converter';
import { invalidArgument } from '../../../../errors/status.js';
import { attrString, type NodeDef } from '../../../../savedmodel/graph/types.js';

const ELLIPSIS = '...';

interface EinsumEquation {
  /** Each operand's labels; ELLIPSIS marks the broadcasting dimensions. */
  inputs: string[][];
  output: string[];
}

function subscriptLabels(subscript: string, equation: string): string[] {
  const labels: string[] = [];
  for (let i = 0; i < subscript.length; i++) {
    if (subscript.startsWith(ELLIPSIS, i)) {
      if (labels.includes(ELLIPSIS)) throw new Error(`einsum equation '${equation}' has more than one ellipsis in '${subscript}'`);
      labels.push(ELLIPSIS);
      i += 2;
      continue;
    }
    const c = subscript[i];
    if (!/[A-Za-z]/.test(c)) throw new Error(`einsum equation '${equation}' has the character '${c}', which is not a label`);
    if (labels.includes(c))
      throw new Error(`einsum equation '${equation}' repeats label '${c}' in '${subscript}' (diagonals are not supported)`);
    labels.push(c);
  }
  return labels;
}

/** Parses and checks an equation; throws an Error saying why it is not supported. */
function parseEinsumEquation(equation: string): EinsumEquation {
  const eq = equation.replace(/\s+/g, '');
  const parts = eq.split('->');
  if (parts.length !== 2) throw new Error(`einsum equation '${equation}' needs exactly one '->'`);
  const operands = parts[0].split(',');
  if (operands.length < 1 || operands.length > 2)
    throw new Error(`einsum equation '${equation}' has ${operands.length} operands; 1 or 2 are supported`);
  const inputs = operands.map((s) => subscriptLabels(s, equation));
  const output = subscriptLabels(parts[1], equation);
  const named = new Set(inputs.flat());
  for (const l of output) {
    if (l !== ELLIPSIS && !named.has(l)) throw new Error(`einsum equation '${equation}': output label '${l}' is not in any operand`);
  }
  if (new Set([...named].filter((l) => l !== ELLIPSIS)).size > 26)
    throw new Error(`einsum equation '${equation}' has more than 26 distinct labels`);
  return { inputs, output };
}

/**
 * The same equation with its labels renamed to a, b, c … in order of first appearance.
 * tfjs-converter lower-cases string attributes of custom ops, which would merge `a` and `A`;
 * renamed labels survive that unchanged.
 */
export function lowercaseEinsumEquation(equation: string): string {
  const { inputs, output } = parseEinsumEquation(equation);
  const names = new Map<string, string>();
  const rename = (labels: string[]) =>
    labels.map((l) => (l === ELLIPSIS ? l : (names.get(l) ?? names.set(l, String.fromCharCode(97 + names.size)).get(l)!))).join('');
  const lhs = inputs.map(rename).join(',');
  return `${lhs}->${rename(output)}`;
}

/** Replaces each operand's ELLIPSIS by labels '.0', '.1' … aligned from the right. */
function expandEllipsis(eq: EinsumEquation, ranks: number[]): { inputs: string[][]; output: string[] } {
  const counts = eq.inputs.map((labels, i) => {
    const named = labels.filter((l) => l !== ELLIPSIS).length;
    const has = labels.includes(ELLIPSIS);
    if (!has && ranks[i] !== named) throw invalidArgument(`Expected input ${i} to have rank ${named} but got: ${ranks[i]}`);
    if (has && ranks[i] < named) throw invalidArgument(`Expected input ${i} to have rank at least ${named} but got: ${ranks[i]}`);
    return has ? ranks[i] - named : 0;
  });
  const maxB = Math.max(0, ...counts);
  const bcast = (n: number) => Array.from({ length: n }, (_, j) => `.${maxB - n + j}`);
  const inputs = eq.inputs.map((labels, i) => labels.flatMap((l) => (l === ELLIPSIS ? bcast(counts[i]) : [l])));
  if (!eq.output.includes(ELLIPSIS) && maxB > 0) {
    throw invalidArgument(`Output contains ${maxB} broadcasting dimension(s) but no ellipsis (...) was found in the output subscripts.`);
  }
  return { inputs, output: eq.output.flatMap((l) => (l === ELLIPSIS ? bcast(maxB) : [l])) };
}

const isIdentity = (perm: number[]) => perm.every((p, i) => p === i);
const transposeTo = (t: tf.Tensor, labels: string[], order: string[]) => {
  const perm = order.map((l) => labels.indexOf(l));
  return isIdentity(perm) ? t : tf.transpose(t, perm);
};
const product = (dims: number[]) => dims.reduce((a, b) => a * b, 1);

/** Sums away the labels `keep` does not contain; returns the tensor and its remaining labels. */
function sumAway(t: tf.Tensor, labels: string[], keep: (l: string) => boolean): [tf.Tensor, string[]] {
  const axes = labels.flatMap((l, i) => (keep(l) ? [] : [i]));
  if (!axes.length) return [t, labels];
  return [tf.sum(t, axes), labels.filter((l) => keep(l))];
}

/** Sizes of every label, checking that named labels agree and broadcasting labels broadcast. */
function labelSizes(tensors: tf.Tensor[], inputs: string[][]): Map<string, number> {
  const sizes = new Map<string, number>();
  tensors.forEach((t, i) =>
    inputs[i].forEach((l, axis) => {
      const dim = t.shape[axis];
      const seen = sizes.get(l);
      if (seen === undefined || seen === dim) return void sizes.set(l, dim);
      if (l.startsWith('.') && (seen === 1 || dim === 1)) return void sizes.set(l, Math.max(seen, dim));
      throw invalidArgument(
        `Expected dimension ${seen} at axis ${axis} of the input shaped [${t.shape.join(',')}] but got dimension ${dim}`,
      );
    }),
  );
  return sizes;
}

/** Evaluates a (parsed) einsum on one or two tensors. */
function einsum(eq: EinsumEquation, operands: tf.Tensor[]): tf.Tensor {
  if (operands.length !== eq.inputs.length) throw invalidArgument(`Expected ${eq.inputs.length} inputs but got: ${operands.length}`);
  return tf.tidy(() => {
    const { inputs, output } = expandEllipsis(
      eq,
      operands.map((t) => t.rank),
    );
    const sizes = labelSizes(operands, inputs);
    const inOutput = (l: string) => output.includes(l);
    if (operands.length === 1) {
      const [t, labels] = sumAway(operands[0], inputs[0], inOutput);
      return transposeTo(t, labels, output);
    }
    const [la, lb] = inputs;
    // Labels of one operand only that the output lacks are summed first (TF's kReduce).
    let [a, aLabels] = sumAway(operands[0], la, (l) => inOutput(l) || lb.includes(l));
    let [b, bLabels] = sumAway(operands[1], lb, (l) => inOutput(l) || la.includes(l));
    const batch = output.filter((l) => aLabels.includes(l) && bLabels.includes(l));
    const contracted = aLabels.filter((l) => bLabels.includes(l) && !inOutput(l));
    const freeA = aLabels.filter((l) => !bLabels.includes(l));
    const freeB = bLabels.filter((l) => !aLabels.includes(l));
    const dims = (labels: string[]) => labels.map((l) => sizes.get(l)!);
    a = transposeTo(a, aLabels, [...batch, ...freeA, ...contracted]);
    b = transposeTo(b, bLabels, [...batch, ...contracted, ...freeB]);
    // Broadcasting batch dimensions of size 1 on one side are expanded to the other's size.
    const batchDims = dims(batch);
    if (a.shape.slice(0, batch.length).some((d, i) => d !== batchDims[i]))
      a = tf.broadcastTo(a, [...batchDims, ...a.shape.slice(batch.length)]);
    if (b.shape.slice(0, batch.length).some((d, i) => d !== batchDims[i]))
      b = tf.broadcastTo(b, [...batchDims, ...b.shape.slice(batch.length)]);
    const [nb, na, nc, nf] = [product(batchDims), product(dims(freeA)), product(dims(contracted)), product(dims(freeB))];
    const m = tf.matMul(tf.reshape(a, [nb, na, nc]), tf.reshape(b, [nb, nc, nf]));
    const labels = [...batch, ...freeA, ...freeB];
    return transposeTo(tf.reshape(m, dims(labels)), labels, output);
  });
}

/** The Einsum op for tfjs-converter (the equation was renamed by lowercaseEinsumEquation at load). */
export const einsumOp: tfconv.OpExecutor = (node) => [einsum(parseEinsumEquation(String(node.attrs.equation)), node.inputs)];

const FLOAT_TYPES = new Set(['DT_FLOAT', 'DT_HALF', 'DT_BFLOAT16', 'DT_DOUBLE']);

/** Load-time check of an Einsum node: null when tfgate can run it, else why not. */
export function einsumNodeProblem(node: NodeDef): string | null {
  const equation = attrString(node.attr?.equation);
  const type = node.attr?.T?.type;
  if (type && !FLOAT_TYPES.has(type)) return `einsum on ${type} is not supported (floating-point types only)`;
  try {
    const eq = parseEinsumEquation(equation);
    const n = node.attr?.N?.i;
    if (n !== undefined && Number(n) !== eq.inputs.length)
      return `einsum equation '${equation}' has ${eq.inputs.length} operands but the node has ${n}`;
    return null;
  } catch (e) {
    return (e as Error).message;
  }
}
