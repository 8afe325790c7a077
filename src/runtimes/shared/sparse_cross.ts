// TensorFlow's SparseCross, SparseCrossHashed and SparseCrossV2 (what feature columns'
// crossed_column, Keras HashedCrossing and tf.sparse.cross compile to), on HostTensors with
// int64 held exactly as BigInt (tensorflow/core/kernels/sparse_cross_op.cc):
//   - each row crosses every feature of every column with every other: the cartesian
//     product, last column fastest (ProductIterator); a row with an empty column has none;
//   - string crosses join the features with a separator ("_X_" for SparseCross, `sep` for
//     V2), int64 features written as std::to_string writes them;
//   - SparseCross's hashed crosses (out_type int64): h = hash_key, then
//     h = FingerprintCat64(h, f) for each feature f — Fingerprint64 of a string's bytes, an
//     int64's own value; SparseCrossHashed starts from the first feature's fingerprint and
//     fingerprints a *sparse* int64 by the first 4 bytes of its little-endian value (TF's
//     `sizeof(values_.dtype())`, the size of the DataType enum), or, with strong_hash, hashes
//     those bytes and strings with SipHash keyed by `salt`;
//   - a hash is taken modulo num_buckets as unsigned 64-bit, or modulo INT64_MAX when
//     num_buckets is 0.
// Columns are read as TF reads them: a sparse column's features for row b are the entries
// from where row b-1's ended while indices[., 0] == b (indices ordered by row, as every
// SparseTensor TF makes is); the batch size is the first sparse shape's, else the first
// dense input's first dim. TF's input checks and messages (ValidateInput) come first.
import { Code, ServingError, invalidArgument } from '../../errors/status.js';
import type { HostTensor } from '../../tensor/host_tensor.js';
import { fingerprint64, fingerprintCat64 } from './hash/farmhash_fingerprint64.js';
import { sipHash24 } from './hash/siphash.js';
import { joinBytes } from './join_bytes.js';

export type SparseCrossOp = 'SparseCross' | 'SparseCrossHashed' | 'SparseCrossV2';

export type CrossMode =
  /** Joined strings; `internalType` (SparseCross only) is checked against the inputs as TF does. */
  | { kind: 'strings'; separator: Uint8Array; internalType?: 'int64' | 'string' }
  /** SparseCross with out_type int64. */
  | { kind: 'hashed'; numBuckets: bigint; hashKey: bigint; internalType: 'int64' | 'string' }
  /** SparseCrossHashed. */
  | { kind: 'hashedV2'; numBuckets: bigint; strongHash: boolean; salt: readonly [bigint, bigint] };

export interface CrossInputs {
  indices: readonly HostTensor[];
  values: readonly HostTensor[];
  shapes: readonly HostTensor[];
  dense: readonly HostTensor[];
}

/**
 * Crosses one request may make (rows × the product of their columns' feature counts). TF
 * allocates whatever the product is; tfgate refuses beyond this (16.8 M crosses) before
 * allocating anything, RESOURCE_EXHAUSTED naming the op.
 */
export const MAX_CROSSES = 1 << 24;
/** Bytes of joined string crosses one request may make (256 MiB), likewise. */
const MAX_CROSS_STRING_BYTES = 1 << 28;

const INT64_MAX = (1n << 63n) - 1n;
const U64 = (x: bigint) => BigInt.asUintN(64, x);
const enc = new TextEncoder();
const shapeString = (shape: readonly number[]) => `[${shape.join(',')}]`;

/** One column of features, row by row. */
interface Column {
  count(row: number): number;
  /** Feature n of row, as the string crosser reads it. */
  bytes(row: number, n: number): Uint8Array;
  /** Feature n of row, as HashCrosser (SparseCross) reads it. */
  hashV1(row: number, n: number): bigint;
  /** Feature n of row, as HashCrosserV2 (SparseCrossHashed) reads it. */
  hashV2(row: number, n: number, key: readonly [bigint, bigint] | null): bigint;
}

const int64Bytes = (v: bigint) => {
  const b = new Uint8Array(8);
  new DataView(b.buffer).setBigInt64(0, v, true);
  return b;
};
/** The first 4 bytes of an int64's little-endian value: what SparseCrossHashed hashes (sizeof(DataType)). */
const int64Head = (v: bigint) => int64Bytes(v).subarray(0, 4);
const stringOf = (v: bigint) => enc.encode(v.toString());

function elementsOf(t: HostTensor): { strings: Uint8Array[] | null; ints: BigInt64Array | null } {
  if (t.dtype === 'string') return { strings: t.values as Uint8Array[], ints: null };
  return { strings: null, ints: t.values as BigInt64Array };
}

