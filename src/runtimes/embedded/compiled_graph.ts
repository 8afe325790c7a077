// A prepared graph compiled to a flat list of TF.js op calls, for graphs made only of the
// common dense/conv ops below. tfjs-converter's GraphModel.execute spends ~10-15 µs of
// JavaScript per node on every call (name maps, attribute lookups, a tidy scope per op),
// which is ~5-10 % of a small batch's time on an MLP; here attributes are read once at load
// and every value lives in a numbered slot. A graph with any other op (or an attribute
// form not handled here) is not compiled: the GraphModel runs it, so coverage is unchanged.
// Each kernel calls the same TF.js op the converter maps that TF op to, with the same
// arguments, so both paths compute the same values.
import tf from '../tfjs_packages/tfjs_core.cjs';
import type { NodeDef, AttrValue } from '../../savedmodel/graph/types.js';
import { attrString } from '../../savedmodel/graph/types.js';
import { parseTensorName } from '../../savedmodel/graph/graph_flattener.js';
import { shapeFromProto } from '../../savedmodel/tensor_proto.js';
import { dtypeFromTf } from '../../tensor/dtype.js';
import { tfjsDtype } from '../shared/tfjs_values.js';
import { embeddedOp } from './ops/index.js';

type Kernel = (inputs: tf.Tensor[]) => tf.Tensor;
/** A kernel for the node, or null when this compiler does not handle the node's form. */
type KernelFactory = (node: NodeDef, constInput: (i: number) => tf.Tensor | undefined) => Kernel | null;

const ints = (a: AttrValue | undefined, fallback: number[]): number[] => (a?.list?.i?.length ? a.list.i.map(Number) : fallback);
const isNhwc = (node: NodeDef) => (attrString(node.attr?.data_format) || 'NHWC') === 'NHWC';
const padding = (node: NodeDef): 'same' | 'valid' | null => {
  const p = attrString(node.attr?.padding);
  return p === 'SAME' ? 'same' : p === 'VALID' ? 'valid' : null; // EXPLICIT: left to the converter
};
const binary =
  (op: (a: tf.Tensor, b: tf.Tensor) => tf.Tensor): KernelFactory =>
  () =>
  ([a, b]) =>
    op(a, b);
const unary =
  (op: (x: tf.Tensor) => tf.Tensor): KernelFactory =>
  () =>
  ([x]) =>
    op(x);

/** Padding and H/W strides of an NHWC window op; null for forms left to the converter. */
const window2d = (node: NodeDef): { pad: 'same' | 'valid'; strides: [number, number] } | null => {
  const pad = padding(node);
  if (!pad || !isNhwc(node)) return null;
  const [, sh, sw] = ints(node.attr?.strides, [1, 1, 1, 1]);
  return { pad, strides: [sh, sw] };
};

const pool =
  (op: typeof tf.maxPool): KernelFactory =>
  (node) => {
    const w = window2d(node);
    if (!w) return null;
    const [, kh, kw] = ints(node.attr?.ksize, [1, 1, 1, 1]);
    return ([x]) => op(x as tf.Tensor4D, [kh, kw], w.strides, w.pad);
  };

const KERNELS: Record<string, KernelFactory> = {
  MatMul: (node) => {
    const ta = node.attr?.transpose_a?.b ?? false;
    const tb = node.attr?.transpose_b?.b ?? false;
    return ([a, b]) => tf.matMul(a, b, ta, tb);
  },
  BiasAdd: (node) => (isNhwc(node) ? ([x, b]) => tf.add(x, b) : null),
  Add: binary(tf.add),
  AddV2: binary(tf.add),
  Sub: binary(tf.sub),
  Mul: binary(tf.mul),
  RealDiv: binary(tf.div),
  Maximum: binary(tf.maximum),
  Minimum: binary(tf.minimum),
  Relu: unary(tf.relu),
  Relu6: unary(tf.relu6),
  Sigmoid: unary(tf.sigmoid),
  Tanh: unary(tf.tanh),
  Softmax: unary(tf.softmax),
  Conv2D: (node) => {
    const w = window2d(node);
    if (!w) return null;
    const [, dh, dw] = ints(node.attr?.dilations, [1, 1, 1, 1]);
    return ([x, filter]) => tf.conv2d(x as tf.Tensor4D, filter as tf.Tensor4D, w.strides, w.pad, 'NHWC', [dh, dw]);
  },
  MaxPool: pool(tf.maxPool),
  AvgPool: pool(tf.avgPool),
  Reshape: (_node, constInput) => {
    // Only a constant target shape: a computed one would need the value on the JS side per call.
    const shape = constInput(1);
    if (!shape) return null;
    const dims = Array.from(shape.dataSync());
    return ([x]) => tf.reshape(x, dims);
  },
};

interface Step {
  kernel: Kernel;
  /** Slot the result goes to. */
  slot: number;
  inputs: number[];
  /** Slots whose last reader is this step: disposed right after it, as the converter does. */
  release: number[];
}

interface Feed {
  slot: number;
  name: string;
  shape: number[] | null;
  dtype: string | undefined;
}

/** Slot of a node input ('name', 'name:0'); null for a second output, which no kernel here makes. */
function inputSlot(input: string, slots: Map<string, number>): number | null {
  const [name, index] = parseTensorName(input);
  return index === 0 ? (slots.get(name) ?? null) : null;
}

