// Models with TF2 control flow, written with the SavedModel writer for tests: tf.function
// loops and conditionals (While / StatelessWhile with cond and body functions, If /
// StatelessIf, TensorLists) and Keras-shaped recurrent layers whose weights come from a
// seeded PRNG, so that a plain-JS forward pass (rnn_reference.ts) can check the runtime.
// Graphs follow what TF 2.x writes: the signature calls a StatefulPartitionedCall into the
// library, loop variables are (loop_counter, maximum_iterations, …), every body output is an
// Identity, and captured tensors ride along as extra loop variables.
import type { HostTensor } from '../../src/tensor/host_tensor.js';
import { glorotUniform, seededRandom } from './model_zoo.js';
import { writeSavedModel, type WriterSignature, type WriterTensorInfo } from './saved_model_writer.js';
import { Tf2GraphBuilder } from './writer/tf2_graph_builder.js';
import { emit, type FunctionBuilder, type FunctionSignature, type Value } from './writer/function_library.js';
import {
  assignAddVariable,
  biasAdd,
  binary,
  call,
  constant,
  dim,
  identity,
  ifThenElse,
  matMul,
  readVariable,
  scalarF32,
  scalarI32,
  split,
  tensorListElementShape,
  tensorListFromTensor,
  tensorListGetItem,
  tensorListLength,
  tensorListReserve,
  tensorListSetItem,
  tensorListStack,
  transpose,
  unary,
  whileLoop,
  zeros,
  type UnaryOp,
} from './writer/tf2_ops.js';

const F = 'DT_FLOAT';
const I = 'DT_INT32';
const info = (v: Value, shape: number[] | null): WriterTensorInfo => ({ name: v.tensorName, dtype: v.type, shape });

/** Identity of every value, named as tf.function names a body's outputs (Identity, Identity_1 …). */
function identities(f: FunctionBuilder, names: string[], values: Value[]): Record<string, Value> {
  return Object.fromEntries(values.map((v, i) => [names[i], identity(f, i === 0 ? 'Identity' : `Identity_${i}`, v)]));
}

/**
 * The scalar loop of a tf.function: `acc, v = 0, x; while v > 0: acc += v; v -= 1`, as
 * StatelessWhile(loop_counter=0, maximum_iterations=-1, acc=0.0, v=x) inside the function
 * the signature calls. Output `output_0` is the While's output 2: x = 10 gives 55.
 */
export async function writeCountdownSumModel(dir: string): Promise<void> {
  const g = new Tf2GraphBuilder();
  const loopArgs: Array<[string, string]> = [
    ['while_loop_counter', I],
    ['while_maximum_iterations', I],
    ['placeholder', F],
    ['placeholder_1', F],
  ];
  const cond = g.library.define('while_cond_7', loopArgs, (f, [, , , v]) => ({
    identity: identity(f, 'Identity', binary(f, 'Greater', 'Greater', v, scalarF32(f, 'Greater/y', 0))),
  }));
  const body = g.library.define('while_body_8', loopArgs, (f, [counter, maxit, acc, v]) =>
    identities(
      f,
      ['identity', 'identity_1', 'identity_2', 'identity_3'],
      [
        binary(f, 'AddV2', 'add', counter, scalarI32(f, 'add/y', 1)),
        maxit,
        binary(f, 'AddV2', 'add_1', acc, v),
        binary(f, 'Sub', 'sub', v, scalarF32(f, 'sub/y', 1)),
      ],
    ),
  );
  const serve = g.library.define('__inference_serve_15', [['x', F]], (f, [x]) => {
    const loop = whileLoop(
      f,
      'while',
      [scalarI32(f, 'while/loop_counter', 0), scalarI32(f, 'while/maximum_iterations', -1), scalarF32(f, 'zeros', 0), x],
      cond,
      body,
    );
    return { identity: identity(f, 'Identity', loop[2]) };
  });
  const x = g.top.placeholder('serving_default_x', F, []);
  const [y] = call(g.top, 'StatefulPartitionedCall', serve, [x]);
  await writeSavedModel(dir, g, { serving_default: { inputs: { x: info(x, []) }, outputs: { output_0: info(y, []) } } });
}

export interface TensorListLoopOptions {
  /** The body writes `scale * h2` instead of h2: an item that is not itself a loop variable. */
  itemScale?: number;
  stateless?: boolean;
}