function sparseColumn(values: HostTensor, counts: number[], starts: number[]): Column {
  const { strings, ints } = elementsOf(values);
  const at = (row: number, n: number) => starts[row] + n;
  return {
    count: (row) => counts[row],
    bytes: (row, n) => (strings ? strings[at(row, n)] : stringOf(ints![at(row, n)])),
    hashV1: (row, n) => (strings ? fingerprint64(strings[at(row, n)]) : U64(ints![at(row, n)])),
    hashV2: (row, n, key) => {
      const data = strings ? strings[at(row, n)] : int64Head(ints![at(row, n)]);
      return key ? sipHash24(key, data) : fingerprint64(data);
    },
  };
}

function denseColumn(t: HostTensor): Column {
  const { strings, ints } = elementsOf(t);
  const width = t.shape[1];
  const at = (row: number, n: number) => row * width + n;
  return {
    count: () => width,
    bytes: (row, n) => (strings ? strings[at(row, n)] : stringOf(ints![at(row, n)])),
    hashV1: (row, n) => (strings ? fingerprint64(strings[at(row, n)]) : U64(ints![at(row, n)])),
    hashV2: (row, n, key) => {
      if (strings) return key ? sipHash24(key, strings[at(row, n)]) : fingerprint64(strings[at(row, n)]);
      // A dense int64 is hashed only with strong_hash (its 4 leading bytes); else it is its own value.
      return key ? sipHash24(key, int64Head(ints![at(row, n)])) : U64(ints![at(row, n)]);
    },
  };
}

/** TF's ValidateInput; `internalType` only for SparseCross (it checks the value types too). */
function validate(x: CrossInputs, internalType: 'int64' | 'string' | undefined): number {
  const n = x.indices.length;
  x.indices.forEach((t, i) => {
    if (t.shape.length !== 2)
      throw invalidArgument(`Input indices should be a matrix but received shape ${shapeString(t.shape)} at position ${i}`);
    if (t.shape[1] !== 2) throw invalidArgument(`Expected D2 of index to be 2 got ${t.shape[1]} at position ${i}`);
  });
  if (x.values.length !== n) throw invalidArgument(`Expected ${n} input values, got ${x.values.length}`);
  x.values.forEach((t, i) => {
    if (internalType === 'string' && t.dtype === 'int64')
      throw invalidArgument('Input values should be of internal type string but received int64');
    if (t.shape.length !== 1)
      throw invalidArgument(`Input values should be a vector but received shape ${shapeString(t.shape)} at position ${i}`);
    if (x.indices[i].shape[0] !== t.shape[0])
      throw invalidArgument(`Expected size of values to be ${x.indices[i].shape[0]} got ${t.shape[0]} at position ${i}`);
  });
  if (x.shapes.length !== n) throw invalidArgument(`Expected ${n} input shapes, got ${x.shapes.length}`);
  x.shapes.forEach((t, i) => {
    if (t.shape.length !== 1)
      throw invalidArgument(`Input shapes should be a vector but received shape ${shapeString(t.shape)} at position ${i}`);
    if (t.shape[0] !== 2) throw invalidArgument(`shape should imply a 2D tensor, but got ${shapeString(t.shape)} at position ${i}`);
  });
  x.dense.forEach((t, i) => {
    if (internalType === 'string' && t.dtype === 'int64')
      throw invalidArgument('Dense inputs should be of internal type string but received int64');
    if (t.shape.length !== 2)
      throw invalidArgument(`Dense inputs should be a matrix but received shape ${shapeString(t.shape)} at position ${i}`);
  });
  const batch = x.shapes.length ? Number((x.shapes[0].values as BigInt64Array)[0]) : x.dense.length ? x.dense[0].shape[0] : 0;
  x.shapes.forEach((t, i) => {
    const b = Number((t.values as BigInt64Array)[0]);
    if (b !== batch) throw invalidArgument(`Expected batch size ${batch} got ${b} at position ${i}`);
  });
  x.dense.forEach((t, i) => {
    if (t.shape[0] !== batch) throw invalidArgument(`Expected batch size ${batch} got ${t.shape[0]} at dense tensor ${i}`);
  });
  return batch;
}

/** TF's ExtractFeatureData: per row, how many entries of each sparse column, and where they start. */
function sparseColumns(x: CrossInputs, batch: number): Column[] {
  return x.indices.map((t, i) => {
    const idx = t.values as BigInt64Array;
    const rows = t.shape[0];
    const counts: number[] = [];
    const starts: number[] = [];
    let current = 0;
    for (let b = 0; b < batch; b++) {
      const start = current;
      while (current < rows && idx[current * 2] === BigInt(b)) current++;
      counts.push(current - start);
      starts.push(start);
    }
    return sparseColumn(x.values[i], counts, starts);
  });
}

function exhausted(op: SparseCrossOp, what: string): ServingError {
  return new ServingError(
    Code.RESOURCE_EXHAUSTED,
    `${op}: the crosses of this request would be ${what}; tfgate computes at most ${MAX_CROSSES} crosses and ${MAX_CROSS_STRING_BYTES} bytes of them per request`,
  );
}

