// The JSON of REST :predict, as TF Serving's util/json_tensor.h describes it and json_tensor.cc
// implements it (FillPredictRequestFromJson / MakeJsonFromTensors), with its error texts
// (core/messages.ts). This file reads requests; json_tensor_writer.ts writes responses.
//
// === Requests ===
//
//   {"signature_name": <string>, ("instances" | "inputs"): <tensors>}
//
// "signature_name" is optional (default: serving_default). Exactly one of "instances" (row
// format) or "inputs" (columnar format) is given; other members are ignored. A tensor's shape
// is its JSON nesting (nothing is reshaped to the signature): [[1, 2, 3]] is shape [1, 3].
//
// Row format: "instances" lists one item per batch entry; the items are stacked along a new
// first dimension, so they must all have the same shape. With one input, an item is the
// tensor itself:
//
//   {"instances": [[1.0, 2.0], [3.0, 4.0]]}           x: float [2, 2]
//   {"instances": ["foo", "bar", "baz"]}              x: string [3]
//
// With several inputs, an item is an object naming every input:
//
//   {"instances": [{"tag": "foo", "signal": [1, 2, 3]},
//                  {"tag": "bar", "signal": [3, 4, 1]}]}   tag: string [2], signal: int32 [2, 3]
//
// Columnar format: "inputs" holds the tensors as written, one value (one input) or an object
// of them; inputs need not share a first dimension:
//
//   {"inputs": {"tag": ["foo", "bar"], "signal": [[1, 2, 3], [3, 4, 1]], "scale": 0.5}}
//
// Binary strings are {"b64": "…"} (base64.ts); other strings are UTF-8:
//
//   {"instances": [{"b64": "aGVsbG8="}, {"b64": "d29ybGQ="}]}    x: string [2] ("hello", "world")
//
// Numbers are checked the way RapidJSON types them: an int32 input takes 1 but not 1.0
// ("… is not of expected type: int32"), a float input takes both. The parser keeps that
// distinction (json_parse.ts: floatElements / isFloatMember). Members of an "inputs" object
// that name no input are ignored, as TF Serving ignores them.
//
// tfgate additions (TF Serving would reject these requests): an input left out that has a
// SignatureDef default takes the default tensor; a plain value / plain "instances" list feeds
// the one input without a default when the others have defaults; DT_UINT16 is converted both
// ways like the other small integer types.
//
// === Responses (json_tensor_writer.ts) ===
//
// The format follows the request's. Row: {"predictions": [...]}, one entry per batch item (all
// outputs must share dimension 0), an object per item when there are several outputs.
// Columnar: {"outputs": <tensor>} or {"outputs": {<name>: <tensor>, …}}. Laid out as TF
// Serving's RapidJSON PrettyWriter writes them (4-space indents, row items on one line,
// columnar values one per line), or compact on request. One float output y = [2.5, 3.0]:
//
//   row                            columnar
//   {                              {
//       "predictions": [2.5, 3.0       "outputs": [
//       ]                                  2.5,
//   }                                      3.0
//                                      ]
//                                  }
//
// Floats as TF Serving prints them (float_format.ts): 0.1, 3.0, 0.333333343, 1e-05, NaN.
// String outputs whose name ends in "_bytes" are written as {"b64": "…"}. Several outputs are
// written in name order (TF Serving's map order is unspecified).
import { Code, ServingError, invalidArgument, unimplemented } from '../errors/status.js';
import { dtypeFromTf, tfDataTypeString, type DType } from '../tensor/dtype.js';
import { allocValues, type HostTensor, type TensorValues } from '../tensor/host_tensor.js';
import { markRequestOwned } from '../tensor/request_owned.js';
import { decodedTensorBytes } from '../tensor/tensor_cost.js';
import type { SignatureSpec, TensorSpec } from '../savedmodel/signature_spec.js';
import { floatElements, isFloatMember, type JsonObject, type JsonValue } from './json_parse.js';
import { debugJson, jsonTypeString } from './rapidjson_writer.js';
import { decodeBase64Object, isBase64Object } from './base64.js';
import * as MSG from '../errors/messages.js';

export type JsonFormat = 'row' | 'columnar';

