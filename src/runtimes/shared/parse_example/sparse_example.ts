// The sparse (VarLenFeature) outputs of ParseExample / ParseExampleV2, laid out as TF's
// FastParseExample merges them (core/util/example_proto_fast_parsing.cc): per sparse key, the
// indices [total, 2] = (example, position within the example) in row-major order, the values
// in that order, and the dense shape [batch, largest count]. A missing feature (or one without
// a kind) contributes no values; one of another kind is refused with TF's text. HostTensors,
// int64 exact (BigInt64Array): the embedded runtime narrows them (parse_example_op.ts), ONNX
// Runtime's host step takes them as they are.
import { invalidArgument, unimplemented } from '../../../errors/status.js';
import type { DType } from '../../../tensor/dtype.js';
import type { HostTensor } from '../../../tensor/host_tensor.js';
import { featureValues, type FeatureObject, type FeatureValue, type Kind } from './example_features.js';

/** TF's DataTypeString of a sparse feature's declared type. */
const TF_TYPE_NAME: Partial<Record<DType, string>> = { float32: 'float', int64: 'int64', string: 'string' };
export const KIND_OF_DTYPE: Partial<Record<DType, Kind>> = { float32: 'float', int64: 'int64', string: 'bytes' };

/** One sparse key's values, example by example (an example without the feature gives []). */
function valuesPerExample(examples: ReadonlyArray<Record<string, FeatureObject>>, key: string, dtype: DType): FeatureValue[][] {
  const kind = KIND_OF_DTYPE[dtype];
  if (!kind) throw unimplemented(`ParseExample: sparse feature '${key}' has dtype ${dtype}, which tfgate cannot parse`);
  return examples.map((features) => {
    const found = features[key] ? featureValues(features[key]) : undefined;
    if (!found) return [];
    if (found.kind !== kind)
      throw invalidArgument(`Name: <unknown>, Feature: ${key}.  Data types don't match. Expected type: ${TF_TYPE_NAME[dtype]}`);
    return found.values;
  });
}

/** A list of parsed values as a HostTensor of `dtype`. */
export function valuesTensor(values: FeatureValue[], dtype: DType, shape: number[]): HostTensor {
  if (dtype === 'string') return { dtype, shape, values: values as Uint8Array[] };
  if (dtype === 'int64') return { dtype, shape, values: BigInt64Array.from(values as bigint[]) };
  return { dtype: 'float32', shape, values: Float32Array.from(values as number[]) };
}

/** [indices, values, shape] of one sparse key; `batched` false for a scalar `serialized` (V2). */
function sparseFeature(
  examples: ReadonlyArray<Record<string, FeatureObject>>,
  key: string,
  dtype: DType,
  batched: boolean,
): [HostTensor, HostTensor, HostTensor] {
  const perExample = valuesPerExample(examples, key, dtype);
  const total = perExample.reduce((n, v) => n + v.length, 0);
  const largest = perExample.reduce((n, v) => Math.max(n, v.length), 0);
  const rank = batched ? 2 : 1;
  const indices = new BigInt64Array(total * rank);
  const values: FeatureValue[] = [];
  let k = 0;
  perExample.forEach((list, example) => {
    list.forEach((v, position) => {
      if (batched) indices[k++] = BigInt(example);
      indices[k++] = BigInt(position);
      values.push(v);
    });
  });
  const shape = batched ? [examples.length, largest] : [largest];
  return [
    { dtype: 'int64', shape: [total, rank], values: indices },
    valuesTensor(values, dtype, [total]),
    { dtype: 'int64', shape: [shape.length], values: BigInt64Array.from(shape, BigInt) },
  ];
}

/** The sparse outputs in TF's order: every key's indices, then every key's values, then every key's shape. */
export function sparseOutputs(
  examples: ReadonlyArray<Record<string, FeatureObject>>,
  keys: readonly string[],
  dtypes: readonly DType[],
  batched: boolean,
): HostTensor[] {
  const parsed = keys.map((k, i) => sparseFeature(examples, k, dtypes[i], batched));
  return [0, 1, 2].flatMap((part) => parsed.map((p) => p[part]));
}