/**
 * A loop filling a TensorList, in the signature's own graph:
 * `TensorListReserve([2], 3, float)` → While(i=0, list, h=x), body `h2 = h + 1;
 * list = TensorListSetItem(list, i, h2)`, cond `i < 3` → `TensorListStack(while:1)`.
 * x = [10, 20] gives [[11, 21], [12, 22], [13, 23]] (times itemScale).
 */
export async function writeTensorListLoopModel(dir: string, o: TensorListLoopOptions = {}): Promise<void> {
  const g = new Tf2GraphBuilder();
  const loopArgs: Array<[string, string]> = [
    ['i', I],
    ['list', 'DT_VARIANT'],
    ['h', F],
  ];
  const cond = g.library.define('while_cond_3', loopArgs, (f, [i]) => ({
    identity: identity(f, 'Identity', binary(f, 'Less', 'Less', i, scalarI32(f, 'Less/y', 3))),
  }));
  const body = g.library.define('while_body_4', loopArgs, (f, [i, list, h]) => {
    const h2 = binary(f, 'AddV2', 'add', h, scalarF32(f, 'add/y', 1));
    const item = o.itemScale === undefined ? h2 : binary(f, 'Mul', 'mul', h2, scalarF32(f, 'mul/y', o.itemScale));
    const list2 = tensorListSetItem(f, 'TensorArrayV2Write/TensorListSetItem', list, i, item);
    return identities(f, ['identity', 'identity_1', 'identity_2'], [binary(f, 'AddV2', 'add_1', i, scalarI32(f, 'add_1/y', 1)), list2, h2]);
  });
  const x = g.top.placeholder('x', F, [2]);
  const reserved = tensorListReserve(g.top, 'TensorArrayV2', [2], scalarI32(g.top, 'TensorArrayV2/num_elements', 3), F);
  const loop = whileLoop(g.top, 'while', [scalarI32(g.top, 'i', 0), reserved, x], cond, body, { stateless: o.stateless ?? true });
  const stacked = identity(g.top, 'stacked', tensorListStack(g.top, 'TensorArrayV2Stack/TensorListStack', loop[1], [2], F));
  await writeSavedModel(dir, g, { serving_default: { inputs: { x: info(x, [2]) }, outputs: { stacked: info(stacked, [3, 2]) } } });
}

/**
 * Nested loops: `for i in range(n): for j in range(i): acc += 1`, the inner While inside the
 * outer body (its cond and body reached only through it): n = 4 gives 6 = n(n-1)/2.
 */
export async function writeNestedLoopModel(dir: string): Promise<void> {
  const g = new Tf2GraphBuilder();
  const innerArgs: Array<[string, string]> = [
    ['j', I],
    ['limit', I],
    ['acc', F],
  ];
  const innerCond = g.library.define('while_while_cond_71', innerArgs, (f, [j, limit]) => ({
    identity: identity(f, 'Identity', binary(f, 'Less', 'Less', j, limit)),
  }));
  const innerBody = g.library.define('while_while_body_72', innerArgs, (f, [j, limit, acc]) =>
    identities(
      f,
      ['identity', 'identity_1', 'identity_2'],
      [binary(f, 'AddV2', 'add', j, scalarI32(f, 'add/y', 1)), limit, binary(f, 'AddV2', 'add_1', acc, scalarF32(f, 'add_1/y', 1))],
    ),
  );
  const outerArgs: Array<[string, string]> = [
    ['i', I],
    ['n', I],
    ['acc', F],
  ];
  const outerCond = g.library.define('while_cond_73', outerArgs, (f, [i, n]) => ({
    identity: identity(f, 'Identity', binary(f, 'Less', 'Less', i, n)),
  }));
  const outerBody = g.library.define('while_body_74', outerArgs, (f, [i, n, acc]) => {
    const inner = whileLoop(f, 'while', [scalarI32(f, 'j', 0), i, acc], innerCond, innerBody);
    return identities(f, ['identity', 'identity_1', 'identity_2'], [binary(f, 'AddV2', 'add', i, scalarI32(f, 'add/y', 1)), n, inner[2]]);
  });
  const n = g.top.placeholder('n', I, []);
  const loop = whileLoop(g.top, 'while', [scalarI32(g.top, 'i', 0), n, scalarF32(g.top, 'zeros', 0)], outerCond, outerBody);
  await writeSavedModel(dir, g, { serving_default: { inputs: { n: info(n, []) }, outputs: { count: info(loop[2], []) } } });
}

/**
 * Sums the first `n` rows of `rows` [k, 2] in a loop over TensorListFromTensor(rows): with
 * n > k the body's TensorListGetItem fails at step k, after k good steps.
 */
