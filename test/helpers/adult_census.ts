// The UCI Adult (census income) features as TF-DF's Adult models take them: one tensor per
// column, numbers as int64, the rest as strings.
import type { HostTensor } from '../../src/tensor/host_tensor.js';

const ADULT_COLUMNS = [
  'age',
  'workclass',
  'fnlwgt',
  'education',
  'education_num',
  'marital_status',
  'occupation',
  'relationship',
  'race',
  'sex',
  'capital_gain',
  'capital_loss',
  'hours_per_week',
  'native_country',
] as const;

/** Rows in ADULT_COLUMNS' order → one feature tensor per column. */
export function adultFeatures(rows: ReadonlyArray<ReadonlyArray<number | string>>): Record<string, HostTensor> {
  const utf8 = new TextEncoder();
  return Object.fromEntries(
    ADULT_COLUMNS.map((name, j) => {
      const column = rows.map((r) => r[j]);
      const tensor: HostTensor =
        typeof column[0] === 'number'
          ? { dtype: 'int64', shape: [column.length], values: BigInt64Array.from(column, (v) => BigInt(v)) }
          : { dtype: 'string', shape: [column.length], values: column.map((v) => utf8.encode(String(v))) };
      return [name, tensor];
    }),
  );
}
