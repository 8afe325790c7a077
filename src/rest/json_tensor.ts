// JSON ↔ tensors for REST :predict, following TF Serving's json_tensor.cc: `instances`
// (row format: one entry per batch item, batched along a new first dimension) or `inputs`
// (columnar: tensors as given), `{"b64": …}` for binary strings, and its error messages.
import { invalidArgument, unimplemented } from '../core/status.js';
import { dtypeFromTf, type DType } from '../tensor/dtype.js';
import { allocValues, type HostTensor, type TensorValues } from '../tensor/host_tensor.js';
import type { SignatureSpec, TensorSpec } from '../runtimes/runtime.js';
import { formatFloat32, formatFloat64 } from './float_format.js';

export type JsonFormat = 'row' | 'columnar';

export interface ParsedPredictRequest {
  format: JsonFormat;
  inputs: Record<string, HostTensor>;
}

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

const B64 = 'b64';
const BYTES_SUFFIX = '_bytes';

function debugString(v: unknown): string {
  const s = JSON.stringify(v, (_k, x) => (typeof x === 'number' && !Number.isFinite(x) ? String(x) : x)) ?? String(v);
  return s.length > 256 ? s.slice(0, 256) : s;
}

function jsonTypeString(v: unknown): string {
  if (v === null) return 'Null';
  if (v === true) return 'True';
  if (v === false) return 'False';
  if (Array.isArray(v)) return 'Array';
  switch (typeof v) {
    case 'string':
      return 'String';
    case 'number':
      return 'Number';
    default:
      return 'Object';
  }
}

/** TF's DataTypeString: DT_FLOAT → float. */
function dataTypeString(tf: string): string {
  return tf.replace(/^DT_/, '').toLowerCase();
}

function typeError(v: unknown, tfType: string): Error {
  return invalidArgument(`JSON Value: ${debugString(v)} Type: ${jsonTypeString(v)} is not of expected type: ${dataTypeString(tfType)}`);
}

const isBase64Object = (v: unknown): v is { b64: string } =>
  v !== null && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length === 1 && typeof (v as { b64?: unknown }).b64 === 'string';

const isElementObject = (v: unknown): boolean => v !== null && typeof v === 'object' && !Array.isArray(v) && !isBase64Object(v);

const INT_RANGE: Partial<Record<DType, [number, number]>> = {
  int32: [-2147483648, 2147483647],
  int16: [-2147483648, 2147483647], // TF Serving checks IsInt() only, then narrows
  int8: [-2147483648, 2147483647],
  uint8: [-2147483648, 2147483647],
  uint32: [0, 4294967295],
};

/** Shape of a nested list by its first elements (GetDenseTensorShape). */
function denseShape(v: unknown): number[] {
  const shape: number[] = [];
  let cur = v;
  while (Array.isArray(cur)) {
    shape.push(cur.length);
    if (cur.length === 0) break;
    cur = cur[0];
  }
  return shape;
}

const utf8 = new TextEncoder();

/** Appends the leaves of `v` (checked against `shape`) to `out`, as FillTensorProto does. */
function fillValues(v: unknown, level: number, shape: number[], tfType: string, dtype: DType, out: unknown[]): void {
  const rank = shape.length;
  if (!Array.isArray(v)) {
    if (level !== rank) {
      throw invalidArgument(`JSON Value: ${debugString(v)} found at incorrect level: ${level + 1} in the JSON DOM. Expected at level: ${rank}`);
    }
    out.push(leafValue(v, tfType, dtype));
    return;
  }
  if (level >= rank) throw invalidArgument(`Encountered list at unexpected level: ${level} expected < ${rank}`);
  if (v.length !== shape[level]) {
    throw invalidArgument(`Encountered list at unexpected size: ${v.length} at level: ${level} expected size: ${shape[level]}`);
  }
  for (const x of v) fillValues(x, level + 1, shape, tfType, dtype, out);
}

