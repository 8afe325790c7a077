// InitializeTableFromTextFile(V2): a vocabulary file → table keys and values, with TF's
// semantics and messages (core/kernels/lookup_util.cc, TextFileLineIterator): index -2 is the
// whole line, -1 the line number (plus `offset`), n ≥ 0 the n-th `delimiter`-separated field;
// `vocab_size` (-1: all lines) truncates the file or insists on that many lines; an empty
// line or a field that does not parse as the table's dtype fails initialisation.
import { invalidArgument } from '../../../errors/status.js';
import { dtypeToTf, type DType } from '../../../tensor/dtype.js';
import type { HostTensor } from '../../../tensor/host_tensor.js';
import { tensorOf } from './table_contents.js';

const LINE_NUMBER = -1;
const WHOLE_LINE = -2;

export interface TextFileInit {
  filename: string;
  keyIndex: number;
  valueIndex: number;
  vocabSize: number;
  delimiter: string;
  offset: number;
}

type Scalar = Uint8Array | number | bigint;

const INTEGER_DTYPES = new Set<DType>(['int8', 'int16', 'int32', 'int64', 'uint8', 'uint16', 'uint32', 'uint64']);
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const latin1 = new TextDecoder('latin1');
const INTEGER = /^\s*[+-]?\d+\s*$/;

function parseInteger(token: string, min: bigint, max: bigint): bigint | null {
  if (!INTEGER.test(token)) return null;
  const v = BigInt(token.trim());
  return v < min || v > max ? null : v;
}

function parseFloatToken(token: string): number | null {
  const t = token.trim();
  if (!t) return null;
  if (/^[+-]?(inf|infinity)$/i.test(t)) return t.startsWith('-') ? -Infinity : Infinity;
  if (/^[+-]?nan$/i.test(t)) return NaN;
  const v = Number(t);
  return Number.isNaN(v) ? null : v;
}

/** TF's lookup_util.cc checks of the key/value index against the table's dtypes. */
function checkIndices(init: TextFileInit, keyDtype: DType, valueDtype: DType): void {
  const tf = (d: DType) => dtypeToTf(d).replace(/^DT_/, '').toLowerCase();
  if (init.keyIndex === LINE_NUMBER && keyDtype !== 'int64') {
    throw invalidArgument(`Key index for line number requires table key dtype of int64, got ${tf(keyDtype)}`);
  }
  if (init.keyIndex === WHOLE_LINE && !INTEGER_DTYPES.has(keyDtype) && keyDtype !== 'string') {
    throw invalidArgument(`Key index for whole line requires string or integer table key, got ${tf(keyDtype)}`);
  }
  if (init.valueIndex === LINE_NUMBER && valueDtype !== 'int64') {
    throw invalidArgument(`Value index for line number requires table value dtype of int64, got ${tf(valueDtype)}`);
  }
  if (init.valueIndex === WHOLE_LINE && !INTEGER_DTYPES.has(valueDtype) && valueDtype !== 'string') {
    throw invalidArgument(`Value index for whole line requires table value dtype of integer or string, got ${tf(valueDtype)}`);
  }
  if (init.delimiter.length !== 1) throw invalidArgument('delimiter should be only 1 char');
}

/** Lines as TF's InputBuffer::ReadLine returns them (no '\n', a trailing '\r' dropped), with the offset after each. */
function* lines(bytes: Uint8Array): Generator<{ line: Uint8Array; end: number }> {
  let start = 0;
  while (start < bytes.length) {
    let nl = bytes.indexOf(0x0a, start);
    const end = nl < 0 ? bytes.length : nl + 1;
    if (nl < 0) nl = bytes.length;
    let stop = nl;
    if (stop > start && bytes[stop - 1] === 0x0d) stop--;
    yield { line: bytes.subarray(start, stop), end };
    start = end;
  }
}

export function parseTextFileTable(
  bytes: Uint8Array,
  init: TextFileInit,
  keyDtype: DType,
  valueDtype: DType,
): { keys: HostTensor; values: HostTensor } {
  checkIndices(init, keyDtype, valueDtype);
  const { filename, keyIndex, valueIndex, vocabSize, offset } = init;
  const delimiter = init.delimiter.charCodeAt(0);
  const split = Math.max(keyIndex, valueIndex) >= 0;
  const keys: Scalar[] = [];
  const values: Scalar[] = [];
  let nextId = 0;

  const valueOf = (line: Uint8Array, tokens: Uint8Array[], index: number, dtype: DType): Scalar => {
    if (index === LINE_NUMBER) return BigInt(nextId + offset);
    const bytes = index === WHOLE_LINE ? line : tokens[index];
    if (dtype === 'string') return bytes;
    const token = latin1.decode(bytes);
    const bad = (kind: string) => invalidArgument(`Field ${token} in line ${nextId} is not a valid ${kind}.`);
    switch (dtype) {
      case 'int32': {
        const v = parseInteger(token, -(2n ** 31n), 2n ** 31n - 1n);
        if (v === null) throw bad('int32');
        return Number(v) + offset;
      }
      case 'int64': {
        const v = parseInteger(token, INT64_MIN, INT64_MAX);
        if (v === null) throw bad('int64');
        return v;
      }
      case 'float32':
      case 'float64': {
        const v = parseFloatToken(token);
        if (v === null) throw bad(dtype === 'float32' ? 'float' : 'double');
        return dtype === 'float32' ? Math.fround(v) : v;
      }
      default:
        throw invalidArgument(`Data type ${dtypeToTf(dtype)} not supported.`);
    }
  };

  for (const { line, end } of lines(bytes)) {
    if (vocabSize !== -1 && nextId >= vocabSize) break;
    if (line.length === 0) throw invalidArgument(`Invalid content in ${filename}: empty line found at position ${end}.`);
    let tokens: Uint8Array[] = [];
    if (split) {
      tokens = [];
      let from = 0;
      for (let i = 0; i <= line.length; i++) {
        if (i === line.length || line[i] === delimiter) {
          tokens.push(line.subarray(from, i));
          from = i + 1;
        }
      }
      const expected = Math.max(keyIndex, valueIndex) + 1;
      if (tokens.length < expected) {
        throw invalidArgument(
          `Invalid number of columns in ${filename} line ${nextId} (${latin1.decode(line)}) : expected at least ${expected} got ${tokens.length}`,
        );
      }
    }
    keys.push(valueOf(line, tokens, keyIndex, keyDtype));
    values.push(valueOf(line, tokens, valueIndex, valueDtype));
    nextId++;
  }
  if (vocabSize !== -1 && nextId < vocabSize)
    throw invalidArgument(`Invalid vocab_size in ${filename}: expected ${vocabSize} but got ${nextId}`);
  // Fresh copies: the file's buffer is not kept alive by the table.
  const own = (v: Scalar) => (v instanceof Uint8Array ? Uint8Array.from(v) : v);
  return { keys: tensorOf(keyDtype, [keys.length], keys.map(own)), values: tensorOf(valueDtype, [values.length], values.map(own)) };
}
