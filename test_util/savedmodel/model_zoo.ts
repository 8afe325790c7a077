// Deterministic models written with the SavedModel writer, for tests, benches and the
// example repository: a dense MLP, a small conv net and TF Serving's half_plus_two.
// Weights come from a seeded PRNG (mulberry32) with Glorot-uniform kernels and small
// uniform biases, so the same options give the same bytes on every run and machine.
// Each writer returns a description holding every weight, for an independent forward
// pass (reference_forward.ts).
import { invalidArgument } from '../../src/errors/status.js';
import type { HostTensor } from '../../src/tensor/host_tensor.js';
import { GraphBuilder, type Tensor } from './writer/graph_builder.js';
import { writeSavedModel, type WriterSignature } from './saved_model_writer.js';

type Activation = 'relu' | 'tanh' | 'sigmoid' | 'linear';

/** One checkpoint variable of a model, under its checkpoint key. */
interface WeightTensor {
  name: string;
  shape: number[];
  values: Float32Array;
}

export interface DenseLayer {
  /** Row-major [in, out]. */
  kernel: Float32Array;
  kernelShape: [number, number];
  bias: Float32Array;
  activation: Activation | 'softmax';
}

export interface MlpDescription {
  kind: 'mlp';
  inputDim: number;
  outputDim: number;
  layers: DenseLayer[];
  /** Every variable, as stored in variables/. */
  variables: WeightTensor[];
}

interface ConvLayer {
  kernel: Float32Array;
  /** [kh, kw, in, out], TF's HWIO layout. */
  kernelShape: [number, number, number, number];
  bias: Float32Array;
  padding: 'SAME' | 'VALID';
}

export interface ConvDescription {
  kind: 'conv';
  /** [H, W, C] of one image. */
  inputShape: [number, number, number];
  convs: ConvLayer[];
  /** Flattened size after the last pooling. */
  flatDim: number;
  dense: DenseLayer;
  variables: WeightTensor[];
}

/** mulberry32: a small, well-known 32-bit seeded PRNG; uniform in [0, 1). */
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

/** Glorot (Xavier) uniform: U(-l, l) with l = sqrt(6 / (fanIn + fanOut)), as Keras' default. */
export function glorotUniform(rand: () => number, fanIn: number, fanOut: number, size: number): Float32Array {
  const limit = Math.sqrt(6 / (fanIn + fanOut));
  return Float32Array.from({ length: size }, () => (rand() * 2 - 1) * limit);
}

/** Biases: U(-0.1, 0.1), so that a wrong BiasAdd shows in outputs (Keras would use zeros). */
function smallUniform(rand: () => number, size: number): Float32Array {
  return Float32Array.from({ length: size }, () => (rand() * 2 - 1) * 0.1);
}

const f32 = (shape: number[], values: Float32Array): HostTensor => ({ dtype: 'float32', shape, values });

function checkPositiveInt(what: string, v: number): void {
  if (!Number.isInteger(v) || v < 1) throw invalidArgument(`${what} must be a positive integer, got ${v}`);
}

function checkSeed(seed: number): void {
  if (!Number.isInteger(seed)) throw invalidArgument(`seed must be an integer, got ${seed}`);
}

/** Keras-style layer scope names: dense, dense_1, dense_2 … */
const scopeName = (base: string, i: number) => (i === 0 ? base : `${base}_${i}`);

function activation(g: GraphBuilder, scope: string, x: Tensor, fn: Activation | 'softmax'): Tensor {
  switch (fn) {
    case 'relu':
      return g.unary('Relu', `${scope}/Relu`, x);
    case 'tanh':
      return g.unary('Tanh', `${scope}/Tanh`, x);
    case 'sigmoid':
      return g.unary('Sigmoid', `${scope}/Sigmoid`, x);
    case 'softmax':
      return g.unary('Softmax', `${scope}/Softmax`, x);
    case 'linear':
      return x;
  }
}

function dense(g: GraphBuilder, scope: string, x: Tensor, layer: DenseLayer): Tensor {
  const w = g.variable(`${scope}/kernel`, f32(layer.kernelShape, layer.kernel));
  const b = g.variable(`${scope}/bias`, f32([layer.bias.length], layer.bias));
  const mm = g.matMul(`${scope}/MatMul`, x, w);
  return activation(g, scope, g.biasAdd(`${scope}/BiasAdd`, mm, b), layer.activation);
}

// ---------------------------------------------------------------------------------------
// MLP

