// JSON ↔ tensors for REST :predict, as TF Serving's util/json_tensor.cc does it
// (FillPredictRequestFromJson / MakeJsonFromTensors), with its error texts (messages.ts).
//
// Requests: `instances` (row format: one entry per batch item, stacked along a new first
// dimension) or `inputs` (columnar: tensors as written). A tensor's shape is the JSON's own
// nesting (TF Serving does not reshape to the signature). `{"b64": "…"}` is a binary string.
// Numbers are checked the way RapidJSON types them: an int32 input takes 1 but not 1.0 (see
// json_parse.ts for how the parser keeps that distinction). Members of an `inputs` object
// that name no input are ignored, as TF Serving ignores them.
//
// Responses: written directly as text, in TF Serving's exact layout by default (RapidJSON's
// PrettyWriter: 4-space indents, row items on one line, columnar values one per line), or
// compact on request. Floats as TF Serving prints them (WriteDecimal): "%g" (6 significant
// digits) when that reads back as the same value, else max_digits10 (9 for float32, 17 for
// float64), ".0" added to whole numbers, NaN / Infinity / -Infinity bare. String outputs whose
// name ends in `_bytes` are written as {"b64": "…"}. Several outputs are written in name
// order (TF Serving's map order is unspecified).
//
// tfgate additions (TF Serving would reject these requests): an input left out that has a
// SignatureDef default takes the default tensor; a plain value / plain `instances` list feeds
// the one input without a default when the others have defaults; DT_UINT16 is converted both
// ways like the other small integer types.
import { Code, ServingError, invalidArgument, unimplemented } from '../core/status.js';
import { dtypeFromTf, tfDataTypeString, type DType } from '../tensor/dtype.js';
import { allocValues, type HostTensor, type TensorValues } from '../tensor/host_tensor.js';
import type { SignatureSpec, TensorSpec } from '../runtimes/runtime.js';
import { FLOAT_MARKS, isFloatMember, type JsonObject, type JsonValue } from './json_parse.js';
import * as MSG from '../core/messages.js';

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

const B64_KEY = 'b64';
const BYTES_SUFFIX = '_bytes';
const DEBUG_LIMIT_BYTES = 256;

// =============================================================================================
// Request: FillPredictRequestFromJson
// =============================================================================================

/**
 * The tensors of a parsed :predict body (parseJsonBody's result) for `signature`.
 * Throws ServingError INVALID_ARGUMENT (UNIMPLEMENTED for dtypes JSON cannot express) with
 * TF Serving's messages.
 */
export function parsePredictRequest(body: unknown, signature: SignatureSpec): ParsedPredictRequest {
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
  const ctx = new InputContext(signature);
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

const DTYPE_TYPE_STRING: Record<DType, string> = {
  float32: 'float',
  float64: 'double',
  float16: 'half',
  bfloat16: 'bfloat16',
  int8: 'int8',
  int16: 'int16',
  int32: 'int32',
  int64: 'int64',
  uint8: 'uint8',
  uint16: 'uint16',
  uint32: 'uint32',
  uint64: 'uint64',
  bool: 'bool',
  string: 'string',
};

/** Where leaves are written: a typed array (or byte-string array) and a cursor. */
interface Sink {
  values: TensorValues | unknown[];
  n: number;
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const UINT64_MAX = 2n ** 64n - 1n;
const utf8Encoder = new TextEncoder();

class InputContext {
  private readonly names: string[];
  private readonly required: string[];
  private readonly types = new Map<string, InputType>();

  constructor(private readonly signature: SignatureSpec) {
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
    const sink = newSink(type, product(shape));
    fillTensor(value, marked, 0, shape, type, sink);
    return finish(type, shape, sink, value);
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
        a = { type, shape, size, sink: newSink(type, batch * size), first: value };
        acc.set(name, a);
      }
      if (size !== a.size) {
        // Fill anyway (its errors come first in TF Serving), into scratch space.
        fillTensor(value, marked, 0, shape, type, newSink(type, size));
        throw invalidArgument(MSG.expectingTensorSize(a.size, size));
      }
      fillTensor(value, marked, 0, shape, type, a.sink);
      if (!sameShape(shape, a.shape)) throw invalidArgument(MSG.expectingShape(shapeString(a.shape), shapeString(shape)));
    };

    const marks = (instances as { [FLOAT_MARKS]?: readonly number[] })[FLOAT_MARKS];
    let mi = 0;
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
            throw invalidArgument(MSG.failedToProcessElementKey(i, key, statusString(e)));
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
        let marked = false;
        if (marks !== undefined && marks[mi] === i) {
          marked = true;
          mi++;
        }
        try {
          add(elem, marked, target!);
        } catch (e) {
          throw invalidArgument(MSG.failedToProcessElement(i, statusString(e)));
        }
      }
    }

    const out: Record<string, HostTensor> = {};
    for (const [name, a] of acc) out[name] = finish(a.type, [batch, ...a.shape], a.sink, a.first);
    return this.withDefaults(out);
  }
}

