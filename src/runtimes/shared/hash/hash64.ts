// TensorFlow's own Hash64 (core/platform/hash.cc, a MurmurHash64A variant with TF's default
// seed 0xDECAFCAFFE from hash.h), which the legacy StringToHashBucket buckets strings with.
const M = 0xc6a4a7935bd1e995n;
const R = 47n;
const MASK = (1n << 64n) - 1n;
const DEFAULT_SEED = 0xdecafcaffen;

const mul = (a: bigint, b: bigint) => (a * b) & MASK;

/** Hash64(bytes, n, seed) as TF computes it, unsigned. */
export function hash64(data: Uint8Array, seed = DEFAULT_SEED): bigint {
  let n = data.length;
  let h = (seed ^ mul(BigInt(n), M)) & MASK;
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  let at = 0;
  while (n >= 8) {
    let k = view.getBigUint64(at, true);
    at += 8;
    n -= 8;
    k = mul(k, M);
    k ^= k >> R;
    k = mul(k, M);
    h ^= k;
    h = mul(h, M);
  }
  if (n > 0) {
    for (let i = n - 1; i >= 0; i--) h ^= BigInt(data[at + i]) << BigInt(8 * i);
    h = mul(h, M);
  }
  h ^= h >> R;
  h = mul(h, M);
  h ^= h >> R;
  return h;
}
