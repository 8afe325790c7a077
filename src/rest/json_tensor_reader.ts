// The :predict body read straight from its bytes into the tensors' typed arrays: no JSON tree,
// no object per number. It reads the bodies clients send most — "instances" or "inputs" of
// dense nested lists of numbers, booleans, strings or {"b64": …} values — and declines
// everything else, and every body with anything wrong in it, to the general parser
// (json_parse.ts + json_tensor.ts), which gives TF Serving's answer or error text. It never
// gives an answer of its own: a body it reads, the general path reads to the same tensors
// (test/helpers/predict_both_ways.ts holds both to that, bit for bit, on every case of
// json_tensor's tests and on generated bodies).
//
// One pass when the signature is known before the tensors are read (signatureNameAhead: the
// name given first, or nowhere) and every input it fills is float / double:
//   readFloatBody    reads the body once, each tensor's storage grown as its numbers come
//                    (charged before each allocation), then copied to its exact size.
// Otherwise two passes over the bytes, so that memory is charged before it is taken:
//   planTensorBody   checks the whole body (RapidJSON's grammar, tfgate's depth and element
//                    limits, each tensor's dense shape) and counts each tensor's elements,
//                    building nothing; it needs no signature.
//   readTensorBody   given the plan and the signature's dtypes, allocates each tensor once at
//                    its planned size and fills it in a second walk, numbers converted as read
//                    (decimal_double.ts: correctly rounded, as Number() would).
// What the reader holds is its tensors plus a constant (json_footprint.ts, tensorReadBytes),
// charged between the passes.
//
// A float32 tensor's numbers take a faster road (readFloat32): the digits gathered as one
// double and scaled once (Clinger's exact case, or, past 2^53, checked to give the same
// float32 as the correctly rounded double would), and lists of short inner lists of a known
// width (an image's rows of pixels) read in one loop (float32Rows); whatever that road is not
// sure of goes the exact way above.
//
//   {"signature_name": "s", "instances": [[0.5, 1], [2, 3e-1]]}   plan: signature s, row format,
//                                                                  one plain tensor [2, 2] of numbers
//   {"inputs": {"ids": [[1, 2]], "mask": [[true, false]]}}        plan: columnar, ids [1, 2], mask [1, 2]
//
// Declined (the general parser answers): escapes in strings or keys, non-ASCII keys, duplicate
// members where they matter, empty lists, null, ragged lists, a body at or over the depth or
// element limits, numbers past the exponent range RapidJSON may refuse, anything malformed; and
// from the signature: a type a leaf does not fit, an integer out of range, an input missing.
import { dtypeFromTf, type DType } from '../tensor/dtype.js';
import { TYPED_ARRAY, type HostTensor, type TensorValues } from '../tensor/host_tensor.js';
import { isMainThread } from 'node:worker_threads';
import { MIN_MOVED_BYTES, markRequestOwned } from '../tensor/request_owned.js';
import { decodedTensorBytes } from '../tensor/tensor_cost.js';
import type { SignatureSpec } from '../savedmodel/signature_spec.js';
import { MAX_DIGITS, W1_DIGITS, nearestDouble } from './decimal_double.js';
import { tensorReadBytes } from './json_footprint.js';
import { Float32Window } from './json_float32_kernel.js';
import { base64DecodedBound, base64UnescapeBytes } from './base64.js';
import type { ChargeMemory, JsonFormat, ParsedPredictRequest } from './json_tensor.js';

export interface TensorReaderLimits {
  /** --json_max_depth: the root object is depth 1. */
  maxDepth: number;
  /** --json_max_elements: list items and object members over the whole body. */
  maxElements: number;
}

/** What a planned tensor's leaves were seen to be (bits of PlannedTensor.leaves). */
const LEAF_NUMBER = 1;
const LEAF_STRING = 2;
const LEAF_B64 = 4;
const LEAF_BOOL = 8;

interface PlannedTensor {
  /** The input it names; undefined for a plain value (fed to the signature's one input). */
  key: string | undefined;
  /** As the general path shapes it (row format: the batch dimension first). */
  shape: number[];
  size: number;
  /** LEAF_* bits. */
  leaves: number;
  /** An upper bound of its strings' bytes once decoded (UTF-8 text, b64 data). */
  stringBytes: number;
}

/** A body checked and counted by planTensorBody. */
export interface TensorBodyPlan {
  signatureName: string | undefined;
  format: JsonFormat;
  /** In the order the body names them. */
  tensors: PlannedTensor[];
}

/** How a tensor is filled: the storage kind (json_tensor.ts LeafKind), or counted / checked only. */
const COUNT = 0;
const FLOAT = 1;
const INT32 = 2;
const UINT32 = 3;
const INT64 = 4;
const UINT64 = 5;
const BOOL = 6;
const STRING = 7;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const LBRACKET = 0x5b;
const RBRACKET = 0x5d;
const LBRACE = 0x7b;
const RBRACE = 0x7d;
const MINUS = 0x2d;
const PLUS = 0x2b;
const DOT = 0x2e;
const ZERO = 0x30;
const NINE = 0x39;

/** The root members :predict reads, as rootKey() tells them (by index), and any other. */
const ROOT_KEYS = ['signature_name', 'instances', 'inputs'].map((k) => new TextEncoder().encode(k));
/** '"signature_name"', for Buffer's search of a body's rest (signatureAhead). */
const QUOTED_SIGNATURE_NAME = Buffer.from('"signature_name"');
/** signatureAhead searches a rest of this many bytes or more with Buffer's native indexOf. */
const NATIVE_SEARCH_BYTES = 512;
const ROOT_SIGNATURE_NAME = 0;
const ROOT_INSTANCES = 1;
const ROOT_INPUTS = 2;
const ROOT_OTHER = -1;

/** Thrown inside the reader to decline the body (caught at its entry points, never escapes). */
const DECLINE: unique symbol = Symbol('tfgate.tensorReader.decline');
function decline(): never {
  throw DECLINE;
}

/** RapidJSON refuses some numbers with a positive exponent past 308 ("Number too big"): those are the general parser's. */
const MAX_EXPONENT = 308;
/** Numbers whose digits alone could be "too big" (over 308 integer digits) are declined early. */
const MAX_NUMBER_CHARS = 300;
/** Members nobody reads are skipped by recursion: deeper ones are the general parser's (it has no stack to overflow). */
const MAX_SKIP_DEPTH = 256;
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const UINT64_MAX = 2n ** 64n - 1n;
const TWO_32 = 4294967296;
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
const utf8Encoder = new TextEncoder();
/** Bytes that may start a number (-, digits, NaN, Inf), and that may be in one (those, . e E + and the letters of NaN / Infinity). */
const NUMBER_START = new Uint8Array(256);
const NUMBER_CHAR = new Uint8Array(256);
for (const c of '-0123456789NI') NUMBER_START[c.charCodeAt(0)] = 1;
for (const c of '-+.eE0123456789NaInfity') NUMBER_CHAR[c.charCodeAt(0)] = 1;

interface TensorState {
  key: string | undefined;
  /** Nesting of its leaves below the tensor's first level; -1 until the first leaf. */
  rank: number;
  /** Each level's list length, -1 until the first list of that level closes. */
  dims: number[];
  /** Items read so far in the open list of each level. */
  counts: number[];
  leaves: number;
  stringBytes: number;
  /** Row format with named inputs: the instance that last gave this input (a repeat is declined). */
  instance: number;
  /** One pass: the byte where its first number was stored (to estimate how many follow). */
  from: number;
  /** One pass: its first storage, in elements (the signature's row, see firstCapacity). */
  firstCapacity: number;
  // ---- filling ----
  kind: number;
  values: TensorValues | undefined;
  /** int64 / uint64 storage as 32-bit words (no BigInt per number). */
  words: Int32Array | undefined;
  n: number;
  /** One pass (readFloatBody): the input it fills, when it fills one. */
  target: { name: string; dtype: DType } | undefined;
}

function newState(key: string | undefined): TensorState {
  return {
    key,
    rank: -1,
    // Room for four levels at first (most tensors have no more): an empty list grows to 17.
    dims: [-1, -1, -1, -1],
    counts: [0, 0, 0, 0],
    leaves: 0,
    stringBytes: 0,
    instance: -1,
    from: 0,
    firstCapacity: FIRST_CAPACITY,
    kind: COUNT,
    values: undefined,
    words: undefined,
    n: 0,
    target: undefined,
  };
}

/**
 * Checks and counts a :predict body (see the file's header); undefined when the general
 * parser must read it. Builds nothing but the plan.
 */
export function planTensorBody(bytes: Uint8Array, limits: TensorReaderLimits): TensorBodyPlan | undefined {
  if (!LITTLE_ENDIAN) return undefined;
  const walk = new Walk(bytes, limits, undefined);
  try {
    walk.body();
  } catch (e) {
    if (e === DECLINE) return undefined;
    throw e;
  }
  return walk.plan();
}

