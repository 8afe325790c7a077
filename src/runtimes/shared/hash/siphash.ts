// SipHash-2-4 (Aumasson & Bernstein), the hash behind TensorFlow's StrongKeyedHash
// (tensorflow/core/platform/strong_hash.h: highwayhash::SipHash(key, data, size)), keyed by two
// little-endian 64-bit words. Known values: TF's string_to_hash_bucket_op_test.py states
// SipHash([98765, 132], 'a') = 7157389809176466784.

const M64 = (1n << 64n) - 1n;
const rotl = (v: bigint, s: bigint) => ((v << s) | (v >> (64n - s))) & M64;

export function sipHash24(key: readonly [bigint, bigint], s: Uint8Array): bigint {
  const [k0, k1] = key;
  let v0 = k0 ^ 0x736f6d6570736575n;
  let v1 = k1 ^ 0x646f72616e646f6dn;
  let v2 = k0 ^ 0x6c7967656e657261n;
  let v3 = k1 ^ 0x7465646279746573n;
  const round = () => {
    v0 = (v0 + v1) & M64;
    v1 = rotl(v1, 13n) ^ v0;
    v0 = rotl(v0, 32n);
    v2 = (v2 + v3) & M64;
    v3 = rotl(v3, 16n) ^ v2;
    v0 = (v0 + v3) & M64;
    v3 = rotl(v3, 21n) ^ v0;
    v2 = (v2 + v1) & M64;
    v1 = rotl(v1, 17n) ^ v2;
    v2 = rotl(v2, 32n);
  };
  const compress = (m: bigint) => {
    v3 ^= m;
    round();
    round();
    v0 ^= m;
  };
  const full = s.length - (s.length % 8);
  for (let i = 0; i < full; i += 8) {
    let m = 0n;
    for (let j = 7; j >= 0; j--) m = (m << 8n) | BigInt(s[i + j]);
    compress(m);
  }
  // The last block: the remaining bytes, the length's low byte on top.
  let last = BigInt(s.length & 0xff) << 56n;
  for (let j = 0; j < s.length - full; j++) last |= BigInt(s[full + j]) << BigInt(8 * j);
  compress(last);
  v2 ^= 0xffn;
  for (let r = 0; r < 4; r++) round();
  return v0 ^ v1 ^ v2 ^ v3;
}