export interface ParsedPredictRequest {
  format: JsonFormat;
  /** Keyed by signature input key; inputs filled from SignatureDef defaults included. */
  inputs: Record<string, HostTensor>;
  /** Never set by the REST codec: TF Serving's JSON has no output filter (all outputs are returned). */
  outputFilter?: string[];
}

/** 'tfserving': byte-for-byte TF Serving's PrettyWriter layout. 'compact': one line, ", " and ": " separators. */
export type JsonLayout = 'tfserving' | 'compact';

// =============================================================================================
// Request: FillPredictRequestFromJson
// =============================================================================================

/**
 * Told what each tensor will hold before its storage is allocated (its element count times
 * the per-element cost, tensor_cost.ts), then, for strings, what their bytes add once they
 * are encoded; may throw to stop the parse (a memory budget that is full).
 */
export type ChargeMemory = (bytes: number) => void;

/**
 * The tensors of a parsed :predict body (parseJsonBody's result) for `signature`.
 * Throws ServingError INVALID_ARGUMENT (UNIMPLEMENTED for dtypes JSON cannot express) with
 * TF Serving's messages; `charge` is told of the memory the tensors take before it is taken.
 */
export function parsePredictRequest(body: unknown, signature: SignatureSpec, charge: ChargeMemory = () => {}): ParsedPredictRequest {
  if (!isPlainObject(body)) throw invalidArgument(MSG.isNotObject(debugJson(body as JsonValue)));
  const doc = body as JsonObject;
  const signatureName = doc.signature_name;
  if (hasOwn(doc, 'signature_name') && typeof signatureName !== 'string') {
    throw invalidArgument(MSG.signatureNameNotString(debugJson(doc)));
  }
  if (Object.keys(signature.inputs).length === 0) {
    throw invalidArgument(MSG.failedToGetInputMap(typeof signatureName === 'string' ? signatureName : ''));
  }
  const hasInstances = hasOwn(doc, 'instances');
  const hasInputs = hasOwn(doc, 'inputs');
  if (hasInstances && hasInputs) throw invalidArgument(MSG.bothInstancesAndInputs(debugJson(doc)));
  const ctx = new InputContext(signature, charge);
  if (hasInstances) {
    const instances = doc.instances;
    if (!Array.isArray(instances)) throw invalidArgument(MSG.instancesNotList(debugJson(doc)));
    if (instances.length === 0) throw invalidArgument(MSG.instancesEmpty(debugJson(doc)));
    return { format: 'row', inputs: ctx.fromInstances(instances) };
  }
  if (hasInputs) return { format: 'columnar', inputs: ctx.fromInputs(doc.inputs, isFloatMember(doc, 'inputs')) };
  throw invalidArgument(MSG.MISSING_INPUTS_OR_INSTANCES);
}

/** How JSON leaves are checked and stored for one input dtype (AddValueToTensor). */
type LeafKind = 'float' | 'int32' | 'uint32' | 'int64' | 'uint64' | 'bool' | 'string' | 'unsupported';

interface InputType {
  /** TF DataTypeString, for messages: float, int32 … */
  typeName: string;
  /** HostTensor dtype; undefined when tfgate cannot hold the type at all (complex64 …). */
  dtype: DType | undefined;
  kind: LeafKind;
}

function inputType(spec: TensorSpec): InputType {
  const tf = spec.dtype;
  const dtype = dtypeFromTf(tf);
  let kind: LeafKind;
  switch (tf) {
    case 'DT_FLOAT':
    case 'DT_DOUBLE':
      kind = 'float';
      break;
    case 'DT_INT32':
    case 'DT_INT16':
    case 'DT_INT8':
    case 'DT_UINT8':
    case 'DT_UINT16': // tfgate addition; TF Serving answers UNIMPLEMENTED for uint16
      kind = 'int32';
      break;
    case 'DT_UINT32':
      kind = 'uint32';
      break;
    case 'DT_INT64':
      kind = 'int64';
      break;
    case 'DT_UINT64':
      kind = 'uint64';
      break;
    case 'DT_BOOL':
      kind = 'bool';
      break;
    case 'DT_STRING':
      kind = 'string';
      break;
    default:
      kind = 'unsupported';
  }
  return { typeName: tfDataTypeString(tf), dtype, kind };
}

