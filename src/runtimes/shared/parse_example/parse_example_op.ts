// TensorFlow's ParseExample and ParseExampleV2: the classify/regress signatures of TF Serving's
// models parse serialized tf.Example protos inside the graph. Dense features (float, int64,
// bytes; fixed shapes; defaults) and sparse ones (VarLenFeature: Estimator serving inputs);
// ragged features are refused by name. The texts follow TF's example_proto_fast_parsing.cc,
// with "<unknown>" for the example name as TF writes it.
//
// Inputs (TF's op defs):
//   ParseExample:   serialized, names, sparse_keys × Nsparse, dense_keys × Ndense, dense_defaults × Ndense
//   ParseExampleV2: serialized, names, sparse_keys [S], dense_keys [D], ragged_keys [R], dense_defaults × D
// Outputs: sparse indices × S, sparse values × S, sparse shapes × S (sparse_example.ts), then one
// dense tensor [batch, ...shape] per key.
//
// The parsing itself is on HostTensors, int64 exact, without TF.js: ONNX Runtime's host step
// (onnx/host_step.ts) runs it as it is, so int64 features keep all 64 bits into ONNX Runtime;
// the TF.js executors (parse_example_tfjs.ts) narrow int64 to TF.js's int32.
import { Code, ServingError, invalidArgument } from '../../../errors/status.js';
import type { DType } from '../../../tensor/dtype.js';
import type { HostTensor } from '../../../tensor/host_tensor.js';
import { KIND_OF_DTYPE, sparseOutputs, valuesTensor } from './sparse_example.js';
import { decodeExamples, featureValues, type FeatureObject, type FeatureValue } from './example_features.js';

export type ParsingOp = 'ParseExample' | 'ParseExampleV2';

/** What one parsing node parses (its attrs and its key and default inputs). */
export interface ParseSpec {
  sparseKeys: string[];
  sparseTypes: DType[];
  denseKeys: string[];
  denseTypes: DType[];
  denseShapes: number[][];
  denseDefaults: HostTensor[];
  raggedKeys: string[];
}

const decoder = new TextDecoder();

/** One dense output: every example's values (or the default) stacked into [batch, ...shape]. */
function denseOutput(
  examples: Array<Record<string, FeatureObject>>,
  key: string,
  dtype: DType,
  shape: number[],
  dflt: HostTensor | undefined,
): HostTensor {
  const kind = KIND_OF_DTYPE[dtype];
  if (!kind)
    throw new ServingError(Code.UNIMPLEMENTED, `ParseExample: dense feature '${key}' has dtype ${dtype}, which tfgate cannot parse`);
  if (shape.some((d) => d < 0))
    throw new ServingError(
      Code.UNIMPLEMENTED,
      `ParseExample: dense feature '${key}' has a variable shape [${shape}], which tfgate cannot parse`,
    );
  const size = shape.reduce((a, b) => a * b, 1);
  const fallback = dflt && dflt.values.length ? (dflt.values as ArrayLike<FeatureValue>) : undefined;
  const out: FeatureValue[] = [];
  examples.forEach((features, i) => {
    const found = features[key] ? featureValues(features[key]) : undefined;
    if (!found || found.values.length === 0) {
      if (!fallback) throw invalidArgument(`Name: <unknown>, Feature: ${key} (data type: ${kind}) is required but could not be found.`);
      for (let k = 0; k < size; k++) out.push(fallback[fallback.length === 1 ? 0 : k]);
      return;
    }
    if (found.kind !== kind)
      throw invalidArgument(
        `Name: <unknown>, Feature: ${key}.  Data types don't match. Data type: ${found.kind} but expected type: ${kind}`,
      );
    if (found.values.length !== size) {
      throw invalidArgument(
        `Name: <unknown>, Key: ${key}, Index: ${i}.  Number of ${kind} values != expected.  values size: ${found.values.length} but output shape: [${shape.join(',')}]`,
      );
    }
    out.push(...found.values);
  });
  return valuesTensor(out, dtype, [examples.length, ...shape]);
}

/** The parsing node's outputs, in TF's order, on HostTensors (int64 as BigInt64Array). */
export function parseExamples(op: ParsingOp, serialized: HostTensor, spec: ParseSpec): HostTensor[] {
  if (op === 'ParseExampleV2' && spec.raggedKeys.length) {
    throw new ServingError(
      Code.UNIMPLEMENTED,
      `ParseExampleV2: ragged features are not supported by tfgate: ${spec.raggedKeys.join(', ')}`,
    );
  }
  const examples = decodeExamples(serialized.values as Uint8Array[]);
  // A scalar `serialized` (V2 only) gives sparse indices [N, 1] and shapes [max count].
  const sparse = sparseOutputs(examples, spec.sparseKeys, spec.sparseTypes, op === 'ParseExample' || serialized.shape.length > 0);
  return [
    ...sparse,
    ...spec.denseKeys.map((k, i) => denseOutput(examples, k, spec.denseTypes[i], spec.denseShapes[i] ?? [], spec.denseDefaults[i])),
  ];
}

/** The keys' strings of a string tensor. */
export const keyStrings = (t: HostTensor | undefined): string[] => (t ? (t.values as Uint8Array[]).map((b) => decoder.decode(b)) : []);
