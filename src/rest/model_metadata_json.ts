// GetModelMetadata as TF Serving's REST handler answers it (http_rest_api_util.cc
// ToJsonString): the ModelSpec and the SignatureDefMap printed by protobuf's JSON printer with
// preserve_proto_field_names and always_print_fields_with_no_presence, i.e.
//   * proto field names (tensor_shape, unknown_rank, method_name …);
//   * every field without presence printed even when empty: "name": "" on each dim,
//     "unknown_rank": false, "method_name": "", "defaults": {}, empty repeated fields as [];
//   * message fields (tensor_shape …) and oneof members (TensorInfo.name …) only when set;
//   * enums by name (DT_FLOAT; DT_INVALID when unset), int64 / uint64 as decimal strings,
//     bytes as base64, non-finite floats as "NaN" / "Infinity" / "-Infinity".
// The SignatureDefs are reported as stored: get_model_metadata_impl.cc copies them from the
// MetaGraphDef untouched, so a TF1 variable output keeps its reference dtype (DT_FLOAT_REF).
//
// Key order within messages follows what TF Serving's printer emits (see the fixtures
// configs/*_metadata.json): fields in declaration order, a oneof member after them (TensorInfo
// prints dtype, tensor_shape, then name). Map entries come out in key order; TF Serving's
// order is its hash map's, which JSON consumers must not rely on.
//
// Input: SignatureDefs as protobufjs decodes them with TO_OBJECT (camelCase names, enums as
// strings, int64 as numbers / strings / Longs, bytes as Uint8Array); snake_case names work too.
import { formatG } from './float_format.js';

/** A decoded SignatureDef (protobufjs toObject); loosely typed on purpose. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type SignatureDefLike = Record<string, any>;

export interface ModelMetadataJson {
  model_spec: { name: string; signature_name: string; version: string };
  metadata: { signature_def: { signature_def: Record<string, SignatureDefJson> } };
}

export interface SignatureDefJson {
  inputs: Record<string, object>;
  outputs: Record<string, object>;
  method_name: string;
  defaults: Record<string, object>;
}

/** The /v1/models/<name>[/versions/<v>]/metadata response object (JSON.stringify it). */
export function modelMetadataJson(
  modelName: string,
  version: number | string | bigint,
  signatureDefs: Record<string, SignatureDefLike>,
): ModelMetadataJson {
  return {
    model_spec: { name: modelName, signature_name: '', version: String(version) },
    metadata: { signature_def: { signature_def: mapJson(signatureDefs, signatureDefJson) } },
  };
}

export function signatureDefJson(def: SignatureDefLike): SignatureDefJson {
  return {
    inputs: mapJson(get(def, 'inputs'), tensorInfoJson),
    outputs: mapJson(get(def, 'outputs'), tensorInfoJson),
    method_name: str(get(def, 'methodName', 'method_name')),
    defaults: mapJson(get(def, 'defaults'), tensorProtoJson),
  };
}

// ---- messages ----------------------------------------------------------------------------------

type Obj = Record<string, unknown>;

function tensorInfoJson(info: Obj): object {
  const out: Obj = { dtype: enumName(get(info, 'dtype'), 'DT_INVALID') };
  const shape = get(info, 'tensorShape', 'tensor_shape');
  if (isSet(shape)) out.tensor_shape = shapeJson(shape as Obj);
  // oneof encoding: whichever member is set.
  const name = get(info, 'name');
  const coo = get(info, 'cooSparse', 'coo_sparse');
  const composite = get(info, 'compositeTensor', 'composite_tensor');
  if (name !== undefined && name !== null) out.name = str(name);
  else if (isSet(coo)) {
    out.coo_sparse = {
      values_tensor_name: str(get(coo as Obj, 'valuesTensorName', 'values_tensor_name')),
      indices_tensor_name: str(get(coo as Obj, 'indicesTensorName', 'indices_tensor_name')),
      dense_shape_tensor_name: str(get(coo as Obj, 'denseShapeTensorName', 'dense_shape_tensor_name')),
    };
  } else if (isSet(composite)) {
    const c = composite as Obj;
    const spec = get(c, 'typeSpec', 'type_spec');
    const json: Obj = {};
    // Only the TypeSpecProto fields tfgate's proto subset decodes (type_state and
    // num_flat_components are not in it).
    if (isSet(spec)) {
      json.type_spec = {
        type_spec_class: typeSpecClass(get(spec as Obj, 'typeSpecClass', 'type_spec_class')),
        type_spec_class_name: str(get(spec as Obj, 'typeSpecClassName', 'type_spec_class_name')),
      };
    }
    json.components = list(get(c, 'components')).map((x) => tensorInfoJson(x as Obj));
    out.composite_tensor = json;
  }
  return out;
}

function shapeJson(shape: Obj): object {
  return {
    dim: list(get(shape, 'dim')).map((d) => ({ size: int64(get(d as Obj, 'size')), name: str(get(d as Obj, 'name')) })),
    unknown_rank: get(shape, 'unknownRank', 'unknown_rank') === true,
  };
}

