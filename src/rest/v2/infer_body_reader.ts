// An inference request's JSON read from its bytes with each input's `data` list read by the
// tensor reader (json_tensor_reader.ts readTensorList) straight into a typed array: no JSON
// tree of the data, no object per number. The rest of the object (id, parameters, each input's
// name, datatype, shape, the outputs) is small and built as the general parser builds it, so
// parseInferRequest checks it with its own errors. Each `data` becomes a ReadData:
//   numbers and booleans   read at once, in one pass (the dtype and the element count are
//                          declared, so the storage is allocated once, charged first); a
//                          `data` before its input's datatype or shape is counted first and
//                          read once the input's object is;
//   BYTES (strings)        checked and counted now, read once the input has been checked
//                          against the signature (each string is its own object: 192 bytes
//                          a string would otherwise be charged for a request refused anyway).
// The reader declines everything else, and every body with anything wrong or unusual in it
// (escapes, duplicate members, ragged or empty lists, a value out of its datatype's range, the
// limits reached, …): the general parser (json_parse.ts) then reads the whole body, which
// gives the same request, or the error.
import type { DType } from '../../tensor/dtype.js';
import type { HostTensor, TensorValues } from '../../tensor/host_tensor.js';
import { numElements } from '../../tensor/host_tensor.js';
import { decodedTensorBytes } from '../../tensor/tensor_cost.js';
import { floatToBfloat16, floatToHalf } from '../../tensor/half_encode.js';
import { parsedJsonBytes, stringBytes, type JsonCounts } from '../json_footprint.js';
import { readTensorList, type TensorReaderLimits } from '../json_tensor_reader.js';
import type { JsonObject, JsonValue } from '../json_parse.js';
import { dtypeOfDatatype } from './datatypes.js';
import { ReadData, type ChargeMemory } from './tensor_data.js';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const LBRACKET = 0x5b;
const RBRACKET = 0x5d;
const LBRACE = 0x7b;
const RBRACE = 0x7d;
const MINUS = 0x2d;
const DOT = 0x2e;
const ZERO = 0x30;
const NINE = 0x39;

/** Declines the body (caught in readInferBody). */
const DECLINE: unique symbol = Symbol('tfgate.v2.inferBody.decline');
function decline(): never {
  throw DECLINE;
}

/** The storage the reader fills for each datatype it reads; the others are converted from it. */
const READ_AS: Partial<Record<DType, DType>> = {
  float32: 'float32',
  float64: 'float64',
  float16: 'float64',
  bfloat16: 'float64',
  int8: 'int32',
  int16: 'int32',
  int32: 'int32',
  uint8: 'int32',
  uint16: 'int32',
  uint32: 'uint32',
  int64: 'int64',
  uint64: 'uint64',
  bool: 'bool',
  string: 'string',
};

const NARROW: Partial<Record<DType, [number, number]>> = {
  int8: [-128, 127],
  int16: [-32768, 32767],
  uint8: [0, 255],
  uint16: [0, 65535],
};

/**
 * The request object from `json` (the body's JSON part) with each `data` a ReadData, and
 * what was charged to build it; undefined when the general parser must read the body.
 * `charge` is told of each tensor's storage before it is allocated, and of the rest of what is
 * built once it is.
 */
export function readInferBody(json: Uint8Array, limits: TensorReaderLimits, charge: ChargeMemory): JsonValue | undefined {
  const scan = new Scan(json, limits, charge);
  try {
    return scan.root();
  } catch (e) {
    if (e === DECLINE) return undefined;
    throw e;
  }
}

/** A tensor read at once as a ReadData (made here: a closure made in Scan would hold the scan, and with it the body). */
function readData(tensor: HostTensor): JsonValue {
  return new ReadData(() => tensor) as unknown as JsonValue;
}

class Scan {
  private i = 0;
  /** List items and object members so far (--json_max_elements, as json_parse.ts counts them). */
  private elements = 0;
  /** What is built besides the tensors, as json_footprint.ts counts a parse. */
  private readonly built: JsonCounts = { elements: 0, containers: 0, members: 0, stringBytes: 0 };
  private readonly text: Buffer;
  private readonly b: Uint8Array;

