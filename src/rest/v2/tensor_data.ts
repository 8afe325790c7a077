// A tensor's contents both ways the protocol carries them: as JSON `data` (row-major, flat
// or nested as the tensor's own dimensions, "Tensor Data" in inference_rest.md) and as the
// binary tensor data extension's bytes (little-endian, row-major, no padding; BOOL one byte;
// BYTES each element a 4-byte little-endian length, then its bytes).
import { invalidArgument } from '../../errors/status.js';
import { bytesPerElement, type DType } from '../../tensor/dtype.js';
import { allocValues, numElements, TYPED_ARRAY, type HostTensor, type TensorValues } from '../../tensor/host_tensor.js';
import { bfloat16ToFloat, halfToFloat } from '../../tensor/half.js';
import { floatToBfloat16, floatToHalf } from '../../tensor/half_encode.js';
import type { JsonValue } from '../json_parse.js';
import { datatypeOfDtype } from './datatypes.js';
import { decodedTensorBytes } from '../../tensor/tensor_cost.js';

const utf8 = new TextEncoder();
const utf8Decoder = new TextDecoder();

const INT_RANGE: Partial<Record<DType, [bigint, bigint]>> = {
  int8: [-(2n ** 7n), 2n ** 7n - 1n],
  int16: [-(2n ** 15n), 2n ** 15n - 1n],
  int32: [-(2n ** 31n), 2n ** 31n - 1n],
  int64: [-(2n ** 63n), 2n ** 63n - 1n],
  uint8: [0n, 2n ** 8n - 1n],
  uint16: [0n, 2n ** 16n - 1n],
  uint32: [0n, 2n ** 32n - 1n],
  uint64: [0n, 2n ** 64n - 1n],
};

function describe(v: JsonValue): string {
  if (typeof v === 'bigint') return v.toString();
  const s = JSON.stringify(v) ?? String(v);
  return s.length > 40 ? `${s.slice(0, 40)}…` : s;
}

/** Leaves of nested JSON arrays, in row-major order. */
function countLeaves(v: JsonValue): number {
  if (!Array.isArray(v)) return 1;
  let n = 0;
  for (const item of v) n += countLeaves(item);
  return n;
}

/**
 * One leaf stored at `values[i]`, checked against the datatype: numbers for the numeric
 * types (integers in range for the integer ones), booleans for BOOL, strings for BYTES.
 */
function store(input: string, dtype: DType, values: TensorValues, i: number, v: JsonValue): void {
  const wrong = (expected: string) =>
    invalidArgument(`Input '${input}' (${datatypeOfDtype(dtype)}): element ${i} is ${describe(v)}, expected ${expected}`);
  switch (dtype) {
    case 'string': {
      if (typeof v !== 'string') throw wrong('a string');
      const bytes = utf8.encode(v);
      encodedStringBytes += bytes.length;
      (values as Uint8Array[])[i] = bytes;
      return;
    }
    case 'bool':
      if (typeof v !== 'boolean') throw wrong('true or false');
      (values as Uint8Array)[i] = v ? 1 : 0;
      return;
    case 'float32':
    case 'float64':
    case 'float16':
    case 'bfloat16': {
      if (typeof v !== 'number' && typeof v !== 'bigint') throw wrong('a number');
      const x = Number(v);
      if (dtype === 'float16') (values as Uint16Array)[i] = floatToHalf(x);
      else if (dtype === 'bfloat16') (values as Uint16Array)[i] = floatToBfloat16(x);
      else (values as Float32Array | Float64Array)[i] = x;
      return;
    }
    default: {
      const [min, max] = INT_RANGE[dtype]!;
      if (typeof v === 'number' && !Number.isInteger(v)) throw wrong('an integer');
      if (typeof v !== 'number' && typeof v !== 'bigint') throw wrong('an integer');
      const b = BigInt(v);
      if (b < min || b > max) throw wrong(`an integer in [${min}, ${max}]`);
      if (dtype === 'int64' || dtype === 'uint64') (values as BigInt64Array | BigUint64Array)[i] = b;
      else (values as Int32Array)[i] = Number(b);
    }
  }
}

