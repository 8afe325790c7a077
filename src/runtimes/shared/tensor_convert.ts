// HostTensor ↔ tf.Tensor. TF.js holds float32, int32, bool and string only, so wider or
// narrower types are converted on the way in and restored to the signature's dtype on the
// way out (int64 values outside int32 are refused rather than silently wrapped).
import tf from '../tfjs_packages/tfjs_core.cjs';
import { dtypeFromTf, type DType } from '../../tensor/dtype.js';
import type { HostTensor, TensorValues } from '../../tensor/host_tensor.js';
import { tfjsDtype, tfjsValues } from './tfjs_values.js';

export function toTfTensor(t: HostTensor, what: string): tf.Tensor {
  const values = tfjsValues(t, what);
  return tf.tensor(values as Float32Array, t.shape, tfjsDtype(t.dtype));
}

/** Reads a TF.js tensor back as the signature's declared dtype (TF name, e.g. DT_INT64). */
export async function fromTfTensor(t: tf.Tensor, declaredTf: string): Promise<HostTensor> {
  const declared = dtypeFromTf(declaredTf);
  const shape = t.shape.slice();
  // bytes(), not data(): data() decodes each string as UTF-8 into a JS string, which loses
  // bytes that are not UTF-8 and is not the Uint8Array[] a string HostTensor holds.
  if (t.dtype === 'string') return { dtype: 'string', shape, values: (await t.bytes()) as Uint8Array[] };
  const data = await t.data();
  const target: DType = declared && tfjsDtype(declared) === t.dtype ? declared : (t.dtype as DType);
  let values: TensorValues;
  switch (target) {
    case 'float32':
      values = data instanceof Float32Array ? data : Float32Array.from(data as Int32Array);
      break;
    case 'int32':
      values = data instanceof Int32Array ? data : Int32Array.from(data as Float32Array);
      break;
    case 'bool':
      values = data instanceof Uint8Array ? data : Uint8Array.from(data as Int32Array);
      break;
    case 'float64':
      values = Float64Array.from(data as Float32Array);
      break;
    case 'int64':
      values = BigInt64Array.from(data as Int32Array, (x) => BigInt(x));
      break;
    case 'uint64':
      values = BigUint64Array.from(data as Int32Array, (x) => BigInt(x));
      break;
    case 'uint8':
      values = Uint8Array.from(data as Int32Array);
      break;
    case 'int8':
      values = Int8Array.from(data as Int32Array);
      break;
    case 'int16':
      values = Int16Array.from(data as Int32Array);
      break;
    case 'uint16':
      values = Uint16Array.from(data as Int32Array);
      break;
    case 'uint32':
      values = Uint32Array.from(data as Int32Array);
      break;
    default:
      // float16 / bfloat16 outputs are served as float32.
      return { dtype: 'float32', shape, values: Float32Array.from(data as Float32Array) };
  }
  return { dtype: target, shape, values };
}
