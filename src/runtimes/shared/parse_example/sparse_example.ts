// The sparse (VarLenFeature) outputs of ParseExample / ParseExampleV2, laid out as TF's
// FastParseExample merges them (core/util/example_proto_fast_parsing.cc): per sparse key, the
// indices [total, 2] = (example, position within the example) in row-major order, the values
// in that order, and the dense shape [batch, largest count]. A missing feature (or one without
// a kind) contributes no values; one of another kind is refused with TF's text. int64 is held
// as TF.js int32: a value outside int32 is refused rather than wrapped.
import * as tf from '@tensorflow/tfjs-core';
import { invalidArgument, unimplemented } from '../../../errors/status.js';
import { featureValues, type FeatureObject, type Kind } from './example_features.js';

/** TF's DataTypeString of a sparse feature's declared type. */
const TF_TYPE_NAME: Record<string, string> = { float32: 'float', int32: 'int64', string: 'string' };
const KIND_OF_DTYPE: Record<string, Kind> = { float32: 'float', int32: 'int64', string: 'bytes' };

/** One sparse key's values, example by example (an example without the feature gives []). */
function valuesPerExample(examples: ReadonlyArray<Record<string, FeatureObject>>, key: string, dtype: tf.DataType): Array<Array<number | Uint8Array>> {
  const kind = KIND_OF_DTYPE[dtype];
  if (!kind) throw unimplemented(`ParseExample: sparse feature '${key}' has dtype ${dtype}, which tfgate cannot parse`);
  return examples.map((features) => {
    const found = features[key] ? featureValues(features[key]) : undefined;
    if (!found) return [];
    if (found.kind !== kind) throw invalidArgument(`Name: <unknown>, Feature: ${key}.  Data types don't match. Expected type: ${TF_TYPE_NAME[dtype]}`);
    if (kind === 'int64') {
      const outside = (found.values as number[]).find((v) => v !== (v | 0));
      if (outside !== undefined) throw unimplemented(`ParseExample: int64 value ${outside} of sparse feature '${key}' does not fit the embedded runtime's 32-bit integers`);
    }
    return found.values;
  });
}

/** [indices, values, shape] of one sparse key; `batched` false for a scalar `serialized` (V2). */
function sparseFeature(examples: ReadonlyArray<Record<string, FeatureObject>>, key: string, dtype: tf.DataType, batched = true): [tf.Tensor, tf.Tensor, tf.Tensor] {
  const perExample = valuesPerExample(examples, key, dtype);
  const total = perExample.reduce((n, v) => n + v.length, 0);
  const largest = perExample.reduce((n, v) => Math.max(n, v.length), 0);
  const rank = batched ? 2 : 1;
  const indices = new Int32Array(total * rank);
  const values: Array<number | Uint8Array> = [];
  let k = 0;
  perExample.forEach((list, example) => {
    list.forEach((v, position) => {
      if (batched) indices[k++] = example;
      indices[k++] = position;
      values.push(v);
    });
  });
  const shape = batched ? [examples.length, largest] : [largest];
  const valuesTensor = dtype === 'string' ? tf.tensor(values as Uint8Array[], [total], 'string') : tf.tensor(values as number[], [total], dtype);
  return [tf.tensor2d(indices, [total, rank], 'int32'), valuesTensor, tf.tensor1d(shape, 'int32')];
}

/** The sparse outputs in TF's order: every key's indices, then every key's values, then every key's shape. */
export function sparseOutputs(examples: ReadonlyArray<Record<string, FeatureObject>>, keys: readonly string[], dtypes: readonly tf.DataType[], batched: boolean): tf.Tensor[] {
  const parsed = keys.map((k, i) => sparseFeature(examples, k, dtypes[i], batched));
  return [0, 1, 2].flatMap((part) => parsed.map((p) => p[part]));
}
