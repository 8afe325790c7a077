// String ops (tensorflow/core/ops/string_ops.cc) of Keras preprocessing layers and Estimator
// feature columns, on the strings' bytes as TF computes them. Values from TF's API docs and
// its kernel tests (tensorflow/python/kernel_tests/strings_ops/*_test.py).
import { attr } from '../../../../test_util/savedmodel/writer/graph_builder.js';
import type { AttrValueInit } from '../../../../test_util/savedmodel/writer/graph_builder.js';
import type { DType } from '../../../../src/tensor/dtype.js';
import type { HostTensor } from '../../../../src/tensor/host_tensor.js';
import { fingerprint64 } from '../../../../src/runtimes/shared/hash/farmhash_fingerprint64.js';
import { bool, f32, f64, failsAtRun, i32, i64, konst, refusedAtLoad, str, type OpCase, type OpFamilyCases } from '../op_case.js';
import { REGEX_CASES, REGEX_REGISTRATIONS } from './string_regex.js';
import { UNICODE_CASES, UNICODE_REGISTRATIONS } from './string_unicode.js';
import { JOIN_MORE_CASES, JOIN_MORE_REGISTRATIONS } from './string_join.js';
import { WORDPIECE_CASES, WORDPIECE_REGISTRATIONS } from './string_wordpiece.js';
import { STRING_FORMAT_CASES, STRING_FORMAT_REGISTRATIONS } from './string_format.js';
import { NORMALIZE_CASES_ALL, NORMALIZE_REGISTRATIONS } from './string_normalize.js';

const KERNEL_TESTS = 'tensorflow/python/kernel_tests/strings_ops';
const HASH_TEST = `${KERNEL_TESTS}/string_to_hash_bucket_op_test.py@3a2c6ae8`;

const hashFast = (n: number, x: HostTensor, want: number[], name: string, source: string): OpCase => ({
  name,
  source,
  op: 'StringToHashBucketFast',
  attrs: { num_buckets: attr.i(n) },
  inputs: [x],
  want: { output: i64(x.shape, want) },
});

const raw = Uint8Array.of(0xff, 0xfe, 0x41);

