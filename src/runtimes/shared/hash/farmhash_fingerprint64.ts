// TensorFlow's Fingerprint64 (tensorflow/core/platform/fingerprint.h): farmhash::Fingerprint64,
// which is farmhashna::Hash64 of the bytes, a function FarmHash promises never to change (so
// hash buckets written by a model's training stay valid). A transcription of farmhash.cc's
// farmhashna namespace, little-endian loads, in BigInt arithmetic modulo 2^64.
// Known values: TF's string_to_hash_bucket_op_test.py states Fingerprint64('a') =
// 12917804110809363939 and Fingerprint64('d') = 4470636696479570465.

const M64 = (1n << 64n) - 1n;
const k0 = 0xc3a5c85c97cb3127n;
const k1 = 0xb492b66fbe98f273n;
const k2 = 0x9ae16a3b2f90404fn;

const mul = (a: bigint, b: bigint) => (a * b) & M64;
const add = (a: bigint, b: bigint) => (a + b) & M64;
const rotate = (v: bigint, shift: number) => (shift === 0 ? v : ((v >> BigInt(shift)) | (v << BigInt(64 - shift))) & M64);
const shiftMix = (v: bigint) => v ^ (v >> 47n);

function fetch64(s: Uint8Array, i: number): bigint {
  const lo = (s[i] | (s[i + 1] << 8) | (s[i + 2] << 16) | (s[i + 3] << 24)) >>> 0;
  const hi = (s[i + 4] | (s[i + 5] << 8) | (s[i + 6] << 16) | (s[i + 7] << 24)) >>> 0;
  return (BigInt(hi) << 32n) | BigInt(lo);
}

const fetch32 = (s: Uint8Array, i: number) => BigInt((s[i] | (s[i + 1] << 8) | (s[i + 2] << 16) | (s[i + 3] << 24)) >>> 0);

function hashLen16(u: bigint, v: bigint, m: bigint): bigint {
  let a = mul(u ^ v, m);
  a ^= a >> 47n;
  let b = mul(v ^ a, m);
  b ^= b >> 47n;
  return mul(b, m);
}

function hashLen0to16(s: Uint8Array): bigint {
  const len = s.length;
  if (len >= 8) {
    const m = add(k2, BigInt(len * 2));
    const a = add(fetch64(s, 0), k2);
    const b = fetch64(s, len - 8);
    const c = add(mul(rotate(b, 37), m), a);
    const d = mul(add(rotate(a, 25), b), m);
    return hashLen16(c, d, m);
  }
  if (len >= 4) {
    const m = add(k2, BigInt(len * 2));
    const a = fetch32(s, 0);
    return hashLen16(add(BigInt(len), a << 3n), fetch32(s, len - 4), m);
  }
  if (len > 0) {
    const y = BigInt(s[0] + (s[len >> 1] << 8));
    const z = BigInt(len + (s[len - 1] << 2));
    return mul(shiftMix(mul(y, k2) ^ mul(z, k0)), k2);
  }
  return k2;
}

function hashLen17to32(s: Uint8Array): bigint {
  const len = s.length;
  const m = add(k2, BigInt(len * 2));
  const a = mul(fetch64(s, 0), k1);
  const b = fetch64(s, 8);
  const c = mul(fetch64(s, len - 8), m);
  const d = mul(fetch64(s, len - 16), k2);
  return hashLen16(add(add(rotate(add(a, b), 43), rotate(c, 30)), d), add(add(a, rotate(add(b, k2), 18)), c), m);
}

/** farmhashna's WeakHashLen32WithSeeds over s[i … i+31]: [first, second]. */
function weakHashLen32WithSeeds(s: Uint8Array, i: number, a: bigint, b: bigint): [bigint, bigint] {
  const w = fetch64(s, i);
  const x = fetch64(s, i + 8);
  const y = fetch64(s, i + 16);
  const z = fetch64(s, i + 24);
  a = add(a, w);
  b = rotate(add(add(b, a), z), 21);
  const c = a;
  a = add(add(a, x), y);
  b = add(b, rotate(a, 44));
  return [add(a, z), add(b, c)];
}

