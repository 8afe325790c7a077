// The string ops and Bucketize of Keras preprocessing layers and Estimator serving inputs,
// through the embedded runtime on WASM and on CPU (both must agree), on tiny graphs written
// with tfgate's SavedModel writer. Expected values are TensorFlow's own: its op docs and its
// kernel tests (python/kernel_tests/strings_ops/*, bucketize_op_test), and for Fingerprint64
// FarmHash's self-test (farmhash.cc, farmhashnaTest).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { EmbeddedRuntime } from '../../src/runtimes/embedded/embedded_runtime.js';
import type { TfjsServable } from '../../src/runtimes/embedded/tfjs_servable.js';
import type { HostTensor } from '../../src/tensor/host_tensor.js';
import type { DType } from '../../src/tensor/dtype.js';
import { Code } from '../../src/errors/status.js';
import { isError } from '../helpers/errors.js';
import { attr, f32, i32, i64, node, Tensor, writeTinyModel, type GraphBuilder } from '../helpers/tiny_graphs.js';
import { EMBEDDED_BACKENDS, runOnBothBackends } from '../helpers/both_backends.js';
import type { AttrValueInit } from '../../test_util/savedmodel/writer/graph_builder.js';
import { fingerprint64 } from '../../src/runtimes/embedded/ops/farmhash_fingerprint64.js';
import { sipHash24 } from '../../src/runtimes/embedded/ops/siphash.js';
import { printfNumber } from '../../src/runtimes/embedded/ops/printf_format.js';

const RUNTIMES = EMBEDDED_BACKENDS;
const load = async (dir: string, runtime: EmbeddedRuntime = RUNTIMES[0]) => (await runtime.load(dir, { tags: ['serve'] })) as TfjsServable;

const run = runOnBothBackends;

const enc = new TextEncoder();
const bytes = (v: string | Uint8Array) => (typeof v === 'string' ? enc.encode(v) : v);
const str = (shape: number[], values: Array<string | Uint8Array>): HostTensor => ({ dtype: 'string', shape, values: values.map(bytes) });
/** String elements as Latin-1 text: one character per byte, so any byte can be compared. */
const texts = (t: HostTensor) => (t.values as Uint8Array[]).map((b) => Buffer.from(b).toString('latin1'));
const latin1 = (s: string) => Buffer.from(s, 'utf8').toString('latin1');
const nums = (t: HostTensor) => Array.from(t.values as ArrayLike<number | bigint>, Number);

/** A model computing `build(x)` from a placeholder x of `dtype`. */
const unary = (dtype: DType, shape: number[] | null, build: (g: GraphBuilder, x: Tensor) => Tensor) =>
  writeTinyModel((g) => {
    const x = g.placeholder('x', dtype, shape);
    return { inputs: { x }, outputs: { y: g.identity('y', build(g, x)) } };
  });

const op = (name: string, attrs: Record<string, AttrValueInit> = {}, out: DType = 'string') => (g: GraphBuilder, x: Tensor) => node(g, name, name.toLowerCase(), [x], attrs, out);

async function refused(dtype: DType, build: (g: GraphBuilder, x: Tensor) => Tensor, pattern: RegExp): Promise<void> {
  const dir = await unary(dtype, null, build);
  await assert.rejects(load(dir), isError(Code.FAILED_PRECONDITION, pattern));
}