function leafValue(v: unknown, tfType: string, dtype: DType): unknown {
  if (v !== null && typeof v === 'object') {
    if (dtype !== 'string') throw typeError(v, tfType);
    if (!isBase64Object(v)) throw invalidArgument(`JSON Value: ${debugString(v)} not formatted correctly for base64 data`);
    if (!/^[A-Za-z0-9+/_-]*={0,2}$/.test(v.b64)) throw invalidArgument('Unable to base64 decode');
    return new Uint8Array(Buffer.from(v.b64, 'base64'));
  }
  switch (dtype) {
    case 'float32':
    case 'float64':
      if (typeof v !== 'number') throw typeError(v, tfType);
      return v;
    case 'int32':
    case 'int16':
    case 'int8':
    case 'uint8':
    case 'uint32': {
      const [lo, hi] = INT_RANGE[dtype]!;
      if (typeof v !== 'number' || !Number.isInteger(v) || v < lo || v > hi) throw typeError(v, tfType);
      return v;
    }
    case 'int64':
    case 'uint64':
      if (typeof v !== 'number' || !Number.isInteger(v) || (dtype === 'uint64' && v < 0)) throw typeError(v, tfType);
      return BigInt(v);
    case 'bool':
      if (typeof v !== 'boolean') throw typeError(v, tfType);
      return v ? 1 : 0;
    case 'string':
      if (typeof v !== 'string') throw typeError(v, tfType);
      return utf8.encode(v);
    default:
      throw unimplemented(`Conversion of JSON Value: ${debugString(v)} to type: ${dataTypeString(tfType)}`);
  }
}

function specDtype(spec: TensorSpec): DType {
  const dtype = dtypeFromTf(spec.dtype);
  if (!dtype || dtype === 'float16' || dtype === 'bfloat16') {
    throw unimplemented(`Conversion of JSON Value to type: ${dataTypeString(spec.dtype)}`);
  }
  return dtype;
}

function toValues(dtype: DType, leaves: unknown[]): TensorValues {
  const values = allocValues(dtype, leaves.length);
  if (dtype === 'string') return leaves as Uint8Array[];
  (values as Float32Array).set(leaves as number[]);
  return values;
}

/** One JSON value (scalar or nested list) as a tensor of the input's dtype. */
function jsonToTensor(v: unknown, spec: TensorSpec): { tensor: HostTensor; count: number } {
  const dtype = specDtype(spec);
  const shape = denseShape(v);
  const leaves: unknown[] = [];
  fillValues(v, 0, shape, spec.dtype, dtype, leaves);
  return { tensor: { dtype, shape, values: toValues(dtype, leaves) }, count: leaves.length };
}

function shapeString(shape: number[]): string {
  return `[${shape.join(',')}]`;
}

