// GetModelMetadata as TF Serving's REST handler prints it: the proto in JSON with the proto
// field names, int64 as strings and every no-presence field printed
// (always_print_fields_with_no_presence), e.g. "name": "" on each shape dimension.
import type { SignatureDefObject, TensorInfoObject } from '../savedmodel/saved_model_reader.js';
import type { TensorProtoObject, TensorShapeObject } from '../savedmodel/tensor_proto.js';

function shapeJson(shape: TensorShapeObject) {
  return {
    dim: (shape.dim ?? []).map((d) => ({ size: String(Number(d.size ?? 0)), name: d.name ?? '' })),
    unknown_rank: shape.unknownRank ?? false,
  };
}

function tensorInfoJson(info: TensorInfoObject) {
  const out: Record<string, unknown> = { dtype: info.dtype ?? 'DT_INVALID' };
  if (info.tensorShape) out.tensor_shape = shapeJson(info.tensorShape);
  if (info.name !== undefined) out.name = info.name;
  return out;
}

const b64 = (b: Uint8Array | undefined) => (b ? Buffer.from(b).toString('base64') : '');

function tensorProtoJson(t: TensorProtoObject) {
  const out: Record<string, unknown> = { dtype: t.dtype ?? 'DT_INVALID' };
  if (t.tensorShape) out.tensor_shape = shapeJson(t.tensorShape);
  Object.assign(out, {
    version_number: 0,
    tensor_content: b64(t.tensorContent),
    half_val: t.halfVal ?? [],
    float_val: t.floatVal ?? [],
    double_val: t.doubleVal ?? [],
    int_val: t.intVal ?? [],
    string_val: (t.stringVal ?? []).map(b64),
    scomplex_val: [],
    int64_val: (t.int64Val ?? []).map(String),
    bool_val: t.boolVal ?? [],
    dcomplex_val: [],
    resource_handle_val: [],
    variant_val: [],
    uint32_val: t.uint32Val ?? [],
    uint64_val: (t.uint64Val ?? []).map(String),
    float8_val: '',
  });
  return out;
}

const mapValues = <A, B>(m: Record<string, A> | undefined, f: (a: A) => B): Record<string, B> =>
  Object.fromEntries(Object.entries(m ?? {}).map(([k, v]) => [k, f(v)]));

export function signatureDefJson(def: SignatureDefObject) {
  return {
    inputs: mapValues(def.inputs, tensorInfoJson),
    outputs: mapValues(def.outputs, tensorInfoJson),
    method_name: def.methodName ?? '',
    defaults: mapValues(def.defaults, tensorProtoJson),
  };
}

export function modelMetadataJson(modelName: string, version: number, signatureDefs: Record<string, SignatureDefObject>) {
  return {
    model_spec: { name: modelName, signature_name: '', version: String(version) },
    metadata: { signature_def: { signature_def: mapValues(signatureDefs, signatureDefJson) } },
  };
}