describe('Fingerprint64 and SipHash', () => {
  it("Fingerprint64 gives the values TF's string_to_hash_bucket_op_test states", () => {
    assert.equal(fingerprint64(enc.encode('a')), 12917804110809363939n);
    assert.equal(fingerprint64(enc.encode('b')), 11795596070477164822n);
    assert.equal(fingerprint64(enc.encode('c')), 11430444447143000872n);
    assert.equal(fingerprint64(enc.encode('d')), 4470636696479570465n);
  });

  it("Fingerprint64 equals farmhashna::Hash64 in FarmHash's self-test at every length branch (0-16, 17-32, 33-64, the 64-byte loop)", () => {
    // farmhash.cc Setup(): the test data from a = 9, b = 777; Test(i * i, i) hashes i bytes at i².
    const k0 = 0xc3a5c85c97cb3127n;
    const M64 = (1n << 64n) - 1n;
    const data = new Uint8Array(299 * 299);
    let a = 9n;
    let b = 777n;
    for (let i = 0; i < data.length; i++) {
      a = (a + b) & M64;
      b = (b + a) & M64;
      a = ((a ^ (a >> 41n)) * k0) & M64;
      b = (((b ^ (b >> 41n)) * k0) + BigInt(i)) & M64;
      data[i] = Number((b >> 37n) & 0xffn);
    }
    // farmhashnaTest's expected[] entries for Hash64(data + i*i, i), high and low words joined.
    const expected: Array<[number, bigint]> = [
      [0, 11160318154034397263n], [1, 6057711933287653014n], [2, 1096493076212885441n], [3, 17262924617777385131n],
      [4, 1287846036432493960n], [7, 1970894657613724145n], [8, 11597051931199355094n], [9, 18126316081798418699n],
      [16, 282273162512842838n], [17, 7691019942193281883n], [31, 6178288770513559229n], [32, 541269899254986215n],
      [33, 711203541633906104n], [48, 99109685027359318n], [64, 16066393710399699995n], [65, 4381627749513796415n],
      [100, 409043573355470048n], [128, 17629800649466220701n], [129, 15345954539186508726n], [200, 4680135810112858625n],
      [298, 2319855510833732255n],
    ];
    for (const [len, want] of expected) assert.equal(fingerprint64(data.subarray(len * len, len * len + len)), want, `length ${len}`);
  });

  it("SipHash-2-4 with key [98765, 132] gives the StrongKeyedHash values TF's test states", () => {
    const key = [98765n, 132n] as const;
    assert.equal(sipHash24(key, enc.encode('a')), 7157389809176466784n);
    assert.equal(sipHash24(key, enc.encode('b')), 15805638358933211562n);
    assert.equal(sipHash24(key, enc.encode('c')), 18100027895074076528n);
  });
});

describe('StringToHashBucketFast / StringToHashBucketStrong', () => {
  const fast = (n: number) => op('StringToHashBucketFast', { num_buckets: attr.i(n) }, 'int64');

  it('tf.strings.to_hash_bucket_fast(["Hello", "TensorFlow", "2.x"], 3) == [0, 2, 2] (its docs); ["a" … "d"] in 10 buckets [9, 2, 2, 5]', async () => {
    const dir = await unary('string', [-1], fast(3));
    const { y } = await run(dir, { x: str([3], ['Hello', 'TensorFlow', '2.x']) });
    assert.equal(y.dtype, 'int64');
    assert.deepEqual(nums(y), [0, 2, 2]);
    assert.deepEqual(nums((await run(await unary('string', [-1], fast(10)), { x: str([4], ['a', 'b', 'c', 'd']) })).y), [9, 2, 2, 5]);
    assert.deepEqual(nums((await run(await unary('string', [-1], fast(1)), { x: str([3], ['a', 'b', 'c']) })).y), [0, 0, 0]);
  });

  it('Keras Hashing(num_bins=3) on [["A"], ["B"], ["C"], ["D"], ["E"]] gives [[1], [0], [1], [1], [2]] (its docs), shape kept', async () => {
    const dir = await unary('string', [-1, 1], fast(3));
    const { y } = await run(dir, { x: str([5, 1], ['A', 'B', 'C', 'D', 'E']) });
    assert.deepEqual(y.shape, [5, 1]);
    assert.deepEqual(nums(y), [1, 0, 1, 1, 2]);
  });

  it('hashes the bytes: a string that is not UTF-8 gets its own bucket, the Fingerprint64 of those bytes', async () => {
    const raw = Uint8Array.of(0xff, 0xfe, 0x41);
    const dir = await unary('string', [-1], fast(1000003));
    const { y } = await run(dir, { x: str([2], [raw, 'A']) });
    assert.deepEqual(nums(y), [Number(fingerprint64(raw) % 1000003n), Number(fingerprint64(enc.encode('A')) % 1000003n)]);
  });

  it('StringToHashBucketStrong with key [98765, 132] puts "a", "b", "c" in [4, 2, 8] of 10 (TF\'s test)', async () => {
    const dir = await unary('string', [-1], op('StringToHashBucketStrong', { num_buckets: attr.i(10), key: attr.ints([98765, 132]) }, 'int64'));
    assert.deepEqual(nums((await run(dir, { x: str([3], ['a', 'b', 'c']) })).y), [4, 2, 8]);
  });

  it('refused at load: num_buckets 0, a key of one element (TF\'s messages)', async () => {
    // The op's registration says it (TF's graph construction refuses the NodeDef before any kernel).
    await refused('string', fast(0), /Value for attr 'num_buckets' of 0 must be at least minimum 1; NodeDef: \{\{node stringtohashbucketfast\}\}; Op<name=StringToHashBucketFast/);
    await refused(
      'string',
      op('StringToHashBucketStrong', { num_buckets: attr.i(10), key: attr.ints([98765]) }, 'int64'),
      /StringToHashBucketStrong \(node stringtohashbucketstrong: Key must have 2 elements\)/,
    );
  });
});