const HASH_CASES: OpCase[] = [
  hashFast(
    3,
    str([3], ['Hello', 'TensorFlow', '2.x']),
    [0, 2, 2],
    'to_hash_bucket_fast(["Hello", "TensorFlow", "2.x"], 3) == [0, 2, 2]',
    'tf.strings.to_hash_bucket_fast API doc',
  ),
  hashFast(
    10,
    str([4], ['a', 'b', 'c', 'd']),
    [9, 2, 2, 5],
    '["a", "b", "c", "d"] in 10 buckets: [9, 2, 2, 5]',
    `${HASH_TEST}:45 testStringToHashBucketsFast`,
  ),
  hashFast(
    1,
    str([3], ['a', 'b', 'c']),
    [0, 0, 0],
    'one bucket: every string in bucket 0',
    `${HASH_TEST}:32 testStringToOneHashBucketFast`,
  ),
  {
    name: 'legacy StringToHashBucket: ["a", "b", "c"] in 10 buckets by Hash64: [8, 0, 7]',
    source: `${HASH_TEST}:59 testStringToHashBucketsLegacyHash`,
    op: 'StringToHashBucket',
    attrs: { num_buckets: attr.i(10) },
    inputs: [str([3], ['a', 'b', 'c'])],
    want: { output: i64([3], [8, 0, 7]) },
  },
  {
    name: 'legacy StringToHashBucket, one bucket: [0, 0, 0]',
    source: `${HASH_TEST}:50 testStringToOneHashBucketLegacyHash`,
    op: 'StringToHashBucket',
    attrs: { num_buckets: attr.i(1) },
    inputs: [str([3], ['a', 'b', 'c'])],
    want: { output: i64([3], [0, 0, 0]) },
  },
  hashFast(
    3,
    str([5, 1], ['A', 'B', 'C', 'D', 'E']),
    [1, 0, 1, 1, 2],
    'Keras Hashing(num_bins=3) on [["A"], ["B"], ["C"], ["D"], ["E"]] == [[1], [0], [1], [1], [2]], shape kept',
    'tf.keras.layers.Hashing API doc',
  ),
  hashFast(
    1000003,
    str([2], [raw, 'A']),
    [Number(fingerprint64(raw) % 1000003n), Number(fingerprint64(new TextEncoder().encode('A')) % 1000003n)],
    'hashes the bytes: a string that is not UTF-8 gets the Fingerprint64 of its bytes',
    "farmhash.cc Fingerprint64 (checked against FarmHash's self-test in string_kernels.test.ts)",
  ),
  {
    name: 'key [98765, 132] puts "a", "b", "c" in buckets [4, 2, 8] of 10',
    source: `${HASH_TEST}:86 testStringToHashBucketsStrong`,
    op: 'StringToHashBucketStrong',
    attrs: { num_buckets: attr.i(10), key: attr.ints([98765, 132]) },
    inputs: [str([3], ['a', 'b', 'c'])],
    want: { output: i64([3], [4, 2, 8]) },
  },
  {
    name: 'num_buckets 0 is refused at load',
    source: 'tensorflow/core/framework/op_def_util.cc ValidateAttrValue (num_buckets: int >= 1)',
    op: 'StringToHashBucketFast',
    attrs: { num_buckets: attr.i(0) },
    inputs: [str([1], ['a'])],
    want: refusedAtLoad(
      /Value for attr 'num_buckets' of 0 must be at least minimum 1; NodeDef: \{\{node StringToHashBucketFast\}\}; Op<name=StringToHashBucketFast/,
    ),
  },
  {
    name: 'a key of one element is refused at load',
    source: `${HASH_TEST}:91 testStringToHashBucketsStrongInvalidKey`,
    op: 'StringToHashBucketStrong',
    attrs: { num_buckets: attr.i(10), key: attr.ints([98765]) },
    inputs: [str([1], ['a'])],
    want: refusedAtLoad(/StringToHashBucketStrong \(node StringToHashBucketStrong: Key must have 2 elements\)/),
  },
];

const CASE_INPUT = str([2, 2], ['pigS on THE wIng', 'aniMals', ' hello ', '\n\tWorld! \r \n']);
const stringCase = (
  op: 'StringLower' | 'StringUpper',
  x: HostTensor,
  want: Array<string | Uint8Array>,
  name: string,
  source: string,
  encoding = '',
): OpCase => ({
  name,
  source,
  op,
  attrs: { encoding: attr.s(encoding) },
  inputs: [x],
  want: { output: str(x.shape, want) },
});

