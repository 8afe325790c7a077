// What the TF → ONNX converter knows of one TF tensor; its own module so that
// known_elements.ts and the op converters can name it without importing convert_context.ts.
import type { DType } from '../../tensor/dtype.js';
import type { HostTensor } from '../../tensor/host_tensor.js';

/** A TF tensor as the converter knows it. */
export interface TfValue {
  dtype: DType;
  /** -1 for unknown dims; null for unknown rank. */
  shape: number[] | null;
  /** Set for constants (Const nodes, or values computed at conversion). */
  value?: HostTensor;
  /** ONNX value name; absent for a constant nobody has used as an ONNX input yet. */
  name?: string;
  /** Elements known before run time, for small integer vectors (see known_elements.ts). */
  known?: Array<number | null>;
  /** Set for an output the converter does not compute (e.g. a training-only statistic): using it refuses the consumer. */
  unavailable?: string;
}
