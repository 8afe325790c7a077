// TensorFlow's UnsortedSegmentJoin (tf.strings.unsorted_segment_join;
// core/kernels/unsorted_segment_join_op.cc): joins the slices of `inputs` that share a
// segment id, in input order, into output row `id` of num_segments. As TF's kernel, the
// separator goes in front of a slice only when what is already joined is non-empty (so an
// empty string adds no separator), and a segment nothing maps to stays "".
import type * as tfconv from '@tensorflow/tfjs-converter';
import { Code, ServingError, invalidArgument } from '../../../../errors/status.js';
import { bytesAttr, checkOutputBytes, intElements, stringElements, stringTensor } from './string_tensors.js';

export const unsortedSegmentJoinOp: tfconv.OpExecutor = (node) => {
  const [input, idsT, numT] = node.inputs;
  const separator = bytesAttr(node, 'separator');
  if (numT.size === 0) throw invalidArgument('Number of segments cannot be empty.');
  const numSegments = intElements(numT)[0];
  const idShape = idsT.shape;
  if (idShape.length === 0) throw invalidArgument('Segment_id cannot have rank 0');
  if (idShape.length > input.rank)
    throw new ServingError(Code.OUT_OF_RANGE, `Invalid segment_id rank ${idShape.length} for input with ${input.rank} dimension(s)`);
  idShape.forEach((d, i) => {
    if (d !== input.shape[i]) throw invalidArgument(`Segment dimension is ${d} while input dimension is ${input.rank} in rank ${i}`);
  });
  const ids = intElements(idsT);
  if (ids.some((id) => id < 0 || id >= numSegments))
    throw invalidArgument('segment_ids are not allowed to exceed num_segments or to have negative values.');
  if (numSegments < 0) throw invalidArgument(`Dimension -${-numSegments} must be >= 0`);
  const inner = input.shape.slice(idShape.length);
  const stride = inner.reduce((a, b) => a * b, 1);
  const strings = stringElements(input, 'inputs');
  checkOutputBytes(
    'UnsortedSegmentJoin',
    strings.reduce((n, s) => n + s.length + separator.length, 0),
    numSegments * stride,
  );
  const parts: Uint8Array[][] = Array.from({ length: numSegments * stride }, () => []);
  const lengths = new Array<number>(numSegments * stride).fill(0);
  for (let i = 0; i < ids.length; i++) {
    for (let j = 0; j < stride; j++) {
      const out = ids[i] * stride + j;
      const s = strings[i * stride + j];
      if (lengths[out] !== 0) parts[out].push(separator);
      parts[out].push(s);
      lengths[out] += (lengths[out] !== 0 ? separator.length : 0) + s.length;
    }
  }
  const joined = parts.map((p) => new Uint8Array(Buffer.concat(p)));
  return [stringTensor(joined, [numSegments, ...inner])];
};