/** A planned body's tensors for one signature: which input each fills, as which dtype. */
export interface TensorBinding {
  format: JsonFormat;
  /** Parallel to plan.tensors: the input and dtype it fills, or undefined (a member that names no input: checked, not built). */
  targets: Array<{ name: string; dtype: DType; kind: number } | undefined>;
  /** Inputs left out that take the signature's default. */
  defaults: readonly string[];
}

/**
 * Binds a plan to `signature` as json_tensor.ts's InputContext would, or undefined where that
 * would fail or where the leaves seen cannot fill the input's dtype (the general path then
 * says why).
 */
export function bindTensorBody(plan: TensorBodyPlan, signature: SignatureSpec): TensorBinding | undefined {
  const inputs = signatureInputs(signature);
  const names = inputs.names;
  if (names.length === 0) return undefined;
  const targets: TensorBinding['targets'] = new Array(plan.tensors.length);
  let filled = 0;
  for (let k = 0; k < plan.tensors.length; k++) {
    const t = plan.tensors[k];
    const name = t.key === undefined ? inputs.plainTarget : t.key;
    if (name === undefined) return undefined;
    const input = inputs.byName.get(name);
    if (input === undefined) {
      // Row format: an instance naming no input is an error; columnar: ignored.
      if (plan.format === 'row') return undefined;
      targets[k] = undefined;
      continue;
    }
    if (input.dtype === undefined || input.kind === undefined || !leavesFit(t.leaves, input.kind)) return undefined;
    targets[k] = input.target;
    filled++;
  }
  // Each input is filled at most once (a key twice is declined): all filled, none defaulted.
  if (filled === names.length) return { format: plan.format, targets, defaults: NO_DEFAULTS };
  const isFilled = (n: string) => targets.some((target) => target?.name === n);
  // Every input without a default given (row format checks every instance gives the same ones).
  if (inputs.required.some((n) => !isFilled(n))) return undefined;
  return { format: plan.format, targets, defaults: names.filter((n) => !isFilled(n)) };
}

const NO_DEFAULTS: readonly string[] = [];

/** What the reader needs of a signature's inputs, worked out once per signature (a SignatureSpec is not changed once made). */
interface SignatureInputs {
  /** Sorted. */
  names: string[];
  /** Those without a default. */
  required: string[];
  /** The input a plain value feeds (json_tensor.ts plainTarget), if any. */
  plainTarget: string | undefined;
  byName: Map<
    string,
    { dtype: DType | undefined; kind: number | undefined; target: { name: string; dtype: DType; kind: number }; firstCapacity: number }
  >;
}

/**
 * One pass: a tensor's first storage, in elements. Where the signature fixes every dimension
 * after the first (an MLP's [-1, 256], an image's [-1, 224, 224, 3]), one row of them: a
 * one-row body is then stored once, at its size (FIRST_CAPACITY and the exact copy after it
 * were two allocations, one of 4 KB, for a row of 256 floats), a longer one grows from there by
 * the bytes per number. Otherwise, or for rows under 16 numbers, FIRST_CAPACITY.
 */
function firstCapacity(shape: readonly number[] | null): number {
  if (shape === null || shape.length < 2) return FIRST_CAPACITY;
  let row = 1;
  for (let d = 1; d < shape.length; d++) {
    if (!(shape[d] >= 0)) return FIRST_CAPACITY;
    row *= shape[d];
  }
  return row >= 16 ? row : FIRST_CAPACITY;
}

const signatureInputsCache = new WeakMap<SignatureSpec, SignatureInputs>();

function signatureInputs(signature: SignatureSpec): SignatureInputs {
  let inputs = signatureInputsCache.get(signature);
  if (inputs !== undefined) return inputs;
  const names = Object.keys(signature.inputs).sort();
  const required = names.filter((n) => !Object.hasOwn(signature.defaults, n));
  const byName: SignatureInputs['byName'] = new Map();
  for (const name of names) {
    const dtype = dtypeFromTf(signature.inputs[name].dtype);
    const kind = fillKind(signature.inputs[name].dtype);
    byName.set(name, {
      dtype,
      kind,
      target: { name, dtype: dtype!, kind: kind! },
      firstCapacity: firstCapacity(signature.inputs[name].shape),
    });
  }
  inputs = { names, required, plainTarget: names.length === 1 ? names[0] : required.length === 1 ? required[0] : undefined, byName };
  signatureInputsCache.set(signature, inputs);
  return inputs;
}

/** The reader's storage kind for a TF dtype (json_tensor.ts inputType), or undefined (not read here). */
function fillKind(tf: string): number | undefined {
  switch (tf) {
    case 'DT_FLOAT':
    case 'DT_DOUBLE':
      return FLOAT;
    case 'DT_INT32':
    case 'DT_INT16':
    case 'DT_INT8':
    case 'DT_UINT8':
    case 'DT_UINT16':
      return INT32;
    case 'DT_UINT32':
      return UINT32;
    case 'DT_INT64':
      return INT64;
    case 'DT_UINT64':
      return UINT64;
    case 'DT_BOOL':
      return BOOL;
    case 'DT_STRING':
      return STRING;
    default:
      return undefined;
  }
}

function leavesFit(leaves: number, kind: number): boolean {
  if (kind === BOOL) return leaves === LEAF_BOOL;
  if (kind === STRING) return (leaves & ~(LEAF_STRING | LEAF_B64)) === 0;
  return leaves === LEAF_NUMBER;
}

/** What the reader will hold for a bound plan: its tensors and its own state (json_footprint.ts). */
export function boundTensorBytes(plan: TensorBodyPlan, binding: TensorBinding): number {
  const tensors: Array<{ dtype: DType; size: number; stringBytes: number }> = [];
  for (let k = 0; k < plan.tensors.length; k++) {
    const target = binding.targets[k];
    if (target) tensors.push({ dtype: target.dtype, size: plan.tensors[k].size, stringBytes: plan.tensors[k].stringBytes });
  }
  return tensorReadBytes(tensors);
}

/**
 * The tensors of a planned, bound body, each allocated once at its planned size; undefined
 * when a number does not fit its input (a float literal for an int32, out of range …): the
 * general path then answers.
 */
export function readTensorBody(
  bytes: Uint8Array,
  limits: TensorReaderLimits,
  plan: TensorBodyPlan,
  binding: TensorBinding,
  signature: SignatureSpec,
): ParsedPredictRequest | undefined {
  const walk = new Walk(bytes, limits, { plan, binding });
  try {
    walk.body();
  } catch (e) {
    if (e === DECLINE) return undefined;
    throw e;
  }
  const inputs: Record<string, HostTensor> = {};
  const states = walk.tensorStates();
  for (let k = 0; k < states.length; k++) {
    const target = binding.targets[k];
    if (target) setInput(inputs, target.name, { dtype: target.dtype, shape: plan.tensors[k].shape, values: states[k].values! });
  }
  for (const name of binding.defaults) inputs[name] = signature.defaults[name];
  return { format: plan.format, inputs };
}

/**
 * Storage of more than 64 bytes (V8 keeps smaller typed arrays on its heap) up to
 * MIN_MOVED_BYTES (included: a row of 256 floats, which costs about the same copied or moved)
 * is a view into a shared slab, as Node's Buffer pool does: an ArrayBuffer of its own costs
 * 0.3–1 µs to allocate and collect (1.5–1.8 µs at 1 KiB), a view 35 ns. Such tensors are
 * copied, never moved, when sent (request_owned.ts); only on the main thread, where a parser
 * thread's answer would clone the whole slab.
 */
const SLAB_BYTES = 8192;
const HEAP_TYPED_ARRAY_BYTES = 64;
let slab = new ArrayBuffer(0);
let slabUsed = 0;

function smallStorage(dtype: Exclude<DType, 'string'>, size: number): Exclude<TensorValues, Uint8Array[]> | undefined {
  const Kind = TYPED_ARRAY[dtype];
  const bytes = size * Kind.BYTES_PER_ELEMENT;
  if (bytes <= HEAP_TYPED_ARRAY_BYTES || bytes > MIN_MOVED_BYTES || !isMainThread) return undefined;
  if (slabUsed + bytes > slab.byteLength) {
    slab = new ArrayBuffer(SLAB_BYTES);
    slabUsed = 0;
  }
  const values = new Kind(slab, slabUsed, size);
  slabUsed += (bytes + 7) & ~7;
  return values;
}

/**
 * A parser thread's storage for the tensor a body grows in one pass, kept from body to body:
 * readFloatBody copies the tensor out at its exact size at the end anyway, and memory fresh from
 * the kernel costs a page fault per 4 KiB the first time it is written (on a 2-core VM, 310
 * faults, about 4 of the 9.5 ms, when a 3.37 MB body of 153 600 floats grew in new buffers).
 * Not on the main thread (it parses small bodies only), and one tensor of a body at a time.
 */