function fill(input: string, dtype: DType, values: TensorValues, v: JsonValue, at: number): number {
  if (!Array.isArray(v)) {
    store(input, dtype, values, at, v);
    return at + 1;
  }
  for (const item of v) at = fill(input, dtype, values, item, at);
  return at;
}

/** Bytes of the strings fill() encoded since it was last reset (a second result without an object per leaf). */
let encodedStringBytes = 0;

/**
 * Told what a tensor will hold before its storage is allocated (tensor_cost.ts), then, for
 * JSON strings, what their encoded bytes add; may throw (a memory budget that is full).
 */
export type ChargeMemory = (bytes: number) => void;

/**
 * An input's `data` already taken from the body's bytes (infer_body_reader.ts): take() gives
 * its tensor, charging `charge` for whatever it still has to build.
 */
export class ReadData {
  constructor(readonly take: (charge: ChargeMemory) => HostTensor) {}
}

/** JSON `data` must be an array (checked when the request is read, before anything is decoded). */
export function checkJsonData(input: string, data: JsonValue): void {
  if (!Array.isArray(data)) throw invalidArgument(`Input '${input}': 'data' must be an array, not ${describe(data)}`);
}

/** A request input's JSON `data`, flat or nested, holding exactly as many elements as `shape` says. */
export function tensorFromJson(input: string, dtype: DType, shape: number[], data: JsonValue, charge: ChargeMemory = () => {}): HostTensor {
  checkJsonData(input, data);
  const expected = numElements(shape);
  const count = countLeaves(data);
  if (count !== expected) {
    throw invalidArgument(`Input '${input}': 'data' has ${count} elements but shape [${shape.join(', ')}] needs ${expected}`);
  }
  charge(decodedTensorBytes(dtype, expected));
  // Strings: slots only, each filled with its own encoded bytes (no empty Uint8Array first).
  const values = dtype === 'string' ? new Array<Uint8Array>(expected) : allocValues(dtype, expected);
  encodedStringBytes = 0;
  fill(input, dtype, values, data, 0);
  charge(2 * encodedStringBytes);
  return { dtype, shape, values };
}

/**
 * A request input sent as binary tensor data: exactly the bytes `shape` and the datatype need.
 * What it will hold is charged before anything is copied or split: for BYTES, each element's
 * own Uint8Array and its bytes (what the body holds past the 4-byte lengths).
 */
export function tensorFromBytes(
  input: string,
  dtype: DType,
  shape: number[],
  bytes: Uint8Array,
  charge: ChargeMemory = () => {},
): HostTensor {
  const n = numElements(shape);
  if (dtype === 'string') {
    charge(decodedTensorBytes(dtype, n, Math.max(0, bytes.byteLength - 4 * n)));
    return { dtype, shape, values: splitBytesElements(input, n, bytes) };
  }
  const width = bytesPerElement(dtype);
  if (bytes.byteLength !== n * width) {
    throw invalidArgument(
      `Input '${input}': binary_data_size is ${bytes.byteLength} bytes but shape [${shape.join(', ')}] of ${datatypeOfDtype(dtype)} needs ${n * width}`,
    );
  }
  charge(n * width);
  // A copy (a Buffer's slice() would be a view): typed arrays need aligned offsets.
  const copy = new Uint8Array(bytes);
  const values = new TYPED_ARRAY[dtype](copy.buffer, 0, n);
  if (dtype === 'bool') for (let i = 0; i < n; i++) (values as Uint8Array)[i] = values[i] ? 1 : 0;
  return { dtype, shape, values };
}

