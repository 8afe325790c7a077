// TensorFlow's StringToHashBucketFast and StringToHashBucketStrong (what Keras Hashing,
// StringLookup's OOV buckets and Estimators' categorical_column_with_hash_bucket compile to)
// and the legacy StringToHashBucket: each string's 64-bit hash of its bytes, as unsigned,
// modulo num_buckets (core/kernels/string_to_hash_bucket_op.h). Fast hashes with Fingerprint64
// (FarmHash), Strong with SipHash-2-4 keyed by the `key` attribute, the legacy op with TF's
// own Hash64 (shared/hash/hash64.ts). The int64 output is held as TF.js
// int32, which every bucket fits while num_buckets <= 2^31 (checked at load).
import tf from '../../../tfjs_packages/tfjs_core.cjs';
import type * as tfconv from '@tensorflow/tfjs-converter';
import type { NodeDef } from '../../../../savedmodel/graph/types.js';
import { fingerprint64 } from '../../../shared/hash/farmhash_fingerprint64.js';
import { hash64 } from '../../../shared/hash/hash64.js';
import { sipHash24 } from '../../../shared/hash/siphash.js';
import { stringElements } from './string_tensors.js';

const STRING_HASH_OPS = ['StringToHashBucketFast', 'StringToHashBucketStrong', 'StringToHashBucket'] as const;

const MAX_BUCKETS = 2 ** 31;

/** Bucket of every element: hash(bytes) mod numBuckets, the hash unsigned 64-bit. */
function hashBuckets(strings: readonly Uint8Array[], numBuckets: number, hash: (s: Uint8Array) => bigint): Int32Array {
  const n = BigInt(numBuckets);
  return Int32Array.from(strings, (s) => Number(hash(s) % n));
}

/** TF's key: two int64 attribute values, reinterpreted as uint64. */
const keyOf = (key: readonly number[]): [bigint, bigint] => [BigInt.asUintN(64, BigInt(key[0])), BigInt.asUintN(64, BigInt(key[1]))];

export function stringHashExecutor(op: (typeof STRING_HASH_OPS)[number]): tfconv.OpExecutor {
  return (node) => {
    const x = node.inputs[0];
    const numBuckets = Number(node.attrs.num_buckets);
    let hash: (s: Uint8Array) => bigint = fingerprint64;
    if (op === 'StringToHashBucket') hash = (s) => hash64(s);
    if (op === 'StringToHashBucketStrong') {
      const key = keyOf(node.attrs.key as number[]);
      hash = (s) => sipHash24(key, s);
    }
    return [tf.tensor(hashBuckets(stringElements(x, 'input'), numBuckets, hash), x.shape, 'int32')];
  };
}

/** Load-time check: TF's attribute constraints and kernel-construction messages. */
export function stringHashNodeProblem(node: NodeDef): string | null {
  const numBuckets = Number(node.attr?.num_buckets?.i);
  if (!(numBuckets >= 1)) return `Value for attr 'num_buckets' of ${node.attr?.num_buckets?.i ?? 'nothing'} must be at least minimum 1`;
  if (numBuckets > MAX_BUCKETS) return `num_buckets ${numBuckets}: buckets above 2^31 do not fit the embedded runtime's 32-bit integers`;
  if (node.op === 'StringToHashBucketStrong') {
    const key = node.attr?.key?.list?.i ?? [];
    if (key.length !== 2) return 'Key must have 2 elements';
    // The GraphDef decoder reads int64 as a JS number: beyond 2^53 the key is no longer exact.
    const inexact = key.find((k) => !Number.isSafeInteger(Number(k)));
    if (inexact !== undefined) return `key element ${inexact} is beyond 2^53 and cannot be read exactly`;
  }
  return null;
}