const GROWTH_SCRATCH_MAX_BYTES = 16 * 1024 * 1024;
let growthScratch = new ArrayBuffer(0);

/** Lets this thread's growth scratch go (its parser thread, once idle a while). */
export function releaseGrowthScratch(): void {
  growthScratch = new ArrayBuffer(0);
}

/** inputs[name] = tensor, marked the request's own; "__proto__" too as an own member. */
function setInput(inputs: Record<string, HostTensor>, name: string, tensor: HostTensor): void {
  if (name === '__proto__')
    Object.defineProperty(inputs, name, { value: markRequestOwned(tensor), enumerable: true, writable: true, configurable: true });
  else inputs[name] = markRequestOwned(tensor);
}

interface FillSpec {
  plan: TensorBodyPlan;
  binding: TensorBinding;
}

/**
 * The body's "signature_name" when it is certain before the tensors are read: given ahead of
 * "instances" / "inputs" ({name}), or found nowhere after them ({name: undefined}: no
 * '"signature_name"' in the rest of the bytes and no escape that could spell it); undefined
 * when not certain (planTensorBody then finds it).
 */
export function signatureNameAhead(bytes: Uint8Array, limits: TensorReaderLimits): { name: string | undefined } | undefined {
  if (!LITTLE_ENDIAN) return undefined;
  try {
    return { name: new Walk(bytes, limits, undefined).signatureAhead() };
  } catch (e) {
    if (e === DECLINE) return undefined;
    throw e;
  }
}

/**
 * One pass, for bodies whose inputs are all float / double: each tensor's storage grows as
 * its numbers are read (charged before each allocation: at most twice the tensor, then its
 * exact copy), so nothing needs counting first. undefined where the walk declines (another
 * input dtype, anything planTensorBody would decline, anything wrong): the caller then plans.
 */
export function readFloatBody(
  bytes: Uint8Array,
  limits: TensorReaderLimits,
  signature: SignatureSpec,
  charge: ChargeMemory,
): ParsedPredictRequest | undefined {
  if (!LITTLE_ENDIAN || Object.keys(signature.inputs).length === 0) return undefined;
  const walk = new Walk(bytes, limits, undefined, { signature, charge, plainTarget: signatureInputs(signature).plainTarget });
  try {
    walk.body();
  } catch (e) {
    if (e === DECLINE) return undefined;
    throw e;
  }
  const plan = walk.plan();
  const inputs: Record<string, HostTensor> = {};
  const states = walk.tensorStates();
  for (let k = 0; k < states.length; k++) {
    const target = states[k].target;
    if (target === undefined) continue;
    const { shape, size } = plan.tensors[k];
    const grown = states[k].values as Float32Array | Float64Array;
    if (states[k].n !== size) return undefined;
    let values = grown;
    if (grown.length !== size) {
      charge(decodedTensorBytes(target.dtype, size));
      const small = smallStorage(target.dtype as 'float32' | 'float64', size) as Float32Array | Float64Array | undefined;
      if (small !== undefined) small.set(grown.subarray(0, size));
      values = small ?? grown.slice(0, size);
    } else if (walk.inScratch(states[k])) {
      // Its size already (and charged as such): copied out of the scratch all the same.
      values = grown.slice();
    }
    setInput(inputs, target.name, { dtype: target.dtype, shape, values });
  }
  for (const name of Object.keys(signature.inputs)) {
    if (Object.hasOwn(inputs, name)) continue;
    if (!Object.hasOwn(signature.defaults, name)) return undefined;
    inputs[name] = signature.defaults[name];
  }
  return { format: plan.format, inputs };
}

/** What readTensorList gives: the list's values, where it ends, the body's elements counted up to there. */
export interface TensorListRead {
  /** The leaves, stored; undefined when only counted (no dtype given). */
  values: TensorValues | undefined;
  /** How many leaves the list holds. */
  leaves: number;
  /** Counted only: whether every leaf is a string (without escapes). */
  strings: boolean;
  /** The index after the list's closing bracket. */
  end: number;
  /** `elements` plus the list's items (--json_max_elements, counted as json_parse.ts counts). */
  elements: number;
}

/** The dtypes readTensorList fills (FP16/BF16 and the narrow integers are the caller's to convert). */
const LIST_KIND: Partial<Record<DType, number>> = {
  float32: FLOAT,
  float64: FLOAT,
  int32: INT32,
  uint32: UINT32,
  int64: INT64,
  uint64: UINT64,
  bool: BOOL,
  string: STRING,
};

/**
 * The JSON list at bytes[at] as the values of a tensor whose dtype and element count a request
 * declares (KServe v2 "data": flat, or nested to any dense shape, row-major), for a format that
 * reads no {"b64": …} leaves: exactly `size` leaves stored in a new array of `dtype`'s storage
 * (allocated here: charge it first), each checked as `dtype` takes it (numbers for float /
 * double, integer literals in range for the integers, true / false, strings without escapes).
 * Without a dtype the list is only checked and counted (no storage). `depth`: the containers
 * around the list (the root object is 1); `elements`: the body's items counted before it.
 * undefined where the reader declines (anything else, a ragged or empty list, the limits
 * reached): the caller's general path then says what is wrong.
 */
export function readTensorList(
  bytes: Uint8Array,
  at: number,
  limits: TensorReaderLimits,
  dtype: DType | undefined,
  size: number,
  depth: number,
  elements: number,
): TensorListRead | undefined {
  const kind = dtype === undefined ? COUNT : LIST_KIND[dtype];
  if (!LITTLE_ENDIAN || kind === undefined || bytes[at] !== LBRACKET) return undefined;
  try {
    return new Walk(bytes, limits, undefined).list(at, dtype, kind, size, depth, elements);
  } catch (e) {
    if (e === DECLINE) return undefined;
    throw e;
  }
}

interface DirectSpec {
  signature: SignatureSpec;
  charge: ChargeMemory;
  plainTarget: string | undefined;
}

/** Exact powers of ten as doubles, 10^0 … 10^22 (Clinger's fast path). */
const POW10 = new Float64Array(23).map((_, k) => 10 ** k);
/** 2^53: digits gathered to a total below it were gathered exactly. */
const EXACT_INTEGER = 9007199254740992;
/**
 * The longest number readFloat32 reads, in digits and point: at most 24 digits (their rounding
 * error stays far inside the bracket below) and at most 22 fraction digits (10^22 is exact).
 */
const MAX_FAST_CHARS = 24;
/** The bracket around an inexact double within which its float32 must not change: ±2^-47. */
const BRACKET_LOW = 1 - 2 ** -47;
const BRACKET_HIGH = 1 + 2 ** -47;

/**
 * The number at b[i] stored as out[n], as the general path stores it in a float32 tensor (the
 * correctly rounded double, then rounded to float32: RapidJSON's double cast to float), when
 * it is of the common form -?(0|[1-9][0-9]*)(.[0-9]+)? and the result is certain without the
 * exact conversion; returns the index after the number, or -1 (nothing stored: float() reads
 * it). Its digits are gathered as one double w, the decimal being w · 10^p (p = minus the
 * fraction digits):
 * * w below 2^53 (so every step was exact) and p ≥ -22 (Clinger): w and 10^-p are exact, one
 *   division is the correctly rounded double.
 * * w from 2^53 on (16 to 24 digits) and p ≥ -22: w / 10^-p is within 2^-48 of the decimal
 *   (at most 9 digit steps past 2^53 lose at most 2^-52 each, the division 2^-53), so when
 *   every double within 2^-47 of it rounds to the same float32 (rounding is monotonic: both
 *   ends of that bracket do), that is the float32 of the correctly rounded double too. It is
 *   not when the decimal lies that close to a halfway point between two floats32 (about one
 *   number in 2^22): then -1.
 * Anything else (an exponent, NaN, Infinity, more digits, anything malformed): -1. Kept
 * under V8's inlining size, so that the loops calling it store each number with no call.
 */
function readFloat32(b: Uint8Array, i: number, out: Float32Array, n: number): number {
  let c = b[i];
  const negative = c === MINUS;
  if (negative) c = b[++i];
  const first = i;
  let dot = -1;
  let w = 0;
  for (;;) {
    if (c >= ZERO && c <= NINE) w = w * 10 + (c - ZERO);
    else if (c === DOT && dot < 0) dot = i;
    else break;
    c = b[++i];
  }
  // Grammar: digits before and after the point, no leading zero; and no exponent.
  if (i === first || dot === first || dot === i - 1) return -1;
  if (b[first] === ZERO && (dot < 0 ? i : dot) !== first + 1) return -1;
  const fraction = dot < 0 ? 0 : i - dot - 1;
  if (c === 0x65 || c === 0x45 || i - first > MAX_FAST_CHARS) return -1;
  let v = w / POW10[fraction];
  if (w >= EXACT_INTEGER) {
    const f = Math.fround(v);
    if (Math.fround(v * BRACKET_LOW) !== f || Math.fround(v * BRACKET_HIGH) !== f) return -1;
    v = f;
  }
  // An integer literal "-0" is RapidJSON's Int 0; "-0.0" is -0.
  out[n] = negative && (w !== 0 || fraction !== 0) ? -v : v;
  return i;
}