function newSink(type: InputType, size: number): Sink {
  if (type.dtype === undefined) return { values: [], n: 0 };
  return { values: allocValues(type.dtype, size), n: 0 };
}

function finish(type: InputType, shape: number[], sink: Sink, sample: JsonValue): HostTensor {
  if (type.dtype === undefined) {
    // No leaves were written (else the first one failed): a type tfgate cannot hold at all.
    throw unimplemented(MSG.conversionUnimplemented(debugJson(sample), type.typeName));
  }
  return { dtype: type.dtype, shape, values: sink.values as TensorValues };
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
  const marks = (v as { [FLOAT_MARKS]?: readonly number[] })[FLOAT_MARKS];
  if (level === rank - 1 && type.kind === 'float' && marks === undefined) {
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
  let mi = 0;
  for (let k = 0; k < v.length; k++) {
    let m = false;
    if (marks !== undefined && marks[mi] === k) {
      m = true;
      mi++;
    }
    fillTensor(v[k], m, level + 1, shape, type, sink);
  }
}

/** AddValueToTensor (plus the b64 / object check of FillTensorProto) for one leaf. */
function writeLeaf(v: JsonValue, marked: boolean, type: InputType, sink: Sink): void {
  if (v !== null && typeof v === 'object') {
    if (type.kind !== 'string') throw typeError(v, marked, type);
    (sink.values as Uint8Array[])[sink.n++] = decodeBase64Object(v as JsonObject);
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
    case 'string':
      if (typeof v === 'string') (out as Uint8Array[])[sink.n++] = utf8Encoder.encode(v);
      else throw typeError(v, marked, type);
      return;
    default:
      throw unimplemented(MSG.conversionUnimplemented(debugJson(v, marked), type.typeName));
  }
}

function typeError(v: JsonValue, marked: boolean, type: InputType): ServingError {
  return invalidArgument(MSG.notOfExpectedType(debugJson(v, marked), jsonTypeString(v), type.typeName));
}

/** JsonTypeString. */
export function jsonTypeString(v: JsonValue): string {
  if (v === null) return 'Null';
  if (v === true) return 'True';
  if (v === false) return 'False';
  if (Array.isArray(v)) return 'Array';
  switch (typeof v) {
    case 'string':
      return 'String';
    case 'number':
    case 'bigint':
      return 'Number';
    default:
      return 'Object';
  }
}

function isPlainObject(v: unknown): v is JsonObject {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** IsValBase64Object: an object whose only member is "b64" holding a string. */
export function isBase64Object(v: unknown): v is { b64: string } {
  if (!isPlainObject(v) || typeof v[B64_KEY] !== 'string' || !hasOwn(v, B64_KEY)) return false;
  let members = 0;
  for (const k in v) if (hasOwn(v, k) && ++members > 1) return false;
  return true;
}

/** An object that is not a b64 value: named inputs of one instance. */
function isElementObject(v: unknown): boolean {
  return isPlainObject(v) && !isBase64Object(v);
}

function hasOwn(o: object, k: string): boolean {
  return Object.prototype.hasOwnProperty.call(o, k);
}

/** absl::Status::ToString of an inner error: "INVALID_ARGUMENT: …". */
function statusString(e: unknown): string {
  if (e instanceof ServingError) return `${Code[e.code]}: ${e.message}`;
  return `UNKNOWN: ${e instanceof Error ? e.message : String(e)}`;
}

/** JsonDecodeBase64Object with absl::Base64Unescape's rules. */
export function decodeBase64Object(v: JsonObject): Uint8Array {
  if (!isBase64Object(v)) throw invalidArgument(MSG.base64FormatError(debugJson(v)));
  const bytes = base64Unescape(v.b64);
  if (bytes === undefined) throw invalidArgument(MSG.UNABLE_TO_BASE64_DECODE);
  return bytes;
}

/**
 * absl::Base64Unescape: the standard alphabet only; ASCII whitespace skipped; padding ('=' or
 * '.') optional, but when present exactly the expected count and nothing but padding or
 * whitespace after it; a lone trailing sextet is an error. undefined when invalid.
 */
export function base64Unescape(s: string): Uint8Array | undefined {
  let clean = '';
  let runStart = 0;
  let count = 0;
  let i = 0;
  const flush = (to: number) => {
    if (to > runStart) clean += s.slice(runStart, to);
  };
  for (; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if ((c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39) || c === 0x2b || c === 0x2f) {
      count++;
      continue;
    }
    flush(i);
    runStart = i + 1;
    if (c === 0x3d || c === 0x2e) break; // padding
    if (!isAsciiSpace(c)) return undefined;
  }
  if (i >= s.length) flush(s.length);
  let equals = 0;
  for (; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x3d || c === 0x2e) equals++;
    else if (!isAsciiSpace(c)) return undefined;
  }
  const rest = count % 4;
  if (rest === 1) return undefined;
  const expected = rest === 2 ? 2 : rest === 3 ? 1 : 0;
  if (equals !== 0 && equals !== expected) return undefined;
  return new Uint8Array(Buffer.from(clean, 'base64'));
}

function isAsciiSpace(c: number): boolean {
  return c === 0x20 || (c >= 0x09 && c <= 0x0d);
}

// =============================================================================================
// JsonValueToDebugString: RapidJSON's PrettyWriter with single-line arrays, cut off once 256
// bytes are written (at event granularity, as JsonWriterWithLimit does). Numbers keep their
// RapidJSON type: integer literals as integers, doubles as RapidJSON's dtoa writes them; a
// NaN / Infinity double stops the writer there (RapidJSON's Writer refuses to write it).
// =============================================================================================

/** A parsed JSON value as TF Serving prints it in error messages. `marked`: a number written as a float. */
export function debugJson(v: JsonValue, marked = false): string {
  const w = new DebugWriter();
  w.value(v, marked);
  return w.out;
}

class DebugWriter {
  out = '';
  private bytes = 0;
  /** Open containers: [isArray, valueCount]. */
  private readonly levels: Array<{ inArray: boolean; count: number }> = [];

  private put(s: string): void {
    this.out += s;
    this.bytes += Buffer.byteLength(s, 'utf8');
  }

  private inLimit(): boolean {
    return this.bytes < DEBUG_LIMIT_BYTES;
  }

  private prefix(): void {
    const level = this.levels[this.levels.length - 1];
    if (level === undefined) return;
    if (level.inArray) {
      if (level.count > 0) this.put(', ');
    } else {
      if (level.count > 0) this.put(level.count % 2 === 0 ? ',\n' : ': ');
      else this.put('\n');
      if (level.count % 2 === 0) this.put(indent(this.levels.length));
    }
    level.count++;
  }

  /** False once the writer stopped (limit reached, or a non-finite double). */
  value(v: JsonValue, marked: boolean): boolean {
    if (!this.inLimit()) return false;
    if (Array.isArray(v)) {
      this.prefix();
      this.put('[');
      this.levels.push({ inArray: true, count: 0 });
      const marks = (v as { [FLOAT_MARKS]?: readonly number[] })[FLOAT_MARKS];
      let mi = 0;
      for (let k = 0; k < v.length; k++) {
        let m = false;
        if (marks !== undefined && marks[mi] === k) {
          m = true;
          mi++;
        }
        if (!this.value(v[k], m)) return false;
      }
      if (!this.inLimit()) return false;
      this.levels.pop();
      this.put(']');
      return true;
    }
    if (v !== null && typeof v === 'object') {
      this.prefix();
      this.put('{');
      const level = { inArray: false, count: 0 };
      this.levels.push(level);
      for (const key of Object.keys(v)) {
        if (!this.inLimit()) return false;
        this.prefix();
        this.put(rapidjsonString(key));
        if (!this.value(v[key], isFloatMember(v, key))) return false;
      }
      if (!this.inLimit()) return false;
      this.levels.pop();
      if (level.count > 0) this.put('\n' + indent(this.levels.length));
      this.put('}');
      return true;
    }
    this.prefix();
    switch (typeof v) {
      case 'string':
        this.put(rapidjsonString(v));
        return true;
      case 'boolean':
        this.put(v ? 'true' : 'false');
        return true;
      case 'bigint':
        this.put(String(v));
        return true;
      case 'number':
        if (marked || !Number.isInteger(v)) {
          if (!Number.isFinite(v)) return false;
          this.put(rapidjsonDouble(v));
        } else {
          this.put(String(v));
        }
        return true;
      default:
        this.put('null');
        return true;
    }
  }
}

const INDENTS: string[] = [];
function indent(levels: number): string {
  return (INDENTS[levels] ??= ' '.repeat(4 * levels));
}

/** RapidJSON's Writer::Double (Grisu shortest digits, then its Prettify layout). */
export function rapidjsonDouble(d: number): string {
  if (d === 0) return Object.is(d, -0) ? '-0.0' : '0.0';
  const e = d.toExponential(); // shortest round-trip digits
  const neg = d < 0;
  const ePos = e.indexOf('e');
  const digits = e.slice(neg ? 1 : 0, ePos).replace('.', '');
  const length = digits.length;
  const kk = Number(e.slice(ePos + 1)) + 1; // 10^(kk-1) <= |d| < 10^kk
  const k = kk - length;
  let s: string;
  if (k >= 0 && kk <= 21) s = digits + '0'.repeat(k) + '.0';
  else if (kk > 0 && kk <= 21) s = `${digits.slice(0, kk)}.${digits.slice(kk)}`;
  else if (kk > -6 && kk <= 0) s = `0.${'0'.repeat(-kk)}${digits}`;
  else if (length === 1) s = `${digits}e${kk - 1}`;
  else s = `${digits[0]}.${digits.slice(1)}e${kk - 1}`;
  return neg ? `-${s}` : s;
}

// =============================================================================================
// Response: MakeJsonFromTensors
// =============================================================================================

/**
 * The :predict response body for `outputs`: row format {"predictions": …} (one entry per batch
 * item; all outputs must share dimension 0) or columnar {"outputs": …}. Outputs are written in
 * name order (TF Serving's map order is unspecified).
 */
export function predictResponseJson(outputs: Record<string, HostTensor>, format: JsonFormat, options: { layout?: JsonLayout } = {}): string {
  const pretty = (options.layout ?? 'tfserving') === 'tfserving';
  const names = Object.keys(outputs).sort();
  if (names.length === 0) throw invalidArgument(MSG.EMPTY_TENSOR_MAP);
  if (format === 'columnar') {
    if (names.length === 1) {
      const v = new TensorWriter(names[0], outputs[names[0]], pretty).value(0, 1, false);
      return pretty ? `{\n    "outputs": ${v}\n}` : `{"outputs": ${v}}`;
    }
    const members = names.map((n) => `${rapidjsonString(n)}: ${new TensorWriter(n, outputs[n], pretty).value(0, 2, false)}`);
    return pretty ? `{\n    "outputs": {\n        ${members.join(',\n        ')}\n    }\n}` : `{"outputs": {${members.join(', ')}}}`;
  }
  const rows = new RowWriter(outputs, names, format, pretty);
  for (let i = 0; i < rows.batch; i++) rows.next(i);
  return rows.text();
}

/** Rows written per event-loop turn by predictResponseJsonYielding (tens of milliseconds). */
const RESPONSE_SLICE_ROWS = 32 * 1024;

/**
 * predictResponseJson, giving the event loop back every RESPONSE_SLICE_ROWS rows of a row-format
 * response (a response of millions of rows takes seconds to write). Columnar responses are
 * written at once.
 */
export async function predictResponseJsonYielding(outputs: Record<string, HostTensor>, format: JsonFormat, options: { layout?: JsonLayout } = {}): Promise<string> {
  const names = Object.keys(outputs).sort();
  if (format !== 'row' || names.length === 0) return predictResponseJson(outputs, format, options);
  const rows = new RowWriter(outputs, names, format, (options.layout ?? 'tfserving') === 'tfserving');
  for (let i = 0; i < rows.batch; i++) {
    rows.next(i);
    if ((i + 1) % RESPONSE_SLICE_ROWS === 0) await new Promise<void>((resolve) => setImmediate(resolve));
  }
  return rows.text();
}

const ROWS_PER_CHUNK = 4096;

/** The row-format {"predictions": …}, one batch item at a time. */
class RowWriter {
  readonly batch: number;
  private readonly writers: TensorWriter[];
  private readonly keys: string[];
  /** Rows written since the last chunk was joined. */
  private items: string[] = [];
  /** Joined runs of rows: joining millions of row strings at the end took seconds at once. */
  private readonly chunks: string[] = [];

  constructor(
    outputs: Record<string, HostTensor>,
    names: string[],
    format: JsonFormat,
    private readonly pretty: boolean,
  ) {
    if (format !== 'row') throw invalidArgument(MSG.INVALID_REQUEST_FORMAT);
    let batch = -1;
    for (const n of names) {
      const shape = outputs[n].shape;
      if (shape.length === 0) throw invalidArgument(MSG.noShapeInformation(n));
      if (batch >= 0 && batch !== shape[0]) throw invalidArgument(MSG.inconsistentBatchSize(n, shape[0], batch));
      batch = shape[0];
    }
    this.batch = batch;
    this.writers = names.map((n) => new TensorWriter(n, outputs[n], pretty));
    this.keys = names.map(rapidjsonString);
  }

  /** Between rows: ", " (one output, or compact), "," (several outputs, pretty: each row starts with a newline). */
  private get separator(): string {
    return this.writers.length === 1 || !this.pretty ? ', ' : ',';
  }

  next(i: number): void {
    const { writers, keys, pretty } = this;
    if (writers.length === 1) this.items.push(writers[0].value(1, 2, true));
    else {
      const members = writers.map((w, j) => `${keys[j]}: ${w.value(1, 3, true)}`);
      this.items.push(pretty ? `\n        {\n            ${members.join(',\n            ')}\n        }` : `{${members.join(', ')}}`);
    }
    if (this.items.length === ROWS_PER_CHUNK || i === this.batch - 1) {
      this.chunks.push(this.items.join(this.separator));
      this.items = [];
    }
  }

  text(): string {
    const body = this.chunks.join(this.separator);
    if (!this.pretty) return `{"predictions": [${body}]}`;
    return this.batch === 0 ? '{\n    "predictions": []\n}' : `{\n    "predictions": [${body}\n    ]\n}`;
  }
}

/** One tensor as JSON text (a columnar value), e.g. for `tfgate run`. Compact unless asked. */
export function tensorJson(name: string, t: HostTensor, layout: JsonLayout = 'compact'): string {
  return new TensorWriter(name, t, layout === 'tfserving').value(0, 0, false);
}

const textDecoder = new TextDecoder();

/**
 * AddTensorValues over one tensor, consuming its values in order. `depth` is the number of
 * containers open around the value being written (it sets PrettyWriter's indentation) and
 * `single` is kFormatSingleLineArray.
 */
class TensorWriter {
  private offset = 0;
  private readonly asBytes: boolean;

  constructor(
    name: string,
    private readonly t: HostTensor,
    private readonly pretty: boolean,
  ) {
    this.asBytes = t.dtype === 'string' && name.endsWith(BYTES_SUFFIX);
  }

  value(dim: number, depth: number, single: boolean): string {
    const shape = this.t.shape;
    if (dim >= shape.length) return this.leaf(this.offset++, depth);
    const n = shape[dim];
    if (n === 0) return '[]';
    const oneLine = single || !this.pretty;
    const open = oneLine ? '[' : `[\n${indent(depth + 1)}`;
    const sep = oneLine ? ', ' : `,\n${indent(depth + 1)}`;
    const close = oneLine ? ']' : `\n${indent(depth)}]`;
    if (dim === shape.length - 1) return open + this.run(n, depth + 1, sep) + close;
    const parts: string[] = new Array(n);
    for (let k = 0; k < n; k++) parts[k] = this.value(dim + 1, depth + 1, single);
    return open + parts.join(sep) + close;
  }

  /** The next `n` values, joined by `sep`. */
  private run(n: number, depth: number, sep: string): string {
    const t = this.t;
    const start = this.offset;
    this.offset += n;
    switch (t.dtype) {
      case 'int8':
      case 'int16':
      case 'int32':
      case 'uint8':
      case 'uint16':
      case 'uint32':
      case 'int64':
      case 'uint64':
        return (t.values as Int32Array).subarray(start, start + n).join(sep);
      default: {
        const parts: string[] = new Array(n);
        for (let k = 0; k < n; k++) parts[k] = this.leaf(start + k, depth);
        return parts.join(sep);
      }
    }
  }

  /** AddSingleValueAndAdvance for element i; `depth` as in value(). */
  private leaf(i: number, depth: number): string {
    const t = this.t;
    switch (t.dtype) {
      case 'float32':
        return formatFloat32((t.values as Float32Array)[i]);
      case 'float64':
        return formatFloat64((t.values as Float64Array)[i]);
      case 'bool':
        return (t.values as Uint8Array)[i] ? 'true' : 'false';
      case 'string': {
        const bytes = (t.values as Uint8Array[])[i];
        if (!this.asBytes) return rapidjsonString(textDecoder.decode(bytes));
        const b64 = `"${Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64')}"`;
        return this.pretty ? `{\n${indent(depth + 1)}"b64": ${b64}\n${indent(depth)}}` : `{"b64": ${b64}}`;
      }
      case 'float16':
      case 'bfloat16':
        throw invalidArgument(MSG.failedToWriteJsonValue(DTYPE_TYPE_STRING[t.dtype]));
      default:
        return String((t.values as Int32Array)[i]);
    }
  }
}

/** RapidJSON's Writer::String: escapes '"', '\\' and control characters (\b \t \n \f \r, else \u00XX). */
export function rapidjsonString(s: string): string {
  if (!NEEDS_ESCAPE.test(s)) return `"${s}"`;
  let out = '"';
  let run = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x20 && c !== 0x22 && c !== 0x5c) continue;
    out += s.slice(run, i);
    run = i + 1;
    switch (c) {
      case 0x22:
        out += '\\"';
        break;
      case 0x5c:
        out += '\\\\';
        break;
      case 0x08:
        out += '\\b';
        break;
      case 0x09:
        out += '\\t';
        break;
      case 0x0a:
        out += '\\n';
        break;
      case 0x0c:
        out += '\\f';
        break;
      case 0x0d:
        out += '\\r';
        break;
      default:
        out += `\\u00${c < 0x10 ? '0' : '1'}${'0123456789ABCDEF'[c & 15]}`;
    }
  }
  return `${out}${s.slice(run)}"`;
}
// eslint-disable-next-line no-control-regex
const NEEDS_ESCAPE = /["\\\u0000-\u001f]/;

// =============================================================================================
// WriteDecimal: how TF Serving prints floats.
// =============================================================================================

/** A float32 value as TF Serving writes it: 0.1, 3.0, 0.333333343, 1e-05, 9e+06, NaN, -Infinity. */
export function formatFloat32(v: number): string {
  return writeDecimal(v, true);
}

/** A float64 value as TF Serving writes it: "%g" if it reads back, else "%.17g"; ".0" on whole numbers. */
export function formatFloat64(v: number): string {
  return writeDecimal(v, false);
}

/**
 * WriteDecimal: absl::StrCat (printf "%g", 6 significant digits) when that reads back as the
 * same float32 / float64, else "%.{max_digits10}g"; ".0" appended when there is neither a
 * '.' nor an exponent.
 *
 * Speed: short exact decimals (0.5, 3, 1234.25) come straight from String(v); otherwise one
 * toExponential(max_digits10 - 1) gives the long form, and the 6-digit candidate is rounded
 * from it (exactly, except when its tail is exactly 5000…, where it is recomputed).
 */
function writeDecimal(v: number, f32: boolean): string {
  if (!Number.isFinite(v)) return v !== v ? 'NaN' : v > 0 ? 'Infinity' : '-Infinity';
  if (v === 0) return Object.is(v, -0) ? '-0.0' : '0.0';
  const av = v < 0 ? -v : v;
  if (av >= 1e-4 && av < 1e6) {
    const t = av * 65536;
    if (t === Math.floor(t)) {
      // Few binary digits: String(v) is likely short, and when it has at most 6 significant
      // digits it is exactly what %g prints in this range.
      const s = String(v);
      if (significantDigits(s) <= 6) return s.indexOf('.') < 0 ? `${s}.0` : s;
    }
  }
  const neg = v < 0;
  const p = f32 ? 9 : 17;
  const full = v.toExponential(p - 1); // [-]d.ddd…e±x, p digits
  const d0 = neg ? 1 : 0;
  const ePos = full.indexOf('e', d0 + p);
  const exp = Number(full.slice(ePos + 1));

  // The 6-digit candidate, rounded from the p-digit form: exact unless its tail is exactly 5000….
  let d6 = full.charCodeAt(d0) - 0x30;
  for (let k = d0 + 2; k < d0 + 7; k++) d6 = d6 * 10 + (full.charCodeAt(k) - 0x30);
  let e6 = exp;
  const c7 = full.charCodeAt(d0 + 7);
  if (c7 === 0x35 && isZeros(full, d0 + 8, ePos)) {
    const s6 = v.toExponential(5);
    const k = s6.indexOf('e');
    d6 = Number(s6.charAt(d0) + s6.slice(d0 + 2, k));
    e6 = Number(s6.slice(k + 1));
  } else if (c7 >= 0x35 && ++d6 === 1000000) {
    d6 = 100000;
    e6++;
  }
  const q = e6 - 5;
  const back = q >= 0 ? (q <= 22 ? d6 * POW10[q] : Number(`${d6}e${q}`)) : q >= -22 ? d6 / POW10[-q] : Number(`${d6}e${q}`);
  if (f32 ? Math.fround(back) === av : back === av) return addPointZero(gLayout(String(d6), e6, 6, neg));

  // max_digits10, with C's round-half-even on exact ties (toExponential rounds them up).
  let digits = full.charAt(d0) + full.slice(d0 + 2, ePos);
  if ((digits.charCodeAt(p - 1) & 1) === 1 && (f32 ? isTie32(av, exp) : isTie(av, p))) {
    digits = digits.slice(0, p - 1) + String.fromCharCode(digits.charCodeAt(p - 1) - 1);
  }
  return addPointZero(gLayout(digits, exp, p, neg));
}

const POW10 = [1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22];

function addPointZero(s: string): string {
  return s.indexOf('.') < 0 && s.indexOf('e') < 0 ? `${s}.0` : s;
}

/** Significant digits of String(x) for 1e-4 <= |x| < 1e6 (no exponent there). */
function significantDigits(s: string): number {
  let i = s.charCodeAt(0) === 0x2d ? 1 : 0;
  if (s.charCodeAt(i) === 0x30) {
    i += 2; // "0."
    while (s.charCodeAt(i) === 0x30) i++;
    return s.length - i;
  }
  return s.indexOf('.') < 0 ? s.length - i : s.length - i - 1;
}

function isZeros(s: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) if (s.charCodeAt(i) !== 0x30) return false;
  return true;
}