export async function writeRowSumLoopModel(dir: string): Promise<void> {
  const g = new Tf2GraphBuilder();
  const loopArgs: Array<[string, string]> = [
    ['i', I],
    ['n', I],
    ['acc', F],
    ['rows', 'DT_VARIANT'],
  ];
  const cond = g.library.define('while_cond_61', loopArgs, (f, [i, n]) => ({
    identity: identity(f, 'Identity', binary(f, 'Less', 'Less', i, n)),
  }));
  const body = g.library.define('while_body_62', loopArgs, (f, [i, n, acc, rows]) => {
    const row = tensorListGetItem(f, 'TensorListGetItem', rows, i, [2], F);
    return identities(
      f,
      ['identity', 'identity_1', 'identity_2', 'identity_3'],
      [binary(f, 'AddV2', 'add', i, scalarI32(f, 'add/y', 1)), n, binary(f, 'AddV2', 'add_1', acc, row), rows],
    );
  });
  const rows = g.top.placeholder('rows', F, [-1, 2]);
  const n = g.top.placeholder('n', I, []);
  const list = tensorListFromTensor(g.top, 'TensorListFromTensor', rows, [2]);
  const zero = constant(g.top, 'zeros', { dtype: 'float32', shape: [2], values: new Float32Array(2) });
  const loop = whileLoop(g.top, 'while', [scalarI32(g.top, 'i', 0), n, zero, list], cond, body);
  await writeSavedModel(dir, g, {
    serving_default: { inputs: { rows: info(rows, [-1, 2]), n: info(n, []) }, outputs: { sum: info(loop[2], [2]) } },
  });
}

/**
 * `y = x * 2 if x > 0 else x - 1` as StatelessIf (signature serving_default) and as If
 * (signature stateful_if: `x + 10 if x > 0 else x * x`), both inside a called function;
 * signature with_variable: `x + v if x > 0 else x - v` for resource variable v = 0.5, which
 * cond_v2 passes into the If as an input and the branches read.
 */
export async function writeConditionalModel(dir: string): Promise<void> {
  const g = new Tf2GraphBuilder();
  const branch = (name: string, fn: (f: FunctionBuilder, x: Value) => Value) =>
    g.library.define(name, [['x', F]], (f, [x]) => ({ identity: identity(f, 'Identity', fn(f, x)) }));
  const double = branch('cond_true_11', (f, x) => binary(f, 'Mul', 'mul', x, scalarF32(f, 'mul/y', 2)));
  const decrement = branch('cond_false_12', (f, x) => binary(f, 'Sub', 'sub', x, scalarF32(f, 'sub/y', 1)));
  const plusTen = branch('cond_true_21', (f, x) => binary(f, 'AddV2', 'add', x, scalarF32(f, 'add/y', 10)));
  const square = branch('cond_false_22', (f, x) => binary(f, 'Mul', 'mul', x, x));
  const serve = (name: string, thenF: FunctionSignature, elseF: FunctionSignature, stateless: boolean) =>
    g.library.define(name, [['x', F]], (f, [x]) => {
      const positive = binary(f, 'Greater', 'Greater', x, scalarF32(f, 'Greater/y', 0));
      return { identity: identity(f, 'Identity', ifThenElse(f, 'cond', positive, [x], thenF, elseF, { stateless })[0]) };
    });
  const withVariable = (name: string, op: 'AddV2' | 'Sub') =>
    g.library.define(
      name,
      [
        ['x', F],
        ['readvariableop_resource', 'DT_RESOURCE'],
      ],
      (f, [x, v]) => ({
        identity: identity(f, 'Identity', binary(f, op, op === 'AddV2' ? 'add' : 'sub', x, readVariable(f, 'ReadVariableOp', v, F))),
      }),
    );
  const readsVariable = g.library.define(
    '__inference_serve_33',
    [
      ['x', F],
      ['cond_input_1', 'DT_RESOURCE'],
    ],
    (f, [x, v]) => {
      const positive = binary(f, 'Greater', 'Greater', x, scalarF32(f, 'Greater/y', 0));
      const branches = [withVariable('cond_true_31', 'AddV2'), withVariable('cond_false_32', 'Sub')] as const;
      return { identity: identity(f, 'Identity', ifThenElse(f, 'cond', positive, [x, v], ...branches, { stateless: false })[0]) };
    },
  );
  const x = g.top.placeholder('serving_default_x', F, []);
  const v = g.resourceVariable('v', { dtype: 'float32', shape: [], values: Float32Array.of(0.5) });
  const [a] = call(g.top, 'StatefulPartitionedCall', serve('__inference_serve_13', double, decrement, true), [x]);
  const [b] = call(g.top, 'StatefulPartitionedCall', serve('__inference_serve_23', plusTen, square, false), [x]);
  const [c] = call(g.top, 'StatefulPartitionedCall', readsVariable, [x, v]);
  await writeSavedModel(dir, g, {
    serving_default: { inputs: { x: info(x, []) }, outputs: { y: info(a, []) } },
    stateful_if: { inputs: { x: info(x, []) }, outputs: { y: info(b, []) } },
    with_variable: { inputs: { x: info(x, []) }, outputs: { y: info(c, []) } },
  });
}

