// HostTensor: a tensor held in plain JS memory, independent of any runtime.
// It is what crosses module and thread boundaries (structured clone keeps typed arrays).
import type { DType } from './dtype.js';

/**
 * Element storage per dtype:
 * float32 Float32Array · float64 Float64Array · int32 Int32Array · int64 BigInt64Array ·
 * uint64 BigUint64Array · uint32 Uint32Array · int16 Int16Array · uint16 Uint16Array ·
 * int8 Int8Array · uint8 Uint8Array · bool Uint8Array (0/1) ·
 * float16 / bfloat16 Uint16Array (raw bits) · string Uint8Array[] (raw bytes, TF strings are bytes).
 */
export type TensorValues =
  | Float32Array
  | Float64Array
  | Int32Array
  | BigInt64Array
  | BigUint64Array
  | Uint32Array
  | Int16Array
  | Uint16Array
  | Int8Array
  | Uint8Array
  | Uint8Array[];

export interface HostTensor {
  dtype: DType;
  /** Dimension sizes; [] is a scalar. */
  shape: number[];
  /** Row-major values; length equals the product of shape. */
  values: TensorValues;
}

export function numElements(shape: readonly number[]): number {
  let n = 1;
  for (const d of shape) n *= d;
  return n;
}

export type NumericArrayConstructor =
  | Float32ArrayConstructor
  | Float64ArrayConstructor
  | Int32ArrayConstructor
  | BigInt64ArrayConstructor
  | BigUint64ArrayConstructor
  | Uint32ArrayConstructor
  | Int16ArrayConstructor
  | Uint16ArrayConstructor
  | Int8ArrayConstructor
  | Uint8ArrayConstructor;

/** Storage class per numeric dtype (bool as 0/1 bytes, half types as their uint16 bits). */
export const TYPED_ARRAY: Record<Exclude<DType, 'string'>, NumericArrayConstructor> = {
  float32: Float32Array,
  float64: Float64Array,
  int32: Int32Array,
  int64: BigInt64Array,
  uint64: BigUint64Array,
  uint32: Uint32Array,
  int16: Int16Array,
  uint16: Uint16Array,
  float16: Uint16Array,
  bfloat16: Uint16Array,
  int8: Int8Array,
  uint8: Uint8Array,
  bool: Uint8Array,
};

/** Allocates zero-filled storage of the right kind for dtype. */
export function allocValues(dtype: DType, size: number): TensorValues {
  if (dtype === 'string') return Array.from({ length: size }, () => new Uint8Array(0));
  return new TYPED_ARRAY[dtype](size);
}