/** Where leaves are written: a typed array (or byte-string array) and a cursor. */
interface Sink {
  values: TensorValues | unknown[];
  n: number;
  /** Bytes of the strings written (their memory is charged when the tensor is finished). */
  stringBytes: number;
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const UINT64_MAX = 2n ** 64n - 1n;
const utf8Encoder = new TextEncoder();

class InputContext {
  private readonly names: string[];
  private readonly required: string[];
  private readonly types = new Map<string, InputType>();

  constructor(
    private readonly signature: SignatureSpec,
    private readonly charge: ChargeMemory,
  ) {
    this.names = Object.keys(signature.inputs).sort();
    this.required = this.names.filter((n) => !hasOwn(signature.defaults, n));
  }

  private type(name: string): InputType {
    let t = this.types.get(name);
    if (!t) this.types.set(name, (t = inputType(this.signature.inputs[name])));
    return t;
  }

  /** The input a plain (non-object) value feeds: the only input, or the only one without a default. */
  private plainTarget(): string | undefined {
    if (this.names.length === 1) return this.names[0];
    return this.required.length === 1 ? this.required[0] : undefined;
  }

  private withDefaults(out: Record<string, HostTensor>): Record<string, HostTensor> {
    for (const name of this.names) {
      if (!hasOwn(out, name) && hasOwn(this.signature.defaults, name)) out[name] = this.signature.defaults[name];
    }
    return out;
  }

  // ---- columnar ------------------------------------------------------------------------------

  fromInputs(value: JsonValue, marked: boolean): Record<string, HostTensor> {
    const out: Record<string, HostTensor> = {};
    if (!isPlainObject(value) || isBase64Object(value)) {
      const target = this.plainTarget();
      if (target === undefined) throw invalidArgument(MSG.INPUTS_PLAIN_VALUE_FOR_MANY_INPUTS);
      out[target] = this.toTensor(value, marked, this.type(target));
      return this.withDefaults(out);
    }
    const obj = value as JsonObject;
    for (const name of this.names) {
      if (!hasOwn(obj, name)) {
        if (hasOwn(this.signature.defaults, name)) continue;
        throw invalidArgument(MSG.missingNamedInput(name));
      }
      out[name] = this.toTensor(obj[name], isFloatMember(obj, name), this.type(name));
    }
    // Members that name no input are ignored, as TF Serving ignores them.
    return this.withDefaults(out);
  }

  private toTensor(value: JsonValue, marked: boolean, type: InputType): HostTensor {
    const shape = denseShape(value);
    const sink = this.newSink(type, product(shape));
    fillTensor(value, marked, 0, shape, type, sink);
    return this.finish(type, shape, sink, value);
  }

  /** Storage for `size` leaves, charged before it is allocated. */
  private newSink(type: InputType, size: number): Sink {
    if (type.dtype === undefined) return { values: [], n: 0, stringBytes: 0 };
    this.charge(decodedTensorBytes(type.dtype, size));
    // Strings: slots only, each filled with its own encoded bytes (no empty Uint8Array first).
    return { values: type.dtype === 'string' ? new Array<Uint8Array>(size) : allocValues(type.dtype, size), n: 0, stringBytes: 0 };
  }

  private finish(type: InputType, shape: number[], sink: Sink, sample: JsonValue): HostTensor {
    this.charge(2 * sink.stringBytes);
    return finish(type, shape, sink, sample);
  }

  // ---- row -------------------------------------------------------------------------------------

