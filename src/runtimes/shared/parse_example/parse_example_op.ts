// TensorFlow's ParseExample and ParseExampleV2 for the TF.js graph executor, which has
// neither: the classify/regress signatures of TF Serving's models parse serialized
// tf.Example protos inside the graph. Dense features (float, int64, bytes; fixed shapes;
// defaults) and sparse ones (VarLenFeature: Estimator serving inputs); ragged features are
// refused by name. The texts follow TF's example_proto_fast_parsing.cc, with "<unknown>" for
// the example name as TF writes it.
//
// Inputs (TF's op defs):
//   ParseExample:   serialized, names, sparse_keys × Nsparse, dense_keys × Ndense, dense_defaults × Ndense
//   ParseExampleV2: serialized, names, sparse_keys [S], dense_keys [D], ragged_keys [R], dense_defaults × D
// Outputs: sparse indices × S, sparse values × S, sparse shapes × S (sparse_example.ts), then one
// dense tensor [batch, ...shape] per key.
import * as tf from '@tensorflow/tfjs-core';
import type * as tfconv from '@tensorflow/tfjs-converter';
import { Code, ServingError, invalidArgument } from '../../../errors/status.js';
import { protoType, TO_OBJECT } from '../../../proto/index.js';
import { sparseOutputs } from './sparse_example.js';
import { featureValues, type FeatureObject, type Kind } from './example_features.js';

const KIND_OF_DTYPE: Record<string, Kind> = { float32: 'float', int32: 'int64', string: 'bytes' };
const decoder = new TextDecoder();

function decodeExamples(serialized: Uint8Array[]): Array<Record<string, FeatureObject>> {
  const type = protoType('tensorflow.Example');
  return serialized.map((bytes) => {
    try {
      const ex = type.toObject(type.decode(bytes), TO_OBJECT) as { features?: { feature?: Record<string, FeatureObject> } };
      return ex.features?.feature ?? {};
    } catch {
      throw invalidArgument(`Could not parse example input, value: '${decoder.decode(bytes.subarray(0, 64))}'`);
    }
  });
}

/** One dense output: every example's values (or the default) stacked into [batch, ...shape]. */
function denseOutput(examples: Array<Record<string, FeatureObject>>, key: string, dtype: tf.DataType, shape: number[], dflt: tf.Tensor): tf.Tensor {
  const kind = KIND_OF_DTYPE[dtype];
  if (!kind) throw new ServingError(Code.UNIMPLEMENTED, `ParseExample: dense feature '${key}' has dtype ${dtype}, which tfgate cannot parse`);
  if (shape.some((d) => d < 0)) throw new ServingError(Code.UNIMPLEMENTED, `ParseExample: dense feature '${key}' has a variable shape [${shape}], which tfgate cannot parse`);
  const size = shape.reduce((a, b) => a * b, 1);
  const fallback = dflt.size ? (dflt.dataSync() as ArrayLike<number | Uint8Array>) : undefined;
  const out: Array<number | Uint8Array> = [];
  examples.forEach((features, i) => {
    const found = features[key] ? featureValues(features[key]) : undefined;
    if (!found || found.values.length === 0) {
      if (!fallback) throw invalidArgument(`Name: <unknown>, Feature: ${key} (data type: ${kind}) is required but could not be found.`);
      for (let k = 0; k < size; k++) out.push(fallback[fallback.length === 1 ? 0 : k]);
      return;
    }
    if (found.kind !== kind) throw invalidArgument(`Name: <unknown>, Feature: ${key}.  Data types don't match. Data type: ${found.kind} but expected type: ${kind}`);
    if (found.values.length !== size) {
      throw invalidArgument(`Name: <unknown>, Key: ${key}, Index: ${i}.  Number of ${kind} values != expected.  values size: ${found.values.length} but output shape: [${shape.join(',')}]`);
    }
    out.push(...found.values);
  });
  const outShape = [examples.length, ...shape];
  if (kind === 'bytes') return tf.tensor(out as Uint8Array[], outShape, 'string');
  return tf.tensor(out as number[], outShape, dtype);
}

/** A string tensor's raw bytes (dataSync() would decode them as UTF-8, which spoils protos). */
function stringValues(t: tf.Tensor): Uint8Array[] {
  return tf.engine().readSync(t.dataId) as unknown as Uint8Array[];
}

/** ParseExample (TF1's parsing_ops). */
export const parseExample: tfconv.OpExecutor = (node) => {
  const nSparse = Number(node.attrs.Nsparse ?? 0);
  const nDense = Number(node.attrs.Ndense ?? 0);
  const examples = decodeExamples(stringValues(node.inputs[0]));
  const sparseKeys = node.inputs.slice(2, 2 + nSparse).map((t) => decoder.decode(stringValues(t)[0]));
  const keys = node.inputs.slice(2 + nSparse, 2 + nSparse + nDense).map((t) => decoder.decode(stringValues(t)[0]));
  const defaults = node.inputs.slice(2 + nSparse + nDense, 2 + nSparse + 2 * nDense);
  const dtypes = (node.attrs.Tdense ?? []) as tf.DataType[];
  const shapes = (node.attrs.dense_shapes ?? []) as number[][];
  const sparseTypes = (node.attrs.sparse_types ?? []) as tf.DataType[];
  const sparse = sparseOutputs(examples, sparseKeys, sparseTypes, true);
  return [...sparse, ...keys.map((k, i) => denseOutput(examples, k, dtypes[i], shapes[i] ?? [], defaults[i]))];
};

/** ParseExampleV2 (TF2's parsing_ops). */
export const parseExampleV2: tfconv.OpExecutor = (node) => {
  const [serialized, , sparseKeys, denseKeys, raggedKeys, ...defaults] = node.inputs;
  const named = (t: tf.Tensor | undefined) => (t && t.size ? stringValues(t).map((b) => decoder.decode(b)) : []);
  const ragged = named(raggedKeys);
  if (ragged.length) {
    throw new ServingError(Code.UNIMPLEMENTED, `ParseExampleV2: ragged features are not supported by tfgate's embedded runtime: ${ragged.join(', ')}`);
  }
  const examples = decodeExamples(stringValues(serialized));
  const dtypes = (node.attrs.Tdense ?? []) as tf.DataType[];
  const shapes = (node.attrs.dense_shapes ?? []) as number[][];
  const sparseTypes = (node.attrs.sparse_types ?? []) as tf.DataType[];
  // A scalar `serialized` (V2 only) gives sparse indices [N, 1] and shapes [max count].
  const sparse = sparseOutputs(examples, named(sparseKeys), sparseTypes, serialized.rank > 0);
  return [...sparse, ...named(denseKeys).map((k, i) => denseOutput(examples, k, dtypes[i], shapes[i] ?? [], defaults[i]))];
};