function fromInstances(instances: Json[], inputs: Record<string, TensorSpec>): Record<string, HostTensor> {
  const names = Object.keys(inputs).sort();
  if (!isElementObject(instances[0]) && names.length > 1) {
    throw invalidArgument('instances is a plain list, but expecting list of objects as multiple input tensors required as per tensorinfo_map');
  }
  const objects = isElementObject(instances[0]);
  const items = new Map<string, { shape: number[]; count: number; parts: unknown[][] }>();
  const add = (name: string, value: unknown) => {
    if (!(name in inputs)) throw invalidArgument(`JSON object: does not have named input: ${name}`);
    const spec = inputs[name];
    const dtype = specDtype(spec);
    const shape = denseShape(value);
    const leaves: unknown[] = [];
    fillValues(value, 0, shape, spec.dtype, dtype, leaves);
    const seen = items.get(name);
    if (!seen) items.set(name, { shape, count: leaves.length, parts: [leaves] });
    else if (seen.count !== leaves.length) throw invalidArgument(`Expecting tensor size: ${seen.count} but got: ${leaves.length}`);
    else if (shapeString(seen.shape) !== shapeString(shape)) throw invalidArgument(`Expecting shape ${shapeString(seen.shape)} but got: ${shapeString(shape)}`);
    else seen.parts.push(leaves);
  };
  instances.forEach((elem, i) => {
    if (objects) {
      if (!isElementObject(elem)) throw invalidArgument(`Expecting object but got list at item ${i} of input list`);
      const keys = Object.keys(elem as object).sort();
      for (const key of keys) {
        try {
          add(key, (elem as Record<string, Json>)[key]);
        } catch (e) {
          throw invalidArgument(`Failed to process element: ${i} key: ${key} of 'instances' list. Error: INVALID_ARGUMENT: ${(e as Error).message}`);
        }
      }
      if (keys.join(',') !== names.join(',')) {
        throw invalidArgument(`Failed to process element: ${i} of 'instances' list. JSON object: ${debugString(elem)} keys must be equal to: ${names.join(',')}`);
      }
    } else {
      if (isElementObject(elem)) throw invalidArgument(`Expecting value/list but got object at item ${i} of input list`);
      try {
        add(names[0], elem);
      } catch (e) {
        throw invalidArgument(`Failed to process element: ${i} of 'instances' list. Error: INVALID_ARGUMENT: ${(e as Error).message}`);
      }
    }
  });
  const out: Record<string, HostTensor> = {};
  for (const [name, { shape, parts }] of items) {
    const dtype = specDtype(inputs[name]);
    out[name] = { dtype, shape: [instances.length, ...shape], values: toValues(dtype, parts.flat()) };
  }
  return out;
}

function fromInputs(value: Json, inputs: Record<string, TensorSpec>, defaults: Record<string, HostTensor>): Record<string, HostTensor> {
  const names = Object.keys(inputs).sort();
  if (!isElementObject(value)) {
    if (names.length > 1) {
      throw invalidArgument('inputs is a plain value/list, but expecting an object as multiple input tensors required as per tensorinfo_map');
    }
    return { [names[0]]: jsonToTensor(value, inputs[names[0]]).tensor };
  }
  const obj = value as Record<string, Json>;
  const out: Record<string, HostTensor> = {};
  for (const name of names) {
    if (!(name in obj)) {
      // TF Serving's REST parser requires every input; tfgate lets SignatureDef.defaults fill
      // one in, as its gRPC Predict does.
      if (name in defaults) continue;
      throw invalidArgument(`Missing named input: ${name} in 'inputs' object.`);
    }
    out[name] = jsonToTensor(obj[name], inputs[name]).tensor;
  }
  for (const name of Object.keys(obj)) {
    if (!(name in inputs)) throw invalidArgument(`JSON object: does not have named input: ${name}`);
  }
  return out;
}

/**
 * FillPredictRequestFromJson: body (already parsed) → input tensors for `signature`.
 * Inputs that the request leaves out and the signature has defaults for are left out here;
 * the runtime fills them in.
 */
export function parsePredictRequest(body: unknown, signature: SignatureSpec): ParsedPredictRequest {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw invalidArgument(`JSON Value: ${debugString(body)} Is not object`);
  const doc = body as Record<string, Json>;
  if ('signature_name' in doc && typeof doc.signature_name !== 'string') {
    throw invalidArgument(`JSON Value: ${debugString(doc)} not formatted correctly. 'signature_name' key must be a string value.`);
  }
  if (Object.keys(signature.inputs).length === 0) {
    throw invalidArgument(`Failed to get input map for signature: ${typeof doc.signature_name === 'string' && doc.signature_name ? doc.signature_name : 'DEFAULT'}`);
  }
  const hasInstances = 'instances' in doc;
  const hasInputs = 'inputs' in doc;
  if (hasInstances && hasInputs) {
    throw invalidArgument(`JSON Value: ${debugString(doc)} Not formatted correctly expecting only one of 'inputs' or 'instances' keys to exist `);
  }
  if (hasInstances) {
    const instances = doc.instances;
    if (!Array.isArray(instances)) throw invalidArgument(`JSON Value: ${debugString(doc)} Expecting 'instances' to be an list/array`);
    if (instances.length === 0) throw invalidArgument(`JSON Value: ${debugString(doc)} No values in 'instances' array`);
    return { format: 'row', inputs: fromInstances(instances, signature.inputs) };
  }
  if (hasInputs) return { format: 'columnar', inputs: fromInputs(doc.inputs, signature.inputs, signature.defaults) };
  throw invalidArgument("Missing 'inputs' or 'instances' key");
}