export interface MlpOptions {
  inputDim: number;
  hiddenSizes: number[];
  outputDim: number;
  activation: Activation;
  outputActivation?: 'softmax' | 'linear';
  seed: number;
}

export function describeMlp(o: MlpOptions): MlpDescription {
  checkPositiveInt('inputDim', o.inputDim);
  checkPositiveInt('outputDim', o.outputDim);
  o.hiddenSizes.forEach((h, i) => checkPositiveInt(`hiddenSizes[${i}]`, h));
  checkSeed(o.seed);
  if (!['relu', 'tanh', 'sigmoid', 'linear'].includes(o.activation)) throw invalidArgument(`unknown activation ${o.activation}`);
  const rand = seededRandom(o.seed);
  const dims = [o.inputDim, ...o.hiddenSizes, o.outputDim];
  const layers: DenseLayer[] = [];
  const variables: WeightTensor[] = [];
  for (let i = 0; i < dims.length - 1; i++) {
    const last = i === dims.length - 2;
    const layer: DenseLayer = {
      kernel: glorotUniform(rand, dims[i], dims[i + 1], dims[i] * dims[i + 1]),
      kernelShape: [dims[i], dims[i + 1]],
      bias: smallUniform(rand, dims[i + 1]),
      activation: last ? (o.outputActivation ?? 'linear') : o.activation,
    };
    layers.push(layer);
    const scope = scopeName('dense', i);
    variables.push(
      { name: `${scope}/kernel`, shape: [...layer.kernelShape], values: layer.kernel },
      { name: `${scope}/bias`, shape: [layer.bias.length], values: layer.bias },
    );
  }
  return { kind: 'mlp', inputDim: o.inputDim, outputDim: o.outputDim, layers, variables };
}

/** The graph and signatures of an MLP: `x` float [-1, inputDim] → `y` float [-1, outputDim]. */
export function buildMlpGraph(model: MlpDescription): { graph: GraphBuilder; signatures: Record<string, WriterSignature> } {
  const g = new GraphBuilder();
  const x = g.placeholder('x', 'float32', [-1, model.inputDim]);
  let h = x;
  model.layers.forEach((layer, i) => (h = dense(g, scopeName('dense', i), h, layer)));
  const y = g.identity('y', h);
  return { graph: g, signatures: { serving_default: { inputs: { x }, outputs: { y } } } };
}

/** Writes the MLP SavedModel to `dir` (a version directory) and returns its description. */
export async function writeMlpSavedModel(dir: string, o: MlpOptions): Promise<MlpDescription> {
  const model = describeMlp(o);
  const { graph, signatures } = buildMlpGraph(model);
  await writeSavedModel(dir, graph, signatures);
  return model;
}

// ---------------------------------------------------------------------------------------
// Conv net

export interface ConvOptions {
  height: number;
  width: number;
  channels: number;
  /** Output channels of each Conv2D + BiasAdd + Relu + MaxPool(2×2) stage. */
  filters: number[];
  kernelSize: number;
  classes: number;
  /** Conv2D padding (stride 1); default SAME. */
  padding?: 'SAME' | 'VALID';
  seed: number;
}

function describeConv(o: ConvOptions): ConvDescription {
  for (const k of ['height', 'width', 'channels', 'kernelSize', 'classes'] as const) checkPositiveInt(k, o[k]);
  o.filters.forEach((f, i) => checkPositiveInt(`filters[${i}]`, f));
  checkSeed(o.seed);
  const padding = o.padding ?? 'SAME';
  if (padding !== 'SAME' && padding !== 'VALID') throw invalidArgument(`padding must be SAME or VALID, got ${padding}`);
  const rand = seededRandom(o.seed);
  const convs: ConvLayer[] = [];
  const variables: WeightTensor[] = [];
  let [h, w, c] = [o.height, o.width, o.channels];
  const k = o.kernelSize;
  o.filters.forEach((f, i) => {
    if (padding === 'VALID') [h, w] = [h - k + 1, w - k + 1];
    [h, w] = [Math.floor(h / 2), Math.floor(w / 2)];
    if (h < 1 || w < 1)
      throw invalidArgument(
        `a ${o.height}×${o.width} input is too small for ${o.filters.length} conv/pool stages with ${k}×${k} ${padding} kernels`,
      );
    const layer: ConvLayer = {
      kernel: glorotUniform(rand, k * k * c, k * k * f, k * k * c * f),
      kernelShape: [k, k, c, f],
      bias: smallUniform(rand, f),
      padding,
    };
    convs.push(layer);
    const scope = scopeName('conv2d', i);
    variables.push(
      { name: `${scope}/kernel`, shape: [...layer.kernelShape], values: layer.kernel },
      { name: `${scope}/bias`, shape: [f], values: layer.bias },
    );
    c = f;
  });
  const flatDim = h * w * c;
  const denseLayer: DenseLayer = {
    kernel: glorotUniform(rand, flatDim, o.classes, flatDim * o.classes),
    kernelShape: [flatDim, o.classes],
    bias: smallUniform(rand, o.classes),
    activation: 'softmax',
  };
  variables.push(
    { name: 'dense/kernel', shape: [flatDim, o.classes], values: denseLayer.kernel },
    { name: 'dense/bias', shape: [o.classes], values: denseLayer.bias },
  );
  return { kind: 'conv', inputShape: [o.height, o.width, o.channels], convs, flatDim, dense: denseLayer, variables };
}

