// Deterministic models written with the SavedModel writer, for tests, the bench and the
// example repository: a dense MLP and a small conv net. Same seed → same bytes.
import type { HostTensor } from '../tensor/host_tensor.js';
import { attr, GraphBuilder } from './writer/graph_builder.js';
import { writeSavedModel } from './saved_model_writer.js';

export type Activation = 'relu' | 'tanh' | 'sigmoid' | 'linear';

export interface DenseLayer {
  kernel: Float32Array;
  kernelShape: [number, number];
  bias: Float32Array;
  activation: Activation | 'softmax';
}

export interface MlpDescription {
  kind: 'mlp';
  inputDim: number;
  layers: DenseLayer[];
}

export interface ConvLayer {
  kernel: Float32Array;
  /** [kh, kw, in, out], TF's HWIO layout. */
  kernelShape: [number, number, number, number];
  bias: Float32Array;
  padding: 'SAME' | 'VALID';
}

export interface ConvDescription {
  kind: 'conv';
  inputShape: [number, number, number];
  convs: ConvLayer[];
  dense: DenseLayer;
}

/** mulberry32: a small, well-known seeded PRNG. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Glorot-uniform initial weights. */
function glorot(rand: () => number, fanIn: number, fanOut: number, size: number): Float32Array {
  const limit = Math.sqrt(6 / (fanIn + fanOut));
  return Float32Array.from({ length: size }, () => (rand() * 2 - 1) * limit);
}

const f32 = (shape: number[], values: Float32Array): HostTensor => ({ dtype: 'float32', shape, values });

function addActivation(g: GraphBuilder, scope: string, x: string, activation: Activation | 'softmax'): string {
  const T = { T: attr.type('DT_FLOAT') };
  switch (activation) {
    case 'relu':
      return g.op('Relu', `${scope}/Relu`, [x], T);
    case 'tanh':
      return g.op('Tanh', `${scope}/Tanh`, [x], T);
    case 'sigmoid':
      return g.op('Sigmoid', `${scope}/Sigmoid`, [x], T);
    case 'softmax':
      return g.op('Softmax', `${scope}/Softmax`, [x], T);
    case 'linear':
      return x;
  }
}

function addDense(g: GraphBuilder, scope: string, x: string, layer: DenseLayer): string {
  const T = attr.type('DT_FLOAT');
  const w = g.variable(`${scope}/kernel`, f32(layer.kernelShape, layer.kernel));
  const b = g.variable(`${scope}/bias`, f32([layer.bias.length], layer.bias));
  const mm = g.op('MatMul', `${scope}/MatMul`, [x, w], { T, transpose_a: attr.b(false), transpose_b: attr.b(false) });
  const ba = g.op('BiasAdd', `${scope}/BiasAdd`, [mm, b], { T, data_format: attr.s('NHWC') });
  return addActivation(g, scope, ba, layer.activation);
}

export interface MlpOptions {
  inputDim: number;
  hiddenSizes: number[];
  outputDim: number;
  activation: Activation;
  outputActivation?: 'softmax' | 'linear';
  seed: number;
}

export function describeMlp(o: MlpOptions): MlpDescription {
  const rand = seededRandom(o.seed);
  const dims = [o.inputDim, ...o.hiddenSizes, o.outputDim];
  const layers: DenseLayer[] = [];
  for (let i = 0; i < dims.length - 1; i++) {
    const last = i === dims.length - 2;
    layers.push({
      kernel: glorot(rand, dims[i], dims[i + 1], dims[i] * dims[i + 1]),
      kernelShape: [dims[i], dims[i + 1]],
      bias: Float32Array.from({ length: dims[i + 1] }, () => (rand() - 0.5) * 0.2),
      activation: last ? o.outputActivation ?? 'linear' : o.activation,
    });
  }
  return { kind: 'mlp', inputDim: o.inputDim, layers };
}

/** Input `x` float [-1, inputDim] → output `y` float [-1, outputDim]. */
export async function writeMlpSavedModel(dir: string, o: MlpOptions): Promise<MlpDescription> {
  const model = describeMlp(o);
  const g = new GraphBuilder();
  let h = g.placeholder('x', 'DT_FLOAT', [-1, o.inputDim]);
  model.layers.forEach((layer, i) => (h = addDense(g, i === 0 ? 'dense' : `dense_${i}`, h, layer)));
  const y = g.op('Identity', 'y', [h], { T: attr.type('DT_FLOAT') });
  await writeSavedModel(dir, g, {
    serving_default: {
      inputs: { x: { name: 'x:0', dtype: 'DT_FLOAT', shape: [-1, o.inputDim] } },
      outputs: { y: { name: `${y}:0`, dtype: 'DT_FLOAT', shape: [-1, o.outputDim] } },
    },
  });
  return model;
}

