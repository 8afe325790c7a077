// The crosses' 64-bit arithmetic where no engine of tfgate can show it: TF's stated hashes for
// num_buckets 0 (modulo INT64_MAX, beyond the embedded runtime's integers, so refused there —
// the op cases check that refusal), and the bound on a request's crosses.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_CROSSES, sparseCross, type CrossInputs } from '../../../src/runtimes/shared/sparse_cross.js';
import { Code, ServingError } from '../../../src/errors/status.js';
import type { HostTensor } from '../../../src/tensor/host_tensor.js';

const CROSS_TEST = 'tensorflow/python/kernel_tests/sparse_ops/sparse_cross_op_test.py@02dd752a';
const enc = new TextEncoder();
const i64 = (shape: number[], v: Array<number | bigint>): HostTensor => ({ dtype: 'int64', shape, values: BigInt64Array.from(v, BigInt) });
/** One row, one string feature per column: the test's three columns. */
function oneFeatureEach(...features: string[]): CrossInputs {
  return {
    indices: features.map(() => i64([1, 2], [0, 0])),
    values: features.map((f) => ({ dtype: 'string', shape: [1], values: [enc.encode(f)] })),
    shapes: features.map(() => i64([2], [1, 1])),
    dense: [],
  };
}
const FEATURES = oneFeatureEach('batch1-FC1-F1', 'batch1-FC2-F1', 'batch1-FC3-F1');
const DEFAULT_HASH_KEY = 0xdecafcaffen;
const hashOf = (out: ReturnType<typeof sparseCross>) => (out[1].values as BigInt64Array)[0];

describe("SparseCross hashes (TF's stated values)", () => {
  it(`SparseCross, num_buckets 0, the default key: 1971693436396284976 (${CROSS_TEST} test_hashed_zero_bucket_no_hash_key)`, () => {
    assert.equal(
      hashOf(sparseCross('SparseCross', FEATURES, { kind: 'hashed', numBuckets: 0n, hashKey: DEFAULT_HASH_KEY, internalType: 'string' })),
      1971693436396284976n,
    );
  });
  it(`SparseCross, num_buckets 0, key + 1: 4847552627144134031 (${CROSS_TEST} test_hashed_zero_bucket)`, () => {
    assert.equal(
      hashOf(
        sparseCross('SparseCross', FEATURES, { kind: 'hashed', numBuckets: 0n, hashKey: DEFAULT_HASH_KEY + 1n, internalType: 'string' }),
      ),
      4847552627144134031n,
    );
  });
  it(`SparseCrossHashed, num_buckets 0: 9186962005966787372, whatever the salt without strong_hash (${CROSS_TEST} SparseCrossHashedOpTest.test_hashed_zero_bucket_no_hash_key)`, () => {
    for (const salt of [
      [1n, 1n],
      [137n, 173n],
    ] as const) {
      assert.equal(
        hashOf(sparseCross('SparseCrossHashed', FEATURES, { kind: 'hashedV2', numBuckets: 0n, strongHash: false, salt })),
        9186962005966787372n,
      );
    }
  });
});

describe('SparseCross bounds', () => {
  it("a batch size of 2^40 in a request's shape tensor fails RESOURCE_EXHAUSTED at once instead of walking its rows", () => {
    const x: CrossInputs = {
      indices: [i64([0, 2], [])],
      values: [{ dtype: 'string', shape: [0], values: [] }],
      shapes: [i64([2], [2n ** 40n, 1])],
      dense: [],
    };
    assert.throws(
      () => sparseCross('SparseCross', x, { kind: 'strings', separator: enc.encode('_X_') }),
      (e: unknown) => e instanceof ServingError && e.code === Code.RESOURCE_EXHAUSTED && /^SparseCross: /.test(e.message),
    );
  });

  it('a request whose crosses would pass the bound fails RESOURCE_EXHAUSTED naming the op, before allocating them', () => {
    // One row, three dense columns of 300 features: 27 million crosses.
    const wide: HostTensor = { dtype: 'int64', shape: [1, 300], values: new BigInt64Array(300) };
    const x: CrossInputs = { indices: [], values: [], shapes: [], dense: [wide, wide, wide] };
    assert.ok(300 ** 3 > MAX_CROSSES);
    assert.throws(
      () => sparseCross('SparseCrossV2', x, { kind: 'strings', separator: enc.encode('_') }),
      (e: unknown) => e instanceof ServingError && e.code === Code.RESOURCE_EXHAUSTED && /^SparseCrossV2: /.test(e.message),
    );
  });
});