describe('StringLower / StringUpper / StringStrip', () => {
  const lower = (encoding = '') => op('StringLower', { encoding: attr.s(encoding) });
  const upper = (encoding = '') => op('StringUpper', { encoding: attr.s(encoding) });

  it("ASCII case mapping: TF's 1-D and 2-D test strings", async () => {
    const x = str([2, 2], ['pigS on THE wIng', 'aniMals', ' hello ', '\n\tWorld! \r \n']);
    assert.deepEqual(texts((await run(await unary('string', [-1, -1], lower()), { x })).y), ['pigs on the wing', 'animals', ' hello ', '\n\tworld! \r \n']);
    assert.deepEqual(texts((await run(await unary('string', [-1, -1], upper()), { x })).y), ['PIGS ON THE WING', 'ANIMALS', ' HELLO ', '\n\tWORLD! \r \n']);
  });

  it('encoding utf-8 maps Unicode letters ("ÓÓSSCHLOË" ↔ "óósschloë", TF\'s tests); encoding "" changes only ASCII bytes and keeps any other byte', async () => {
    const { y: lo } = await run(await unary('string', [-1], lower('utf-8')), { x: str([1], ['ÓÓSSCHLOË']) });
    assert.deepEqual(texts(lo), ['\xc3\xb3\xc3\xb3sschlo\xc3\xab']);
    const { y: up } = await run(await unary('string', [-1], upper('utf-8')), { x: str([1], ['óósschloë']) });
    assert.deepEqual(texts(up), ['\xc3\x93\xc3\x93SSCHLO\xc3\x8b']);
    const { y: ascii } = await run(await unary('string', [-1], lower()), { x: str([2], ['ÓÓSSCHLOË', Uint8Array.of(0xff, 0x41, 0xc3)]) });
    assert.deepEqual(texts(ascii), [latin1('ÓÓsschloË'), '\xffa\xc3']);
  });

  it("StringStrip removes ASCII whitespace at both ends only (TF's test strings)", async () => {
    const dir = await unary('string', [-1], op('StringStrip'));
    const { y } = await run(dir, { x: str([6], [' hello ', '', 'world ', ' \t \r \n ', '\n\tworld \r \n', 'pigs on the wing']) });
    assert.deepEqual(texts(y), ['hello', '', 'world', '', 'world', 'pigs on the wing']);
  });

  it("refused at load: an encoding other than '' or utf-8 (TF's message)", () =>
    refused('string', lower('latin-1'), /StringLower \(node stringlower: only utf-8 or '' \(no encoding\) is supported, received latin-1\)/));
});

