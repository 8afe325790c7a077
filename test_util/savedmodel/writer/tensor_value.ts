// HostTensor → TensorProto the way TF's Python `tensor_util.make_tensor_proto` fills it
// (what `tf.constant` stores in a Const node's `value` attr):
// * numeric tensors with more than one element: raw little-endian `tensor_content`;
// * zero or one element: the typed repeated field (float_val, int_val, …);
// * strings: always `string_val`.
import { dtypeToTf, type DType } from '../../../src/tensor/dtype.js';
import type { HostTensor, TensorValues } from '../../../src/tensor/host_tensor.js';
import { numElements } from '../../../src/tensor/host_tensor.js';
import { setValField, toValField } from '../../../src/savedmodel/tensor_proto.js';

/** Plain object ready for protobufjs `fromObject` on tensorflow.TensorProto. */
export type TensorProtoInit = Record<string, unknown>;

export function shapeProto(shape: readonly number[] | null): Record<string, unknown> {
  if (shape === null) return { unknownRank: true };
  // A dim of size 0 is serialized by C++ as an empty Dim message; keep that byte-for-byte.
  return { dim: shape.map((size) => (size === 0 ? {} : { size })) };
}

export function makeTensorProto(t: HostTensor): TensorProtoInit {
  const count = numElements(t.shape);
  if (t.values.length !== count) throw new RangeError(`tensor of shape [${t.shape.join(',')}] has ${t.values.length} values`);
  const proto: TensorProtoInit = { dtype: dtypeToTf(t.dtype), tensorShape: shapeProto(t.shape) };
  if (t.dtype === 'string') {
    proto.stringVal = t.values as Uint8Array[];
    return proto;
  }
  const v = t.values as Exclude<TensorValues, Uint8Array[]>;
  if (count > 1) {
    proto.tensorContent = new Uint8Array(v.buffer, v.byteOffset, v.byteLength).slice();
    return proto;
  }
  if (count === 0) return proto;
  setValField(proto, t.dtype, toValField(t.dtype, v.subarray(0, 1)));
  return proto;
}

/**
 * An all-zeros (empty-string, false) tensor stored in one element, which TF repeats to fill
 * the shape: what `tf.constant(0, shape=…)` writes.
 */
export function zerosTensorProto(dtype: DType, shape: readonly number[]): TensorProtoInit {
  const zero = dtype === 'string' ? new Uint8Array(0) : dtype === 'bool' ? false : dtype === 'int64' || dtype === 'uint64' ? '0' : 0;
  const proto: TensorProtoInit = { dtype: dtypeToTf(dtype), tensorShape: shapeProto(shape) };
  if (numElements(shape) > 0) setValField(proto, dtype, [zero]);
  return proto;
}