/** printf's %g layout of `p` significant digits `digits` × 10^exp (one digit before the point). */
function gLayout(digits: string, exp: number, p: number, neg: boolean): string {
  let out: string;
  if (exp < -4 || exp >= p) {
    const m = stripZeros(digits, 1);
    const ae = exp < 0 ? -exp : exp;
    out = `${m.length > 1 ? `${m[0]}.${m.slice(1)}` : m}e${exp < 0 ? '-' : '+'}${ae < 10 ? '0' : ''}${ae}`;
  } else if (exp >= 0) {
    const frac = stripZeros(digits.slice(exp + 1), 0);
    out = frac.length > 0 ? `${digits.slice(0, exp + 1)}.${frac}` : digits.slice(0, exp + 1);
  } else {
    out = `0.${stripZeros('0'.repeat(-exp - 1) + digits, 0)}`;
  }
  return neg ? `-${out}` : out;
}

/**
 * C's printf("%.{p}g") of a finite x. JS's toExponential rounds exact ties away from zero
 * where C rounds them to even; `halfEven` corrects that.
 */
export function formatG(x: number, p: number, halfEven: boolean): string {
  if (x === 0) return Object.is(x, -0) ? '-0' : '0';
  const s = x.toExponential(p - 1);
  const neg = x < 0;
  const ePos = s.indexOf('e');
  const exp = Number(s.slice(ePos + 1));
  let digits = p === 1 ? s.slice(neg ? 1 : 0, ePos) : s.charAt(neg ? 1 : 0) + s.slice(neg ? 3 : 2, ePos);
  if (halfEven && (digits.charCodeAt(p - 1) & 1) === 1 && isTie(Math.abs(x), p)) {
    digits = digits.slice(0, p - 1) + String.fromCharCode(digits.charCodeAt(p - 1) - 1);
  }
  return gLayout(digits, exp, p, neg);
}