describe('Bucketize', () => {
  const bucketize = (boundaries: number[], dtype: DType) => op('Bucketize', { T: attr.type(dtype), boundaries: { list: { f: boundaries } } }, 'int32');

  it("tf.raw_ops.Bucketize's documented example: boundaries [0, 10, 100] → [[0, 3], [3, 2], [1, 3]], on float32 and int32 inputs", async () => {
    const xs = [-5, 10000, 150, 10, 5, 100];
    const { y } = await run(await unary('float32', [-1, 2], bucketize([0, 10, 100], 'float32')), { x: f32([3, 2], xs) });
    assert.deepEqual(y.shape, [3, 2]);
    assert.deepEqual(nums(y), [0, 3, 3, 2, 1, 3]);
    assert.deepEqual(nums((await run(await unary('int32', [-1, 2], bucketize([0, 10, 100], 'int32')), { x: i32([3, 2], xs) })).y), [0, 3, 3, 2, 1, 3]);
  });

  it("bucketize_op_test: boundaries [0, 3, 8, 11] put [-5, 0, 2, 3, 5, 8, 10, 11, 12] in [0, 1, 1, 2, 2, 3, 3, 4, 4] (int64 input)", async () => {
    const dir = await unary('int64', [-1], bucketize([0, 3, 8, 11], 'int64'));
    assert.deepEqual(nums((await run(dir, { x: i64([9], [-5, 0, 2, 3, 5, 8, 10, 11, 12]) })).y), [0, 1, 1, 2, 2, 3, 3, 4, 4]);
  });

  it('refused at load: boundaries not sorted (TF\'s message)', () =>
    refused('float32', bucketize([0, 10, 5], 'float32'), /Bucketize \(node bucketize: Expected sorted boundaries\)/));
});