const CASE_CASES: OpCase[] = [
  stringCase(
    'StringLower',
    CASE_INPUT,
    ['pigs on the wing', 'animals', ' hello ', '\n\tworld! \r \n'],
    "ASCII: TF's 2-D test strings",
    `${KERNEL_TESTS}/string_lower_op_test.py@84e2e6c7:39 test_string_lower_2d`,
  ),
  stringCase(
    'StringUpper',
    CASE_INPUT,
    ['PIGS ON THE WING', 'ANIMALS', ' HELLO ', '\n\tWORLD! \r \n'],
    "ASCII: TF's 2-D test strings",
    `${KERNEL_TESTS}/string_upper_op_test.py@03049341:39 test_string_upper_2d`,
  ),
  stringCase(
    'StringLower',
    str([1], ['ÓÓSSCHLOË']),
    ['óósschloë'],
    'encoding utf-8: "ÓÓSSCHLOË" → "óósschloë"',
    `${KERNEL_TESTS}/string_lower_op_test.py@84e2e6c7:50 test_string_upper_unicode (sic)`,
    'utf-8',
  ),
  stringCase(
    'StringUpper',
    str([1], ['óósschloë']),
    ['ÓÓSSCHLOË'],
    'encoding utf-8: "óósschloë" → "ÓÓSSCHLOË"',
    `${KERNEL_TESTS}/string_upper_op_test.py@03049341:50 test_string_upper_unicode`,
    'utf-8',
  ),
  stringCase(
    'StringLower',
    str([2], ['ÓÓSSCHLOË', Uint8Array.of(0xff, 0x41, 0xc3)]),
    ['ÓÓsschloË', Uint8Array.of(0xff, 0x61, 0xc3)],
    'encoding "": only ASCII bytes change, any other byte stays',
    'core/kernels/string_lower_op.cc (encoding "" lower-cases with ::tolower per byte)',
  ),
  {
    name: "an encoding other than '' or utf-8 is refused at load",
    source: "core/kernels/string_lower_op.cc (the kernel constructor's check)",
    op: 'StringLower',
    attrs: { encoding: attr.s('latin-1') },
    inputs: [str([1], ['a'])],
    want: refusedAtLoad(/StringLower \(node StringLower: only utf-8 or '' \(no encoding\) is supported, received latin-1\)/),
  },
  {
    name: 'removes ASCII whitespace at both ends only',
    source: `${KERNEL_TESTS}/string_strip_op_test.py@609ec267:38,48 test_string_strip_2d, test_string_strip_with_empty_strings`,
    op: 'StringStrip',
    inputs: [str([6], [' hello ', '', 'world ', ' \t \r \n ', '\n\tworld \r \n', 'pigs on the wing'])],
    want: { output: str([6], ['hello', '', 'world', '', 'world', 'pigs on the wing']) },
  },
];

const AS_STRING_TEST = `${KERNEL_TESTS}/as_string_op_test.py@3a2c6ae8`;
const asString = (
  dtype: DType,
  x: HostTensor,
  attrs: Record<string, AttrValueInit>,
  want: string[],
  name: string,
  source: string,
): OpCase => ({
  name: `${dtype} ${name}`,
  source,
  op: 'AsString',
  attrs: { T: attr.type(dtype), ...attrs },
  inputs: [x],
  want: { output: str(x.shape, want) },
});
const refusedAsString = (dtype: DType, attrs: Record<string, AttrValueInit>, message: RegExp, name: string, source: string): OpCase => ({
  name,
  source,
  op: 'AsString',
  attrs: { T: attr.type(dtype), ...attrs },
  inputs: [dtype === 'float64' ? f64([1], [1]) : dtype === 'int32' ? i32([1], [1]) : f32([1], [1])],
  want: refusedAtLoad(message),
});

