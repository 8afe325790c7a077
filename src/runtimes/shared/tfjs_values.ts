// What TF.js holds of each dtype (float32, int32, bool and string only), without TF.js itself:
// graph artifacts are written from these before TF.js is loaded (tfjs_artifacts.ts), and
// tensor_convert.ts makes tensors of them.
import { invalidArgument } from '../../errors/status.js';
import type { DType } from '../../tensor/dtype.js';
import type { HostTensor, TensorValues } from '../../tensor/host_tensor.js';
import { halfToFloat, bfloat16ToFloat } from '../../tensor/half.js';

export type TfjsDType = 'float32' | 'int32' | 'bool' | 'string';

export function tfjsDtype(dtype: DType): TfjsDType {
  switch (dtype) {
    case 'float32':
    case 'float64':
    case 'float16':
    case 'bfloat16':
      return 'float32';
    case 'bool':
      return 'bool';
    case 'string':
      return 'string';
    default:
      return 'int32';
  }
}

const INT32_MIN = -2147483648n;
const INT32_MAX = 2147483647n;

/** Values as TF.js wants them; `clampInt64` for constants (INT64_MAX as a slice end means "to the end"). */
export function tfjsValues(t: HostTensor, what: string, clampInt64 = false): Float32Array | Int32Array | Uint8Array | Uint8Array[] {
  const v = t.values;
  switch (t.dtype) {
    case 'float32':
    case 'int32':
    case 'bool':
      return v as Float32Array | Int32Array | Uint8Array;
    case 'string':
      return v as Uint8Array[];
    case 'float64':
      return Float32Array.from(v as Float64Array);
    case 'float16':
      return Float32Array.from(v as Uint16Array, halfToFloat);
    case 'bfloat16':
      return Float32Array.from(v as Uint16Array, bfloat16ToFloat);
    case 'int64':
    case 'uint64': {
      const big = v as BigInt64Array | BigUint64Array;
      const out = new Int32Array(big.length);
      for (let i = 0; i < big.length; i++) {
        let x = big[i];
        if (x < INT32_MIN || x > INT32_MAX) {
          if (!clampInt64) throw invalidArgument(`${what}: value ${x} does not fit the embedded runtime's 32-bit integers`);
          x = x < INT32_MIN ? INT32_MIN : INT32_MAX;
        }
        out[i] = Number(x);
      }
      return out;
    }
    default:
      return Int32Array.from(v as Exclude<TensorValues, Uint8Array[] | BigInt64Array | BigUint64Array>);
  }
}