/**
 * Two signatures over one input: serving_default, a good loop (x + 1 three times), and
 * `bad`, whose While body applies `op` (e.g. Lgamma, which TF.js lacks) inside a call;
 * with `onlyBad`, just the latter.
 */
export async function writeLoopBodyOpModel(dir: string, op: UnaryOp, o: { onlyBad?: boolean } = {}): Promise<void> {
  const g = new Tf2GraphBuilder();
  const loopArgs: Array<[string, string]> = [
    ['i', I],
    ['v', F],
  ];
  const cond = g.library.define('while_cond_31', loopArgs, (f, [i]) => ({
    identity: identity(f, 'Identity', binary(f, 'Less', 'Less', i, scalarI32(f, 'Less/y', 3))),
  }));
  const step = (name: string, fn: (f: FunctionBuilder, v: Value) => Value) =>
    g.library.define(name, loopArgs, (f, [i, v]) =>
      identities(f, ['identity', 'identity_1'], [binary(f, 'AddV2', 'add', i, scalarI32(f, 'add/y', 1)), fn(f, v)]),
    );
  const inc = step('while_body_32', (f, v) => binary(f, 'AddV2', 'add_1', v, scalarF32(f, 'add_1/y', 1)));
  const cell = g.library.define('__inference_cell_40', [['v', F]], (f, [v]) => ({
    identity: identity(f, 'Identity', unary(f, op, op, v)),
  }));
  const badBody = step('while_body_33', (f, v) => call(f, 'PartitionedCall', cell, [v], { stateful: false })[0]);
  const x = g.top.placeholder('serving_default_x', F, []);
  const good = whileLoop(g.top, 'while', [scalarI32(g.top, 'i', 0), x], cond, inc)[1];
  const failing = whileLoop(g.top, 'rnn/while', [scalarI32(g.top, 'i_1', 0), x], cond, badBody)[1];
  const bad: WriterSignature = { inputs: { x: info(x, []) }, outputs: { y: info(identity(g.top, 'y_1', failing), []) } };
  const serving: WriterSignature = { inputs: { x: info(x, []) }, outputs: { y: info(identity(g.top, 'y', good), []) } };
  await writeSavedModel(dir, g, o.onlyBad ? { bad } : { serving_default: serving, bad });
}

/**
 * Two loops carrying the same resource variable v = 0.5, each adding it to x twice:
 * y = 2 (x + 1). Both loops must be handed its frozen value.
 */
export async function writeSharedVariableLoopsModel(dir: string): Promise<void> {
  const g = new Tf2GraphBuilder();
  const loopArgs: Array<[string, string]> = [
    ['i', I],
    ['acc', F],
    ['v', 'DT_RESOURCE'],
  ];
  const cond = g.library.define('while_cond_81', loopArgs, (f, [i]) => ({
    identity: identity(f, 'Identity', binary(f, 'Less', 'Less', i, scalarI32(f, 'Less/y', 2))),
  }));
  const body = g.library.define('while_body_82', loopArgs, (f, [i, acc, v]) => ({
    ...identities(
      f,
      ['identity', 'identity_1'],
      [binary(f, 'AddV2', 'add', i, scalarI32(f, 'add/y', 1)), binary(f, 'AddV2', 'add_1', acc, readVariable(f, 'ReadVariableOp', v, F))],
    ),
    identity_2: v,
  }));
  const v = g.resourceVariable('v', { dtype: 'float32', shape: [], values: Float32Array.of(0.5) });
  const x = g.top.placeholder('serving_default_x', F, []);
  const first = whileLoop(g.top, 'while', [scalarI32(g.top, 'i', 0), x, v], cond, body, { stateless: false })[1];
  const second = whileLoop(g.top, 'while_1', [scalarI32(g.top, 'i_1', 0), x, v], cond, body, { stateless: false })[1];
  const y = binary(g.top, 'AddV2', 'y', first, second);
  await writeSavedModel(dir, g, { serving_default: { inputs: { x: info(x, []) }, outputs: { y: info(y, []) } } });
}

