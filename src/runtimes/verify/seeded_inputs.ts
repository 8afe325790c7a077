// Inputs for checking a signature on two engines, built from its declared specs alone:
// deterministic values (a fixed sequence, the same on every run and machine), small enough
// not to saturate activations, integers small and non-negative (they are often indices or
// ids). A dim the signature leaves open is 2 for the batch and 3 elsewhere.
import type { SignatureSpec } from '../../savedmodel/signature_spec.js';
import { dtypeFromTf, type DType } from '../../tensor/dtype.js';
import { allocValues, numElements, type HostTensor } from '../../tensor/host_tensor.js';

const OPEN_BATCH = 2;
const OPEN_DIM = 3;
/** Inputs larger than this are not made up (a verification should stay cheap). */
const MAX_ELEMENTS = 1 << 22;

function fill(dtype: DType, n: number, seed: number): HostTensor['values'] {
  const values = allocValues(dtype, n);
  for (let i = 0; i < n; i++) {
    const x = Math.sin((i + 1) * 12.9898 + seed * 78.233);
    switch (dtype) {
      case 'float32':
      case 'float64':
        (values as Float32Array)[i] = x;
        break;
      case 'int64':
      case 'uint64':
        (values as BigInt64Array)[i] = BigInt(i % 4);
        break;
      case 'bool':
        (values as Uint8Array)[i] = x > 0 ? 1 : 0;
        break;
      case 'string':
        return values;
      case 'float16':
      case 'bfloat16':
        return values;
      default:
        (values as Int32Array)[i] = i % 4;
    }
  }
  return values;
}

/** Inputs for every input of `spec`, or why they cannot be made up. */
export function seededInputs(spec: SignatureSpec, seed = 1): { inputs: Record<string, HostTensor> } | { skip: string } {
  const inputs: Record<string, HostTensor> = {};
  for (const [key, t] of Object.entries(spec.inputs)) {
    const dtype = dtypeFromTf(t.dtype);
    if (!dtype || dtype === 'string' || dtype === 'float16' || dtype === 'bfloat16') return { skip: `input '${key}' is ${t.dtype}` };
    if (t.shape === null) return { skip: `input '${key}' has no declared rank` };
    const shape = t.shape.map((d, i) => (d >= 0 ? d : i === 0 ? OPEN_BATCH : OPEN_DIM));
    const n = numElements(shape);
    if (n > MAX_ELEMENTS) return { skip: `input '${key}' would have ${n} elements` };
    inputs[key] = { dtype, shape, values: fill(dtype, n, seed) };
  }
  return { inputs };
}
