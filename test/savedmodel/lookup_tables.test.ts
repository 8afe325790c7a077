// Table contents as TF's initialisation leaves them: InitializeTableFromTextFile's parsing
// (lookup_util.cc: indices, delimiter, vocab_size, offset, dtypes, its error messages) and the
// HashTable / MutableHashTable insert rules (lookup_table_op.h).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Code } from '../../src/errors/status.js';
import { parseTextFileTable, type TextFileInit } from '../../src/savedmodel/graph/lookup_tables/text_file_table.js';
import { TableContents, type TableInfo } from '../../src/savedmodel/graph/lookup_tables/table_contents.js';
import type { DType } from '../../src/tensor/dtype.js';
import type { HostTensor } from '../../src/tensor/host_tensor.js';
import { isError } from '../helpers/errors.js';

const enc = new TextEncoder();
const dec = new TextDecoder();
const init = (o: Partial<TextFileInit>): TextFileInit => ({
  filename: 'vocab.txt',
  keyIndex: -2,
  valueIndex: -1,
  vocabSize: -1,
  delimiter: '\t',
  offset: 0,
  ...o,
});
const readable = (t: HostTensor) =>
  Array.from(t.values as ArrayLike<unknown>, (v) => (v instanceof Uint8Array ? dec.decode(v) : typeof v === 'bigint' ? Number(v) : v));
const parse = (text: string, o: Partial<TextFileInit>, keyDtype: DType = 'string', valueDtype: DType = 'int64') => {
  const { keys, values } = parseTextFileTable(enc.encode(text), init(o), keyDtype, valueDtype);
  return { keys: readable(keys), values: readable(values), keyDtype: keys.dtype, valueDtype: values.dtype };
};

describe('InitializeTableFromTextFile parsing', () => {
  it('whole line → line number, a last line without newline and a CRLF line included', () => {
    assert.deepEqual(parse('a\r\nb\nc', {}), { keys: ['a', 'b', 'c'], values: [0, 1, 2], keyDtype: 'string', valueDtype: 'int64' });
  });

  it('offset shifts line numbers; vocab_size truncates', () => {
    assert.deepEqual(parse('a\nb\nc\n', { offset: 10, vocabSize: 2 }).values, [10, 11]);
    assert.deepEqual(parse('a\nb\nc\n', { vocabSize: 2 }).keys, ['a', 'b']);
  });

  it('fields by index with a custom delimiter, parsed as int64 keys and float values', () => {
    assert.deepEqual(parse('x,7,0.5\ny,-3,2.25\n', { keyIndex: 1, valueIndex: 2, delimiter: ',' }, 'int64', 'float32'), {
      keys: [7, -3],
      values: [0.5, 2.25],
      keyDtype: 'int64',
      valueDtype: 'float32',
    });
  });

  it('int64 beyond 32 bits parses exactly', () => {
    const { keys } = parseTextFileTable(enc.encode('9007199254740993\n'), init({}), 'int64', 'int64');
    assert.equal((keys.values as BigInt64Array)[0], 9007199254740993n);
  });

  it("refuses with TF's messages: empty line, too few columns, bad number, short vocabulary, wrong dtypes", () => {
    assert.throws(
      () => parse('a\n\nb\n', {}),
      isError(Code.INVALID_ARGUMENT, /^Invalid content in vocab\.txt: empty line found at position 3\.$/),
    );
    assert.throws(
      () => parse('a\tb\nc\n', { keyIndex: 0, valueIndex: 1 }, 'string', 'string'),
      isError(Code.INVALID_ARGUMENT, /^Invalid number of columns in vocab\.txt line 1 \(c\) : expected at least 2 got 1$/),
    );
    assert.throws(
      () => parse('a\t1\nb\tx\n', { keyIndex: 0, valueIndex: 1 }),
      isError(Code.INVALID_ARGUMENT, /^Field x in line 1 is not a valid int64\.$/),
    );
    assert.throws(
      () => parse('a\nb\n', { vocabSize: 3 }),
      isError(Code.INVALID_ARGUMENT, /^Invalid vocab_size in vocab\.txt: expected 3 but got 2$/),
    );
    assert.throws(
      () => parse('a\n', {}, 'string', 'int32'),
      isError(Code.INVALID_ARGUMENT, /^Value index for line number requires table value dtype of int64, got int32$/),
    );
    assert.throws(
      () => parse('a\n', { keyIndex: -1, valueIndex: -2 }, 'string', 'string'),
      isError(Code.INVALID_ARGUMENT, /^Key index for line number requires table key dtype of int64, got string$/),
    );
  });
});

describe('TableContents', () => {
  const info = (mutable: boolean): TableInfo => ({
    name: 't',
    op: mutable ? 'MutableHashTableV2' : 'HashTableV2',
    keyDtype: 'string',
    valueDtype: 'int64',
    valueShape: [],
    mutable,
  });
  const keys = (...k: string[]): HostTensor => ({ dtype: 'string', shape: [k.length], values: k.map((x) => enc.encode(x)) });
  const ids = (...v: number[]): HostTensor => ({ dtype: 'int64', shape: [v.length], values: BigInt64Array.from(v, BigInt) });

  it('a HashTable accepts a repeated key with the same value and refuses another value', () => {
    const t = new TableContents(info(false));
    t.insert(keys('a', 'b', 'a'), ids(0, 1, 0), 'init');
    assert.deepEqual(readable(t.keyTensor()), ['a', 'b']);
    assert.throws(
      () => t.insert(keys('b'), ids(5), 'init 2'),
      isError(Code.FAILED_PRECONDITION, /^HashTable has different value for same key\. Key b has 1 and trying to add value 5$/),
    );
  });

  it('a MutableHashTable import replaces the contents, the last value of a key winning', () => {
    const t = new TableContents(info(true));
    t.insert(keys('a', 'b'), ids(0, 1), 'first');
    t.insert(keys('c', 'c'), ids(2, 3), 'second');
    assert.deepEqual(readable(t.keyTensor()), ['c']);
    assert.deepEqual(readable(t.valueTensor()), [3]);
  });

  it('refuses keys and values of other dtypes than the table', () => {
    const t = new TableContents(info(false));
    assert.throws(
      () => t.insert(ids(1), ids(1), 'init'),
      isError(Code.INVALID_ARGUMENT, /Conflicting key\/value dtypes int64->int64 with string-int64 for table t/),
    );
  });
});
