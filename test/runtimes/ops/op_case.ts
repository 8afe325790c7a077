// One op case, run on every engine — ONNX Runtime, the embedded runtime on WASM, the embedded
// runtime on CPU — as tf2onnx's run_test_case runs one TF function on every backend. A case is
// a node (or a tiny graph), its inputs, and the outputs TensorFlow states, with where TF states
// them; an engine that does not answer says so with a written reason, or must refuse the op at
// load naming it. Cases live in cases/<family>.ts, one file per TF op family
// (tensorflow/core/ops/<family>_ops.cc); run_op_cases.ts writes each as a SavedModel with
// tfgate's writer, loads it on the engine and compares.
import { Code } from '../../../src/errors/status.js';
import type { DType } from '../../../src/tensor/dtype.js';
import type { HostTensor } from '../../../src/tensor/host_tensor.js';
import type { AttrValueInit, GraphBuilder, Tensor } from '../../../test_util/savedmodel/writer/graph_builder.js';

const ENGINES = ['onnx', 'wasm', 'cpu'] as const;
export type Engine = (typeof ENGINES)[number];

/** How an engine takes a case other than by answering TF's values. */
export type EngineNote =
  /** Not run there; the reason is printed with the skip ("no ONNX converter: …"). */
  | { skip: string }
  /** Refused at load: the message names the op and matches. */
  | { refuse: RegExp }
  /**
   * Loaded, and this case's run refused with UNIMPLEMENTED naming the op (a run-time guard:
   * an input this engine cannot answer as TF does, such as a NaN it cannot order).
   */
  | { refuseRun: RegExp }
  /**
   * A known gap, written down: the case runs and is reported as TODO (node:test's todo) while
   * it fails — a wrong answer, or a failure at run time that load did not catch. Fix the engine,
   * then delete the note.
   */
  | { todo: string };

/** The failure TF gives: at load (an invalid attr: every engine refuses the op) or at run time (a bad input). */
export interface Failure {
  at: 'load' | 'run';
  message: RegExp;
  /** At run time, the status code TF gives (INVALID_ARGUMENT unless said). */
  code?: Code;
}

/** A node input: a value fed through a placeholder (shaped as the value unless given), or a constant. */
export type CaseInput = HostTensor | { feed: HostTensor; shape: number[] | null } | { konst: HostTensor };

export interface OpCase {
  /** What is checked, in TF's words. */
  name: string;
  /** Where TF states it: the API doc, or the kernel test file:line in tensorflow/tensorflow. */
  source: string;
  /** The op under test: a refusal must name it. */
  op: string;
  /** Its attrs; type attrs, list lengths and defaults are filled in from its OpDef, as TF's Python does. */
  attrs?: Record<string, AttrValueInit>;
  /** Node form: the op's inputs in order (an array for a list input such as `N * string`). */
  inputs?: ReadonlyArray<CaseInput | readonly CaseInput[]>;
  /** Graph form, for what one node cannot show: builds the signature, fed with `feeds` (and the init op the load runs: a table's filling). */
  graph?: (g: GraphBuilder) => { inputs: Record<string, Tensor>; outputs: Record<string, Tensor>; initOp?: string };
  feeds?: Record<string, HostTensor>;
  /** TF's outputs by output arg name (`name_i` for the i-th of a list output), or the failure TF gives. */
  want: Record<string, HostTensor> | Failure;
  /** Absolute and relative tolerance for floats; exact when absent. */
  tol?: number;
  /** Engines that do not answer this case (overrides the family's note). */
  engines?: Partial<Record<Engine, EngineNote>>;
}

export interface OpFamilyCases {
  family: string;
  /** TF's REGISTER_OP text for ops the SavedModel writer does not declare (writer/op_registration.ts). */
  registrations?: readonly string[];
  /** Engine notes for every case of the family. */
  engines?: Partial<Record<Engine, EngineNote>>;
  cases: readonly OpCase[];
}

export const isFailure = (w: OpCase['want']): w is Failure =>
  typeof (w as Failure).at === 'string' && (w as Failure).message instanceof RegExp;

const exactly = (m: RegExp | string) => (typeof m === 'string' ? new RegExp(`^${m.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`) : m);
/** TF refuses the node at load (op construction); `message` is TF's text (a string: the whole message). */
export const refusedAtLoad = (message: RegExp | string): Failure => ({ at: 'load', message: exactly(message) });
/** TF fails the run with `code` (INVALID_ARGUMENT unless said); `message` is TF's text (a string: the whole message). */
export const failsAtRun = (message: RegExp | string, code = Code.INVALID_ARGUMENT): Failure => ({
  at: 'run',
  message: exactly(message),
  code,
});

const enc = new TextEncoder();
const bytes = (v: string | Uint8Array) => (typeof v === 'string' ? enc.encode(v) : v);
const tensor = (dtype: DType, shape: number[], values: HostTensor['values']): HostTensor => ({ dtype, shape, values });

export const str = (shape: number[], values: ReadonlyArray<string | Uint8Array>): HostTensor => tensor('string', shape, values.map(bytes));
export const f32 = (shape: number[], values: ArrayLike<number>): HostTensor => tensor('float32', shape, Float32Array.from(values));
export const f64 = (shape: number[], values: ArrayLike<number>): HostTensor => tensor('float64', shape, Float64Array.from(values));
export const i32 = (shape: number[], values: ArrayLike<number>): HostTensor => tensor('int32', shape, Int32Array.from(values));
export const i64 = (shape: number[], values: ArrayLike<number | bigint>): HostTensor =>
  tensor(
    'int64',
    shape,
    BigInt64Array.from(Array.from(values), (v) => BigInt(v)),
  );
export const bool = (shape: number[], values: ArrayLike<number | boolean>): HostTensor =>
  tensor('bool', shape, Uint8Array.from(Array.from(values), Number));
/** A constant input (a Const node), for inputs TF's graphs hold constant and converters need known. */
export const konst = (t: HostTensor): CaseInput => ({ konst: t });
/** A fed input whose placeholder declares `shape` (-1 unknown, null unknown rank). */
export const feed = (t: HostTensor, shape: number[] | null): CaseInput => ({ feed: t, shape });