// as_string_op_test.testFloat's inputs; the expected strings are Python's "%…" % x, as there.
const FLOATS = f32([9], [0, 1, -1, 0.5, 0.25, 0.125, Infinity, NaN, -Infinity]);
const INTS = [0, -1, 1, -128, 127, -101, 101];
const AS_STRING_CASES: OpCase[] = [
  asString(
    'float32',
    FLOATS,
    { shortest: attr.b(true) },
    ['0', '1', '-1', '0.5', '0.25', '0.125', 'inf', 'nan', '-inf'],
    'shortest (%g)',
    `${AS_STRING_TEST}:47 testFloat`,
  ),
  asString(
    'float32',
    FLOATS,
    { scientific: attr.b(true) },
    ['0.000000e+00', '1.000000e+00', '-1.000000e+00', '5.000000e-01', '2.500000e-01', '1.250000e-01', 'inf', 'nan', '-inf'],
    'scientific (%e)',
    `${AS_STRING_TEST}:51 testFloat`,
  ),
  asString(
    'float32',
    FLOATS,
    {},
    ['0.000000', '1.000000', '-1.000000', '0.500000', '0.250000', '0.125000', 'inf', 'nan', '-inf'],
    'default (%f)',
    `${AS_STRING_TEST}:55 testFloat`,
  ),
  asString(
    'float32',
    FLOATS,
    { width: attr.i(3) },
    ['0.000000', '1.000000', '-1.000000', '0.500000', '0.250000', '0.125000', 'inf', 'nan', '-inf'],
    'width 3 (%3f)',
    `${AS_STRING_TEST}:59 testFloat`,
  ),
  asString(
    'float32',
    FLOATS,
    { width: attr.i(3), fill: attr.s('0'), shortest: attr.b(true) },
    ['000', '001', '-01', '0.5', '0.25', '0.125', 'inf', 'nan', '-inf'],
    'width 3 fill 0 shortest (%03g)',
    `${AS_STRING_TEST}:67 testFloat`,
  ),
  asString(
    'float32',
    FLOATS,
    { precision: attr.i(10), width: attr.i(3) },
    ['0.0000000000', '1.0000000000', '-1.0000000000', '0.5000000000', '0.2500000000', '0.1250000000', 'inf', 'nan', '-inf'],
    'precision 10 width 3 (%03.10f)',
    `${AS_STRING_TEST}:71 testFloat`,
  ),
  asString(
    'float32',
    FLOATS,
    { precision: attr.i(10), width: attr.i(3), fill: attr.s('0'), shortest: attr.b(true) },
    ['000', '001', '-01', '0.5', '0.25', '0.125', 'inf', 'nan', '-inf'],
    'precision 10 width 3 fill 0 shortest (%03.10g)',
    `${AS_STRING_TEST}:77 testFloat`,
  ),
  asString(
    'float32',
    f32([6], [0.125, 0.375, 2.5, -0.125, 0.1, 3.4e38]),
    { precision: attr.i(2) },
    ['0.12', '0.38', '2.50', '-0.12', '0.10', '339999995214436424907732413799364296704.00'],
    'precision 2: the float32 value printed exactly, ties to even as printf does',
    'glibc printf("%.2f") of each float32 value (TF formats with strings::Printf)',
  ),
  asString(
    'float32',
    f32([2], [0.1, 1e-30]),
    { precision: attr.i(10), shortest: attr.b(true) },
    ['0.1000000015', '1.000000003e-30'],
    'precision 10 shortest (%.10g)',
    'glibc printf("%.10g") of each float32 value',
  ),
  ...(['int32', 'int64'] as const).flatMap((dtype) => {
    const x = dtype === 'int32' ? i32([INTS.length], INTS) : i64([INTS.length], INTS);
    return [
      asString(dtype, x, {}, ['0', '-1', '1', '-128', '127', '-101', '101'], '%d', `${AS_STRING_TEST}:107 testInt`),
      asString(dtype, x, { width: attr.i(3) }, ['  0', ' -1', '  1', '-128', '127', '-101', '101'], '%3d', `${AS_STRING_TEST}:111 testInt`),
      asString(
        dtype,
        x,
        { width: attr.i(3), fill: attr.s('0') },
        ['000', '-01', '001', '-128', '127', '-101', '101'],
        '%03d',
        `${AS_STRING_TEST}:115 testInt`,
      ),
    ];
  }),
  asString('bool', bool([2], [0, 1]), {}, ['false', 'true'], 'prints false / true', `${AS_STRING_TEST}:174 testBool`),
  refusedAsString(
    'int32',
    { precision: attr.i(0) },
    /AsString \(node AsString: precision not supported for datatype int32\)/,
    'precision on an int is refused at load',
    `${AS_STRING_TEST}:125 testInt`,
  ),
  refusedAsString(
    'int32',
    { shortest: attr.b(true) },
    /scientific and shortest format not supported for datatype int32/,
    'shortest on an int is refused at load',
    `${AS_STRING_TEST}:121 testInt`,
  ),
  refusedAsString(
    'float32',
    { scientific: attr.b(true), shortest: attr.b(true) },
    /Cannot select both scientific and shortest notation/,
    'scientific with shortest is refused at load',
    `${AS_STRING_TEST}:79 testFloat`,
  ),
  refusedAsString(
    'float32',
    { fill: attr.s('ab') },
    /Fill string must be one or fewer characters/,
    'a two-character fill is refused at load',
    `${AS_STRING_TEST}:83 testFloat`,
  ),
  refusedAsString(
    'float32',
    { width: attr.i(4), fill: attr.s('x') },
    /fill 'x' is not a printf flag/,
    'a fill that is not a printf flag is refused at load',
    'core/kernels/as_string_op.cc (the fill becomes a printf flag)',
  ),
  {
    ...refusedAsString(
      'float64',
      {},
      /x/,
      'float64: the embedded runtime holds it as float32 and refuses it',
      'tfgate: TF.js has no float64',
    ),
    want: { output: str([1], ['1.000000']) },
    engines: {
      wasm: { refuse: /AsString \(node AsString: double inputs reach the embedded runtime rounded to float32/ },
      cpu: { refuse: /AsString \(node AsString: double inputs reach the embedded runtime rounded to float32/ },
    },
  },
];

/** TF's sparse layout of split rows: indices [n, 2], values [n], shape [rows, longest]. */
function sparseRows(rows: string[][]): Record<string, HostTensor> {
  const indices = rows.flatMap((r, i) => r.flatMap((_, j) => [i, j]));
  const values = rows.flat();
  return {
    indices: i64([values.length, 2], indices),
    values: str([values.length], values),
    shape: i64([2], [rows.length, Math.max(0, ...rows.map((r) => r.length))]),
  };
}
const split = (
  x: string[],
  sep: string | Uint8Array,
  rows: string[][] | Record<string, HostTensor>,
  name: string,
  source: string,
  maxsplit = -1,
): OpCase => ({
  name,
  source,
  op: 'StringSplitV2',
  attrs: { maxsplit: attr.i(maxsplit) },
  inputs: [str([x.length], x), konst(str([], [sep]))],
  want: Array.isArray(rows) ? sparseRows(rows) : rows,
});
const SPLIT_TEST = `${KERNEL_TESTS}/string_split_op_test.py StringSplitV2OpTest`;

const SPLIT_CASES: OpCase[] = [
  split(
    ['pigs on the wing', 'animals'],
    '',
    [['pigs', 'on', 'the', 'wing'], ['animals']],
    'tf.strings.split(["pigs on the wing", "animals"]): the sparse triplet',
    `${SPLIT_TEST} testSplitV2`,
  ),
  split(
    ['1<>2<>3', '<><>4<>5<><>6<>'],
    '<>',
    [
      ['1', '2', '3'],
      ['', '', '4', '5', '', '6', ''],
    ],
    'a two-byte separator keeps empty tokens',
    `${SPLIT_TEST} testSplitV2MultiCharSeparator`,
  ),
  split(
    ['1,2,3', '4,5,,6,'],
    ',',
    [
      ['1', '2', '3'],
      ['4', '5', '', '6', ''],
    ],
    'a one-byte separator keeps empty tokens',
    `${SPLIT_TEST} testSplitV2SimpleSeparator`,
  ),
  split(
    ['1 2 3', '  4  5    6  '],
    '',
    [
      ['1', '2', '3'],
      ['4', '5', '6'],
    ],
    'no separator: whitespace runs, no empty tokens',
    `${SPLIT_TEST} testSplitV2EmptySeparator`,
  ),
  split(
    [''],
    '',
    [[]],
    'an empty string gives no tokens',
    'Python\'s "".split() == [], which StringSplitV2 matches (its test\'s comments)',
  ),
  split(
    ['1,2,3', '4,5,,6,'],
    ',',
    [
      ['1', '2,3'],
      ['4', '5,,6,'],
    ],
    'maxsplit 1 with a separator',
    `${SPLIT_TEST} testSplitV2SimpleSeparatorMaxSplit`,
    1,
  ),
  split(
    ['1 2 3', '  4  5    6  '],
    '',
    [
      ['1', '2 3'],
      ['4', '5    6  '],
    ],
    'maxsplit 1 on whitespace',
    `${SPLIT_TEST} testSplitV2EmptySeparatorMaxSplit`,
    1,
  ),
  {
    ...split(
      [],
      Uint8Array.of(0xff),
      [],
      'splits bytes: a separator and tokens that are not UTF-8 come back unchanged',
      'core/kernels/string_split_op.cc (byte-wise absl::StrSplit)',
    ),
    inputs: [str([1], [Uint8Array.of(0x61, 0xff, 0xc3, 0xff)]), konst(str([], [Uint8Array.of(0xff)]))],
    want: { values: str([3], ['a', Uint8Array.of(0xc3), '']) },
  },
  {
    name: 'a rank-2 input fails at run time',
    source: 'core/kernels/string_split_op.cc (StringSplitV2Op::Compute)',
    op: 'StringSplitV2',
    attrs: { maxsplit: attr.i(-1) },
    inputs: [str([1, 2], ['a', 'b']), konst(str([], [',']))],
    want: failsAtRun(/input must be a vector, got shape: \[1,2\]/),
  },
];

// TF1's StringSplit (tf.compat.v1.string_split): each byte of the delimiter splits, "" splits
// into single bytes; TF.js's converter runs it (tf.string.stringSplit).
const SPLIT_V1_TEST = `${KERNEL_TESTS}/string_split_op_test.py@5f3dac2e StringSplitOpTest`;
function splitV1(
  x: Array<string | Uint8Array>,
  delimiter: string,
  rows: Array<Array<string | Uint8Array>>,
  width: number,
  name: string,
  test: string,
  skipEmpty = true,
): OpCase {
  const indices = rows.flatMap((r, i) => r.map((_, j) => [i, j])).flat();
  const values = rows.flat();
  return {
    name,
    source: `${SPLIT_V1_TEST} ${test}`,
    op: 'StringSplit',
    attrs: { skip_empty: attr.b(skipEmpty) },
    inputs: [str([x.length], x), konst(str([], [delimiter]))],
    want: { indices: i64([values.length, 2], indices), values: str([values.length], values), shape: i64([2], [x.length, width]) },
  };
}
const byte = (b: number) => Uint8Array.of(b);

const SPLIT_V1_CASES: OpCase[] = [
  splitV1(
    ['pigs on the wing', 'animals'],
    ' ',
    [['pigs', 'on', 'the', 'wing'], ['animals']],
    4,
    'split on " ": the sparse triplet, shape [2, 4]',
    'testStringSplit',
  ),
  splitV1(
    ['hello', 'hola', Uint8Array.of(0xf0, 0x9f, 0x98, 0x8e)],
    '',
    [
      ['h', 'e', 'l', 'l', 'o'],
      ['h', 'o', 'l', 'a'],
      [byte(0xf0), byte(0x9f), byte(0x98), byte(0x8e)],
    ],
    5,
    'an empty delimiter splits into bytes, a 4-byte character too',
    'testStringSplitEmptyDelimiter',
  ),
  splitV1(
    ['', ' a', 'b ', ' c', ' ', ' d ', '  e', 'f  ', '  g  ', '  '],
    ' ',
    [[], ['a'], ['b'], ['c'], [], ['d'], ['e'], ['f'], ['g'], []],
    1,
    'empty tokens are skipped',
    'testStringSplitEmptyToken',
  ),
  splitV1(
    ['', ' a', 'b ', ' c', ' ', ' d ', '. e', 'f .', ' .g. ', ' .'],
    ' .',
    [[], ['a'], ['b'], ['c'], [], ['d'], ['e'], ['f'], ['g'], []],
    1,
    'each byte of the delimiter " ." splits',
    'testStringSplitOnSetEmptyToken',
  ),
  splitV1(
    ['hello|world', 'hello world'],
    '| ',
    [
      ['hello', 'world'],
      ['hello', 'world'],
    ],
    2,
    'delimiter "| "',
    'testStringSplitWithDelimiter',
  ),
  splitV1(
    ['hello.cruel,world', 'hello cruel world'],
    '.,',
    [['hello', 'cruel', 'world'], ['hello cruel world']],
    3,
    'delimiter ".,"',
    'testStringSplitWithDelimitersTensor',
  ),
  splitV1(
    ['#a', 'b#', '#c#'],
    '#',
    [
      ['', 'a'],
      ['b', ''],
      ['', 'c', ''],
    ],
    3,
    'skip_empty false keeps empty tokens',
    'testStringSplitWithNoSkipEmpty',
    false,
  ),
  splitV1(['#a', 'b#', '#c#'], '#', [['a'], ['b'], ['c']], 1, 'skip_empty true (the default) drops them', 'testStringSplitWithNoSkipEmpty'),
];

const JOIN_TEST = `${KERNEL_TESTS}/string_join_op_test.py@609ec267`;
const [A_B, A, B_C] = [str([2], ['a', 'b']), str([], ['a']), str([2, 1], ['b', 'c'])];
const join = (inputs: HostTensor[], separator: string, want: HostTensor | RegExp, name: string, line: number): OpCase => ({
  name,
  source: `${JOIN_TEST}:${line} testStringJoin`,
  op: 'StringJoin',
  attrs: { separator: attr.s(separator) },
  inputs: [inputs],
  want: want instanceof RegExp ? failsAtRun(want) : { output: want },
});

const JOIN_CASES: OpCase[] = [
  join([A_B, A], '', str([2], ['aa', 'ba']), '[["a", "b"], "a"] → ["aa", "ba"]: a scalar is broadcast', 30),
  join([A_B, A], '--', str([2], ['a--a', 'b--a']), 'separator "--"', 33),
  join([A_B, A, A_B], '--', str([2], ['a--a--a', 'b--a--b']), 'three inputs', 36),
  join([A, A, A, A], '!', str([], ['a!a!a!a']), 'scalars only give a scalar', 39),
  join([B_C, B_C], '', str([2, 1], ['bb', 'cc']), '[[["b"], ["c"]]] * 2 → [["bb"], ["cc"]]', 42),
  // TF's graph builder refuses these shapes (ValueError, line 44) before the kernel runs; a graph
  // that reaches the kernel gets string_join_op.cc's message.
  join([A_B, B_C], '', /Input shapes do not match: \[2\] vs\. \[2,1\]/, 'shapes [2] and [2, 1] do not match', 45),
];

// EncodeBase64 / DecodeBase64: base64_ops_test.py checks TF against Python's
// base64.urlsafe_b64encode (padding removed when pad is false); these bytes cover every
// value, so `-` and `_` appear.
const BASE64_TEST = `${KERNEL_TESTS}/base64_ops_test.py@84e2e6c7`;
const ALL_BYTES = Uint8Array.from({ length: 256 }, (_, i) => i);
const MSGS = [new Uint8Array(0), new TextEncoder().encode('a'), new TextEncoder().encode('ab'), ALL_BYTES.subarray(0, 100), ALL_BYTES];
const urlsafe = (b: Uint8Array, pad: boolean) => {
  const s = Buffer.from(b).toString('base64url');
  return pad ? s + '='.repeat((4 - (s.length % 4)) % 4) : s;
};
const decodeFails = (text: string, message: string, name: string, line: number): OpCase => ({
  name,
  source: `${BASE64_TEST}:${line} testInvalidInput`,
  op: 'DecodeBase64',
  inputs: [str([], [text])],
  want: failsAtRun(message),
});
const valid = urlsafe(ALL_BYTES.subarray(0, 34), true);
const BASE64_CASES: OpCase[] = [
  ...[false, true].map((pad): OpCase => ({
    name: `pad ${pad}: Python's urlsafe_b64encode${pad ? '' : ' without padding'}`,
    source: `${BASE64_TEST}:58 _RunTest`,
    op: 'EncodeBase64',
    attrs: { pad: attr.b(pad) },
    inputs: [str([MSGS.length], MSGS)],
    want: {
      output: str(
        [MSGS.length],
        MSGS.map((m) => urlsafe(m, pad)),
      ),
    },
  })),
  ...[false, true].map((pad): OpCase => ({
    name: `decodes what EncodeBase64(pad=${pad}) wrote`,
    source: `${BASE64_TEST}:66 _RunTest`,
    op: 'DecodeBase64',
    inputs: [
      str(
        [MSGS.length],
        MSGS.map((m) => urlsafe(m, pad)),
      ),
    ],
    want: { output: str([MSGS.length], MSGS) },
  })),
  decodeFails(`${urlsafe(ALL_BYTES.subarray(0, 99), true)}a`, 'Base64 string length cannot be 1 modulo 4.', 'length 1 modulo 4', 100),
  decodeFails(`?${valid.slice(1)}`, 'Invalid character found in base64.', "'?' is no base64 character", 109),
  decodeFails(`${valid.slice(0, 5)}+${valid.slice(6)}`, 'Invalid character found in base64.', "'+' is not web-safe", 116),
  decodeFails(`${valid.slice(0, 9)}/${valid.slice(10)}`, 'Invalid character found in base64.', "'/' is not web-safe", 118),
  decodeFails(valid.slice(0, -1), 'Invalid character found in base64.', 'partial padding', 125),
  decodeFails(`${urlsafe(ALL_BYTES.subarray(0, 33), true)}==`, 'Invalid character found in base64.', 'unnecessary padding', 131),
  decodeFails(`${valid.slice(0, 4)}=${valid.slice(5)}`, 'Invalid character found in base64.', 'padding in the middle', 142),
];

export const STRING_CASES: OpFamilyCases = {
  family: 'string',
  registrations: [
    ...REGEX_REGISTRATIONS,
    ...UNICODE_REGISTRATIONS,
    ...JOIN_MORE_REGISTRATIONS,
    ...WORDPIECE_REGISTRATIONS,
    ...STRING_FORMAT_REGISTRATIONS,
    ...NORMALIZE_REGISTRATIONS,
    `REGISTER_OP("EncodeBase64")
    .Input("input: string")
    .Output("output: string")
    .Attr("pad: bool = false")`,
    `REGISTER_OP("DecodeBase64")
    .Input("input: string")
    .Output("output: string")`,
    `REGISTER_OP("StringToHashBucket")
    .Input("string_tensor: string")
    .Output("output: int64")
    .Attr("num_buckets: int >= 1")`,
    `REGISTER_OP("StringSplit")
    .Input("input: string")
    .Input("delimiter: string")
    .Output("indices: int64")
    .Output("values: string")
    .Output("shape: int64")
    .Attr("skip_empty: bool = true")`,
    `REGISTER_OP("StringJoin")
    .Input("inputs: N * string")
    .Attr("N: int >= 0")
    .Attr("separator: string = ''")
    .Output("output: string")`,
  ],
  engines: {
    onnx: {
      skip: 'ONNX Runtime takes no string tensors here: the converter refuses a DT_STRING input (tf_to_onnx.ts), so --runtime=auto serves string ops on the embedded runtime',
    },
  },
  cases: [
    ...NORMALIZE_CASES_ALL,
    ...HASH_CASES,
    ...CASE_CASES,
    ...AS_STRING_CASES,
    ...SPLIT_CASES,
    ...SPLIT_V1_CASES,
    ...REGEX_CASES,
    ...JOIN_CASES,
    ...JOIN_MORE_CASES,
    ...UNICODE_CASES,
    ...BASE64_CASES,
    ...WORDPIECE_CASES,
    ...STRING_FORMAT_CASES,
  ],
};
