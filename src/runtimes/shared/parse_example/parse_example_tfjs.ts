// ParseExample and ParseExampleV2 as TF.js op executors (the embedded runtime's graphs, and a
// host step that holds other ops too): inputs read from TF.js tensors, parsed on HostTensors
// (parse_example_op.ts), outputs made TF.js tensors — int64 narrowed to TF.js's int32, a value
// beyond it refused naming the feature, unless the graph cannot tell it from its saturation to
// int32 (saturated_int64.ts).
import tf from '../../tfjs_packages/tfjs_core.cjs';
import type * as tfconv from '@tensorflow/tfjs-converter';
import { unimplemented } from '../../../errors/status.js';
import type { DType } from '../../../tensor/dtype.js';
import type { HostTensor } from '../../../tensor/host_tensor.js';
import { SATURATED_OUTPUTS_ATTR } from './saturated_int64.js';
import { keyStrings, parseExamples, type ParseSpec } from './parse_example_op.js';

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
