// Tiny Estimator-shaped SavedModels and serialized tf.Examples for the sparse-feature tests
// (embedded runtime and ONNX host step), written with tfgate's SavedModel writer.
import path from 'node:path';
import { protoType } from '../../src/proto/index.js';
import { writeSavedModel } from '../../test_util/savedmodel/saved_model_writer.js';
import type { DType } from '../../src/tensor/dtype.js';
import type { HostTensor } from '../../src/tensor/host_tensor.js';
import { tempDir } from './temp.js';
import { attr, f32, GraphBuilder, i32, i64, node, Tensor, writeTinyModel } from './tiny_graphs.js';

const ExampleType = protoType('tensorflow.Example');
export type FeatureValues = { float: number[] } | { int64: number[] } | { bytes: string[] };
/** A serialized tf.Example. */
export function example(features: Record<string, FeatureValues>): Uint8Array {
  const feature = Object.fromEntries(
    Object.entries(features).map(([k, v]) => [
      k,
      'float' in v
        ? { floatList: { value: v.float } }
        : 'int64' in v
          ? { int64List: { value: v.int64 } }
          : { bytesList: { value: v.bytes.map((x) => Buffer.from(x)) } },
    ]),
  );
  return ExampleType.encode(ExampleType.fromObject({ features: { feature } })).finish();
}
export const serialized = (...examples: Uint8Array[]): HostTensor => ({ dtype: 'string', shape: [examples.length], values: examples });

/** ParseExample (V1) of sparse keys (with their types) and dense keys (float, shape [1], default 0 when `withDefault`). */
export function parseExample(g: GraphBuilder, sparse: Array<[string, DType]>, dense: string[], withDefault = true) {
  const x = g.placeholder('examples', 'string', [-1]);
  const names = g.constant('names', { dtype: 'string', shape: [0], values: [] });
  const key = (k: string) => g.constant(`key_${k}`, { dtype: 'string', shape: [], values: [Buffer.from(k)] });
  const defaults = dense.map((k) => g.constant(`default_${k}`, f32(withDefault ? [1] : [0], withDefault ? [0] : [])));
  const name = g.addNode('ParseExample', 'ParseExample', [x, names, ...sparse.map(([k]) => key(k)), ...dense.map(key), ...defaults], {
    Nsparse: attr.i(sparse.length),
    Ndense: attr.i(dense.length),
    sparse_types: attr.types(sparse.map(([, d]) => d)),
    Tdense: attr.types(dense.map(() => 'float32')),
    dense_shapes: { list: dense.length ? { shape: dense.map(() => attr.shape([1]).shape) } : {} },
  });
  const s = sparse.length;
  const output = (i: number, d: DType) => new Tensor(name, i, d, null);
  return {
    x,
    indices: sparse.map((_, i) => output(i, 'int64')),
    values: sparse.map(([, d], i) => output(s + i, d)),
    shapes: sparse.map((_, i) => output(2 * s + i, 'int64')),
    dense: dense.map((_, i) => output(3 * s + i, 'float32')),
  };
}

/** ParseExample of sparse `ids` (int64), `w` (float), `tags` (string) and dense `x`; every parsed tensor an output. */
export const sparseParseModel = () =>
  writeTinyModel((g) => {
    const p = parseExample(
      g,
      [
        ['ids', 'int64'],
        ['w', 'float32'],
        ['tags', 'string'],
      ],
      ['x'],
    );
    const outputs: Record<string, Tensor> = {};
    ['ids', 'w', 'tags'].forEach((k, i) => {
      outputs[`${k}_indices`] = g.identity(`${k}_indices`, p.indices[i]);
      outputs[`${k}_values`] = g.identity(`${k}_values`, p.values[i]);
      outputs[`${k}_shape`] = g.identity(`${k}_shape`, p.shapes[i]);
    });
    outputs.x = g.identity('x_out', p.dense[0]);
    return { inputs: { examples: p.x }, outputs };
  });

