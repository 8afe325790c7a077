// The hash functions and printf formatting behind the string ops, against their own
// references: FarmHash's self-test (farmhash.cc, farmhashnaTest) and TF's stated hashes for
// Fingerprint64 and SipHash-2-4, C's printf for the conversions AsString reaches. The ops
// themselves are op cases (cases/string.ts), run on every engine.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { fingerprint64 } from '../../../src/runtimes/shared/hash/farmhash_fingerprint64.js';
import { sipHash24 } from '../../../src/runtimes/shared/hash/siphash.js';
import { hash64 } from '../../../src/runtimes/shared/hash/hash64.js';
import { printfNumber } from '../../../src/runtimes/embedded/ops/string/printf_format.js';

const enc = new TextEncoder();

describe('Fingerprint64 and SipHash', () => {
  it("TF's Hash64 gives the values core/platform/hash_test.cc states (tails of 0-4 bytes, a 48-byte input through the 8-byte loop) and string_to_hash_bucket_op_test's with the default seed", () => {
    const d5 = Uint8Array.of(
      0x01,
      0xc0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0x14,
      0,
      0,
      0,
      0,
      0,
      0x04,
      0,
      0,
      0,
      0,
      0x14,
      0,
      0,
      0,
      0x18,
      0x28,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0x02,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
    );
    assert.equal(hash64(new Uint8Array(0), 0xbc9f1d34n), 0x4c61ea3eeda4cb87n);
    assert.equal(hash64(Uint8Array.of(0x62), 0xbc9f1d34n), 0x091309f7ef916c8an);
    assert.equal(hash64(Uint8Array.of(0xc3, 0x97), 0xbc9f1d34n), 0xa815bcdf1d1af01cn);
    assert.equal(hash64(Uint8Array.of(0xe2, 0x99, 0xa5), 0xbc9f1d34n), 0x02167564e4d06430n);
    assert.equal(hash64(Uint8Array.of(0xe1, 0x80, 0xb9, 0x32), 0xbc9f1d34n), 0x8f7ed82ffc21071fn);
    assert.equal(hash64(d5, 0x12345678n), 0xce196580c97aff1en);
    assert.equal(hash64(enc.encode('a')), 2996632905371535868n);
    assert.equal(hash64(enc.encode('b')), 5795986006276551370n);
    assert.equal(hash64(enc.encode('c')), 14899841994519054197n);
  });

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
      b = ((b ^ (b >> 41n)) * k0 + BigInt(i)) & M64;
      data[i] = Number((b >> 37n) & 0xffn);
    }
    // farmhashnaTest's expected[] entries for Hash64(data + i*i, i), high and low words joined.
    const expected: Array<[number, bigint]> = [
      [0, 11160318154034397263n],
      [1, 6057711933287653014n],
      [2, 1096493076212885441n],
      [3, 17262924617777385131n],
      [4, 1287846036432493960n],
      [7, 1970894657613724145n],
      [8, 11597051931199355094n],
      [9, 18126316081798418699n],
      [16, 282273162512842838n],
      [17, 7691019942193281883n],
      [31, 6178288770513559229n],
      [32, 541269899254986215n],
      [33, 711203541633906104n],
      [48, 99109685027359318n],
      [64, 16066393710399699995n],
      [65, 4381627749513796415n],
      [100, 409043573355470048n],
      [128, 17629800649466220701n],
      [129, 15345954539186508726n],
      [200, 4680135810112858625n],
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
