// Tiny SavedModels for op tests, written with tfgate's own writer: a GraphBuilder callback
// names the signature's inputs and outputs; `node` adds any op by its OpDef.
import path from 'node:path';
import { attr, GraphBuilder, Tensor, type AttrValueInit } from '../../test_util/savedmodel/writer/graph_builder.js';
import { writeSavedModel, type WriterAsset, type WriterSignature } from '../../test_util/savedmodel/saved_model_writer.js';
import type { OpDefInit } from '../../test_util/savedmodel/writer/op_defs.js';
import { INIT_OP_SIGNATURE_KEY } from '../../src/savedmodel/signature_spec.js';
import type { DType } from '../../src/tensor/dtype.js';
import type { HostTensor } from '../../src/tensor/host_tensor.js';
import { tempDir } from './temp.js';

export { attr, GraphBuilder, Tensor };

export interface TinySignature {
  inputs: Record<string, Tensor>;
  outputs: Record<string, Tensor>;
  /** Node the `__saved_model_init_op` signature runs at load (as TF writes it: an op, no dtype). */
  initOp?: string;
  /** Files under `assets/` and the tensors TF feeds their paths to. */
  assets?: WriterAsset[];
  /** Node-list collections (TF1 `table_initializer`, `legacy_init_op` …). */
  nodeCollections?: Record<string, string[]>;
  /** OpDefs of ops the writer does not declare (writer/op_registration.ts reads them from TF's REGISTER_OP text). */
  opDefs?: readonly OpDefInit[];
}

/** Writes a one-version model (`<tmp>/1`) whose serving_default is what `build` returns. */
export async function writeTinyModel(build: (g: GraphBuilder) => TinySignature, graph: GraphBuilder = new GraphBuilder()): Promise<string> {
  const { inputs, outputs, initOp, assets, nodeCollections, opDefs } = build(graph);
  const dir = path.join(tempDir('tfgate-tiny-'), '1');
  const signatures: Record<string, WriterSignature> = { serving_default: { inputs, outputs } };
  if (initOp)
    signatures[INIT_OP_SIGNATURE_KEY] = {
      methodName: '',
      inputs: {},
      outputs: { [INIT_OP_SIGNATURE_KEY]: { name: initOp, dtype: 'DT_INVALID', shape: null } },
    };
  await writeSavedModel(dir, graph, signatures, { assets, nodeCollections, opDefs });
  return dir;
}

/** Adds `op` and returns its first output, described as `dtype` / `shape`. */
export function node(
  g: GraphBuilder,
  op: string,
  name: string,
  inputs: Tensor[],
  attrs: Record<string, AttrValueInit>,
  dtype: DType = 'float32',
  shape: number[] | null = null,
): Tensor {
  return new Tensor(g.addNode(op, name, inputs, attrs), 0, dtype, shape);
}

export const f32 = (shape: number[], values: ArrayLike<number>): HostTensor => ({
  dtype: 'float32',
  shape,
  values: Float32Array.from(values),
});
export const i32 = (shape: number[], values: ArrayLike<number>): HostTensor => ({ dtype: 'int32', shape, values: Int32Array.from(values) });
export const i64 = (shape: number[], values: number[]): HostTensor => ({
  dtype: 'int64',
  shape,
  values: BigInt64Array.from(values, (v) => BigInt(v)),
});