/**
 * One loop step over m [2, 2] with a kernel-specific op in the body, one signature each:
 *   einsum     m ← Einsum('aA,Ab->ab', m, w), w = [[5, 6], [7, 8]] (a matrix product; labels
 *              that differ only in case, which tfjs-converter would lower-case together)
 *   bias_nchw  m ← BiasAdd(m, b) with data_format NCHW, which tfjs-converter computes as NHWC
 */
export async function writeLoopBodyKernelModel(dir: string): Promise<void> {
  const g = new Tf2GraphBuilder();
  const loopArgs: Array<[string, string]> = [
    ['i', I],
    ['m', F],
  ];
  const cond = g.library.define('while_cond_101', loopArgs, (f, [i]) => ({
    identity: identity(f, 'Identity', binary(f, 'Less', 'Less', i, scalarI32(f, 'Less/y', 1))),
  }));
  const step = (name: string, fn: (f: FunctionBuilder, m: Value) => Value) =>
    g.library.define(name, loopArgs, (f, [i, m]) =>
      identities(f, ['identity', 'identity_1'], [binary(f, 'AddV2', 'add', i, scalarI32(f, 'add/y', 1)), fn(f, m)]),
    );
  const einsum = step('while_body_102', (f, m) => {
    const w = constant(f, 'w', { dtype: 'float32', shape: [2, 2], values: Float32Array.of(5, 6, 7, 8) });
    return emit(f, 'Einsum', 'einsum/Einsum', [m, w], {
      equation: { s: new TextEncoder().encode('aA,Ab->ab') },
      N: { i: 2 },
      T: { type: F },
    })[0];
  });
  const nchw = step('while_body_103', (f, m) => {
    const b = constant(f, 'b', { dtype: 'float32', shape: [2], values: Float32Array.of(1, 2) });
    return emit(f, 'BiasAdd', 'BiasAdd', [m, b], { T: { type: F }, data_format: { s: new TextEncoder().encode('NCHW') } })[0];
  });
  const m = g.top.placeholder('m', F, [2, 2]);
  const run = (name: string, body: FunctionSignature) => whileLoop(g.top, name, [scalarI32(g.top, `${name}/i`, 0), m], cond, body)[1];
  const sig = (y: Value): WriterSignature => ({ inputs: { m: info(m, [2, 2]) }, outputs: { y: info(y, [2, 2]) } });
  await writeSavedModel(dir, g, { einsum: sig(run('while', einsum)), bias_nchw: sig(run('while_1', nchw)) });
}

/**
 * A loop that carries resource variable `counter` and adds 1 to it on every step (as a
 * training step counter would): x + the counter's value read after the loop.
 */
export async function writeLoopWritingVariableModel(dir: string): Promise<void> {
  const g = new Tf2GraphBuilder();
  const loopArgs: Array<[string, string]> = [
    ['i', I],
    ['counter', 'DT_RESOURCE'],
  ];
  const cond = g.library.define('while_cond_51', loopArgs, (f, [i]) => ({
    identity: identity(f, 'Identity', binary(f, 'Less', 'Less', i, scalarI32(f, 'Less/y', 3))),
  }));
  const body = g.library.define('while_body_52', loopArgs, (f, [i, counter]) => {
    const bump = assignAddVariable(f, 'AssignAddVariableOp', counter, scalarF32(f, 'AssignAddVariableOp/value', 1));
    return { identity: identity(f, 'Identity', binary(f, 'AddV2', 'add', i, scalarI32(f, 'add/y', 1)), [bump]), identity_1: counter };
  });
  const counter = g.resourceVariable('counter', { dtype: 'float32', shape: [], values: Float32Array.of(0) });
  const x = g.top.placeholder('serving_default_x', F, []);
  const loop = whileLoop(g.top, 'while', [scalarI32(g.top, 'i', 0), counter], cond, body, { stateless: false });
  const y = binary(g.top, 'AddV2', 'y', x, readVariable(g.top, 'ReadVariableOp', loop[1], F));
  await writeSavedModel(dir, g, { serving_default: { inputs: { x: info(x, []) }, outputs: { y: info(y, []) } } });
}