/** The cross of `inputs`: [output_indices int64 [n, 2], output_values [n], output_shape int64 [2]]. */
export function sparseCross(op: SparseCrossOp, inputs: CrossInputs, mode: CrossMode): [HostTensor, HostTensor, HostTensor] {
  const batch = validate(inputs, mode.kind === 'hashedV2' ? undefined : mode.internalType);
  // The batch comes from a request's shape tensor: TF sizes a vector by it; tfgate walks its rows.
  if (batch < 0) throw invalidArgument(`${op}: the batch size ${batch} (from shapes[0]) is negative`);
  if (batch > MAX_CROSSES) throw exhausted(op, `made over ${batch} rows`);
  const columns = [...sparseColumns(inputs, batch), ...inputs.dense.map(denseColumn)];
  // CreateOutputTensors: each row's cross count (0 if a column is empty there), the largest.
  const counts = new Array<number>(batch);
  let total = 0;
  let widest = 0;
  for (let b = 0; b < batch; b++) {
    let c = columns.length ? 1 : 0;
    for (const col of columns) c *= col.count(b);
    counts[b] = c;
    total += c;
    widest = Math.max(widest, c);
    if (total > MAX_CROSSES) throw exhausted(op, `over ${MAX_CROSSES} crosses`);
  }
  const indices = new BigInt64Array(total * 2);
  const hashed = mode.kind !== 'strings' ? new BigInt64Array(total) : null;
  const strings: Uint8Array[] | null = mode.kind === 'strings' ? [] : null;
  let stringBytes = 0;
  let k = 0;
  const choice = new Array<number>(columns.length).fill(0);
  for (let b = 0; b < batch; b++) {
    choice.fill(0);
    for (let cross = 0; cross < counts[b]; cross++, k++) {
      indices[2 * k] = BigInt(b);
      indices[2 * k + 1] = BigInt(cross);
      if (strings) {
        const joined = joinBytes(
          columns.map((col, i) => col.bytes(b, choice[i])),
          (mode as { separator: Uint8Array }).separator,
        );
        stringBytes += joined.length;
        if (stringBytes > MAX_CROSS_STRING_BYTES) throw exhausted(op, `over ${MAX_CROSS_STRING_BYTES} bytes`);
        strings.push(joined);
      } else hashed![k] = hashCross(columns, b, choice, mode as Exclude<CrossMode, { kind: 'strings' }>);
      // Next permutation: the last column fastest.
      for (let i = columns.length - 1; i >= 0; i--) {
        if (++choice[i] < columns[i].count(b)) break;
        choice[i] = 0;
      }
    }
  }
  return [
    { dtype: 'int64', shape: [total, 2], values: indices },
    strings ? { dtype: 'string', shape: [total], values: strings } : { dtype: 'int64', shape: [total], values: hashed! },
    { dtype: 'int64', shape: [2], values: BigInt64Array.of(BigInt(batch), BigInt(widest)) },
  ];
}

function hashCross(columns: Column[], row: number, choice: number[], mode: Exclude<CrossMode, { kind: 'strings' }>): bigint {
  let h: bigint;
  if (mode.kind === 'hashed') {
    h = U64(mode.hashKey);
    columns.forEach((col, i) => (h = fingerprintCat64(h, col.hashV1(row, choice[i]))));
  } else {
    const key = mode.strongHash ? ([U64(mode.salt[0]), U64(mode.salt[1])] as const) : null;
    h = columns[0].hashV2(row, choice[0], key);
    for (let i = 1; i < columns.length; i++) h = fingerprintCat64(h, columns[i].hashV2(row, choice[i], key));
  }
  // uint64 % int64 in C++: the int64 operand converts to uint64.
  return mode.numBuckets > 0n ? h % U64(mode.numBuckets) : h % INT64_MAX;
}

/** SparseCrossV2's `sep` check: TF's message, with the tensor as Tensor::DebugString shows it. */
export function crossSeparator(sep: HostTensor): Uint8Array {
  if (sep.shape.length !== 0) {
    const shown = (sep.values as Uint8Array[])
      .slice(0, 3)
      .map((b) => new TextDecoder().decode(b))
      .join(' ');
    throw invalidArgument(
      `Input separator should be a scalar. Received: Tensor<type: string shape: ${shapeString(sep.shape)} values: ${shown}${sep.values.length > 3 ? '...' : ''}>`,
    );
  }
  return (sep.values as Uint8Array[])[0];
}

/** SparseCrossHashed's `salt` check, TF's message. */
export function crossSalt(salt: HostTensor): [bigint, bigint] {
  const v = salt.values as BigInt64Array;
  if (v.length !== 2) throw invalidArgument(`Input "salt" must have length 2 but has length ${v.length}`);
  return [v[0], v[1]];
}