export interface ConvOptions {
  height: number;
  width: number;
  channels: number;
  filters: number[];
  kernelSize: number;
  classes: number;
  padding?: 'SAME' | 'VALID';
  seed: number;
}

export function describeConv(o: ConvOptions): ConvDescription {
  const rand = seededRandom(o.seed);
  const padding = o.padding ?? 'SAME';
  const convs: ConvLayer[] = [];
  let [h, w, c] = [o.height, o.width, o.channels];
  for (const f of o.filters) {
    const k = o.kernelSize;
    convs.push({ kernel: glorot(rand, k * k * c, k * k * f, k * k * c * f), kernelShape: [k, k, c, f], bias: Float32Array.from({ length: f }, () => (rand() - 0.5) * 0.2), padding });
    if (padding === 'VALID') [h, w] = [h - k + 1, w - k + 1];
    [h, w, c] = [Math.floor(h / 2), Math.floor(w / 2), f];
  }
  const flat = h * w * c;
  return {
    kind: 'conv',
    inputShape: [o.height, o.width, o.channels],
    convs,
    dense: { kernel: glorot(rand, flat, o.classes, flat * o.classes), kernelShape: [flat, o.classes], bias: Float32Array.from({ length: o.classes }, () => (rand() - 0.5) * 0.2), activation: 'softmax' },
  };
}

/** Input `images` float [-1,H,W,C] → Conv2D+BiasAdd+Relu+MaxPool per filter → dense softmax `probabilities`. */
export async function writeConvSavedModel(dir: string, o: ConvOptions): Promise<ConvDescription> {
  const model = describeConv(o);
  const g = new GraphBuilder();
  const T = attr.type('DT_FLOAT');
  let x = g.placeholder('images', 'DT_FLOAT', [-1, o.height, o.width, o.channels]);
  model.convs.forEach((layer, i) => {
    const scope = i === 0 ? 'conv2d' : `conv2d_${i}`;
    const k = g.variable(`${scope}/kernel`, f32(layer.kernelShape, layer.kernel));
    const b = g.variable(`${scope}/bias`, f32([layer.bias.length], layer.bias));
    const conv = g.op('Conv2D', `${scope}/Conv2D`, [x, k], {
      T, strides: attr.ints([1, 1, 1, 1]), padding: attr.s(layer.padding), data_format: attr.s('NHWC'),
      dilations: attr.ints([1, 1, 1, 1]), use_cudnn_on_gpu: attr.b(true), explicit_paddings: attr.ints([]),
    });
    const ba = g.op('BiasAdd', `${scope}/BiasAdd`, [conv, b], { T, data_format: attr.s('NHWC') });
    const relu = g.op('Relu', `${scope}/Relu`, [ba], { T });
    x = g.op('MaxPool', `max_pooling2d${i === 0 ? '' : `_${i}`}/MaxPool`, [relu], {
      T, ksize: attr.ints([1, 2, 2, 1]), strides: attr.ints([1, 2, 2, 1]), padding: attr.s('VALID'), data_format: attr.s('NHWC'), explicit_paddings: attr.ints([]),
    });
  });
  const shape = g.constant('flatten/Const', { dtype: 'int32', shape: [2], values: Int32Array.of(-1, model.dense.kernelShape[0]) });
  const flat = g.op('Reshape', 'flatten/Reshape', [x, shape], { T, Tshape: attr.type('DT_INT32') });
  const probs = addDense(g, 'dense', flat, model.dense);
  const out = g.op('Identity', 'probabilities', [probs], { T });
  await writeSavedModel(dir, g, {
    serving_default: {
      inputs: { images: { name: 'images:0', dtype: 'DT_FLOAT', shape: [-1, o.height, o.width, o.channels] } },
      outputs: { probabilities: { name: `${out}:0`, dtype: 'DT_FLOAT', shape: [-1, o.classes] } },
    },
  });
  return model;
}

/**
 * TF Serving's half_plus_two, written by tfgate: y = a·x + b with variables a = 0.5, b = 2,
 * input `x` float [-1, 1], output `y` (the README's example model).
 */
export async function writeHalfPlusTwoSavedModel(dir: string): Promise<void> {
  const g = new GraphBuilder();
  const T = { T: attr.type('DT_FLOAT') };
  const x = g.placeholder('x', 'DT_FLOAT', [-1, 1]);
  const a = g.variable('a', f32([], Float32Array.of(0.5)));
  const b = g.variable('b', f32([], Float32Array.of(2)));
  const mul = g.op('Mul', 'Mul', [a, x], T);
  const y = g.op('Add', 'y', [mul, b], T);
  await writeSavedModel(dir, g, {
    serving_default: {
      inputs: { x: { name: `${x}:0`, dtype: 'DT_FLOAT', shape: [-1, 1] } },
      outputs: { y: { name: `${y}:0`, dtype: 'DT_FLOAT', shape: [-1, 1] } },
    },
  });
}