function stripZeros(s: string, keep: number): string {
  let e = s.length;
  while (e > keep && s.charCodeAt(e - 1) === 0x30) e--;
  return s.slice(0, e);
}

/** Is ax (> 0) exactly halfway between two p-significant-digit decimals? */
function isTie(ax: number, p: number): boolean {
  const t = ax.toExponential(p); // p + 1 digits
  const ePos = t.indexOf('e');
  if (t.charCodeAt(ePos - 1) !== 0x35) return false; // the digit after the p-th must be a 5
  const digits = BigInt(t.slice(0, 1) + t.slice(2, ePos));
  return exactlyEquals(ax, digits, Number(t.slice(ePos + 1)) - p);
}

/** isTie(ax, 9) for a float32 ax whose 9-digit form has exponent exp: a float pre-check first. */
function isTie32(ax: number, exp: number): boolean {
  const k = 8 - exp;
  const f = k >= 0 ? ax * 10 ** k : ax / 10 ** -k; // ≈ the digits as a number with 9 integer digits
  const frac = f - Math.floor(f);
  if (frac < 0.4999 || frac > 0.5001) return false;
  return isTie(ax, 9);
}

const f64 = new Float64Array(1);
const u64 = new BigUint64Array(f64.buffer);

/** ax === digits × 10^q, exactly (ax finite, > 0). */
function exactlyEquals(ax: number, digits: bigint, q: number): boolean {
  f64[0] = ax;
  const bits = u64[0];
  const expField = Number((bits >> 52n) & 0x7ffn);
  let m = bits & 0xfffffffffffffn;
  let p2: number;
  if (expField === 0) p2 = -1074;
  else {
    m |= 1n << 52n;
    p2 = expField - 1075;
  }
  // m·2^p2 == digits·5^q·2^q
  let lhs = m;
  let rhs = digits;
  let rp2 = 0;
  if (q >= 0) {
    rhs *= 5n ** BigInt(q);
    rp2 = q;
  } else {
    lhs *= 5n ** BigInt(-q);
    p2 += -q;
  }
  const d = p2 - rp2;
  return d >= 0 ? lhs << BigInt(d) === rhs : lhs === rhs << BigInt(-d);
}
