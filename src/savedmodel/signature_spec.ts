// SignatureDef → SignatureSpec, the runtime-neutral description the server works with.
import { stripRef } from '../tensor/dtype.js';
import type { SignatureSpec, TensorSpec } from '../runtimes/runtime.js';
import type { SignatureDefObject, TensorInfoObject } from './saved_model_reader.js';
import { hostTensorFromProto, shapeFromProto } from './tensor_proto.js';

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
