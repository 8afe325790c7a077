// TensorFlow's RaggedTensorToTensor, RaggedGather and RaggedRange for tfjs-converter's graph
// executor. TF.js 4.22 has the kernels and even an executor for them, but its OperationMapper
// never loads the ragged op list (op_list/ragged.js is missing from its list of op lists), so
// a graph using them fails at predict with "Unknown op". Keras TextVectorization needs
// RaggedTensorToTensor to pad its token ids. Registered here with TF's input and output
// layout (core/ops/ragged_*_ops.cc); the row partition types are read as written in the graph
// (the converter lower-cases string attributes, and TF.js's kernel wants "ROW_SPLITS").
import tf from '../../../tfjs_packages/tfjs_core.cjs';
import type * as tfconv from '@tensorflow/tfjs-converter';

/** A list(string) attribute as written in the graph (base64 in the GraphModel's JSON form). */
function stringListAttr(node: tfconv.GraphNode, name: string): string[] {
  const inner = (node as unknown as { node?: { rawAttrs?: Record<string, { list?: { s?: Array<string | Uint8Array> } }> } }).node;
  return (inner?.rawAttrs?.[name]?.list?.s ?? []).map((s) =>
    (typeof s === 'string' ? Buffer.from(s, 'base64') : Buffer.from(s)).toString('latin1'),
  );
}

export const raggedTensorToTensorOp: tfconv.OpExecutor = (node) => {
  const [shape, values, defaultValue, ...rowPartitionTensors] = node.inputs;
  const types = stringListAttr(node, 'row_partition_types');
  // TF reads a scalar shape (tf.RaggedTensor.to_tensor() without a shape writes -1) as a
  // shape of unknown rank: every dimension natural. TF.js wants a vector, with -1 for natural.
  if (shape.rank === 0) {
    const raggedRank = rowPartitionTensors.length - (types[0] === 'FIRST_DIM_SIZE' ? 1 : 0);
    const natural = tf.fill([raggedRank + values.rank], -1, shape.dtype);
    try {
      return [tf.raggedTensorToTensor(natural, values, defaultValue, rowPartitionTensors, types)];
    } finally {
      natural.dispose();
    }
  }
  return [tf.raggedTensorToTensor(shape, values, defaultValue, rowPartitionTensors, types)];
};

export const raggedGatherOp: tfconv.OpExecutor = (node) => {
  const inputs = node.inputs;
  const paramsNestedSplits = inputs.slice(0, -2);
  const { outputNestedSplits, outputDenseValues } = tf.raggedGather(
    paramsNestedSplits,
    inputs[inputs.length - 2],
    inputs[inputs.length - 1],
    Number(node.attrs.OUTPUT_RAGGED_RANK ?? node.attrs.outputRaggedRank),
  );
  return [...outputNestedSplits, outputDenseValues];
};

export const raggedRangeOp: tfconv.OpExecutor = (node) => {
  const { rtNestedSplits, rtDenseValues } = tf.raggedRange(node.inputs[0], node.inputs[1], node.inputs[2]);
  return [rtNestedSplits, rtDenseValues];
};