  fromInstances(instances: JsonValue[]): Record<string, HostTensor> {
    const batch = instances.length;
    const first = instances[0];
    const objects = isElementObject(first);
    const target = this.plainTarget();
    if (!objects && target === undefined) throw invalidArgument(MSG.INSTANCES_PLAIN_LIST_FOR_MANY_INPUTS);

    const acc = new Map<string, { type: InputType; shape: number[]; size: number; sink: Sink; first: JsonValue }>();
    const add = (value: JsonValue, marked: boolean, name: string): void => {
      if (!hasOwn(this.signature.inputs, name)) throw invalidArgument(MSG.noNamedInput(name));
      const type = this.type(name);
      const shape = denseShape(value);
      const size = product(shape);
      let a = acc.get(name);
      if (!a) {
        a = { type, shape, size, sink: this.newSink(type, batch * size), first: value };
        acc.set(name, a);
      }
      if (size !== a.size) {
        // Fill anyway (its errors come first in TF Serving), into scratch space.
        fillTensor(value, marked, 0, shape, type, this.newSink(type, size));
        throw invalidArgument(MSG.expectingTensorSize(a.size, size));
      }
      fillTensor(value, marked, 0, shape, type, a.sink);
      if (!sameShape(shape, a.shape)) throw invalidArgument(MSG.expectingShape(shapeString(a.shape), shapeString(shape)));
    };

    const floatAt = floatElements(instances);
    let expectedKeys: string[] | undefined;
    for (let i = 0; i < batch; i++) {
      const elem = instances[i];
      if (objects) {
        if (!isElementObject(elem)) throw invalidArgument(MSG.expectingObjectGotList(i));
        const obj = elem as JsonObject;
        const keys = Object.keys(obj);
        for (const key of keys) {
          try {
            add(obj[key], isFloatMember(obj, key), key);
          } catch (e) {
            throw elementError(e, (status) => MSG.failedToProcessElementKey(i, key, status));
          }
        }
        // Every instance names the same inputs: all of them (TF Serving), or here all but
        // defaulted ones that the first instance leaves out.
        expectedKeys ??= this.names.filter((n) => !hasOwn(this.signature.defaults, n) || hasOwn(obj, n));
        const sorted = [...new Set(keys)].sort();
        if (sorted.length !== expectedKeys.length || sorted.some((k, j) => k !== expectedKeys![j])) {
          throw invalidArgument(MSG.instanceKeysMismatch(i, debugJson(obj), expectedKeys));
        }
      } else {
        if (isElementObject(elem)) throw invalidArgument(MSG.expectingValueGotObject(i));
        try {
          add(elem, floatAt !== undefined && floatAt(i), target!);
        } catch (e) {
          throw elementError(e, (status) => MSG.failedToProcessElement(i, status));
        }
      }
    }

    const out: Record<string, HostTensor> = {};
    for (const [name, a] of acc) out[name] = this.finish(a.type, [batch, ...a.shape], a.sink, a.first);
    return this.withDefaults(out);
  }
}

function finish(type: InputType, shape: number[], sink: Sink, sample: JsonValue): HostTensor {
  if (type.dtype === undefined) {
    // No leaves were written (else the first one failed): a type tfgate cannot hold at all.
    throw unimplemented(MSG.conversionUnimplemented(debugJson(sample), type.typeName));
  }
  // Allocated for this request alone: it may be moved to the executor thread.
  return markRequestOwned({ dtype: type.dtype, shape, values: sink.values as TensorValues });
}

/** GetDenseTensorShape: sizes along the first elements. */
function denseShape(v: JsonValue): number[] {
  const shape: number[] = [];
  let cur = v;
  while (Array.isArray(cur)) {
    shape.push(cur.length);
    if (cur.length === 0) break;
    cur = cur[0];
  }
  return shape;
}

function product(shape: readonly number[]): number {
  let n = 1;
  for (const d of shape) n *= d;
  return n;
}

function sameShape(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((d, i) => d === b[i]);
}

/** ShapeToString: [2,3]. */
function shapeString(shape: readonly number[]): string {
  return `[${shape.join(',')}]`;
}

/**
 * FillTensorProto: checks `v` against `shape` (level by level, depth first, as TF Serving
 * does, so the same error comes first) and writes its leaves to `sink`.
 */
function fillTensor(v: JsonValue, marked: boolean, level: number, shape: readonly number[], type: InputType, sink: Sink): void {
  const rank = shape.length;
  if (!Array.isArray(v)) {
    if (level !== rank) throw invalidArgument(MSG.valueAtIncorrectLevel(debugJson(v, marked), level + 1, rank));
    writeLeaf(v, marked, type, sink);
    return;
  }
  if (level >= rank) throw invalidArgument(MSG.listAtUnexpectedLevel(level, rank));
  if (v.length !== shape[level]) throw invalidArgument(MSG.listAtUnexpectedSize(v.length, level, shape[level]));
  const floatAt = floatElements(v);
  if (level === rank - 1 && type.kind === 'float' && floatAt === undefined) {
    // The hot path: a row of numbers into a float tensor.
    const out = sink.values as Float32Array | Float64Array;
    let n = sink.n;
    for (let k = 0; k < v.length; k++) {
      const e = v[k];
      if (typeof e === 'number') out[n++] = e;
      else {
        sink.n = n;
        if (Array.isArray(e)) throw invalidArgument(MSG.listAtUnexpectedLevel(rank, rank));
        writeLeaf(e, false, type, sink);
        n = sink.n;
      }
    }
    sink.n = n;
    return;
  }
  for (let k = 0; k < v.length; k++) fillTensor(v[k], floatAt !== undefined && floatAt(k), level + 1, shape, type, sink);
}

/** AddValueToTensor (plus the b64 / object check of FillTensorProto) for one leaf. */
function writeLeaf(v: JsonValue, marked: boolean, type: InputType, sink: Sink): void {
  if (v !== null && typeof v === 'object') {
    if (type.kind !== 'string') throw typeError(v, marked, type);
    const bytes = decodeBase64Object(v as JsonObject);
    sink.stringBytes += bytes.length;
    (sink.values as Uint8Array[])[sink.n++] = bytes;
    return;
  }
  const out = sink.values;
  switch (type.kind) {
    case 'float':
      if (typeof v === 'number') (out as Float32Array)[sink.n++] = v;
      else if (typeof v === 'bigint') (out as Float32Array)[sink.n++] = Number(v);
      else throw typeError(v, marked, type);
      return;
    case 'int32':
      // IsInt(): an integer literal in int32 range; narrower types wrap as TF's static_cast does.
      if (typeof v === 'number' && !marked && Number.isInteger(v) && v >= -2147483648 && v <= 2147483647) (out as Int32Array)[sink.n++] = v;
      else throw typeError(v, marked, type);
      return;
    case 'uint32':
      if (typeof v === 'number' && !marked && Number.isInteger(v) && v >= 0 && v <= 4294967295) (out as Uint32Array)[sink.n++] = v;
      else throw typeError(v, marked, type);
      return;
    case 'int64':
      if (typeof v === 'number' && !marked && Number.isInteger(v)) (out as BigInt64Array)[sink.n++] = BigInt(v);
      else if (typeof v === 'bigint' && v >= INT64_MIN && v <= INT64_MAX) (out as BigInt64Array)[sink.n++] = v;
      else throw typeError(v, marked, type);
      return;
    case 'uint64':
      if (typeof v === 'number' && !marked && Number.isInteger(v) && v >= 0) (out as BigUint64Array)[sink.n++] = BigInt(v);
      else if (typeof v === 'bigint' && v >= 0n && v <= UINT64_MAX) (out as BigUint64Array)[sink.n++] = v;
      else throw typeError(v, marked, type);
      return;
    case 'bool':
      if (typeof v === 'boolean') (out as Uint8Array)[sink.n++] = v ? 1 : 0;
      else throw typeError(v, marked, type);
      return;
    case 'string': {
      if (typeof v !== 'string') throw typeError(v, marked, type);
      const bytes = utf8Encoder.encode(v);
      sink.stringBytes += bytes.length;
      (out as Uint8Array[])[sink.n++] = bytes;
      return;
    }
    default:
      throw unimplemented(MSG.conversionUnimplemented(debugJson(v, marked), type.typeName));
  }
}

function typeError(v: JsonValue, marked: boolean, type: InputType): ServingError {
  return invalidArgument(MSG.notOfExpectedType(debugJson(v, marked), jsonTypeString(v), type.typeName));
}

function isPlainObject(v: unknown): v is JsonObject {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** An object that is not a b64 value: named inputs of one instance. */
function isElementObject(v: unknown): boolean {
  return isPlainObject(v) && !isBase64Object(v);
}

function hasOwn(o: object, k: string): boolean {
  return Object.prototype.hasOwnProperty.call(o, k);
}

/**
 * An instance's error as TF Serving wraps it ("Failed to process element: …"); a memory
 * charge refused while its tensor was allocated is the request's, not the element's, and
 * goes out as it is (RESOURCE_EXHAUSTED).
 */
function elementError(e: unknown, wrap: (status: string) => string): ServingError {
  if (e instanceof ServingError && e.code === Code.RESOURCE_EXHAUSTED) return e;
  return invalidArgument(wrap(statusString(e)));
}

/** absl::Status::ToString of an inner error: "INVALID_ARGUMENT: …". */
function statusString(e: unknown): string {
  if (e instanceof ServingError) return `${Code[e.code]}: ${e.message}`;
  return `UNKNOWN: ${e instanceof Error ? e.message : String(e)}`;
}