/**
 * Float32 lists are read by the WebAssembly kernel (json_float32_kernel.ts), what it leaves by
 * readFloat32 / float(); in bodies shorter than this, by those alone: setting up the kernel's
 * window costs more than it saves on a few numbers (a row of 3 or 10: 0.25–0.5 µs more per
 * body with it; about even at 30).
 */
const KERNEL_MIN_BYTES = 256;
let useKernel = true;
let kernelMinBytes = KERNEL_MIN_BYTES;

/**
 * Turns the kernel off (false) or on, for bodies of at least `minBytes`: tests compare the two
 * roads bit for bit (with the kernel on every body: minBytes 0).
 */
export function useFloat32Kernel(on: boolean, minBytes = KERNEL_MIN_BYTES): void {
  useKernel = on;
  kernelMinBytes = minBytes;
}

/** Keys up to this long are made from their bytes one by one (V8 keeps them flat: no rope to flatten for a lookup). */
const SHORT_KEY = 12;

/** Tensors looked up by key through their list up to this many, then by a Map. */
const LINEAR_KEYS = 16;

/** A growing tensor's first capacity, in elements. */
const FIRST_CAPACITY = 1024;

/** One walk over a body: planning (fill and direct undefined), filling a plan, or one pass (direct). */
class Walk {
  private i = 0;
  private elements = 0;
  private readonly maxDepth: number;
  private readonly maxElements: number;
  private signatureName: string | undefined;
  private format: JsonFormat | undefined;
  private readonly tensors: TensorState[] = [];
  /** The tensors by key, once there are too many to look through (most bodies have one to a few). */
  private byKey: Map<string | undefined, TensorState> | undefined;
  /** Set by integer(): the literal had more than 15 digits; its text is [longStart, i). */
  private longInt = false;
  private longStart = 0;
  /** Set by b64Span: the index of the b64 string's closing quote. */
  private spanEnd = 0;
  /** The body as a Buffer, for its texts (made when first needed: most small bodies need none). */
  private textBuffer: Buffer | undefined;
  /** Numbers are checked to RapidJSON's grammar (filling, one pass), not only skipped (planning). */
  private readonly checks: boolean;
  /** The body's window in the float32 kernel's memory, made when a float32 list is first read. */
  private window: Float32Window | undefined;
  /** Float32 lists are read by the kernel (useFloat32Kernel). */
  private readonly kernel: boolean;
  /** {"b64": …} leaves are binary strings (:predict), or declined (readTensorList). */
  private b64Leaves = true;
  /** One pass on a parser thread: the tensor growing in growthScratch, and its storage there. */
  private scratchOwner: TensorState | undefined;
  private scratchView: Float32Array | Float64Array | undefined;

  constructor(
    private readonly b: Uint8Array,
    limits: TensorReaderLimits,
    private readonly fill: FillSpec | undefined,
    private readonly direct?: DirectSpec,
  ) {
    this.maxDepth = limits.maxDepth;
    this.maxElements = limits.maxElements;
    this.checks = fill !== undefined || direct !== undefined;
    this.kernel = useKernel && b.length >= kernelMinBytes;
  }

  private get text(): Buffer {
    return (this.textBuffer ??= Buffer.from(this.b.buffer, this.b.byteOffset, this.b.byteLength));
  }

  /** signatureNameAhead's walk over the root object's members up to the tensors. */
  signatureAhead(): string | undefined {
    const b = this.b;
    let i = this.ws(0);
    if (b[i] !== LBRACE) decline();
    i = this.ws(i + 1);
    let name: string | undefined;
    let seen = false;
    for (;;) {
      this.i = i;
      const key = this.rootKey();
      i = this.i;
      if (key === ROOT_SIGNATURE_NAME) {
        if (seen || b[i] !== QUOTE) decline();
        const end = this.stringEnd(i);
        name = this.asciiText(i + 1, end, false);
        seen = true;
        this.i = end + 1;
      } else if (key === ROOT_INSTANCES || key === ROOT_INPUTS) {
        if (seen) return name;
        // Past a few hundred bytes Buffer's native search beats the typed array's own loop (a
        // 5 KB body: 0.5 µs against 5.7 for both searches), its view made then included.
        if (b.length - i >= NATIVE_SEARCH_BYTES) {
          if (this.text.indexOf(BACKSLASH, i) >= 0 || this.text.indexOf(QUOTED_SIGNATURE_NAME, i) >= 0) decline();
        } else if (b.indexOf(BACKSLASH, i) >= 0 || this.quoted(ROOT_KEYS[ROOT_SIGNATURE_NAME], i)) decline();
        return undefined;
      } else {
        this.skipValue(1);
      }
      i = this.ws(this.i);
      if (b[i] !== COMMA) decline();
      i = this.ws(i + 1);
    }
  }

  /** Whether '"' + key + '"' is in the body from byte `from` on (no Buffer or string made for it). */
  private quoted(key: Uint8Array, from: number): boolean {
    const b = this.b;
    for (let q = b.indexOf(QUOTE, from); q >= 0; q = b.indexOf(QUOTE, q + 1)) {
      let k = 0;
      while (k < key.length && b[q + 1 + k] === key[k]) k++;
      if (k === key.length && b[q + 1 + k] === QUOTE) return true;
    }
    return false;
  }

  /** One pass: the input a new tensor fills, its storage started (or none: a member no input takes). */
  private bindDirect(t: TensorState): void {
    const { signature, plainTarget } = this.direct!;
    const name = t.key === undefined ? plainTarget : t.key;
    if (name === undefined) decline();
    if (!Object.hasOwn(signature.inputs, name)) {
      // Row format: an instance naming no input is an error; columnar: ignored.
      if (this.format === 'row') decline();
      return;
    }
    const { dtype, kind, firstCapacity } = signatureInputs(signature).byName.get(name)!;
    if (kind !== FLOAT || (dtype !== 'float32' && dtype !== 'float64')) decline();
    t.kind = FLOAT;
    t.firstCapacity = firstCapacity;
    t.target = { name, dtype };
    t.values = dtype === 'float64' ? new Float64Array(0) : new Float32Array(0);
  }

  /**
   * Room for one more number in t's storage: one pass grows it (charged first); filling a
   * plan never needs to (its storage has the planned size: a longer list is declined).
   */
  private grow(t: TensorState, n: number, at: number): Float32Array | Float64Array {
    if (this.direct === undefined) decline();
    const old = t.values as Float32Array | Float64Array;
    // First t.firstCapacity; then as many more as the rest of the body holds at the bytes per
    // number seen so far, and a sixteenth (a dense body grows once or twice, not log n times:
    // what is charged stays charged), at least half as much again, at most 16 times as much
    // (the rest may hold other things). No more than the rest of the body can hold (a number
    // and a separator from byte `at` on): a small body's tensor is allocated once, at about
    // its size. `n`: the numbers already stored (at least one more fits either way).
    const rest = this.b.length - at;
    if (n === 0) t.from = at;
    const estimate = n === 0 ? t.firstCapacity : Math.min(16 * old.length, n + Math.ceil(((rest * n) / Math.max(1, at - t.from)) * 1.0625));
    const capacity = Math.min(Math.max(estimate, old.length + (old.length >> 1), n + 1), n + 1 + (rest >> 1));
    this.direct.charge(decodedTensorBytes(t.target!.dtype, capacity));
    const Kind = old.constructor as Float32ArrayConstructor | Float64ArrayConstructor;
    // (Never .buffer of a small array here: V8 keeps it on its heap until asked for its buffer,
    // then moves it off: that tripled the read of a 3-number body.)
    const scratch = isMainThread ? undefined : this.scratchStorage(t, old, Kind, capacity);
    if (scratch !== undefined) return (t.values = scratch);
    const grown =
      (smallStorage(t.target!.dtype as 'float32' | 'float64', capacity) as Float32Array | Float64Array | undefined) ?? new Kind(capacity);
    grown.set(old);
    t.values = grown;
    return grown;
  }

  /** Storage for `capacity` of t's numbers in growthScratch, holding its `old` ones, when t may use it (see there). */
  private scratchStorage(
    t: TensorState,
    old: Float32Array | Float64Array,
    Kind: Float32ArrayConstructor | Float64ArrayConstructor,
    capacity: number,
  ) {
    const bytes = capacity * Kind.BYTES_PER_ELEMENT;
    if (bytes > GROWTH_SCRATCH_MAX_BYTES || (this.scratchOwner !== undefined && this.scratchOwner !== t)) return undefined;
    this.scratchOwner = t;
    // Grown in place: its numbers are there already.
    let inPlace = old === this.scratchView;
    if (growthScratch.byteLength < bytes) {
      growthScratch = new ArrayBuffer(Math.min(GROWTH_SCRATCH_MAX_BYTES, 2 ** Math.ceil(Math.log2(bytes))));
      inPlace = false;
    }
    const grown = new Kind(growthScratch, 0, capacity);
    if (!inPlace) grown.set(old);
    this.scratchView = grown;
    return grown;
  }