export class CompiledGraph {
  private constructor(
    private readonly slotCount: number,
    /** Slots holding the model's weights (owned by the GraphModel, never disposed here). */
    private readonly constants: Array<[number, tf.Tensor]>,
    private readonly feeds: Map<string, Feed>,
    private readonly steps: Step[],
    /** Step index computing each slot's value, or -1 for constants and feeds. */
    private readonly producer: Int32Array,
    private readonly outputSlots: Map<string, number>,
  ) {}

  /**
   * Compiles `nodes` (inputs before consumers) over the GraphModel's weight tensors, or returns
   * null when a node is outside what this compiler handles.
   */
  static compile(nodes: NodeDef[], weights: Record<string, tf.Tensor[]>, outputs: string[]): CompiledGraph | null {
    const slots = new Map<string, number>();
    const constants: Array<[number, tf.Tensor]> = [];
    const feeds = new Map<string, Feed>();
    const steps: Step[] = [];
    const alias: number[] = []; // Identity nodes share their input's slot
    const producer: number[] = [];
    const valueOf = new Map<number, tf.Tensor>();
    for (const node of nodes) {
      const slot = alias.length;
      if (node.op === 'Const') {
        const w = weights[node.name]?.[0];
        if (!w) return null;
        constants.push([slot, w]);
        valueOf.set(slot, w);
        alias.push(slot);
        producer.push(-1);
      } else if (node.op === 'Placeholder') {
        const dims = shapeFromProto(node.attr?.shape?.shape);
        const dtype = node.attr?.dtype?.type ? dtypeFromTf(node.attr.dtype.type) : undefined;
        feeds.set(node.name, { slot, name: node.name, shape: node.attr?.shape ? dims : null, dtype: dtype && tfjsDtype(dtype) });
        alias.push(slot);
        producer.push(-1);
      } else {
        const ins: number[] = [];
        for (const input of node.input ?? []) {
          if (input.startsWith('^')) continue; // control edges: order is already topological
          const s = inputSlot(input, slots);
          if (s === null) return null;
          ins.push(alias[s]);
        }
        if (node.op === 'Identity' || node.op === 'StopGradient') {
          if (ins.length !== 1) return null;
          alias.push(ins[0]);
          producer.push(-1);
        } else {
          // An op tfgate implements itself (ops/index.ts) runs its own kernel, never the TF.js op here.
          const factory = embeddedOp(node.op) ? undefined : KERNELS[node.op];
          const kernel = factory?.(node, (i) => valueOf.get(ins[i]));
          if (!kernel) return null;
          steps.push({ kernel, slot, inputs: ins, release: [] });
          alias.push(slot);
          producer.push(steps.length - 1);
        }
      }
      slots.set(node.name, slot);
    }
    const outputSlots = new Map<string, number>();
    for (const name of outputs) {
      const s = inputSlot(name, slots);
      if (s === null) return null;
      outputSlots.set(name, alias[s]);
    }
    // Release each computed slot after its last reader, unless it is an output.
    const lastReader = new Map<number, number>();
    steps.forEach((step, i) => step.inputs.forEach((s) => producer[s] >= 0 && lastReader.set(s, i)));
    const kept = new Set(outputSlots.values());
    for (const [s, i] of lastReader) if (!kept.has(s)) steps[i].release.push(s);
    return new CompiledGraph(alias.length, constants, feeds, steps, Int32Array.from(producer), outputSlots);
  }

  /** Runs the graph; `feed` is keyed by placeholder name. The caller owns (and disposes) the results. */
  execute(feed: Record<string, tf.Tensor>, outputs: string[]): tf.Tensor[] {
    const values: Array<tf.Tensor | undefined> = new Array(this.slotCount);
    for (const [slot, w] of this.constants) values[slot] = w;
    for (const [name, t] of Object.entries(feed)) {
      const f = this.feeds.get(name);
      if (!f) throw new Error(`The dict provided in model.execute(dict) has keys: [${name}] that are not part of graph`);
      checkFeed(f, t);
      values[f.slot] = t;
    }
    return tf.tidy(() => {
      for (const step of this.steps) {
        const args = step.inputs.map((s) => values[s] as tf.Tensor);
        const out = step.kernel(args);
        values[step.slot] = out;
        for (const s of step.release) values[s]!.dispose();
      }
      // Outputs that are weights or feeds are returned as clones: the caller disposes results.
      return outputs.map((name) => {
        const s = this.outputSlots.get(name)!;
        const t = values[s];
        if (!t) throw new Error(`Cannot compute the outputs [${name}] from the provided inputs`);
        return this.producer[s] >= 0 ? t : tf.clone(t);
      });
    });
  }
}

/** The converter's own feed check and message, so both paths refuse the same feeds alike. */
function checkFeed(f: Feed, t: tf.Tensor): void {
  if (f.shape) {
    const shape = f.shape;
    const match = shape.length === t.shape.length && t.shape.every((d, i) => shape[i] === -1 || shape[i] === d);
    if (!match) throw new Error(`The shape of dict['${f.name}'] provided in model.execute(dict) must be [${shape}], but was [${t.shape}]`);
  }
  if (f.dtype && t.dtype !== f.dtype)
    throw new Error(`The dtype of dict['${f.name}'] provided in model.execute(dict) must be ${f.dtype}, but was ${t.dtype}`);
}