  constructor(
    bytes: Uint8Array,
    private readonly limits: TensorReaderLimits,
    private readonly charge: ChargeMemory,
  ) {
    this.text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    // A plain Uint8Array, not a Buffer: the reader's strings are slice()s of it, copies (a
    // Buffer's slice() is a view, which would hold the whole body for each string).
    this.b = new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  root(): JsonObject {
    this.i = this.ws(0);
    if (this.b[this.i] !== LBRACE) decline();
    const root = this.object(1, (key, depth) => (key === 'inputs' ? this.inputs(depth) : this.value(depth)));
    // What follows the root object is not read (RapidJSON's kParseStopWhenDoneFlag).
    this.charge(parsedJsonBytes(this.built));
    return root;
  }

  /** "inputs": a list of input objects, each one's `data` read by the tensor reader. */
  private inputs(depth: number): JsonValue {
    if (this.b[this.i] !== LBRACKET) return this.value(depth);
    return this.array(depth + 1, (d) => {
      if (this.b[this.i] !== LBRACE) return this.value(d);
      const input: JsonObject = {};
      let early: number | undefined;
      const read = this.object(
        d + 1,
        (key, inner) => {
          if (key !== 'data') return this.value(inner);
          if (input.datatype !== undefined && input.shape !== undefined) return this.data(input, inner, this.i, false);
          // Before its datatype or shape: checked and counted now, read once the input's object is.
          early = this.i;
          const plan = readTensorList(this.b, this.i, this.limits, undefined, 0, inner, this.elements) ?? decline();
          this.done(plan.end, plan.elements);
          return null;
        },
        input,
      );
      if (early !== undefined) input.data = this.data(input, d + 1, early, true);
      return read;
    });
  }

  /**
   * An input's `data` at `at` inside `depth` containers (the input object's depth), for the
   * input's datatype and shape; `counted`: the list was counted already (this.i is past it).
   */
  private data(input: JsonObject, depth: number, at: number, counted: boolean): JsonValue {
    const dtype = typeof input.datatype === 'string' ? dtypeOfDatatype(input.datatype) : undefined;
    const readAs = dtype && READ_AS[dtype];
    const shape = input.shape;
    if (!dtype || !readAs || !Array.isArray(shape) || !shape.every((d) => typeof d === 'number' && Number.isSafeInteger(d) && d >= 0))
      decline();
    const size = numElements(shape as number[]);
    // Each leaf takes two bytes at least ("1,"): a size the rest of the body cannot hold is not allocated.
    if (size === 0 || size > this.limits.maxElements || size > (this.b.length - at + 1) / 2) decline();
    // A list counted already is not counted again (its elements are in this.elements).
    const elements = counted ? 0 : this.elements;
    if (readAs === 'string') {
      // Checked and counted now; read once the input is checked (ReadData.take).
      const plan = readTensorList(this.b, at, this.limits, undefined, size, depth, elements) ?? decline();
      if (!plan.strings || plan.leaves !== size) decline();
      if (!counted) this.done(plan.end, plan.elements);
      const dims = shape as number[];
      return new ReadData((charge) => ({
        dtype: 'string',
        shape: dims,
        values: this.strings(at, size, depth, charge),
      })) as unknown as JsonValue;
    }
    this.charge(decodedTensorBytes(readAs, size));
    const read = readTensorList(this.b, at, this.limits, readAs, size, depth, elements) ?? decline();
    if (!counted) this.done(read.end, read.elements);
    const values = this.converted(dtype, read.values!);
    return readData({ dtype, shape: shape as number[], values });
  }

  private done(end: number, elements: number): void {
    this.i = end;
    this.elements = elements;
  }

  /** A BYTES input's strings, read from the list checked at `at`; what they hold is charged as tensorFromJson charges it. */
  private strings(at: number, size: number, depth: number, charge: ChargeMemory): TensorValues {
    charge(decodedTensorBytes('string', size));
    // The list was checked: it reads (with an element count of its own, which was checked too).
    const read = readTensorList(this.b, at, this.limits, 'string', size, depth, 0);
    if (read === undefined) throw new Error('a BYTES list checked by the tensor reader did not read');
    let bytes = 0;
    for (const s of read.values as Uint8Array[]) bytes += s.byteLength;
    charge(2 * bytes);
    return read.values!;
  }

  /** The reader's storage as `dtype`'s: FP16 / BF16 from the doubles read, narrow integers range-checked. */
  private converted(dtype: DType, values: TensorValues): TensorValues {
    if (dtype === 'float16' || dtype === 'bfloat16') {
      const doubles = values as Float64Array;
      this.charge(decodedTensorBytes(dtype, doubles.length));
      const out = new Uint16Array(doubles.length);
      const encode = dtype === 'float16' ? floatToHalf : floatToBfloat16;
      for (let k = 0; k < doubles.length; k++) out[k] = encode(doubles[k]);
      return out;
    }
    const range = NARROW[dtype];
    if (range === undefined) return values;
    const ints = values as Int32Array;
    for (let k = 0; k < ints.length; k++) if (ints[k] < range[0] || ints[k] > range[1]) decline();
    this.charge(decodedTensorBytes(dtype, ints.length));
    const Kind = { int8: Int8Array, int16: Int16Array, uint8: Uint8Array, uint16: Uint16Array }[dtype as 'int8'];
    return Kind.from(ints);
  }

  // ---- small JSON values, built as json_parse.ts builds them ---------------------------------------

  /** Any value at this.i, inside `depth` containers; declines what the general parser may read differently. */
  private value(depth: number): JsonValue {
    const b = this.b;
    const c = b[this.i];
    if (c === LBRACE) return this.object(depth + 1, (_, d) => this.value(d));
    if (c === LBRACKET) return this.array(depth + 1, (d) => this.value(d));
    if (c === QUOTE) return this.string();
    if (c === 0x74 && this.literal('true')) return true;
    if (c === 0x66 && this.literal('false')) return false;
    if (c === 0x6e && this.literal('null')) return null;
    return this.number();
  }

  /**
   * An object at this.i at `depth` (the root is 1), each member's value by `member(key, depth)`;
   * declines duplicate keys and "__proto__" (the general parser keeps the first, and defines that one).
   */
  private object(depth: number, member: (key: string, depth: number) => JsonValue, into: JsonObject = {}): JsonObject {
    if (depth > this.limits.maxDepth) decline();
    this.built.containers++;
    let i = this.ws(this.i + 1);
    if (this.b[i] === RBRACE) {
      this.i = i + 1;
      return into;
    }
    for (;;) {
      this.i = i;
      if (this.b[i] !== QUOTE) decline();
      const key = this.string();
      i = this.ws(this.i);
      if (this.b[i] !== COLON || key === '__proto__' || Object.hasOwn(into, key)) decline();
      this.i = this.ws(i + 1);
      into[key] = member(key, depth);
      this.count();
      this.built.members++;
      i = this.ws(this.i);
      if (this.b[i] === COMMA) {
        i = this.ws(i + 1);
        continue;
      }
      if (this.b[i] !== RBRACE) decline();
      this.i = i + 1;
      return into;
    }
  }

  /** An array at this.i at `depth`, each item by `item(depth)`. */
  private array(depth: number, item: (depth: number) => JsonValue): JsonValue[] {
    if (depth > this.limits.maxDepth) decline();
    this.built.containers++;
    const out: JsonValue[] = [];
    let i = this.ws(this.i + 1);
    if (this.b[i] === RBRACKET) {
      this.i = i + 1;
      return out;
    }
    for (;;) {
      this.i = i;
      out.push(item(depth));
      this.count();
      i = this.ws(this.i);
      if (this.b[i] === COMMA) {
        i = this.ws(i + 1);
        continue;
      }
      if (this.b[i] !== RBRACKET) decline();
      this.i = i + 1;
      return out;
    }
  }

  private count(): void {
    this.built.elements++;
    if (++this.elements >= this.limits.maxElements) decline();
  }

  /** A string without escapes or control characters, decoded as the general parser's text would be. */
  private string(): string {
    const b = this.b;
    const start = this.i + 1;
    const end = b.indexOf(QUOTE, start);
    if (end < 0) decline();
    let ascii = true;
    for (let k = start; k < end; k++) {
      const c = b[k];
      if (c < 0x20 || c === BACKSLASH) decline();
      if (c >= 0x80) ascii = false;
    }
    this.i = end + 1;
    const s = this.text.toString(ascii ? 'latin1' : 'utf8', start, end);
    this.built.stringBytes += stringBytes(s.length, false);
    return s;
  }

  private literal(word: string): boolean {
    for (let k = 1; k < word.length; k++) if (this.b[this.i + k] !== word.charCodeAt(k)) decline();
    this.i += word.length;
    return true;
  }

  /**
   * A number of at most 15 digits and a one- or two-digit exponent: the general parser's value
   * (the correctly rounded double; an integer literal "-0" is 0). Anything else is declined.
   */
  private number(): number {
    const b = this.b;
    const start = this.i;
    let i = start;
    if (b[i] === MINUS) i++;
    const first = i;
    let digits = 0;
    if (b[i] === ZERO) {
      i++;
      digits++;
    } else if (b[i] > ZERO && b[i] <= NINE) {
      while (b[i] >= ZERO && b[i] <= NINE) {
        i++;
        digits++;
      }
    } else decline();
    let integer = true;
    if (b[i] === DOT) {
      integer = false;
      i++;
      if (!(b[i] >= ZERO && b[i] <= NINE)) decline();
      while (b[i] >= ZERO && b[i] <= NINE) {
        i++;
        digits++;
      }
    }
    if (b[i] === 0x65 || b[i] === 0x45) {
      integer = false;
      i++;
      if (b[i] === 0x2b || b[i] === MINUS) i++;
      const e = i;
      while (b[i] >= ZERO && b[i] <= NINE) i++;
      if (i === e || i - e > 2) decline();
    }
    if (digits > 15) decline();
    this.i = i;
    const v = Number(this.text.toString('latin1', start, i));
    return integer && v === 0 && i - first === 1 ? 0 : v;
  }

  private ws(i: number): number {
    const b = this.b;
    for (;;) {
      const c = b[i];
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) i++;
      else return i;
    }
  }
}
