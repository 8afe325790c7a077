// Inputs for checking a signature on two engines, built from its declared specs alone:
// deterministic values (a fixed sequence, the same on every run and machine), small enough
// not to saturate activations, integers small and non-negative (they are often indices or
// ids). A dim the signature leaves open is 2 for the batch and 3 elsewhere. Strings are the
// decimal digits of such integers ("0", "1" …: valid wherever a number, a vocabulary word or
// a hash key is expected); a string input the graph parses as tf.Example (ParseExample
// reading it: TensorSpec.example) gets serialized Examples holding every feature the graph
// parses, each with the type and per-example shape it declares.
import type { SignatureSpec, TensorSpec } from '../../savedmodel/signature_spec.js';
import type { ExampleFeature } from '../../savedmodel/graph/example_features.js';
import { protoType } from '../../proto/index.js';
import { dtypeFromTf, type DType } from '../../tensor/dtype.js';
import { allocValues, numElements, type HostTensor } from '../../tensor/host_tensor.js';

const OPEN_BATCH = 2;
const OPEN_DIM = 3;
/** Inputs larger than this are not made up (a verification should stay cheap). */
const MAX_ELEMENTS = 1 << 22;

const enc = new TextEncoder();
const seededFloat = (i: number, seed: number) => Math.sin((i + 1) * 12.9898 + seed * 78.233);
const seededInt = (i: number) => i % 4;

function fill(dtype: DType, n: number, seed: number): HostTensor['values'] {
  const values = allocValues(dtype, n);
  for (let i = 0; i < n; i++) {
    const x = seededFloat(i, seed);
    switch (dtype) {
      case 'float32':
      case 'float64':
        (values as Float32Array)[i] = x;
        break;
      case 'int64':
      case 'uint64':
        (values as BigInt64Array)[i] = BigInt(seededInt(i));
        break;
      case 'bool':
        (values as Uint8Array)[i] = x > 0 ? 1 : 0;
        break;
      case 'string':
        (values as Uint8Array[])[i] = enc.encode(String(seededInt(i)));
        break;
      case 'float16':
      case 'bfloat16':
        return values;
      default:
        (values as Int32Array)[i] = seededInt(i);
    }
  }
  return values;
}

/** One Feature proto object holding `n` values of `dtype`, numbered from `first`. */
function featureObject(dtype: DType, n: number, first: number, seed: number): Record<string, unknown> {
  const at = Array.from({ length: n }, (_, k) => first + k);
  if (dtype === 'string') return { bytesList: { value: at.map((i) => enc.encode(String(seededInt(i)))) } };
  if (dtype === 'int64') return { int64List: { value: at.map(seededInt) } };
  return { floatList: { value: at.map((i) => Math.fround(seededFloat(i, seed))) } };
}

/** Example `index` of a batch: every feature, dense ones with their declared element count, sparse ones with one value. */
function serializedExample(features: readonly ExampleFeature[], index: number, seed: number): Uint8Array {
  const Example = protoType('tensorflow.Example');
  const feature: Record<string, unknown> = {};
  for (const f of features) {
    const n = f.shape ? numElements(f.shape.map((d) => (d >= 0 ? d : 1))) : 1;
    feature[f.key] = featureObject(f.dtype, n, index, seed);
  }
  return Example.encode(Example.fromObject({ features: { feature } })).finish();
}

function madeUp(spec: TensorSpec, dtype: DType, shape: number[], seed: number): HostTensor {
  const n = numElements(shape);
  if (dtype === 'string' && spec.example) {
    const examples = spec.example;
    return { dtype, shape, values: Array.from({ length: n }, (_, i) => serializedExample(examples, i, seed)) };
  }
  return { dtype, shape, values: fill(dtype, n, seed) };
}

/** Inputs for every input of `spec`, or why they cannot be made up. */
export function seededInputs(spec: SignatureSpec, seed = 1): { inputs: Record<string, HostTensor> } | { skip: string } {
  const inputs: Record<string, HostTensor> = {};
  for (const [key, t] of Object.entries(spec.inputs)) {
    const dtype = dtypeFromTf(t.feedDtype ?? t.dtype);
    if (!dtype || dtype === 'float16' || dtype === 'bfloat16') return { skip: `input '${key}' is ${t.dtype}` };
    if (t.shape === null) return { skip: `input '${key}' has no declared rank` };
    const shape = t.shape.map((d, i) => (d >= 0 ? d : i === 0 ? OPEN_BATCH : OPEN_DIM));
    const n = numElements(shape);
    if (n > MAX_ELEMENTS) return { skip: `input '${key}' would have ${n} elements` };
    inputs[key] = madeUp(t, dtype, shape, seed);
  }
  return { inputs };
}