const EMBEDDING = [0.1, 0.2, -0.3, 0.4, 0.5, -0.6, 0.7, 0.8, 0.9, -1.0, 1.1, 1.2, 1.3, 1.4, -1.5]; // 5 ids × 3
const WEIGHTS = [0.5, -1, 2, 0.25]; // [3 + 1, 1]

/**
 * serialized tf.Example → ParseExample (sparse int64 `ids`, dense float `x` [1]) →
 * SparseFillEmptyRows (id 0 for an example without ids) → SparseSegmentMean over a [5, 3]
 * embedding → ConcatV2 with x → MatMul by [4, 1] weights → `logits`.
 */
function buildEstimatorGraph(g: GraphBuilder): { examples: Tensor; logits: Tensor } {
  const p = parseExample(g, [['ids', 'int64']], ['x']);
  const fill = g.addNode('SparseFillEmptyRows', 'fill', [p.indices[0], p.values[0], p.shapes[0], g.constant('zero_id', i64([], [0]))], {
    T: attr.type('int64'),
  });
  const filledIndices = new Tensor(fill, 0, 'int64', [-1, 2]);
  const filledIds = new Tensor(fill, 1, 'int64', [-1]);
  const rows = node(
    g,
    'StridedSlice',
    'rows',
    [filledIndices, g.constant('begin', i32([2], [0, 0])), g.constant('end', i32([2], [0, 1])), g.constant('strides', i32([2], [1, 1]))],
    {
      T: attr.type('int64'),
      Index: attr.type('int32'),
      begin_mask: attr.i(1),
      end_mask: attr.i(1),
      shrink_axis_mask: attr.i(2),
    },
    'int64',
    [-1],
  );
  const embedding = g.constant('embedding', f32([5, 3], EMBEDDING));
  const mean = node(
    g,
    'SparseSegmentMean',
    'mean',
    [embedding, filledIds, rows],
    { T: attr.type('float32'), Tidx: attr.type('int64'), Tsegmentids: attr.type('int64') },
    'float32',
    [-1, 3],
  );
  const features = node(
    g,
    'ConcatV2',
    'concat',
    [mean, p.dense[0], g.constant('axis', i32([], [1]))],
    { N: attr.i(2), T: attr.type('float32'), Tidx: attr.type('int32') },
    'float32',
    [-1, 4],
  );
  const logits = node(
    g,
    'MatMul',
    'logits',
    [features, g.constant('weights', f32([4, 1], WEIGHTS))],
    { T: attr.type('float32') },
    'float32',
    [-1, 1],
  );
  return { examples: p.x, logits: g.identity('out', logits) };
}

export const estimatorModel = () =>
  writeTinyModel((g) => {
    const { examples, logits } = buildEstimatorGraph(g);
    return { inputs: { examples }, outputs: { logits } };
  });

/** The same graph as TF Serving's regress signature (`inputs` → `outputs`), version 1 under the returned base path. */
export async function writeEstimatorRegressModel(): Promise<string> {
  const g = new GraphBuilder();
  const { examples, logits } = buildEstimatorGraph(g);
  const base = tempDir('tfgate-estimator-');
  const signature = { methodName: 'tensorflow/serving/regress', inputs: { inputs: examples }, outputs: { outputs: logits } };
  await writeSavedModel(path.join(base, '1'), g, { serving_default: signature });
  return base;
}

/** Plain-JS reference: per example the mean of its ids' embedding rows (id 0 when it has none), then x, times WEIGHTS. */
export const estimatorReference = (batch: Array<{ ids: number[]; x: number }>) =>
  batch.map(({ ids, x }) => {
    const use = ids.length ? ids : [0];
    const emb = [0, 1, 2].map((j) => use.reduce((s, id) => s + EMBEDDING[id * 3 + j], 0) / use.length);
    return [...emb, x].reduce((s, v, j) => s + v * WEIGHTS[j], 0);
  });