function tensorProtoJson(t: Obj): object {
  const out: Obj = { dtype: enumName(get(t, 'dtype'), 'DT_INVALID') };
  const shape = get(t, 'tensorShape', 'tensor_shape');
  if (isSet(shape)) out.tensor_shape = shapeJson(shape as Obj);
  out.version_number = num(get(t, 'versionNumber', 'version_number'));
  out.tensor_content = bytes(get(t, 'tensorContent', 'tensor_content'));
  out.half_val = list(get(t, 'halfVal', 'half_val')).map(num);
  out.float_val = list(get(t, 'floatVal', 'float_val')).map(float32);
  out.double_val = list(get(t, 'doubleVal', 'double_val')).map(float64);
  out.int_val = list(get(t, 'intVal', 'int_val')).map(num);
  out.string_val = list(get(t, 'stringVal', 'string_val')).map(bytes);
  out.scomplex_val = list(get(t, 'scomplexVal', 'scomplex_val')).map(float32);
  out.int64_val = list(get(t, 'int64Val', 'int64_val')).map(int64);
  out.bool_val = list(get(t, 'boolVal', 'bool_val')).map((b) => b === true);
  out.dcomplex_val = list(get(t, 'dcomplexVal', 'dcomplex_val')).map(float64);
  out.resource_handle_val = list(get(t, 'resourceHandleVal', 'resource_handle_val')).map((h) => resourceHandleJson(h as Obj));
  out.variant_val = list(get(t, 'variantVal', 'variant_val')).map((v) => variantJson(v as Obj));
  out.uint32_val = list(get(t, 'uint32Val', 'uint32_val')).map(num);
  out.uint64_val = list(get(t, 'uint64Val', 'uint64_val')).map(int64);
  out.float8_val = bytes(get(t, 'float8Val', 'float8_val'));
  return out;
}

function resourceHandleJson(h: Obj): object {
  return {
    device: str(get(h, 'device')),
    container: str(get(h, 'container')),
    name: str(get(h, 'name')),
    hash_code: int64(get(h, 'hashCode', 'hash_code')),
    maybe_type_name: str(get(h, 'maybeTypeName', 'maybe_type_name')),
    dtypes_and_shapes: list(get(h, 'dtypesAndShapes', 'dtypes_and_shapes')).map((ds) => {
      const o: Obj = { dtype: enumName(get(ds as Obj, 'dtype'), 'DT_INVALID') };
      const s = get(ds as Obj, 'shape');
      if (isSet(s)) o.shape = shapeJson(s as Obj);
      return o;
    }),
  };
}

function variantJson(v: Obj): object {
  return {
    type_name: str(get(v, 'typeName', 'type_name')),
    metadata: bytes(get(v, 'metadata')),
    tensors: list(get(v, 'tensors')).map((t) => tensorProtoJson(t as Obj)),
  };
}

// ---- scalars -----------------------------------------------------------------------------------

function get(o: Obj | undefined | null, camel: string, snake?: string): unknown {
  if (o === undefined || o === null) return undefined;
  const v = o[camel];
  return v !== undefined || snake === undefined ? v : o[snake];
}

function isSet(v: unknown): boolean {
  return v !== undefined && v !== null;
}

function list(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

function mapJson<T>(m: unknown, f: (v: Obj) => T): Record<string, T> {
  const out: Record<string, T> = {};
  if (m === undefined || m === null || typeof m !== 'object') return out;
  for (const key of Object.keys(m).sort()) out[key] = f((m as Record<string, Obj>)[key]);
  return out;
}

function str(v: unknown): string {
  return typeof v === 'string' ? v : v === undefined || v === null ? '' : String(v);
}

function num(v: unknown): number {
  return typeof v === 'number' ? v : v === undefined || v === null ? 0 : Number(v);
}

/** int64 / uint64: a decimal string (number, string, bigint or protobufjs Long in). */
function int64(v: unknown): string {
  return v === undefined || v === null ? '0' : String(v);
}

/** An enum by name; unknown values (numbers) stay numbers, as proto3 JSON prints them. */
function enumName(v: unknown, unset: string): string | number {
  if (v === undefined || v === null) return unset;
  return typeof v === 'number' ? v : String(v);
}

const TYPE_SPEC_CLASSES = [
  'UNKNOWN',
  'SPARSE_TENSOR_SPEC',
  'INDEXED_SLICES_SPEC',
  'RAGGED_TENSOR_SPEC',
  'TENSOR_ARRAY_SPEC',
  'DATA_DATASET_SPEC',
  'DATA_ITERATOR_SPEC',
  'OPTIONAL_SPEC',
  'PER_REPLICA_SPEC',
  'VARIABLE_SPEC',
  'ROW_PARTITION_SPEC',
  undefined,
  'REGISTERED_TYPE_SPEC',
  'EXTENSION_TYPE_SPEC',
];

/** TypeSpecProto.TypeSpecClass by name (tfgate's stub proto decodes it as an int). */
function typeSpecClass(v: unknown): string | number {
  if (typeof v === 'string') return v;
  const n = num(v);
  return TYPE_SPEC_CLASSES[n] ?? n;
}

function bytes(v: unknown): string {
  if (v === undefined || v === null) return '';
  if (typeof v === 'string') return v; // already base64 (protobufjs bytes: String)
  const b = v as Uint8Array;
  return Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('base64');
}

/**
 * A float field as protobuf's printer writes it (SimpleFtoa: "%.6g", else "%.9g" if that does
 * not read back), returned as the number JSON.stringify writes with those digits.
 */
function float32(v: unknown): number | string {
  const x = num(v);
  if (!Number.isFinite(x)) return nonFinite(x);
  const f = Math.fround(x);
  const short = Number(formatG(f, 6, false));
  return Math.fround(short) === f ? short : Number(formatG(f, 9, true));
}

function float64(v: unknown): number | string {
  const x = num(v);
  return Number.isFinite(x) ? x : nonFinite(x);
}

function nonFinite(x: number): string {
  return x !== x ? 'NaN' : x > 0 ? 'Infinity' : '-Infinity';
}