const textDecoder = new TextDecoder();

function writeLeaf(t: HostTensor, i: number, asBytes: boolean): string {
  const v = t.values;
  switch (t.dtype) {
    case 'float32':
      return formatFloat32((v as Float32Array)[i]);
    case 'float64':
      return formatFloat64((v as Float64Array)[i]);
    case 'bool':
      return (v as Uint8Array)[i] ? 'true' : 'false';
    case 'string': {
      const bytes = (v as Uint8Array[])[i];
      if (asBytes) return `{"b64": "${Buffer.from(bytes).toString('base64')}"}`;
      return JSON.stringify(textDecoder.decode(bytes));
    }
    case 'float16':
    case 'bfloat16':
      throw invalidArgument(`Failed to write JSON value for tensor type: ${t.dtype === 'float16' ? 'half' : 'bfloat16'}`);
    default:
      return String((v as Int32Array | BigInt64Array)[i]);
  }
}

/** AddTensorValues: the tensor from dimension `dim` on, starting at element `offset`. */
function writeTensor(t: HostTensor, dim: number, offset: { i: number }, asBytes: boolean, parts: string[]): void {
  if (dim > t.shape.length - 1) {
    parts.push(writeLeaf(t, offset.i++, asBytes));
    return;
  }
  parts.push('[');
  for (let k = 0; k < t.shape[dim]; k++) {
    if (k) parts.push(', ');
    writeTensor(t, dim + 1, offset, asBytes, parts);
  }
  parts.push(']');
}

const isBytes = (name: string, t: HostTensor) => t.dtype === 'string' && name.endsWith(BYTES_SUFFIX);

/** JSON text of one tensor, as columnar responses write it (used by `tfgate run` too). */
export function tensorJson(name: string, t: HostTensor): string {
  const parts: string[] = [];
  writeTensor(t, 0, { i: 0 }, isBytes(name, t), parts);
  return parts.join('');
}

/** MakeJsonFromTensors. */
export function predictResponseJson(outputs: Record<string, HostTensor>, format: JsonFormat): string {
  const names = Object.keys(outputs).sort();
  if (names.length === 0) throw invalidArgument('Cannot convert empty tensor map to JSON');
  if (format === 'columnar') {
    if (names.length === 1) return `{"outputs": ${tensorJson(names[0], outputs[names[0]])}}`;
    return `{"outputs": {${names.map((n) => `${JSON.stringify(n)}: ${tensorJson(n, outputs[n])}`).join(', ')}}}`;
  }
  let batch = -1;
  for (const n of names) {
    const t = outputs[n];
    if (t.shape.length === 0) throw invalidArgument(`Tensor name: ${n} has no shape information `);
    if (batch >= 0 && batch !== t.shape[0]) throw invalidArgument(`Tensor name: ${n} has inconsistent batch size: ${t.shape[0]} expecting: ${batch}`);
    batch = t.shape[0];
  }
  const offsets = new Map(names.map((n) => [n, { i: 0 }]));
  const items: string[] = [];
  for (let item = 0; item < batch; item++) {
    const parts: string[] = [];
    if (names.length > 1) parts.push('{');
    names.forEach((n, k) => {
      if (names.length > 1) parts.push(`${k ? ', ' : ''}${JSON.stringify(n)}: `);
      writeTensor(outputs[n], 1, offsets.get(n)!, isBytes(n, outputs[n]), parts);
    });
    if (names.length > 1) parts.push('}');
    items.push(parts.join(''));
  }
  return `{"predictions": [${items.join(', ')}]}`;
}
