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
// The parsing itself is on HostTensors, int64 exact: ONNX Runtime's host step (onnx/host_step.ts)
// runs it as it is, so int64 features keep all 64 bits into ONNX Runtime; the TF.js executors
// below narrow int64 to TF.js's int32 and refuse, naming the feature, a value beyond it — unless
// the graph cannot tell it from its saturation to int32 (saturated_int64.ts).
import tf from '../../tfjs_packages/tfjs_core.cjs';
import type * as tfconv from '@tensorflow/tfjs-converter';
import { Code, ServingError, invalidArgument, unimplemented } from '../../../errors/status.js';
import type { DType } from '../../../tensor/dtype.js';
import type { HostTensor } from '../../../tensor/host_tensor.js';
import { KIND_OF_DTYPE, sparseOutputs, valuesTensor } from './sparse_example.js';
import { SATURATED_OUTPUTS_ATTR } from './saturated_int64.js';
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

// --- The TF.js executors (the embedded runtime) -------------------------------------------

/** TF.js's dtype attrs name int64 int32 (it has no int64). */
const FROM_TFJS: Record<string, DType> = { float32: 'float32', int32: 'int64', string: 'string' };
const fromTfjsDtype = (d: string): DType => FROM_TFJS[d] ?? (d as DType);

/** A TF.js input as the HostTensor TF would read (int32 standing for int64). */
function hostInput(t: tf.Tensor): HostTensor {
  if (t.dtype === 'string') return { dtype: 'string', shape: t.shape, values: tf.engine().readSync(t.dataId) as unknown as Uint8Array[] };
  if (t.dtype === 'int32') return { dtype: 'int64', shape: t.shape, values: BigInt64Array.from(t.dataSync(), (v) => BigInt(v)) };
  return { dtype: 'float32', shape: t.shape, values: Float32Array.from(t.dataSync()) };
}

/**
 * A parsed HostTensor as TF.js holds it: int64 narrowed to int32, a value beyond refused naming
 * the feature — or, where the graph was shown not to tell (`saturate`, saturated_int64.ts),
 * saturated to INT32_MIN / INT32_MAX.
 */
function tfjsOutput(t: HostTensor, feature: string | undefined, saturate: boolean): tf.Tensor {
  if (t.dtype === 'string') return tf.tensor(t.values as Uint8Array[] as unknown as string[], t.shape, 'string');
  if (t.dtype === 'int64') {
    const big = t.values as BigInt64Array;
    const out = new Int32Array(big.length);
    for (let i = 0; i < big.length; i++) {
      if (BigInt.asIntN(32, big[i]) !== big[i]) {
        if (saturate) {
          out[i] = big[i] < 0n ? -(2 ** 31) : 2 ** 31 - 1;
          continue;
        }
        throw unimplemented(
          `ParseExample: int64 value ${big[i]} of ${feature ?? 'a parsed index'} does not fit the embedded runtime's 32-bit integers`,
        );
      }
      out[i] = Number(big[i]);
    }
    return tf.tensor(out, t.shape, 'int32');
  }
  return tf.tensor(t.values as Float32Array, t.shape, 'float32');
}

function tfjsOutputs(outputs: HostTensor[], spec: ParseSpec, node: tfconv.GraphNode): tf.Tensor[] {
  const s = spec.sparseKeys.length;
  const featureOf = (i: number) =>
    i >= s && i < 2 * s
      ? `sparse feature '${spec.sparseKeys[i - s]}'`
      : i >= 3 * s
        ? `dense feature '${spec.denseKeys[i - 3 * s]}'`
        : undefined;
  const saturated = new Set((node.attrs[SATURATED_OUTPUTS_ATTR] ?? []) as number[]);
  return outputs.map((t, i) => tfjsOutput(t, featureOf(i), saturated.has(i)));
}

/** ParseExample (TF1's parsing_ops). */
export const parseExample: tfconv.OpExecutor = (node) => {
  const nSparse = Number(node.attrs.Nsparse ?? 0);
  const nDense = Number(node.attrs.Ndense ?? 0);
  const inputs = node.inputs.map(hostInput);
  const spec: ParseSpec = {
    sparseKeys: inputs.slice(2, 2 + nSparse).flatMap(keyStrings),
    sparseTypes: ((node.attrs.sparse_types ?? []) as string[]).map(fromTfjsDtype),
    denseKeys: inputs.slice(2 + nSparse, 2 + nSparse + nDense).flatMap(keyStrings),
    denseTypes: ((node.attrs.Tdense ?? []) as string[]).map(fromTfjsDtype),
    denseShapes: (node.attrs.dense_shapes ?? []) as number[][],
    denseDefaults: inputs.slice(2 + nSparse + nDense, 2 + nSparse + 2 * nDense),
    raggedKeys: [],
  };
  return tfjsOutputs(parseExamples('ParseExample', inputs[0], spec), spec, node);
};

/** ParseExampleV2 (TF2's parsing_ops). */
export const parseExampleV2: tfconv.OpExecutor = (node) => {
  const [serialized, , sparseKeys, denseKeys, raggedKeys, ...defaults] = node.inputs.map(hostInput);
  const spec: ParseSpec = {
    sparseKeys: keyStrings(sparseKeys),
    sparseTypes: ((node.attrs.sparse_types ?? []) as string[]).map(fromTfjsDtype),
    denseKeys: keyStrings(denseKeys),
    denseTypes: ((node.attrs.Tdense ?? []) as string[]).map(fromTfjsDtype),
    denseShapes: (node.attrs.dense_shapes ?? []) as number[][],
    denseDefaults: defaults,
    raggedKeys: keyStrings(raggedKeys),
  };
  return tfjsOutputs(parseExamples('ParseExampleV2', serialized, spec), spec, node);
};
