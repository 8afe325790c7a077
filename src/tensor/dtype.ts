// Tensor element types: TF's DataType enum names and tfgate's short names.
// TF names come from types.proto (DT_FLOAT …); *_REF variants (DT_FLOAT_REF = 101)
// appear in TF1 SignatureDefs and mean the same element type.

/** Element types tfgate can hold in a HostTensor. */
export type DType =
  | 'float32'
  | 'float64'
  | 'float16'
  | 'bfloat16'
  | 'int8'
  | 'int16'
  | 'int32'
  | 'int64'
  | 'uint8'
  | 'uint16'
  | 'uint32'
  | 'uint64'
  | 'bool'
  | 'string';

const TF_TO_DTYPE: Record<string, DType> = {
  DT_FLOAT: 'float32',
  DT_DOUBLE: 'float64',
  DT_HALF: 'float16',
  DT_BFLOAT16: 'bfloat16',
  DT_INT8: 'int8',
  DT_INT16: 'int16',
  DT_INT32: 'int32',
  DT_INT64: 'int64',
  DT_UINT8: 'uint8',
  DT_UINT16: 'uint16',
  DT_UINT32: 'uint32',
  DT_UINT64: 'uint64',
  DT_BOOL: 'bool',
  DT_STRING: 'string',
};

const DTYPE_TO_TF: Record<DType, string> = Object.fromEntries(Object.entries(TF_TO_DTYPE).map(([tf, d]) => [d, tf])) as Record<
  DType,
  string
>;

/** Removes the `_REF` suffix TF1 graphs put on variable dtypes. */
export function stripRef(tfName: string): string {
  // A DataType enum value the proto does not know decodes as its number: no name to strip.
  if (typeof tfName !== 'string') return `DataType(${String(tfName)})`;
  return tfName.endsWith('_REF') ? tfName.slice(0, -4) : tfName;
}

/** TF's DataTypeString: DT_FLOAT → float, DT_HALF → half, DT_FLOAT_REF → float_ref. */
export function tfDataTypeString(tfName: string): string {
  if (typeof tfName !== 'string') return `unknown dtype enum (${String(tfName)})`;
  const ref = tfName.endsWith('_REF');
  const base = ref ? tfName.slice(0, -4) : tfName;
  let s: string;
  if (base === 'DT_FLOAT') s = 'float';
  else if (base === 'DT_DOUBLE') s = 'double';
  else if (base === 'DT_HALF') s = 'half';
  else if (base === 'DT_INVALID') return 'INVALID';
  else s = base.replace(/^DT_/, '').toLowerCase();
  return ref ? `${s}_ref` : s;
}

/** TF's DataTypeString of a HostTensor dtype: float32 → float, float64 → double, float16 → half. */
export function dtypeTypeString(dtype: DType): string {
  return tfDataTypeString(dtypeToTf(dtype));
}

/** DT_FLOAT → 'float32'; undefined for types tfgate cannot hold (DT_RESOURCE, DT_VARIANT, complex …). */
export function dtypeFromTf(tfName: string): DType | undefined {
  const name = stripRef(tfName);
  return Object.hasOwn(TF_TO_DTYPE, name) ? TF_TO_DTYPE[name] : undefined;
}

/** 'float32' → DT_FLOAT */
export function dtypeToTf(dtype: DType): string {
  return DTYPE_TO_TF[dtype];
}

/** Bytes per element in TF's little-endian tensor_content layout; 0 for strings. */
export function bytesPerElement(dtype: DType): number {
  switch (dtype) {
    case 'float64':
    case 'int64':
    case 'uint64':
      return 8;
    case 'float32':
    case 'int32':
    case 'uint32':
      return 4;
    case 'float16':
    case 'bfloat16':
    case 'int16':
    case 'uint16':
      return 2;
    case 'int8':
    case 'uint8':
    case 'bool':
      return 1;
    case 'string':
      return 0;
  }
}
