// The Open Inference Protocol's tensor datatypes ("Tensor Data Types" in inference_rest.md)
// and the TensorFlow dtypes they stand for. BF16 is not in the spec's table; Triton and
// KServe clients use it for bfloat16, so it is mapped too.
import { dtypeFromTf, type DType } from '../../tensor/dtype.js';

export type V2Datatype =
  'BOOL' | 'UINT8' | 'UINT16' | 'UINT32' | 'UINT64' | 'INT8' | 'INT16' | 'INT32' | 'INT64' | 'FP16' | 'BF16' | 'FP32' | 'FP64' | 'BYTES';

const TO_DTYPE: Readonly<Record<V2Datatype, DType>> = {
  BOOL: 'bool',
  UINT8: 'uint8',
  UINT16: 'uint16',
  UINT32: 'uint32',
  UINT64: 'uint64',
  INT8: 'int8',
  INT16: 'int16',
  INT32: 'int32',
  INT64: 'int64',
  FP16: 'float16',
  BF16: 'bfloat16',
  FP32: 'float32',
  FP64: 'float64',
  BYTES: 'string',
};

const FROM_DTYPE = Object.fromEntries(Object.entries(TO_DTYPE).map(([v2, d]) => [d, v2])) as Record<DType, V2Datatype>;

/** 'FP32' → 'float32'; undefined for a name the protocol does not define (checked as written: 'fp32' is not one). */
export function dtypeOfDatatype(datatype: string): DType | undefined {
  return Object.hasOwn(TO_DTYPE, datatype) ? TO_DTYPE[datatype as V2Datatype] : undefined;
}

export function datatypeOfDtype(dtype: DType): V2Datatype {
  return FROM_DTYPE[dtype];
}

/**
 * A SignatureDef dtype (DT_FLOAT …) as a datatype. A dtype tfgate cannot hold (DT_RESOURCE,
 * DT_COMPLEX64 …) has no datatype; it is reported by its TF name, which no client can send.
 */
export function datatypeOfTf(tfName: string): string {
  const dtype = dtypeFromTf(tfName);
  return dtype ? FROM_DTYPE[dtype] : tfName;
}