function hashLen33to64(s: Uint8Array): bigint {
  const len = s.length;
  const m = add(k2, BigInt(len * 2));
  const a = mul(fetch64(s, 0), k2);
  const b = fetch64(s, 8);
  const c = mul(fetch64(s, len - 8), m);
  const d = mul(fetch64(s, len - 16), k2);
  const y = add(add(rotate(add(a, b), 43), rotate(c, 30)), d);
  const z = hashLen16(y, add(add(a, rotate(add(b, k2), 18)), c), m);
  const e = mul(fetch64(s, 16), m);
  const f = fetch64(s, 24);
  const g = mul(add(y, fetch64(s, len - 32)), m);
  const h = mul(add(z, fetch64(s, len - 24)), m);
  return hashLen16(add(add(rotate(add(e, f), 43), rotate(g, 30)), h), add(add(e, rotate(add(f, a), 18)), g), m);
}

/** Fingerprint64 of `s` as an unsigned 64-bit value. */
export function fingerprint64(s: Uint8Array): bigint {
  const len = s.length;
  if (len <= 16) return hashLen0to16(s);
  if (len <= 32) return hashLen17to32(s);
  if (len <= 64) return hashLen33to64(s);

  // Over 64 bytes: 64-byte blocks through a 56-byte state v, w, x, y, z.
  const seed = 81n;
  let x = seed;
  let y = add(mul(seed, k1), 113n);
  let z = mul(shiftMix(add(mul(y, k2), 113n)), k2);
  let v: [bigint, bigint] = [0n, 0n];
  let w: [bigint, bigint] = [0n, 0n];
  x = add(mul(x, k2), fetch64(s, 0));
  const end = Math.floor((len - 1) / 64) * 64;
  const last64 = len - 64;
  let i = 0;
  do {
    x = mul(rotate(add(add(add(x, y), v[0]), fetch64(s, i + 8)), 37), k1);
    y = mul(rotate(add(add(y, v[1]), fetch64(s, i + 48)), 42), k1);
    x ^= w[1];
    y = add(y, add(v[0], fetch64(s, i + 40)));
    z = mul(rotate(add(z, w[0]), 33), k1);
    v = weakHashLen32WithSeeds(s, i, mul(v[1], k1), add(x, w[0]));
    w = weakHashLen32WithSeeds(s, i + 32, add(z, w[1]), add(y, fetch64(s, i + 16)));
    [z, x] = [x, z];
    i += 64;
  } while (i !== end);
  const m = add(k1, (z & 0xffn) << 1n);
  i = last64;
  w[0] = add(w[0], BigInt((len - 1) & 63));
  v[0] = add(v[0], w[0]);
  w[0] = add(w[0], v[0]);
  x = mul(rotate(add(add(add(x, y), v[0]), fetch64(s, i + 8)), 37), m);
  y = mul(rotate(add(add(y, v[1]), fetch64(s, i + 48)), 42), m);
  x ^= mul(w[1], 9n);
  y = add(y, add(mul(v[0], 9n), fetch64(s, i + 40)));
  z = mul(rotate(add(z, w[0]), 33), m);
  v = weakHashLen32WithSeeds(s, i, mul(v[1], m), add(x, w[0]));
  w = weakHashLen32WithSeeds(s, i + 32, add(z, w[1]), add(y, fetch64(s, i + 16)));
  [z, x] = [x, z];
  return hashLen16(add(add(hashLen16(v[0], w[0], m), mul(shiftMix(y), k0)), z), add(hashLen16(v[1], w[1], m), x), m);
}

/**
 * TF's FingerprintCat64 (fingerprint.h): combines two fingerprints into one, order-dependent
 * (what SparseCross's hashed crosses fold each feature's fingerprint in with).
 */
export function fingerprintCat64(fp1: bigint, fp2: bigint): bigint {
  const kMul = 0xc6a4a7935bd1e995n;
  let result = fp1 ^ kMul;
  result ^= mul(shiftMix(mul(fp2, kMul)), kMul);
  result = mul(result, kMul);
  result = mul(shiftMix(result), kMul);
  return shiftMix(result);
}