/**
 * The graph and signatures of a conv net: `images` float [-1,H,W,C] → per stage Conv2D
 * (stride 1) + BiasAdd + Relu + MaxPool 2×2 → Reshape [-1, flat] → MatMul + BiasAdd +
 * Softmax → `probabilities` float [-1, classes].
 */
function buildConvGraph(model: ConvDescription): { graph: GraphBuilder; signatures: Record<string, WriterSignature> } {
  const g = new GraphBuilder();
  const [H, W, C] = model.inputShape;
  const images = g.placeholder('images', 'float32', [-1, H, W, C]);
  let x = images;
  model.convs.forEach((layer, i) => {
    const scope = scopeName('conv2d', i);
    const kernel = g.variable(`${scope}/kernel`, f32([...layer.kernelShape], layer.kernel));
    const bias = g.variable(`${scope}/bias`, f32([layer.bias.length], layer.bias));
    const conv = g.conv2d(`${scope}/Conv2D`, x, kernel, { padding: layer.padding });
    const relu = g.unary('Relu', `${scope}/Relu`, g.biasAdd(`${scope}/BiasAdd`, conv, bias));
    x = g.maxPool(`${scopeName('max_pooling2d', i)}/MaxPool`, relu, { ksize: [2, 2], strides: [2, 2], padding: 'VALID' });
  });
  const flat = g.reshape('flatten/Reshape', x, [-1, model.flatDim]);
  const probs = dense(g, 'dense', flat, model.dense);
  const probabilities = g.identity('probabilities', probs);
  return { graph: g, signatures: { serving_default: { inputs: { images }, outputs: { probabilities } } } };
}

export async function writeConvSavedModel(dir: string, o: ConvOptions): Promise<ConvDescription> {
  const model = describeConv(o);
  const { graph, signatures } = buildConvGraph(model);
  await writeSavedModel(dir, graph, signatures);
  return model;
}

// ---------------------------------------------------------------------------------------
// half_plus_two

/**
 * TF Serving's half_plus_two, written by tfgate: y = a·x + b with variables a = 0.5 and
 * b = 2, input `x` float [-1, 1], output `y` (the README's example model).
 */
export async function writeHalfPlusTwoSavedModel(dir: string): Promise<void> {
  const g = new GraphBuilder();
  const x = g.placeholder('x', 'float32', [-1, 1]);
  const a = g.variable('a', f32([], Float32Array.of(0.5)));
  const b = g.variable('b', f32([], Float32Array.of(2)));
  const y = g.add('y', g.mul('Mul', a, x), b);
  await writeSavedModel(dir, g, { serving_default: { inputs: { x }, outputs: { y } } });
}

/**
 * half_plus_two's graph under `count` signatures (serving_default, s1, s2 …), all reading `x`
 * and answering `y`: a small saved_model.pb (3 000 signatures: ~310 KB) whose load builds a
 * session per signature.
 */
export async function writeManySignaturesSavedModel(dir: string, count: number): Promise<void> {
  const g = new GraphBuilder();
  const x = g.placeholder('x', 'float32', [-1, 1]);
  const a = g.variable('a', f32([], Float32Array.of(0.5)));
  const b = g.variable('b', f32([], Float32Array.of(2)));
  const y = g.add('y', g.mul('Mul', a, x), b);
  const signatures = Object.fromEntries(
    Array.from({ length: count }, (_, i) => [i === 0 ? 'serving_default' : `s${i}`, { inputs: { x }, outputs: { y } }]),
  );
  await writeSavedModel(dir, g, signatures);
}