  /** Whether t's storage is growthScratch (copied out before it is handed over). */
  inScratch(t: TensorState): boolean {
    return this.scratchView !== undefined && t.values === this.scratchView;
  }

  /** readTensorList's walk: one list at `at`, `outside` containers deep, `size` leaves of kind (COUNT: counted only). */
  list(at: number, dtype: DType | undefined, kind: number, size: number, outside: number, elements: number): TensorListRead {
    this.i = at;
    this.elements = elements;
    this.b64Leaves = false;
    const t = newState(undefined);
    t.kind = kind;
    if (dtype === 'string') t.values = new Array<Uint8Array>(size);
    else if (dtype !== undefined) {
      t.values = new TYPED_ARRAY[dtype](size);
      if (kind === INT64 || kind === UINT64) t.words = new Int32Array(t.values.buffer, 0, size * 2);
    }
    this.tensorValue(t, 0, outside);
    const leaves = t.rank < 0 ? 0 : t.dims.slice(0, t.rank).reduce((a, d) => a * d, 1);
    if (kind !== COUNT && (t.n !== size || leaves !== size)) decline();
    return {
      values: t.values,
      leaves,
      strings: t.leaves === LEAF_STRING,
      end: this.i,
      elements: this.elements,
    };
  }

  plan(): TensorBodyPlan {
    return {
      signatureName: this.signatureName,
      format: this.format!,
      tensors: this.tensors.map((t) => {
        const shape = t.dims.slice(0, t.rank);
        let size = 1;
        for (let k = 0; k < shape.length; k++) size *= shape[k];
        return { key: t.key, shape, size, leaves: t.leaves, stringBytes: t.stringBytes };
      }),
    };
  }

  tensorStates(): TensorState[] {
    return this.tensors;
  }

  // ---- the root object ------------------------------------------------------------------------

  body(): void {
    const b = this.b;
    let i = this.ws(0);
    if (b[i] !== LBRACE || 1 > this.maxDepth) decline();
    i = this.ws(i + 1);
    if (b[i] === RBRACE) decline(); // no instances or inputs: the general path's error
    let seenSignature = false;
    for (;;) {
      this.i = i;
      const key = this.rootKey();
      i = this.i;
      if (key === ROOT_SIGNATURE_NAME) {
        if (seenSignature || b[i] !== QUOTE) decline();
        seenSignature = true;
        const end = this.stringEnd(i);
        if (this.fill === undefined) this.signatureName = this.asciiText(i + 1, end, true);
        this.i = end + 1;
      } else if (key === ROOT_INSTANCES || key === ROOT_INPUTS) {
        if (this.format !== undefined) decline();
        this.format = key === ROOT_INSTANCES ? 'row' : 'columnar';
        if (key === ROOT_INSTANCES) this.instances();
        else this.inputs();
      } else {
        this.skipValue(1);
      }
      this.count();
      i = this.ws(this.i);
      if (b[i] === COMMA) {
        i = this.ws(i + 1);
        continue;
      }
      if (b[i] !== RBRACE) decline();
      // Stop when done: what follows the root object is not read (RapidJSON's kParseStopWhenDoneFlag).
      break;
    }
    if (this.format === undefined) decline();
    if (this.fill === undefined && seenSignature && this.signatureName === undefined) decline();
  }

  /** One more list item or object member (--json_max_elements, counted as json_parse.ts counts). */
  private count(): void {
    if (++this.elements >= this.maxElements) decline();
  }

  /** A member key at i (ASCII, no escapes), its colon and the whitespace before the value; i ends at the value. */
  private key(): string {
    const start = this.i + 1;
    const end = this.keyEnd();
    if (end - start > SHORT_KEY) return this.text.toString('latin1', start, end);
    // A short key from its bytes: no Buffer view of the body, no call out of JavaScript.
    let key = '';
    for (let k = start; k < end; k++) key += String.fromCharCode(this.b[k]);
    return key;
  }

  /** A root member's key as ROOT_* (no string made for it). */
  private rootKey(): number {
    const b = this.b;
    const start = this.i + 1;
    const end = this.keyEnd();
    for (let r = 0; r < ROOT_KEYS.length; r++) {
      const key = ROOT_KEYS[r];
      if (end - start !== key.length) continue;
      let k = 0;
      while (k < key.length && b[start + k] === key[k]) k++;
      if (k === key.length) return r;
    }
    return ROOT_OTHER;
  }

  /** Checks a member key at i as key() does (ASCII, no escapes), its text not made: returns the index of its closing quote. */
  private keyEnd(): number {
    const b = this.b;
    let i = this.i;
    if (b[i] !== QUOTE) decline();
    const end = this.stringEnd(i);
    for (let k = i + 1; k < end; k++) if (b[k] >= 0x80) decline();
    i = this.ws(end + 1);
    if (b[i] !== COLON) decline();
    this.i = this.ws(i + 1);
    return end;
  }

  /** A string's text when it is all printable ASCII; else undefined (`orUndefined`) or declined. */
  private asciiText(start: number, end: number, orUndefined: boolean): string | undefined {
    const b = this.b;
    for (let k = start; k < end; k++) {
      if (b[k] >= 0x80) {
        if (orUndefined) return undefined;
        decline();
      }
    }
    return this.text.toString('latin1', start, end);
  }

  /**
   * The index of the closing quote of the string opening at i; declines on escapes (the
   * general parser reads those) and on control characters (RapidJSON refuses them).
   */
  private stringEnd(i: number): number {
    const b = this.b;
    const close = b.indexOf(QUOTE, i + 1);
    if (close < 0) decline();
    for (let k = i + 1; k < close; k++) {
      const c = b[k];
      if (c < 0x20 || c === BACKSLASH) decline();
    }
    return close;
  }

