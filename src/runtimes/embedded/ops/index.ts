// Every TensorFlow op the embedded runtime implements itself for tfjs-converter's graph
// executor, by family (as tfjs-converter lays out its own executors, and onnx/ops/ its
// converters): ops the converter lacks or ignores, and ones whose TF.js answers differ from
// TensorFlow's. Each op is a kernel and, where some node forms cannot be computed exactly,
// a load-time check that refuses them naming the op and the node (shared/tfjs_op_table.ts).
//
// This table is the one list: registerEmbeddedOps() hands it to tfjs-converter, and the load
// checks ask it which ops are tfgate's (tfjs_ops.ts, backend_op_check.ts). To add an op, add
// its kernel to its family's folder and one line to that family's table (CONTRIBUTING.md).
import type { TfjsOp, TfjsOpTable } from '../../shared/tfjs_op_table.js';
import { registerTfjsOps } from '../../shared/tfjs_op_table.js';
import { EXAMPLE_OPS } from '../../shared/parse_example/index.js';
import { ARRAY_OPS } from './array/index.js';
import { AUDIO_OPS } from './audio/index.js';
import { CONTROL_OPS } from './control/index.js';
import { CTC_OPS } from './ctc/index.js';
import { DECISION_FOREST_OPS } from './decision_forests/index.js';
import { IMAGE_OPS } from './image/index.js';
import { LOOKUP_OPS } from './lookup/index.js';
import { MATH_OPS } from './math/index.js';
import { NN_OPS } from './nn/index.js';
import { RAGGED_OPS } from './ragged/index.js';
import { SPARSE_OPS } from './sparse/index.js';
import { SPECTRAL_OPS } from './spectral/index.js';
import { STRING_OPS } from './string/index.js';

/** Family name → its table. `example` (ParseExample*) is shared with ONNX Runtime's host step. */
export const EMBEDDED_OP_FAMILIES: Readonly<Record<string, TfjsOpTable>> = {
  array: ARRAY_OPS,
  audio: AUDIO_OPS,
  control: CONTROL_OPS,
  ctc: CTC_OPS,
  decision_forests: DECISION_FOREST_OPS,
  example: EXAMPLE_OPS,
  image: IMAGE_OPS,
  lookup: LOOKUP_OPS,
  math: MATH_OPS,
  nn: NN_OPS,
  ragged: RAGGED_OPS,
  sparse: SPARSE_OPS,
  spectral: SPECTRAL_OPS,
  string: STRING_OPS,
};

const EMBEDDED_OPS: TfjsOpTable = mergeFamilies(EMBEDDED_OP_FAMILIES);

function mergeFamilies(families: Readonly<Record<string, TfjsOpTable>>): TfjsOpTable {
  const all: Record<string, TfjsOp> = {};
  for (const [family, table] of Object.entries(families)) {
    for (const [op, impl] of Object.entries(table)) {
      if (all[op]) throw new Error(`op ${op} is in two families (the second: ${family})`);
      all[op] = impl;
    }
  }
  return all;
}

/** The op tfgate implements under this name, if any. */
export function embeddedOp(op: string): TfjsOp | undefined {
  return Object.hasOwn(EMBEDDED_OPS, op) ? EMBEDDED_OPS[op] : undefined;
}

/** Registers every op above with tfjs-converter (process-wide; idempotent). */
export function registerEmbeddedOps(): void {
  registerTfjsOps(EMBEDDED_OPS);
}
