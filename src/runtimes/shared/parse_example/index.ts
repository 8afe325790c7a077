// The `example` op family: TF's tf.Example parsing ops. Shared by both engines: the embedded
// runtime runs them inside its graphs, ONNX Runtime as the host step in front of its graph
// (onnx/host_step.ts), since ONNX has no op that decodes protos.
import type { TfjsOpTable } from '../tfjs_op_table.js';
import { parseExample, parseExampleV2 } from './parse_example_tfjs.js';

export const EXAMPLE_OPS: TfjsOpTable = {
  ParseExample: { execute: parseExample },
  ParseExampleV2: { execute: parseExampleV2 },
};