  private ws(i: number): number {
    const b = this.b;
    for (;;) {
      const c = b[i];
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) i++;
      else return i;
    }
  }

  /** The state of the tensor an input key (undefined: the plain value) names, made when planning. */
  private state(key: string | undefined, instance: number): TensorState {
    let t = this.find(key);
    if (t === undefined) {
      // Filling meets the keys the plan met, in the same order.
      if (this.fill !== undefined || instance > 0) decline();
      t = newState(key);
      t.instance = instance;
      this.add(t);
      if (this.direct !== undefined) this.bindDirect(t);
      return t;
    }
    if (t.instance === instance) decline(); // the same input twice in one object
    t.instance = instance;
    return t;
  }

  private find(key: string | undefined): TensorState | undefined {
    if (this.byKey !== undefined) return this.byKey.get(key);
    const tensors = this.tensors;
    for (let k = 0; k < tensors.length; k++) if (tensors[k].key === key) return tensors[k];
    return undefined;
  }

  private add(t: TensorState): void {
    const tensors = this.tensors;
    if (this.byKey === undefined && tensors.length === LINEAR_KEYS) this.byKey = new Map(tensors.map((s) => [s.key, s]));
    this.byKey?.set(t.key, t);
    tensors.push(t);
  }

  /** Filling: a tensor's storage at its planned size (charged by the caller: boundTensorBytes). */
  private prepare(t: TensorState, index: number): void {
    const fill = this.fill!;
    const planned = fill.plan.tensors[index];
    const target = fill.binding.targets[index];
    // Planned dims are enforced while filling, so a tensor is never written past its size.
    // Into the room newState made for four levels (past it, a copy of the shape).
    if (planned.shape.length <= t.dims.length) for (let k = 0; k < planned.shape.length; k++) t.dims[k] = planned.shape[k];
    else t.dims = [...planned.shape];
    t.rank = planned.shape.length;
    if (fill.plan.format === 'row' && fill.plan.tensors.length > 0 && planned.key !== undefined) t.dims[0] = -1;
    if (!target) return; // checked, not built
    t.kind = target.kind;
    if (target.dtype === 'string') t.values = new Array<Uint8Array>(planned.size);
    else if (target.kind !== INT64 && target.kind !== UINT64)
      t.values = smallStorage(target.dtype, planned.size) ?? new TYPED_ARRAY[target.dtype](planned.size);
    else {
      t.values = new TYPED_ARRAY[target.dtype](planned.size);
      if (target.kind === INT64 || target.kind === UINT64) t.words = new Int32Array(t.values.buffer, 0, planned.size * 2);
    }
  }

  private startFill(): void {
    if (this.fill === undefined) return;
    // The plan's tensors, made in the plan's order, before the walk meets them.
    for (const p of this.fill.plan.tensors) this.add(newState(p.key));
    this.tensors.forEach((t, k) => this.prepare(t, k));
  }

  // ---- instances and inputs ----------------------------------------------------------------

  /** "instances": a list of tensors (one input) or of objects naming inputs. */
  private instances(): void {
    const b = this.b;
    let i = this.i;
    if (b[i] !== LBRACKET || 2 > this.maxDepth) decline();
    const first = this.ws(i + 1);
    if (b[first] === RBRACKET) decline();
    this.startFill();
    if (b[first] !== LBRACE || this.isB64(first)) {
      // A plain list: the whole list is the tensor, its first dimension the batch.
      const t = this.fill ? this.tensors[0] : this.state(undefined, 0);
      if (t === undefined || t.key !== undefined) decline();
      this.tensorValue(t, 0, 1);
      return;
    }
    // Objects naming inputs: each one's members append to their input's tensor.
    const planned = this.fill?.plan.tensors[0].shape[0];
    let instance = 0;
    i = first;
    for (;;) {
      if (b[i] !== LBRACE || this.isB64(i) || 3 > this.maxDepth || (planned !== undefined && instance >= planned)) decline();
      i = this.ws(i + 1);
      if (b[i] === RBRACE) decline();
      let members = 0;
      for (;;) {
        this.i = i;
        const key = this.key();
        const t = this.state(key, instance);
        members++;
        this.tensorValue(t, 1, 3);
        this.count();
        i = this.ws(this.i);
        if (b[i] === COMMA) {
          i = this.ws(i + 1);
          continue;
        }
        if (b[i] !== RBRACE) decline();
        i++;
        break;
      }
      // Every instance names the same inputs.
      if (members !== this.tensors.length) decline();
      instance++;
      this.count();
      i = this.ws(i);
      if (b[i] === COMMA) {
        i = this.ws(i + 1);
        continue;
      }
      if (b[i] !== RBRACKET) decline();
      this.i = i + 1;
      break;
    }
    if (planned !== undefined && instance !== planned) decline();
    for (const t of this.tensors) t.dims[0] = instance;
  }

  /** "inputs": one tensor (a plain value or a b64 object), or an object of them by input name. */
  private inputs(): void {
    const b = this.b;
    const i = this.i;
    this.startFill();
    if (b[i] !== LBRACE || this.isB64(i)) {
      const t = this.fill ? this.tensors[0] : this.state(undefined, 0);
      if (t === undefined || t.key !== undefined) decline();
      this.tensorValue(t, 0, 1);
      return;
    }
    if (2 > this.maxDepth) decline();
    let k = this.ws(i + 1);
    if (b[k] === RBRACE) decline();
    for (;;) {
      this.i = k;
      const key = this.key();
      const t = this.state(key, 0);
      this.tensorValue(t, 0, 2);
      this.count();
      k = this.ws(this.i);
      if (b[k] === COMMA) {
        k = this.ws(k + 1);
        continue;
      }
      if (b[k] !== RBRACE) decline();
      this.i = k + 1;
      return;
    }
  }

  /** True when the object at i is {"b64": …}: a binary string, not named inputs (IsValBase64Object). */
  private isB64(i: number): boolean {
    const b = this.b;
    const k = this.ws(i + 1);
    return b[k] === QUOTE && b[k + 1] === 0x62 && b[k + 2] === 0x36 && b[k + 3] === 0x34 && b[k + 4] === QUOTE;
  }

  // ---- one tensor ------------------------------------------------------------------------------

  /**
   * One value of tensor t at `base` (its first level, or 1 for an instance's member: level 0
   * is the batch), `outside` containers deep. Lists are checked against the dense shape their
   * first elements set (json_tensor.ts denseShape / fillTensor), leaves read by leaf().
   */
  private tensorValue(t: TensorState, base: number, outside: number): void {
    const b = this.b;
    const dims = t.dims;
    const counts = t.counts;
    let i = this.i;
    let level = base;
    for (;;) {
      // ---- a value at `level` ----
      if (b[i] === LBRACKET) {
        if (level > base && level + 1 === t.rank && dims[level] >= 0 && t.values instanceof Float32Array) {
          // An inner list whose length is known (a row of pixels, a one-value row): it and
          // the rest of its list read at once, then that list closed as a value of its parent.
          const l = level - 1;
          const k = counts[l] + this.float32Rows(t, i, dims[l] >= 0 ? dims[l] - counts[l] : Number.MAX_SAFE_INTEGER, dims[level]);
          if (dims[l] < 0) dims[l] = k;
          else if (k !== dims[l]) decline();
          counts[l] = k;
          i = this.i;
          level = l;
        } else {
          if ((t.rank >= 0 && level >= t.rank) || outside + level - base + 1 > this.maxDepth) decline();
          i = this.ws(i + 1);
          if (b[i] === RBRACKET) decline();
          while (dims.length <= level) dims.push(-1);
          counts[level] = 0;
          level++;
          continue;
        }
      } else {
        if (t.rank < 0) t.rank = level;
        else if (level !== t.rank) decline();
        if (level > base && counts[level - 1] === 0 && (t.kind === FLOAT || t.kind === COUNT) && NUMBER_START[b[i]] === 1) {
          // A list of numbers (most of a float body): read whole, then closed as a value of its parent.
          const l = level - 1;
          const k = this.numberRow(t, i, dims[l] >= 0 ? dims[l] : Number.MAX_SAFE_INTEGER);
          this.elements += k;
          if (this.elements >= this.maxElements) decline();
          if (dims[l] < 0) dims[l] = k;
          else if (k !== dims[l]) decline();
          counts[l] = k;
          i = this.i;
          level = l;
        } else {
          this.i = i;
          this.leaf(t, outside + level - base);
          i = this.i;
        }
      }
      // ---- after a value: the next item, or close lists ----
      for (;;) {
        if (level === base) {
          this.i = i;
          return;
        }
        const l = level - 1;
        const k = ++counts[l];
        if (++this.elements >= this.maxElements) decline();
        let c = b[i];
        if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) {
          i = this.ws(i);
          c = b[i];
        }
        if (c === COMMA) {
          if (dims[l] >= 0 && k >= dims[l]) decline();
          i = this.ws(i + 1);
          break;
        }
        if (c !== RBRACKET) decline();
        if (dims[l] < 0) dims[l] = k;
        else if (k !== dims[l]) decline();
        i++;
        level = l;
      }
    }
  }

  /**
   * The numbers of a list from its first at i to its closing bracket (this.i ends after it),
   * at most `limit` of them: stored (FLOAT) or counted; returns how many. Anything but numbers
   * in the list is declined (for a numeric input the general path refuses it too).
   */
  private numberRow(t: TensorState, i: number, limit: number): number {
    if (t.values instanceof Float32Array) return this.float32Row(t, i, limit);
    const b = this.b;
    let k = 0;
    let fill = t.kind === FLOAT ? (t.values as Float32Array | Float64Array) : undefined;
    const check = this.checks;
    let n = t.n;
    for (;;) {
      if (k === limit) decline();
      if (fill !== undefined) {
        if (n === fill.length) fill = this.grow(t, n, i);
        // Inline, the common form: -?(0|[1-9][0-9]*)(.[0-9]+)? of at most 19 significant
        // digits, gathered as float() gathers them (w1: the first 15, w2: up to 4 more) and
        // converted by nearestDouble. Anything else (an exponent, more digits, NaN, a
        // conversion nearestDouble is unsure of …) is float()'s, from the number's start.
        let j = i;
        let c = b[j];
        const negative = c === MINUS;
        if (negative) c = b[++j];
        let w1 = 0;
        let w2 = 0;
        let k2 = 0;
        let digits = 0;
        let p = 0;
        let plain = true;
        if (c === ZERO) c = b[++j];
        else if (c > ZERO && c <= NINE) {
          do {
            if (digits < W1_DIGITS) w1 = w1 * 10 + (c - ZERO);
            else if (digits < MAX_DIGITS) {
              w2 = w2 * 10 + (c - ZERO);
              k2++;
            } else plain = false;
            digits++;
            c = b[++j];
          } while (c >= ZERO && c <= NINE);
        } else plain = false;
        const dot = c === DOT;
        if (dot) {
          c = b[++j];
          if (!(c >= ZERO && c <= NINE)) plain = false;
          while (c >= ZERO && c <= NINE) {
            if (digits === 0 && c === ZERO) p--;
            else if (digits < W1_DIGITS) {
              w1 = w1 * 10 + (c - ZERO);
              p--;
              digits++;
            } else if (digits < MAX_DIGITS) {
              w2 = w2 * 10 + (c - ZERO);
              k2++;
              p--;
              digits++;
            } else plain = false;
            c = b[++j];
          }
        }
        const v = plain && c !== 0x65 && c !== 0x45 ? nearestDouble(w1, w2, k2, p) : NaN;
        if (v === v) {
          // An integer literal "-0" is RapidJSON's Int 0; "-0.0" is -0.
          fill[n++] = negative && (dot || v !== 0) ? -v : v;
          i = j;
        } else {
          this.i = i;
          this.float(fill, n++);
          i = this.i;
        }
      } else if (check) {
        this.i = i;
        this.skipNumber();
        i = this.i;
      } else {
        // Planning only finds where a number ends; filling checks its grammar.
        if (NUMBER_START[b[i]] !== 1) decline();
        do i++;
        while (NUMBER_CHAR[b[i]] === 1);
      }
      k++;
      let c = b[i];
      while (c <= 0x20 && (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09)) c = b[++i];
      if (c === COMMA) {
        c = b[++i];
        while (c <= 0x20 && (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09)) c = b[++i];
        continue;
      }
      if (c !== RBRACKET) decline();
      this.i = i + 1;
      t.n = n;
      t.leaves |= LEAF_NUMBER;
      return k;
    }
  }

  /** numberRow for a float32 tensor: each number by readFloat32, or float() when it is unsure. */
  private float32Row(t: TensorState, i: number, limit: number): number {
    const b = this.b;
    let fill = t.values as Float32Array;
    let n = t.n;
    const first = n;
    for (;;) {
      if (this.kernel) {
        // The plain numbers from here on by the kernel; the item it leaves, if any, below.
        const w = (this.window ??= new Float32Window(b));
        i = w.read(i, fill, n, limit - (n - first), 0);
        n += w.stored;
        if (w.closed) {
          this.i = i;
          t.n = n;
          t.leaves |= LEAF_NUMBER;
          return n - first;
        }
      }
      if (n - first === limit) decline();
      if (n === fill.length) fill = this.grow(t, n, i) as Float32Array;
      const j = readFloat32(b, i, fill, n);
      if (j < 0) {
        this.i = i;
        this.float(fill, n);
        i = this.i;
      } else i = j;
      n++;
      let c = b[i];
      while (c <= 0x20 && (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09)) c = b[++i];
      if (c === COMMA) {
        c = b[++i];
        while (c <= 0x20 && (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09)) c = b[++i];
        continue;
      }
      if (c !== RBRACKET) decline();
      this.i = i + 1;
      t.n = n;
      t.leaves |= LEAF_NUMBER;
      return n - first;
    }
  }

  /**
   * Lists of exactly `width` numbers each (the inner dimension already known: the innermost
   * rows of an image batch, [[r, g, b], …] or [[x], …]), from the inner list at i to the
   * closing bracket of the list holding them (this.i ends after it), at most `limit` of them,
   * into a float32 tensor; returns how many inner lists. Counts elements as tensorValue
   * would; declines on anything else (a general walk would decline it too).
   */
  private float32Rows(t: TensorState, i: number, limit: number, width: number): number {
    const b = this.b;
    let fill = t.values as Float32Array;
    let n = t.n;
    let rows = 0;
    for (;;) {
      // The plain lists from here on by the kernel; the list it leaves, if any, below. (One
      // pass: the storage grown whenever it has no room for a list, so that none is left to
      // the loop below for want of room.)
      while (this.kernel) {
        if (fill.length - n < width && this.direct !== undefined) fill = this.grow(t, n, i) as Float32Array;
        const w = (this.window ??= new Float32Window(b));
        i = w.read(i, fill, n, limit - rows, width);
        n += w.stored;
        rows += w.rows;
        this.elements += w.rows * (width + 1);
        if (this.elements >= this.maxElements) decline();
        if (w.closed) {
          this.i = i;
          t.n = n;
          return rows;
        }
        if (w.rows === 0 || fill.length - n >= width || this.direct === undefined) break;
      }
      if (rows === limit || b[i] !== LBRACKET) decline();
      let c = b[++i];
      while (c <= 0x20 && (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09)) c = b[++i];
      for (let k = 1; ; k++) {
        if (n === fill.length) fill = this.grow(t, n, i) as Float32Array;
        const j = readFloat32(b, i, fill, n);
        if (j < 0) {
          this.i = i;
          this.float(fill, n);
          i = this.i;
        } else i = j;
        n++;
        c = b[i];
        while (c <= 0x20 && (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09)) c = b[++i];
        if (k === width) break;
        if (c !== COMMA) decline();
        c = b[++i];
        while (c <= 0x20 && (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09)) c = b[++i];
      }
      if (c !== RBRACKET) decline();
      rows++;
      // The inner list's numbers and the list itself, as items.
      this.elements += width + 1;
      if (this.elements >= this.maxElements) decline();
      c = b[++i];
      while (c <= 0x20 && (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09)) c = b[++i];
      if (c === COMMA) {
        c = b[++i];
        while (c <= 0x20 && (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09)) c = b[++i];
        continue;
      }
      if (c !== RBRACKET) decline();
      this.i = i + 1;
      t.n = n;
      return rows;
    }
  }

  /** A leaf at this.i, `depth` containers deep: counted (planning, or a member no input takes) or stored. */
  private leaf(t: TensorState, depth: number): void {
    const b = this.b;
    const i = this.i;
    const c = b[i];
    switch (t.kind) {
      case FLOAT: {
        let out = t.values as Float32Array | Float64Array;
        if (t.n === out.length) out = this.grow(t, t.n, i);
        this.float(out, t.n++);
        return;
      }
      case INT32: {
        const v = this.integer();
        if (this.longInt || v < -2147483648 || v > 2147483647) decline();
        (t.values as Int32Array)[t.n++] = v;
        return;
      }
      case UINT32: {
        const v = this.integer();
        if (this.longInt || v < 0 || v > 4294967295) decline();
        (t.values as Uint32Array)[t.n++] = v;
        return;
      }
      case INT64:
      case UINT64: {
        const v = this.integer();
        if (this.longInt) {
          const big = BigInt(this.text.toString('latin1', this.longStart, this.i));
          if (t.kind === INT64 ? big < INT64_MIN || big > INT64_MAX : big < 0n || big > UINT64_MAX) decline();
          (t.values as BigInt64Array | BigUint64Array)[t.n++] = big as never;
          return;
        }
        if (t.kind === UINT64 && v < 0) decline();
        // The value's two's-complement words, little-endian (v is a safe integer).
        const hi = Math.floor(v / TWO_32);
        const words = t.words!;
        words[2 * t.n] = v - hi * TWO_32;
        words[2 * t.n + 1] = hi;
        t.n++;
        return;
      }
      case BOOL:
        (t.values as Uint8Array)[t.n++] = this.boolean() ? 1 : 0;
        return;
      case STRING:
        (t.values as Uint8Array[])[t.n++] = c === LBRACE && this.b64Leaves ? this.b64(depth) : this.utf8String();
        return;
    }
    // Planning, or checking a member no input takes.
    if (c === QUOTE) {
      const end = this.stringEnd(i);
      let bytes = end - i - 1;
      for (let k = i + 1; k < end; k++) {
        if (b[k] >= 0x80) {
          // Invalid UTF-8 may decode to up to three bytes per byte (U+FFFD).
          bytes *= 3;
          break;
        }
      }
      t.leaves |= LEAF_STRING;
      t.stringBytes += bytes;
      this.i = end + 1;
    } else if (c === LBRACE) {
      if (!this.b64Leaves) decline();
      const start = this.b64Span(depth);
      t.leaves |= LEAF_B64;
      t.stringBytes += base64DecodedBound(this.spanEnd - start - 1);
    } else if (c === 0x74 || c === 0x66) {
      this.boolean();
      t.leaves |= LEAF_BOOL;
    } else {
      // Planning only finds where a number ends; filling checks its grammar.
      if (!this.checks) this.skipNumberChars();
      else this.skipNumber();
      t.leaves |= LEAF_NUMBER;
    }
  }

  /** true / false at this.i. */
  private boolean(): boolean {
    const b = this.b;
    const i = this.i;
    if (b[i] === 0x74 && b[i + 1] === 0x72 && b[i + 2] === 0x75 && b[i + 3] === 0x65) {
      this.i = i + 4;
      return true;
    }
    if (b[i] === 0x66 && b[i + 1] === 0x61 && b[i + 2] === 0x6c && b[i + 3] === 0x73 && b[i + 4] === 0x65) {
      this.i = i + 5;
      return false;
    }
    return decline();
  }

  /** A string leaf's bytes, as the general path encodes its text (UTF-8; invalid sequences as U+FFFD). */
  private utf8String(): Uint8Array {
    const b = this.b;
    const i = this.i;
    if (b[i] !== QUOTE) decline();
    const end = this.stringEnd(i);
    this.i = end + 1;
    for (let k = i + 1; k < end; k++) {
      if (b[k] >= 0x80) return utf8Encoder.encode(this.text.toString('utf8', i + 1, end));
    }
    return b.slice(i + 1, end);
  }

  /**
   * {"b64": "…"} at this.i, `depth` containers deep (exactly that one member): returns the
   * index of the string's opening quote, leaves spanEnd at its closing quote and this.i after
   * the object.
   */
  private b64Span(depth: number): number {
    const b = this.b;
    if (depth + 1 > this.maxDepth || !this.isB64(this.i)) decline();
    this.i = this.ws(this.i + 1);
    this.keyEnd();
    const i = this.i;
    if (b[i] !== QUOTE) decline();
    const end = this.stringEnd(i);
    this.count();
    const k = this.ws(end + 1);
    if (b[k] !== RBRACE) decline();
    this.i = k + 1;
    this.spanEnd = end;
    return i;
  }

  /** A b64 leaf's bytes, decoded as absl::Base64Unescape decodes (base64.ts). */
  private b64(depth: number): Uint8Array {
    const start = this.b64Span(depth);
    return base64UnescapeBytes(this.b, start + 1, this.spanEnd) ?? decline();
  }

  // ---- numbers ---------------------------------------------------------------------------------

  /**
   * A number at this.i stored as out[at], the double exactly as the general parser reads it
   * for a float input: the decimal correctly rounded (an integer literal "-0" is +0, as
   * RapidJSON's Int64 0), NaN / Inf / Infinity with their sign. (Stored here rather than
   * returned: a double returned from a call that is not inlined is boxed, one allocation
   * per number.)
   */
  private float(out: Float32Array | Float64Array, at: number): void {
    const b = this.b;
    let i = this.i;
    const start = i;
    let c = b[i];
    const negative = c === MINUS;
    if (negative) c = b[++i];
    if (c === 0x4e || c === 0x49) {
      this.i = i;
      const v = this.nanOrInfinity(c);
      // "-NaN" is NaN, as the general parser reads it (no sign bit: the tensors must match bit for bit).
      out[at] = negative && v === Infinity ? -v : v;
      return;
    }
    let w1 = 0;
    let w2 = 0;
    let k2 = 0;
    let digits = 0;
    let p = 0;
    let exact = true;
    // Integer part: 0 | [1-9][0-9]*
    if (c === ZERO) {
      c = b[++i];
    } else if (c > ZERO && c <= NINE) {
      do {
        if (digits < W1_DIGITS) w1 = w1 * 10 + (c - ZERO);
        else if (digits < MAX_DIGITS) {
          w2 = w2 * 10 + (c - ZERO);
          k2++;
        } else {
          exact = false;
          p++;
        }
        digits++;
        c = b[++i];
      } while (c >= ZERO && c <= NINE);
    } else {
      decline();
    }
    let integer = true;
    if (c === DOT) {
      integer = false;
      c = b[++i];
      if (!(c >= ZERO && c <= NINE)) decline();
      do {
        if (digits === 0 && c === ZERO) p--;
        else if (digits < W1_DIGITS) {
          w1 = w1 * 10 + (c - ZERO);
          p--;
          digits++;
        } else if (digits < MAX_DIGITS) {
          w2 = w2 * 10 + (c - ZERO);
          k2++;
          p--;
          digits++;
        } else exact = false;
        c = b[++i];
      } while (c >= ZERO && c <= NINE);
    }
    if (c === 0x65 || c === 0x45) {
      integer = false;
      c = b[++i];
      let expNegative = false;
      if (c === PLUS || c === MINUS) {
        expNegative = c === MINUS;
        c = b[++i];
      }
      if (!(c >= ZERO && c <= NINE)) decline();
      let e = 0;
      do {
        if (e < 1e6) e = e * 10 + (c - ZERO);
        c = b[++i];
      } while (c >= ZERO && c <= NINE);
      if (!expNegative && e > MAX_EXPONENT) decline();
      p += expNegative ? -e : e;
    }
    this.i = i;
    if (i - start > MAX_NUMBER_CHARS) decline();
    let v: number;
    if (integer && digits === 0)
      v = 0; // "-0" is the integer 0
    else {
      v = exact ? nearestDouble(w1, w2, k2, p) : NaN;
      if (v !== v) v = Number(this.text.toString('latin1', start, i));
      else if (negative) v = -v;
    }
    out[at] = v;
  }

  /** NaN, Inf or Infinity at this.i (kParseNanAndInfFlag), as a positive value or NaN. */
  private nanOrInfinity(c: number): number {
    const b = this.b;
    const i = this.i;
    if (c === 0x4e) {
      if (b[i + 1] !== 0x61 || b[i + 2] !== 0x4e) decline();
      this.i = i + 3;
      return NaN;
    }
    if (b[i + 1] !== 0x6e || b[i + 2] !== 0x66) decline();
    if (b[i + 3] === 0x69) {
      if (b[i + 4] !== 0x6e || b[i + 5] !== 0x69 || b[i + 6] !== 0x74 || b[i + 7] !== 0x79) decline();
      this.i = i + 8;
    } else this.i = i + 3;
    return Infinity;
  }

  /**
   * An integer literal at this.i (no fraction, no exponent: RapidJSON's Int/Uint/Int64/Uint64;
   * anything else is declined for an integer input). Up to 15 digits: its value. Longer: sets
   * longInt and longStart (the caller reads the text) and returns 0.
   */
  private integer(): number {
    const b = this.b;
    let i = this.i;
    const start = i;
    let c = b[i];
    const negative = c === MINUS;
    if (negative) c = b[++i];
    let v = 0;
    let digits = 0;
    if (c === ZERO) c = b[++i];
    else if (c > ZERO && c <= NINE) {
      do {
        v = v * 10 + (c - ZERO);
        digits++;
        c = b[++i];
      } while (c >= ZERO && c <= NINE);
    } else decline();
    if (c === DOT || c === 0x65 || c === 0x45) decline();
    this.i = i;
    this.longInt = digits > W1_DIGITS;
    this.longStart = start;
    if (i - start > MAX_NUMBER_CHARS) decline();
    return negative ? (v === 0 ? 0 : -v) : v;
  }

  /** Past the characters a number may hold, from a character that may start one (planning: filling checks). */
  private skipNumberChars(): void {
    const b = this.b;
    let i = this.i;
    if (!NUMBER_START[b[i]]) decline();
    do i++;
    while (NUMBER_CHAR[b[i]]);
    this.i = i;
  }

  /** A number at this.i, checked by RapidJSON's grammar (as float() reads it), not converted. */
  private skipNumber(): void {
    const b = this.b;
    let i = this.i;
    const start = i;
    let c = b[i];
    if (c === MINUS) c = b[++i];
    if (c === 0x4e || c === 0x49) {
      this.i = i;
      this.nanOrInfinity(c);
      return;
    }
    if (c === ZERO) c = b[++i];
    else if (c > ZERO && c <= NINE) {
      do c = b[++i];
      while (c >= ZERO && c <= NINE);
    } else decline();
    if (c === DOT) {
      c = b[++i];
      if (!(c >= ZERO && c <= NINE)) decline();
      do c = b[++i];
      while (c >= ZERO && c <= NINE);
    }
    if (c === 0x65 || c === 0x45) {
      c = b[++i];
      let expNegative = false;
      if (c === PLUS || c === MINUS) {
        expNegative = c === MINUS;
        c = b[++i];
      }
      if (!(c >= ZERO && c <= NINE)) decline();
      let e = 0;
      do {
        if (e < 1e6) e = e * 10 + (c - ZERO);
        c = b[++i];
      } while (c >= ZERO && c <= NINE);
      if (!expNegative && e > MAX_EXPONENT) decline();
    }
    this.i = i;
    if (i - start > MAX_NUMBER_CHARS) decline();
  }

  // ---- members nobody reads ----------------------------------------------------------------

  /** Any JSON value at this.i, `depth` containers deep, checked and counted, not kept. */
  private skipValue(depth: number): void {
    const b = this.b;
    const c = b[this.i];
    if (c === LBRACKET || c === LBRACE) {
      if (depth + 1 > this.maxDepth || depth >= MAX_SKIP_DEPTH) decline();
      const close = c === LBRACKET ? RBRACKET : RBRACE;
      let i = this.ws(this.i + 1);
      if (b[i] === close) {
        this.i = i + 1;
        return;
      }
      for (;;) {
        this.i = i;
        if (close === RBRACE) this.keyEnd();
        this.skipValue(depth + 1);
        this.count();
        i = this.ws(this.i);
        if (b[i] === COMMA) {
          i = this.ws(i + 1);
          continue;
        }
        if (b[i] !== close) decline();
        this.i = i + 1;
        return;
      }
    }
    if (c === QUOTE) {
      this.i = this.stringEnd(this.i) + 1;
      return;
    }
    if (c === 0x74 || c === 0x66) {
      this.boolean();
      return;
    }
    if (c === 0x6e) {
      if (b[this.i + 1] !== 0x75 || b[this.i + 2] !== 0x6c || b[this.i + 3] !== 0x6c) decline();
      this.i += 4;
      return;
    }
    this.skipNumber();
  }
}