describe('AsString', () => {
  const asString = (dtype: DType, attrs: Record<string, AttrValueInit> = {}) => op('AsString', { T: attr.type(dtype), ...attrs });
  // as_string_op_test.testFloat's inputs; the expected strings are Python's "%…" % x, as there.
  const FLOATS = [0, 1, -1, 0.5, 0.25, 0.125, Infinity, NaN, -Infinity];
  const floatCases: Array<[string, Record<string, AttrValueInit>, string[]]> = [
    ['shortest (%g)', { shortest: attr.b(true) }, ['0', '1', '-1', '0.5', '0.25', '0.125', 'inf', 'nan', '-inf']],
    ['scientific (%e)', { scientific: attr.b(true) }, ['0.000000e+00', '1.000000e+00', '-1.000000e+00', '5.000000e-01', '2.500000e-01', '1.250000e-01', 'inf', 'nan', '-inf']],
    ['default (%f)', {}, ['0.000000', '1.000000', '-1.000000', '0.500000', '0.250000', '0.125000', 'inf', 'nan', '-inf']],
    ['width 3 (%3f)', { width: attr.i(3) }, ['0.000000', '1.000000', '-1.000000', '0.500000', '0.250000', '0.125000', 'inf', 'nan', '-inf']],
    ['width 3 fill 0 shortest (%03g)', { width: attr.i(3), fill: attr.s('0'), shortest: attr.b(true) }, ['000', '001', '-01', '0.5', '0.25', '0.125', 'inf', 'nan', '-inf']],
    ['precision 10 width 3 (%3.10f)', { precision: attr.i(10), width: attr.i(3) }, ['0.0000000000', '1.0000000000', '-1.0000000000', '0.5000000000', '0.2500000000', '0.1250000000', 'inf', 'nan', '-inf']],
    ['precision 10 width 3 fill 0 shortest (%03.10g)', { precision: attr.i(10), width: attr.i(3), fill: attr.s('0'), shortest: attr.b(true) }, ['000', '001', '-01', '0.5', '0.25', '0.125', 'inf', 'nan', '-inf']],
  ];
  for (const [what, attrs, want] of floatCases) {
    it(`float32 ${what}: as_string_op_test's values`, async () => {
      const dir = await unary('float32', [-1], asString('float32', attrs));
      assert.deepEqual(texts((await run(dir, { x: f32([FLOATS.length], FLOATS) })).y), want);
    });
  }

  it('prints the float32 value exactly, rounding ties to even as printf does (0.125 → "0.12" with precision 2)', async () => {
    const xs = [0.125, 0.375, 2.5, -0.125, 0.1, 3.4e38];
    const { y } = await run(await unary('float32', [-1], asString('float32', { precision: attr.i(2) })), { x: f32([xs.length], xs) });
    assert.deepEqual(texts(y), ['0.12', '0.38', '2.50', '-0.12', '0.10', '339999995214436424907732413799364296704.00']);
    const { y: g } = await run(await unary('float32', [-1], asString('float32', { precision: attr.i(10), shortest: attr.b(true) })), { x: f32([2], [0.1, 1e-30]) });
    assert.deepEqual(texts(g), ['0.1000000015', '1.000000003e-30']);
  });

  it("integers (testInt): %d, %3d, %03d on int32 and int64; bools print true / false (testBool)", async () => {
    const ints = [0, -1, 1, -128, 127, -101, 101];
    for (const dtype of ['int32', 'int64'] as const) {
      const x = dtype === 'int32' ? i32([ints.length], ints) : i64([ints.length], ints);
      assert.deepEqual(texts((await run(await unary(dtype, [-1], asString(dtype)), { x })).y), ['0', '-1', '1', '-128', '127', '-101', '101']);
      assert.deepEqual(texts((await run(await unary(dtype, [-1], asString(dtype, { width: attr.i(3) })), { x })).y), ['  0', ' -1', '  1', '-128', '127', '-101', '101']);
      assert.deepEqual(texts((await run(await unary(dtype, [-1], asString(dtype, { width: attr.i(3), fill: attr.s('0') })), { x })).y), ['000', '-01', '001', '-128', '127', '-101', '101']);
    }
    const { y } = await run(await unary('bool', [-1], asString('bool')), { x: { dtype: 'bool', shape: [2], values: Uint8Array.of(0, 1) } });
    assert.deepEqual(texts(y), ['false', 'true']);
  });

  it("refused at load with TF's messages: precision on ints, scientific with shortest, a two-character fill; and float64", async () => {
    await refused('int32', asString('int32', { precision: attr.i(0) }), /AsString \(node asstring: precision not supported for datatype int32\)/);
    await refused('int32', asString('int32', { shortest: attr.b(true) }), /scientific and shortest format not supported for datatype int32/);
    await refused('float32', asString('float32', { scientific: attr.b(true), shortest: attr.b(true) }), /Cannot select both scientific and shortest notation/);
    await refused('float32', asString('float32', { fill: attr.s('ab') }), /Fill string must be one or fewer characters/);
    await refused('float32', asString('float32', { width: attr.i(4), fill: attr.s('x') }), /fill 'x' is not a printf flag/);
    await refused('float64', asString('float64'), /AsString \(node asstring: double inputs reach the embedded runtime rounded to float32/);
  });
});

describe('printf conversions beyond what a float32 reaches', () => {
  const spec = (conversion: 'd' | 'f' | 'e' | 'g', flags = '', width = -1, precision = -1) => ({ conversion, flags, width, precision });
  it("agree with C's printf on flags, exponents, rounding carries and subnormals", () => {
    assert.equal(printfNumber(3.14159, spec('f', '-', 8, 2)), '3.14    ');
    assert.equal(printfNumber(5, spec('d', '+')), '+5');
    assert.equal(printfNumber(5, spec('d', ' ')), ' 5');
    assert.equal(printfNumber(9.9996, spec('e', '', -1, 3)), '1.000e+01');
    assert.equal(printfNumber(123456789, spec('g')), '1.23457e+08');
    assert.equal(printfNumber(0.0001, spec('g')), '0.0001');
    assert.equal(printfNumber(0.00001, spec('g')), '1e-05');
    assert.equal(printfNumber(1e30, spec('f')), '1000000000000000019884624838656.000000');
    assert.equal(printfNumber(-0, spec('f')), '-0.000000');
    assert.equal(printfNumber(2.5, spec('f', '', -1, 0)), '2');
    assert.equal(printfNumber(3.5, spec('f', '', -1, 0)), '4');
    assert.equal(printfNumber(1, spec('g', '#')), '1.00000');
    assert.equal(printfNumber(5e-324, spec('e')), '4.940656e-324');
    assert.equal(printfNumber(Infinity, spec('f', '0', 6)), '   inf');
    assert.equal(printfNumber(NaN, spec('f'), true), '-nan');
  });
});

describe('StringSplitV2', () => {
  const split = (sep: string | Uint8Array, maxsplit = -1) =>
    writeTinyModel((g) => {
      const x = g.placeholder('x', 'string', [-1]);
      const sepT = g.constant('sep', str([], [sep]));
      const n = g.addNode('StringSplitV2', 'split', [x, sepT], { maxsplit: attr.i(maxsplit) });
      const out = (i: number, dtype: DType) => g.identity(['indices', 'values', 'shape'][i], new Tensor(n, i, dtype, null));
      return { inputs: { x }, outputs: { indices: out(0, 'int64'), values: out(1, 'string'), shape: out(2, 'int64') } };
    });
  const rows = (r: Record<string, HostTensor>) => {
    const idx = nums(r.indices);
    const vals = texts(r.values);
    const [n, width] = nums(r.shape);
    const out: string[][] = Array.from({ length: n }, () => []);
    vals.forEach((v, k) => {
      assert.ok(idx[2 * k + 1] < width);
      out[idx[2 * k]][idx[2 * k + 1]] = v;
    });
    return out;
  };

  it('tf.strings.split(["pigs on the wing", "animals"]): the sparse triplet TF\'s testSplitV2 states', async () => {
    const r = await run(await split(''), { x: str([2], ['pigs on the wing', 'animals']) });
    assert.equal(r.indices.dtype, 'int64');
    assert.deepEqual(r.indices.shape, [5, 2]);
    assert.deepEqual(nums(r.indices), [0, 0, 0, 1, 0, 2, 0, 3, 1, 0]);
    assert.deepEqual(texts(r.values), ['pigs', 'on', 'the', 'wing', 'animals']);
    assert.deepEqual(nums(r.shape), [2, 4]);
  });

  it("separators, whitespace runs and maxsplit as in TF's parameterized cases", async () => {
    assert.deepEqual(rows(await run(await split('<>'), { x: str([2], ['1<>2<>3', '<><>4<>5<><>6<>']) })), [['1', '2', '3'], ['', '', '4', '5', '', '6', '']]);
    assert.deepEqual(rows(await run(await split(','), { x: str([2], ['1,2,3', '4,5,,6,']) })), [['1', '2', '3'], ['4', '5', '', '6', '']]);
    assert.deepEqual(rows(await run(await split(''), { x: str([2], ['1 2 3', '  4  5    6  ']) })), [['1', '2', '3'], ['4', '5', '6']]);
    assert.deepEqual(rows(await run(await split(''), { x: str([1], ['']) })), [[]]);
    assert.deepEqual(rows(await run(await split(',', 1), { x: str([2], ['1,2,3', '4,5,,6,']) })), [['1', '2,3'], ['4', '5,,6,']]);
    assert.deepEqual(rows(await run(await split('', 1), { x: str([2], ['1 2 3', '  4  5    6  ']) })), [['1', '2 3'], ['4', '5    6  ']]);
  });

  it('splits bytes: a separator and tokens that are not UTF-8 come back unchanged', async () => {
    const r = await run(await split(Uint8Array.of(0xff)), { x: str([1], [Uint8Array.of(0x61, 0xff, 0xc3, 0xff)]) });
    assert.deepEqual(texts(r.values), ['a', '\xc3', '']);
  });

  it("a rank-2 input fails at run time with TF's message", async () => {
    const dir = await writeTinyModel((g) => {
      const x = g.placeholder('x', 'string', [-1, -1]);
      const n = g.addNode('StringSplitV2', 'split', [x, g.constant('sep', str([], [',']))], { maxsplit: attr.i(-1) });
      return { inputs: { x }, outputs: { values: g.identity('values', new Tensor(n, 1, 'string', null)) } };
    });
    const s = await load(dir);
    try {
      await assert.rejects(s.run('serving_default', { x: str([1, 2], ['a', 'b']) }), isError(Code.INVALID_ARGUMENT, /input must be a vector, got shape: \[1,2\]/));
    } finally {
      s.dispose();
    }
  });
});

describe('StaticRegexReplace (the simple RE2 patterns)', () => {
  const replace = (pattern: string, rewrite: string, global = true) =>
    op('StaticRegexReplace', { pattern: attr.s(pattern), rewrite: attr.s(rewrite), replace_global: attr.b(global) });
  // Keras TextVectorization's DEFAULT_STRIP_REGEX (lower_and_strip_punctuation).
  const KERAS_STRIP = '[!"#$%&()\\*\\+,-\\./:;<=>?@\\[\\\\\\]^_`{|}~\\\']';

  it("a literal: regex_replace_op_test's testGlobal ('ab' → 'abc'), and replace_global false replaces the first match only", async () => {
    const x = str([3], ['ababababab', 'abcabcabc', '']);
    assert.deepEqual(texts((await run(await unary('string', [-1], replace('ab', 'abc')), { x })).y), ['abcabcabcabcabc', 'abccabccabcc', '']);
    assert.deepEqual(texts((await run(await unary('string', [-1], replace('ab', 'abc', false)), { x })).y), ['abcabababab', 'abccabcabc', '']);
  });

  it("Keras' punctuation class strips every ASCII punctuation byte and leaves UTF-8 text and other bytes alone; \\s+ collapses whitespace runs", async () => {
    const x = str([3], ["The Brown Fox! It's [a]\\b-c.", 'naïve café, “quoted”', Uint8Array.of(0xff, 0x2c, 0x41)]);
    const { y } = await run(await unary('string', [-1], replace(KERAS_STRIP, '')), { x });
    assert.deepEqual(texts(y), ['The Brown Fox Its abc', latin1('naïve café “quoted”'), '\xffA']);
    const { y: ws } = await run(await unary('string', [-1], replace('\\s+', ' ')), { x: str([1], [' a \t\n b\x0b c  ']) });
    assert.deepEqual(texts(ws), [' a b\x0b c ']); // RE2's \s has no \v
    const { y: az } = await run(await unary('string', [-1], replace('[a-z]', '.')), { x: str([1], ['fooBAR1']) });
    assert.deepEqual(texts(az), ['...BAR1']);
  });

  it("refused at load: TF's message for an unterminated class; ours, naming the pattern, for anchors, groups, \\p{…} and rewrites with groups", async () => {
    await refused('string', replace('A[', 'x'), /StaticRegexReplace \(node staticregexreplace: Invalid pattern: A\[, error: missing \]: \[/);
    await refused('string', replace('^(a:|b:)', ''), /pattern '\^\(a:\|b:\)': the embedded runtime implements exactly only/);
    await refused('string', replace('\\p{Ll}', '.'), /pattern '\\p\{Ll\}'/);
    await refused('string', replace('a', '(\\0)'), /rewrite '\(\\0\)': only a literal rewrite/);
  });
});
