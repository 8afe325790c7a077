// SignatureDef → SignatureSpec, the runtime-neutral description the server works with.
import { stripRef } from '../tensor/dtype.js';
import type { SignatureDefObject, TensorInfoObject } from './saved_model_reader.js';
import type { HostTensor } from '../tensor/host_tensor.js';
import { hostTensorFromProto, shapeFromProto } from './tensor_proto.js';
import type { ExampleFeature } from './graph/example_features.js';

/** A signature's tensor as declared in the SignatureDef. */
export interface TensorSpec {
  /** Graph tensor name, e.g. `x:0`. */
  name: string;
  /** TF DataType name with any _REF stripped, e.g. DT_FLOAT. */
  dtype: string;
  /** Dimension sizes (-1 unknown), or null when the rank is unknown. */
  shape: number[] | null;
  /**
   * Inputs only: the dtype the graph's placeholder has, when it differs from the declared
   * `dtype`. TF checks feeds against the graph, so this is what a fed tensor must be.
   */
  feedDtype?: string;
  /**
   * Inputs only: the tf.Example features the graph parses this (string) input as, when a
   * ParseExample node reads it; set when the signature's graph is prepared.
   */
  example?: ExampleFeature[];
}

export interface SignatureSpec {
  key: string;
  methodName: string;
  inputs: Record<string, TensorSpec>;
  outputs: Record<string, TensorSpec>;
  /** SignatureDef.defaults: values used when a request omits the input. */
  defaults: Record<string, HostTensor>;
}

/** Keys of signatures that exist only to drive initialisation, not to be served. */
export const INIT_OP_SIGNATURE_KEY = '__saved_model_init_op';

function tensorSpec(info: TensorInfoObject): TensorSpec {
  return {
    name: info.name ?? '',
    dtype: stripRef(info.dtype ?? 'DT_INVALID'),
    // A TensorInfo without tensor_shape (TF 1.0 exports) says nothing: treat as unknown rank.
    shape: info.tensorShape ? shapeFromProto(info.tensorShape) : null,
  };
}

export function signatureSpec(key: string, def: SignatureDefObject): SignatureSpec {
  const map = (m: Record<string, TensorInfoObject> | undefined) =>
    Object.fromEntries(Object.entries(m ?? {}).map(([k, v]) => [k, tensorSpec(v)]));
  return {
    key,
    methodName: def.methodName ?? '',
    inputs: map(def.inputs),
    outputs: map(def.outputs),
    defaults: Object.fromEntries(
      Object.entries(def.defaults ?? {}).map(([k, t]) => [k, hostTensorFromProto(t, `default for input '${k}'`)]),
    ),
  };
}