/**
 * TensorList ops outside loops, one signature each, over x [2] (and rows [n, 2]):
 *   length_reserved   TensorListLength(TensorListReserve([2], 3))                      → 3
 *   stack_partial     TensorListStack(SetItem(Reserve([2], 3), 1, x))                   → [[0,0], x, [0,0]]
 *   element_shape     TensorListElementShape(Reserve([-1, 2], 3))                       → [-1, 2]
 *   element_shape_unknown_rank   … of Reserve(unknown rank, 3)                          → -1
 *   read_unset        GetItem(Reserve([-1], 2), 0, [-1]): shape unknown                 → error
 *   set_out_of_range  SetItem(Reserve([2], 3), 5, x)                                     → error
 *   stack_count       TensorListStack(Reserve([2], 3), num_elements=2)                   → error
 *   from_tensor       Length and GetItem 1 of TensorListFromTensor(rows)                 → n, rows[1]
 */
export async function writeTensorListOpsModel(dir: string): Promise<void> {
  const g = new Tf2GraphBuilder();
  const t = g.top;
  const x = t.placeholder('x', F, [2]);
  const rows = t.placeholder('rows', F, [-1, 2]);
  const three = scalarI32(t, 'three', 3);
  const reserve = (name: string, shape: number[] | null) => tensorListReserve(t, name, shape, three, F);
  const sig = (outputs: Record<string, Value>, inputs: Record<string, Value> = { x }): WriterSignature => ({
    inputs: Object.fromEntries(Object.entries(inputs).map(([k, v]) => [k, info(v, v.shape)])),
    outputs: Object.fromEntries(Object.entries(outputs).map(([k, v]) => [k, info(v, null)])),
  });
  const length = tensorListLength(t, 'length', reserve('reserved', [2]));
  const partial = tensorListSetItem(t, 'set_1', reserve('reserved_1', [2]), scalarI32(t, 'one', 1), x);
  const stacked = tensorListStack(t, 'stack', partial, [2], F);
  const shape = tensorListElementShape(t, 'element_shape', reserve('reserved_2', [-1, 2]));
  const unknownRank = tensorListElementShape(t, 'element_shape_1', reserve('reserved_3', null));
  const unset = tensorListGetItem(
    t,
    'get_unset',
    tensorListReserve(t, 'reserved_4', [-1], scalarI32(t, 'two', 2), F),
    scalarI32(t, 'zero', 0),
    [-1],
    F,
  );
  const outOfRange = tensorListSetItem(t, 'set_5', reserve('reserved_5', [2]), scalarI32(t, 'five', 5), x);
  const miscounted = tensorListStack(t, 'stack_1', reserve('reserved_6', [2]), [2], F, 2);
  const fromRows = tensorListFromTensor(t, 'from_rows', rows, [2]);
  await writeSavedModel(dir, g, {
    length_reserved: sig({ y: identity(t, 'y_length', length) }),
    stack_partial: sig({ y: identity(t, 'y_stack', stacked) }),
    element_shape: sig({ y: identity(t, 'y_shape', shape) }),
    element_shape_unknown_rank: sig({ y: identity(t, 'y_shape_1', unknownRank) }),
    read_unset: sig({ y: identity(t, 'y_unset', unset) }),
    set_out_of_range: sig({ y: identity(t, 'y_range', tensorListStack(t, 'stack_2', outOfRange, [2], F)) }),
    stack_count: sig({ y: identity(t, 'y_count', miscounted) }),
    from_tensor: sig(
      {
        length: identity(t, 'y_rows_length', tensorListLength(t, 'rows_length', fromRows)),
        row_1: identity(t, 'y_row_1', tensorListGetItem(t, 'get_row_1', fromRows, scalarI32(t, 'one_1', 1), [2], F)),
      },
      { rows },
    ),
  });
}

// ---------------------------------------------------------------------------------------
// Recurrent layers

export type RnnCell = 'simple' | 'gru';

export interface RnnOptions {
  cell: RnnCell;
  features: number;
  units: number;
  seed: number;
}

/** Everything a forward pass needs; gates side by side in Keras' order (GRU: z, r, n). */
export interface RnnDescription {
  cell: RnnCell;
  features: number;
  units: number;
  /** Row-major [features, gates * units]. */
  kernel: Float32Array;
  /** Row-major [units, gates * units]. */
  recurrentKernel: Float32Array;
  /** [gates * units]. */
  bias: Float32Array;
}

export const rnnGates = (cell: RnnCell): number => (cell === 'gru' ? 3 : 1);

