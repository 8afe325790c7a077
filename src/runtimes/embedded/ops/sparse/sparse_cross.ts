// TensorFlow's SparseCross, SparseCrossHashed and SparseCrossV2 on the embedded runtime (the
// crosses themselves: runtimes/shared/sparse_cross.ts, on BigInt). TF.js holds int64 as int32:
// inputs arrive in its range (the request's conversion refuses wider values), and a hashed
// output fits only while every bucket does — num_buckets in [1, 2^31], known at load (an
// attribute of SparseCross, a Const input of SparseCrossHashed); otherwise the node is refused
// at load. The hash key and salt must be read exactly at load too.
import tf from '../../../tfjs_packages/tfjs_core.cjs';
import type * as tfconv from '@tensorflow/tfjs-converter';
import type { NodeDef } from '../../../../savedmodel/graph/types.js';
import type { HostTensor } from '../../../../tensor/host_tensor.js';
import type { ConstantInput } from '../../../shared/tfjs_op_table.js';
import {
  crossSalt,
  crossSeparator,
  sparseCross,
  type CrossInputs,
  type CrossMode,
  type SparseCrossOp,
} from '../../../shared/sparse_cross.js';
import { stringElements, stringTensor } from '../string/string_tensors.js';

export const SPARSE_CROSS_OPS = ['SparseCross', 'SparseCrossHashed', 'SparseCrossV2'] as const;

const MAX_BUCKETS = 2n ** 31n;
const INT32 = (v: bigint) => v >= -(2n ** 31n) && v < 2n ** 31n;
/** The inputs SparseCrossHashed / SparseCrossV2 take after the sparse and dense lists. */
const TRAILING: Record<SparseCrossOp, number> = { SparseCross: 0, SparseCrossHashed: 3, SparseCrossV2: 1 };

/** A TF.js tensor as the HostTensor TF would hand the kernel (TF.js's int32 stands for int64). */
function host(t: tf.Tensor, what: string): HostTensor {
  if (t.dtype === 'string') return { dtype: 'string', shape: t.shape, values: stringElements(t, what) };
  if (t.dtype === 'bool') return { dtype: 'bool', shape: t.shape, values: Uint8Array.from(t.dataSync()) };
  return { dtype: 'int64', shape: t.shape, values: BigInt64Array.from(t.dataSync(), (v) => BigInt(v)) };
}

const int32Tensor = (values: BigInt64Array, shape: number[]) => tf.tensor(Int32Array.from(values, Number), shape, 'int32');

export function sparseCrossExecutor(op: SparseCrossOp): tfconv.OpExecutor {
  return (node) => {
    const n = Number(node.attrs.N);
    const all = node.inputs.map((t, i) => host(t, `${op} input ${i}`));
    const denseEnd = all.length - TRAILING[op];
    const inputs: CrossInputs = {
      indices: all.slice(0, n),
      values: all.slice(n, 2 * n),
      shapes: all.slice(2 * n, 3 * n),
      dense: all.slice(3 * n, denseEnd),
    };
    let mode: CrossMode;
    if (op === 'SparseCrossV2') mode = { kind: 'strings', separator: crossSeparator(all[denseEnd]) };
    else if (op === 'SparseCrossHashed') {
      const [numBuckets, strongHash, salt] = all.slice(denseEnd);
      mode = {
        kind: 'hashedV2',
        numBuckets: (numBuckets.values as BigInt64Array)[0],
        strongHash: (strongHash.values as Uint8Array)[0] !== 0,
        salt: crossSalt(salt),
      };
    } else {
      const internalType = node.attrs.internal_type === 'string' ? 'string' : 'int64';
      mode =
        node.attrs.out_type === 'string'
          ? { kind: 'strings', separator: new TextEncoder().encode('_X_'), internalType }
          : {
              kind: 'hashed',
              numBuckets: BigInt(node.attrs.num_buckets as number),
              hashKey: BigInt(node.attrs.hash_key as number),
              internalType,
            };
    }
    const [indices, values, shape] = sparseCross(op, inputs, mode);
    return [
      int32Tensor(indices.values as BigInt64Array, indices.shape),
      values.dtype === 'string'
        ? stringTensor(values.values as Uint8Array[], values.shape)
        : int32Tensor(values.values as BigInt64Array, values.shape),
      int32Tensor(shape.values as BigInt64Array, shape.shape),
    ];
  };
}

const bucketsProblem = (numBuckets: bigint) =>
  numBuckets >= 1n && numBuckets <= MAX_BUCKETS
    ? null
    : `num_buckets ${numBuckets}: its hashed crosses (modulo ${numBuckets > 0n ? numBuckets : 'INT64_MAX'}) do not fit the embedded runtime's 32-bit integers (tfgate computes them for num_buckets up to 2^31)`;

/** Load-time check: what the embedded runtime cannot hold exactly. */
export function sparseCrossNodeProblem(node: NodeDef, constant: ConstantInput): string | null {
  if (node.op === 'SparseCross') {
    if (String(node.attr?.out_type?.type) !== 'DT_INT64') return null;
    const hashKey = Number(node.attr?.hash_key?.i ?? 0);
    if (!Number.isSafeInteger(hashKey)) return `hash_key ${node.attr?.hash_key?.i} is beyond 2^53 and cannot be read exactly`;
    return bucketsProblem(BigInt(Number(node.attr?.num_buckets?.i ?? 0)));
  }
  if (node.op === 'SparseCrossHashed') {
    const inputs = (node.input ?? []).filter((r) => !r.startsWith('^'));
    const [numBuckets, , salt] = inputs.slice(-3).map((r) => constant(r));
    if (!numBuckets)
      return 'num_buckets is not a constant of the graph: the embedded runtime must know at load that every bucket fits its 32-bit integers';
    const problem = bucketsProblem((numBuckets.values as BigInt64Array)[0] ?? 0n);
    if (problem) return problem;
    const wide = salt && Array.from(salt.values as BigInt64Array).find((v) => !INT32(v));
    if (wide !== undefined) return `salt ${wide} does not fit the embedded runtime's 32-bit integers`;
  }
  return null;
}
