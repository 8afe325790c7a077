// Element types between tfgate (HostTensor), ONNX (TensorProto.DataType numbers) and
// onnxruntime-node (ort.Tensor type strings). ONNX holds every TF numeric type natively,
// so unlike TF.js nothing is widened or narrowed on the way.
import type { DType } from '../../tensor/dtype.js';

/** TensorProto.DataType numbers (onnx.proto). */
export const ONNX_TYPE: Record<DType, number> = {
  float32: 1,
  uint8: 2,
  int8: 3,
  uint16: 4,
  int16: 5,
  int32: 6,
  int64: 7,
  string: 8,
  bool: 9,
  float16: 10,
  float64: 11,
  uint32: 12,
  uint64: 13,
  bfloat16: 16,
};

/** onnxruntime-node's tensor type names. */
export const ORT_TYPE: Record<DType, string> = {
  float32: 'float32',
  uint8: 'uint8',
  int8: 'int8',
  uint16: 'uint16',
  int16: 'int16',
  int32: 'int32',
  int64: 'int64',
  string: 'string',
  bool: 'bool',
  float16: 'float16',
  float64: 'float64',
  uint32: 'uint32',
  uint64: 'uint64',
  bfloat16: 'bfloat16',
};

const FROM_ORT = new Map(Object.entries(ORT_TYPE).map(([d, o]) => [o, d as DType]));

export function dtypeFromOrt(type: string): DType | undefined {
  return FROM_ORT.get(type);
}

export const isFloat = (d: DType) => d === 'float32' || d === 'float64' || d === 'float16' || d === 'bfloat16';
