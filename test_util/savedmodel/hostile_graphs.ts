// Small hand-made graphs TF refuses or that ask a load for too much, as RawSavedModels
// (raw_saved_model.ts): each hostile to one check of the load. Shared by the tests and the
// model fuzzer (bench/model_fuzz.ts).
import { attr } from './writer/graph_builder.js';
import type { RawNode, RawSavedModel, RawTensorInfo } from './raw_saved_model.js';
import type { HostTensor } from '../../src/tensor/host_tensor.js';

const f32 = (values: number[], shape: number[]): HostTensor => ({ dtype: 'float32', shape, values: Float32Array.from(values) });
export const i32 = (values: number[], shape: number[]): HostTensor => ({ dtype: 'int32', shape, values: Int32Array.from(values) });

export const constNode = (name: string, t: HostTensor): RawNode => ({
  name,
  op: 'Const',
  attr: { dtype: attr.type(t.dtype), value: attr.tensor(t) },
});
export const placeholder = (name: string, dtype = 'float32', shape: number[] | null = [-1, 1]): RawNode => ({
  name,
  op: 'Placeholder',
  attr: { dtype: attr.type(dtype), shape: attr.shape(shape) },
});
export const floatOp = (op: string, name: string, input: string[], extra: RawNode['attr'] = {}): RawNode => ({
  name,
  op,
  input,
  attr: { T: attr.type('float32'), ...extra },
});

/** A predict signature x → y with the given tensor names. */
export function signature(
  x = 'x:0',
  y = 'y:0',
  xShape: number[] | null = [-1, 1],
  yShape: number[] | null = [-1, 1],
): RawSavedModel['signatures'] {
  const t = (name: string, shape: number[] | null): RawTensorInfo => ({ name, dtype: 'DT_FLOAT', shape });
  return { serving_default: { inputs: { x: t(x, xShape) }, outputs: { y: t(y, yShape) } } };
}

/** y = x + reduce_sum(big): `big` is the hostile part, a scalar in the answer. */
function summed(nodes: RawNode[], big: string): RawSavedModel {
  return {
    nodes: [
      placeholder('x'),
      ...nodes,
      constNode('axes', i32([0, 1], [2])),
      {
        name: 'sum',
        op: 'Sum',
        input: [big, 'axes'],
        attr: { T: attr.type('float32'), Tidx: attr.type('int32'), keep_dims: attr.b(false) },
      },
      floatOp('AddV2', 'y', ['x', 'sum']),
    ],
    signatures: signature(),
  };
}

/** Graphs a load must refuse, by what they do; each loads in well under a second when refused. */
export const HOSTILE_GRAPHS: Record<string, () => RawSavedModel> = {
  /** Fill [30000, 30000] → Sum: 3.6 GB made from 500 bytes. */
  fillSum: () =>
    summed(
      [
        constNode('dims', i32([30000, 30000], [2])),
        constNode('one', f32([1], [])),
        { name: 'fill', op: 'Fill', input: ['dims', 'one'], attr: { T: attr.type('float32'), index_type: attr.type('int32') } },
      ],
      'fill',
    ),
  /** One float broadcast to [20000, 20000] by its TensorProto: 1.6 GB. */
  broadcastConst: () =>
    summed(
      [
        {
          name: 'big',
          op: 'Const',
          attr: {
            dtype: attr.type('float32'),
            value: { tensor: { dtype: 'DT_FLOAT', tensorShape: { dim: [{ size: 20000 }, { size: 20000 }] }, floatVal: [1] } },
          },
        },
      ],
      'big',
    ),
  /** OneHot of depth 2^31 - 1. */
  oneHot: () =>
    summed(
      [
        constNode('idx', i32([1], [1])),
        constNode('depth', i32([2 ** 31 - 1], [])),
        constNode('on', f32([1], [])),
        constNode('off', f32([0], [])),
        {
          name: 'oh',
          op: 'OneHot',
          input: ['idx', 'depth', 'on', 'off'],
          attr: { T: attr.type('float32'), TI: attr.type('int32'), axis: attr.i(-1) },
        },
      ],
      'oh',
    ),
  /** x padded by 1e9 rows. */
  pad: () => ({
    nodes: [
      placeholder('x'),
      constNode('p', i32([0, 1e9, 0, 0], [2, 2])),
      floatOp('Pad', 'y', ['x', 'p'], { Tpaddings: attr.type('int32') }),
    ],
    signatures: signature(),
  }),
  /** x tiled [1e9, 1e9] times. */
  tile: () => ({
    nodes: [placeholder('x'), constNode('m', i32([1e9, 1e9], [2])), floatOp('Tile', 'y', ['x', 'm'], { Tmultiples: attr.type('int32') })],
    signatures: signature(),
  }),
  /** MaxPool with a window of zero rows and columns (ONNX Runtime refuses it; WASM returns memory it never wrote). */
  maxPoolZeroWindow: () => ({
    nodes: [
      placeholder('x', 'float32', [-1, 4, 4, 1]),
      floatOp('MaxPool', 'y', ['x'], {
        ksize: attr.ints([1, 0, 0, 1]),
        strides: attr.ints([1, 1, 1, 1]),
        padding: attr.s('VALID'),
        data_format: attr.s('NHWC'),
      }),
    ],
    signatures: signature('x:0', 'y:0', [-1, 4, 4, 1], null),
  }),
  /** a = x + b, b = a + x. */
  cycle: () => ({
    nodes: [placeholder('x'), floatOp('AddV2', 'a', ['x', 'b']), floatOp('AddV2', 'b', ['a', 'x'])],
    signatures: signature('x:0', 'b:0'),
  }),
  /** The signature fetches output 7 of a one-output node. */
  missingOutput: () => ({ nodes: [placeholder('x'), floatOp('Identity', 'y', ['x'])], signatures: signature('x:0', 'y:7') }),
  /** A signature input of DataType 999, which types.proto does not have. */
  unknownDtype: () => {
    const m: RawSavedModel = { nodes: [placeholder('x'), floatOp('Identity', 'y', ['x'])], signatures: signature() };
    m.signatures.serving_default.inputs.x.dtype = 999;
    return m;
  },
  /** AddV2 of float fed an int32 constant. */
  mixedTypes: () => ({
    nodes: [placeholder('x'), constNode('k', i32([2], [])), floatOp('AddV2', 'y', ['x', 'k'])],
    signatures: signature(),
  }),
  /** Reshape whose shape is float. */
  floatReshapeShape: () => ({
    nodes: [placeholder('x'), constNode('s', f32([-1, 1], [2])), floatOp('Reshape', 'y', ['x', 's'], { Tshape: attr.type('float32') })],
    signatures: signature(),
  }),
};

/** A chain of `depth` Neg nodes: valid, and deeper than any recursion over it could go. */
export function deepChain(depth: number): RawSavedModel {
  const nodes: RawNode[] = [placeholder('x')];
  let prev = 'x';
  for (let i = 0; i < depth; i++) {
    nodes.push(floatOp('Neg', `n${i}`, [prev]));
    prev = `n${i}`;
  }
  return { nodes, signatures: signature('x:0', `${prev}:0`) };
}