function describeRnn(o: RnnOptions): RnnDescription {
  const rand = seededRandom(o.seed);
  const width = rnnGates(o.cell) * o.units;
  return {
    cell: o.cell,
    features: o.features,
    units: o.units,
    kernel: glorotUniform(rand, o.features, width, o.features * width),
    recurrentKernel: glorotUniform(rand, o.units, width, o.units * width),
    bias: Float32Array.from({ length: width }, () => (rand() * 2 - 1) * 0.1),
  };
}

/** One step of the cell in a loop body: the next state from input item `x` and state `h`. */
function cellStep(f: FunctionBuilder, d: RnnDescription, x: Value, h: Value, kernel: Value, recurrent: Value, bias: Value): Value {
  const xw = biasAdd(f, 'while/BiasAdd', matMul(f, 'while/MatMul', x, kernel), bias);
  const hu = matMul(f, 'while/MatMul_1', h, recurrent);
  if (d.cell === 'simple') return unary(f, 'Tanh', 'while/Tanh', binary(f, 'AddV2', 'while/add', xw, hu));
  const [xz, xr, xn] = split(f, 'while/split', xw, 3, 1);
  const [hz, hr, hn] = split(f, 'while/split_1', hu, 3, 1);
  const z = unary(f, 'Sigmoid', 'while/Sigmoid', binary(f, 'AddV2', 'while/add', xz, hz));
  const r = unary(f, 'Sigmoid', 'while/Sigmoid_1', binary(f, 'AddV2', 'while/add_1', xr, hr));
  const n = unary(f, 'Tanh', 'while/Tanh', binary(f, 'AddV2', 'while/add_2', xn, binary(f, 'Mul', 'while/mul', r, hn)));
  const keep = binary(f, 'Mul', 'while/mul_1', z, h);
  const update = binary(f, 'Mul', 'while/mul_2', binary(f, 'Sub', 'while/sub', scalarF32(f, 'while/sub/x', 1), z), n);
  return binary(f, 'AddV2', 'while/add_3', keep, update);
}

/**
 * A Keras-shaped recurrent layer over x [batch, time, features] returning the whole
 * sequence [batch, time, units] and the last state [batch, units], time and batch read from
 * x at run time. The loop is keras.backend.rnn's: x transposed to [time, batch, features]
 * and unstacked into a TensorList, an output TensorList reserved for `time` items, a While
 * over (loop_counter, maximum_iterations, time, output list, state, time steps, input list,
 * weights…), TensorListGetItem / TensorListSetItem in the body, TensorListStack after it.
 *
 * The GRU reads its weights before the loop (Keras' standard_gru: float loop variables);
 * the simple RNN passes the variables' resource handles into the While and reads them in
 * the body (Keras SimpleRNN), which the runtime must freeze through the loop.
 */