/** BYTES elements: a 4-byte little-endian length, then that many bytes, `n` times, nothing left over. */
function splitBytesElements(input: string, n: number, bytes: Uint8Array): Uint8Array[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out: Uint8Array[] = [];
  let at = 0;
  while (at < bytes.byteLength) {
    if (out.length === n || at + 4 > bytes.byteLength)
      throw invalidArgument(`Input '${input}': binary BYTES data does not hold ${n} length-prefixed elements`);
    const length = view.getUint32(at, true);
    at += 4;
    if (at + length > bytes.byteLength)
      throw invalidArgument(`Input '${input}': BYTES element ${out.length} claims ${length} bytes; only ${bytes.byteLength - at} are left`);
    out.push(Uint8Array.prototype.slice.call(bytes, at, at + length));
    at += length;
  }
  if (out.length !== n) throw invalidArgument(`Input '${input}': binary BYTES data holds ${out.length} elements but its shape needs ${n}`);
  return out;
}

/**
 * A float32 as the shortest decimal that reads back as the same float32 (6 significant digits
 * when they do, as TF Serving's %g, else up to 9). NaN and ±Infinity are written bare, as TF
 * Serving's REST API writes them (Python's json module reads them).
 */
export function float32Text(v: number): string {
  if (!Number.isFinite(v)) return Number.isNaN(v) ? 'NaN' : v > 0 ? 'Infinity' : '-Infinity';
  if (Object.is(v, -0)) return '-0'; // String(-0) is "0"
  for (let p = 6; p < 9; p++) {
    const x = Number(v.toPrecision(p));
    if (Math.fround(x) === v) return String(x);
  }
  return String(Number(v.toPrecision(9)));
}

function float64Text(v: number): string {
  if (!Number.isFinite(v)) return Number.isNaN(v) ? 'NaN' : v > 0 ? 'Infinity' : '-Infinity';
  return Object.is(v, -0) ? '-0' : String(v);
}

/** One element of an output as JSON text. */
function elementText(t: HostTensor, i: number): string {
  switch (t.dtype) {
    case 'string':
      return JSON.stringify(utf8Decoder.decode((t.values as Uint8Array[])[i]));
    case 'bool':
      return (t.values as Uint8Array)[i] ? 'true' : 'false';
    case 'float32':
      return float32Text((t.values as Float32Array)[i]);
    case 'float64':
      return float64Text((t.values as Float64Array)[i]);
    case 'float16':
      return float32Text(halfToFloat((t.values as Uint16Array)[i]));
    case 'bfloat16':
      return float32Text(bfloat16ToFloat((t.values as Uint16Array)[i]));
    default:
      return String((t.values as Int32Array | BigInt64Array)[i]);
  }
}

/** Elements written per event-loop turn by jsonDataText (tens of milliseconds of work). */
export const DATA_SLICE_ELEMENTS = 256 * 1024;

/**
 * An output's `data` as JSON text: always flat, row-major (the response's `shape` gives the
 * dimensions). Gives the event loop back every DATA_SLICE_ELEMENTS elements, so that other
 * clients are answered while a large output is written.
 */
export async function jsonDataText(t: HostTensor): Promise<string> {
  const n = t.values.length;
  const parts = new Array<string>(n);
  for (let i = 0; i < n; i++) {
    parts[i] = elementText(t, i);
    if ((i + 1) % DATA_SLICE_ELEMENTS === 0) await new Promise<void>((resolve) => setImmediate(resolve));
  }
  return `[${parts.join(',')}]`;
}

/** An output as binary tensor data. */
export function tensorToBytes(t: HostTensor): Uint8Array {
  if (t.dtype !== 'string') {
    const v = t.values as Exclude<TensorValues, Uint8Array[]>;
    return new Uint8Array(v.buffer, v.byteOffset, v.byteLength);
  }
  const elements = t.values as Uint8Array[];
  const out = new Uint8Array(elements.reduce((a, e) => a + 4 + e.byteLength, 0));
  const view = new DataView(out.buffer);
  let at = 0;
  for (const e of elements) {
    view.setUint32(at, e.byteLength, true);
    out.set(e, at + 4);
    at += 4 + e.byteLength;
  }
  return out;
}