export async function writeRnnSavedModel(dir: string, o: RnnOptions): Promise<RnnDescription> {
  const d = describeRnn(o);
  const { features: fe, units: u } = d;
  const width = rnnGates(d.cell) * u;
  const g = new Tf2GraphBuilder();
  const f32 = (shape: number[], values: Float32Array): HostTensor => ({ dtype: 'float32', shape, values });
  const scope = d.cell === 'gru' ? 'gru/gru_cell' : 'simple_rnn/simple_rnn_cell';
  const variables = [
    g.resourceVariable(`${scope}/kernel`, f32([fe, width], d.kernel), {
      checkpointKey: 'layer_with_weights-0/cell/kernel/.ATTRIBUTES/VARIABLE_VALUE',
    }),
    g.resourceVariable(`${scope}/recurrent_kernel`, f32([u, width], d.recurrentKernel), {
      checkpointKey: 'layer_with_weights-0/cell/recurrent_kernel/.ATTRIBUTES/VARIABLE_VALUE',
    }),
    g.resourceVariable(`${scope}/bias`, f32([width], d.bias), {
      checkpointKey: 'layer_with_weights-0/cell/bias/.ATTRIBUTES/VARIABLE_VALUE',
    }),
  ];
  const weightType = d.cell === 'gru' ? F : 'DT_RESOURCE';

  const loopArgs: Array<[string, string]> = [
    ['while_loop_counter', I],
    ['while_maximum_iterations', I],
    ['placeholder', I],
    ['placeholder_1', 'DT_VARIANT'],
    ['placeholder_2', F],
    ['strided_slice_0', I],
    ['tensorarrayunstack_tensorlistfromtensor_0', 'DT_VARIANT'],
    ['kernel_0', weightType],
    ['recurrent_kernel_0', weightType],
    ['bias_0', weightType],
  ];
  const cond = g.library.define('while_cond_101', loopArgs, (f, [, , t, , , steps]) => ({
    identity: identity(f, 'while/Identity', binary(f, 'Less', 'while/Less', t, steps)),
  }));
  const body = g.library.define('while_body_102', loopArgs, (f, [counter, maxit, t, out, h, steps, items, ...weights]) => {
    const x = tensorListGetItem(f, 'while/TensorArrayV2Read/TensorListGetItem', items, t, [-1, fe], F);
    const [kernel, recurrent, bias] =
      d.cell === 'gru' ? weights : weights.map((w, i) => readVariable(f, `while/ReadVariableOp_${i}`, w, F));
    const next = cellStep(f, d, x, h, kernel, recurrent, bias);
    const written = tensorListSetItem(f, 'while/TensorArrayV2Write/TensorListSetItem', out, t, next);
    const values = [
      binary(f, 'AddV2', 'while/add_5', counter, scalarI32(f, 'while/add_5/y', 1)),
      maxit,
      binary(f, 'AddV2', 'while/add_4', t, scalarI32(f, 'while/add_4/y', 1)),
      written,
      next,
    ];
    // Captured tensors go back out as they came in (tf.function returns the argument itself).
    const outs: Record<string, Value> = Object.fromEntries(
      values.map((v, i) => [`while_identity${i ? `_${i}` : ''}`, identity(f, `while/Identity${i ? `_${i}` : ''}`, v)]),
    );
    [steps, items, ...weights].forEach((v, i) => (outs[`while_passthrough_${i}`] = v));
    return outs;
  });

  // The layer: Keras' standard_gru / the SimpleRNN call, with the loop.
  const layerArgs: Array<[string, string]> = [
    ['inputs', F],
    ['kernel', weightType],
    ['recurrent_kernel', weightType],
    ['bias', weightType],
  ];
  const layer = g.library.define(
    `__inference_${d.cell === 'gru' ? 'standard_gru' : 'simple_rnn_layer_call'}_103`,
    layerArgs,
    (f, [x, ...weights]) => {
      const xt = transpose(f, 'transpose', x, [1, 0, 2]);
      const steps = dim(f, 'strided_slice', xt, 0);
      const h0 = zeros(f, 'zeros', dim(f, 'strided_slice_1', xt, 1), u);
      const items = tensorListFromTensor(f, 'TensorArrayUnstack/TensorListFromTensor', xt, [-1, fe]);
      const reserved = tensorListReserve(f, 'TensorArrayV2', [-1, u], steps, F);
      const loop = whileLoop(
        f,
        'while',
        [scalarI32(f, 'while/loop_counter', 0), steps, scalarI32(f, 'time', 0), reserved, h0, steps, items, ...weights],
        cond,
        body,
      );
      const sequence = transpose(
        f,
        'transpose_1',
        tensorListStack(f, 'TensorArrayV2Stack/TensorListStack', loop[3], [-1, u], F),
        [1, 0, 2],
      );
      return { identity: identity(f, 'Identity', sequence), identity_1: identity(f, 'Identity_1', loop[4]) };
    },
  );

  // The signature's function reads the variables (GRU) or hands their handles on (simple RNN).
  const wrapperArgs: Array<[string, string]> = [
    ['x', F],
    ['kernel', 'DT_RESOURCE'],
    ['recurrent_kernel', 'DT_RESOURCE'],
    ['bias', 'DT_RESOURCE'],
  ];
  const wrapper = g.library.define('__inference_signature_wrapper_104', wrapperArgs, (f, [x, ...handles]) => {
    const weights = d.cell === 'gru' ? handles.map((h, i) => readVariable(f, `ReadVariableOp${i ? `_${i}` : ''}`, h, F)) : handles;
    const [sequence, last] = call(f, d.cell === 'gru' ? 'PartitionedCall' : 'StatefulPartitionedCall', layer, [x, ...weights], {
      stateful: d.cell !== 'gru',
    });
    return { output_0: identity(f, 'Identity', sequence), output_1: identity(f, 'Identity_1', last) };
  });

  const x = g.top.placeholder('serving_default_x', F, [-1, -1, fe]);
  const [sequence, last] = call(g.top, 'StatefulPartitionedCall', wrapper, [x, ...variables]);
  const signature: WriterSignature = {
    inputs: { x: info(x, [-1, -1, fe]) },
    outputs: { sequence: info(sequence, [-1, -1, u]), last: info(last, [-1, u]) },
  };
  await writeSavedModel(dir, g, { serving_default: signature });
  return d;
}
