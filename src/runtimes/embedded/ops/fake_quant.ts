// TensorFlow's FakeQuantWithMinMaxArgs, FakeQuantWithMinMaxVars and
// FakeQuantWithMinMaxVarsPerChannel for TF.js, inference semantics. tfjs-converter maps
// FakeQuantWithMinMaxVars to Identity ("This op is currently ignored") and knows neither of
// the others, so a quantisation-aware-trained model would silently run unquantised.
//
// The arithmetic is TF's (core/kernels/fake_quant_ops_functor.h), in float32 as TF does it:
//   quant_min = narrow_range ? 1 : 0,  quant_max = 2^num_bits - 1
//   Nudge: scale = (max - min) / (quant_max - quant_min),  inv_scale = (quant_max - quant_min) / (max - min)
//          zero_point = clamp(round(quant_min - min / scale), quant_min, quant_max)   (round half away from 0)
//          nudged_min = (quant_min - zero_point) * scale,  nudged_max = (quant_max - zero_point) * scale
//   quant_zero = floor(-nudged_min * inv_scale + 0.5)
//   out = floor((clamp(x, nudged_min, nudged_max) - nudged_min) * inv_scale - quant_zero + 0.5) * scale
// (…Vars divides by scale instead of multiplying by inv_scale; …Vars and …PerChannel give 0
// where min = max = 0). Worked example: x = [-3, 0.1, 0.26, 1.7], min -1, max 1, 8 bits:
// scale = float32(2/255) = 0.00784313772 (rounded up), so -min/scale = 127.49999 in float32
// and the zero point is 127, not the 128 that float64 would give; nudged range
// [-0.996078, 1.003922]; out = [-0.996078, 0.101961, 0.258824, 1.003922]. Real TF agrees
// (tensorflow/model-optimization#858: [-1, 0, 1] → [-0.9960785, 0, 1.0039215]). Releases
// before the quant_zero form added nudged_min after scaling instead, which differs by at
// most a float32 rounding.
import * as tf from '@tensorflow/tfjs-core';
import type * as tfconv from '@tensorflow/tfjs-converter';
import { invalidArgument } from '../../../errors/status.js';
import type { NodeDef } from '../../../savedmodel/graph/types.js';

export const FAKE_QUANT_OPS = ['FakeQuantWithMinMaxArgs', 'FakeQuantWithMinMaxVars', 'FakeQuantWithMinMaxVarsPerChannel'] as const;
export type FakeQuantOp = (typeof FAKE_QUANT_OPS)[number];

export interface FakeQuantAttrs {
  numBits: number;
  narrowRange: boolean;
  /** FakeQuantWithMinMaxArgs only: the range as attributes. */
  min?: number;
  max?: number;
}

const f = Math.fround;

export interface Nudged {
  nudgedMin: number;
  nudgedMax: number;
  scale: number;
  invScale: number;
}

/** TF's Nudge in float32: the range moved so that real 0 falls on a quantized value. */
export function nudge(min: number, max: number, quantMin: number, quantMax: number): Nudged {
  const steps = quantMax - quantMin;
  const scale = f(f(max - min) / steps);
  const invScale = f(steps / f(max - min));
  const zeroPointFromMin = f(quantMin - f(min / scale));
  // std::round rounds halves away from 0; the value is >= quantMin >= 0 here, where Math.round agrees.
  const zeroPoint = zeroPointFromMin < quantMin ? quantMin : zeroPointFromMin > quantMax ? quantMax : Math.round(zeroPointFromMin);
  return { nudgedMin: f((quantMin - zeroPoint) * scale), nudgedMax: f((quantMax - zeroPoint) * scale), scale, invScale };
}

export function quantRange(attrs: FakeQuantAttrs): [number, number] {
  return [attrs.narrowRange ? 1 : 0, 2 ** attrs.numBits - 1];
}

/**
 * Fake-quantizes `x` with one range per element of `min`/`max` along the last dimension
 * (a single range when they have one element and `perChannel` is false).
 */
function fakeQuantize(x: tf.Tensor, min: ArrayLike<number>, max: ArrayLike<number>, attrs: FakeQuantAttrs, form: { perChannel: boolean; divide: boolean }): tf.Tensor {
  const [quantMin, quantMax] = quantRange(attrs);
  const d = min.length;
  const p = { nudgedMin: new Float32Array(d), nudgedMax: new Float32Array(d), scale: new Float32Array(d), invScale: new Float32Array(d), quantZero: new Float32Array(d) };
  for (let i = 0; i < d; i++) {
    if (min[i] === 0 && max[i] === 0) continue; // every parameter 0: the output is 0
    const n = nudge(min[i], max[i], quantMin, quantMax);
    p.nudgedMin[i] = n.nudgedMin;
    p.nudgedMax[i] = n.nudgedMax;
    p.scale[i] = n.scale;
    p.invScale[i] = n.invScale;
    p.quantZero[i] = Math.floor(f(f(-n.nudgedMin * n.invScale) + 0.5));
  }
  return tf.tidy(() => {
    if (!form.perChannel && min[0] === 0 && max[0] === 0) return tf.zerosLike(x);
    const shape = form.perChannel ? [d] : [];
    const t = (v: Float32Array) => tf.tensor(form.perChannel ? v : v[0], shape, 'float32');
    const clamped = tf.maximum(tf.minimum(x, t(p.nudgedMax)), t(p.nudgedMin));
    const shifted = tf.sub(clamped, t(p.nudgedMin));
    const scaled = form.divide ? tf.div(shifted, t(p.scale)) : tf.mul(shifted, t(p.invScale));
    return tf.mul(tf.floor(tf.add(tf.sub(scaled, t(p.quantZero)), 0.5)), t(p.scale));
  });
}

/** Evaluates one of the three ops; `inputs` as the op takes them (x, then min and max for …Vars*). */
export function fakeQuantOp(op: FakeQuantOp, attrs: FakeQuantAttrs, inputs: tf.Tensor[]): tf.Tensor {
  const [x] = inputs;
  if (op === 'FakeQuantWithMinMaxArgs') return fakeQuantize(x, [attrs.min ?? -6], [attrs.max ?? 6], attrs, { perChannel: false, divide: false });
  const min = inputs[1].dataSync() as Float32Array;
  const max = inputs[2].dataSync() as Float32Array;
  if (op === 'FakeQuantWithMinMaxVars') {
    if (min.length !== 1 || max.length !== 1) throw invalidArgument(`FakeQuantWithMinMaxVars: min and max must be scalars, got shapes [${inputs[1].shape}] and [${inputs[2].shape}]`);
    return fakeQuantize(x, min, max, attrs, { perChannel: false, divide: true });
  }
  const depth = x.shape[x.rank - 1] ?? 1;
  if (min.length !== depth) throw invalidArgument(`min has incorrect size, expected ${depth} was ${min.length}`);
  if (max.length !== depth) throw invalidArgument(`max has incorrect size, expected ${depth} was ${max.length}`);
  return fakeQuantize(x, min, max, attrs, { perChannel: true, divide: false });
}

/** The attributes of a NodeDef (TF's defaults where absent). */
export function fakeQuantAttrsOf(node: NodeDef): FakeQuantAttrs {
  const a = node.attr ?? {};
  return { numBits: Number(a.num_bits?.i ?? 8), narrowRange: a.narrow_range?.b ?? false, min: a.min?.f ?? -6, max: a.max?.f ?? 6 };
}

/** Load-time check with TF's kernel-construction messages: null when the node can run. */
export function fakeQuantNodeProblem(node: NodeDef): string | null {
  const attrs = fakeQuantAttrsOf(node);
  if (!(attrs.numBits >= 2 && attrs.numBits <= 16)) return 'num_bits must be between 2 and 16, inclusive';
  if (node.op === 'FakeQuantWithMinMaxArgs' && !(attrs.min! < attrs.max!)) return `min has to be smaller than max, was: ${attrs.min} >= ${attrs.max}`;
  return null;
}

/** tfjs-converter executors for the three ops. */
export function fakeQuantExecutor(op: FakeQuantOp): tfconv.OpExecutor {
  return (node) => {
    const a = node.attrs as { num_bits?: number; narrow_range?: boolean; min?: number; max?: number };
    const attrs = { numBits: a.num_bits ?? 8, narrowRange: a.narrow_range ?? false, min: a.min ?? -6, max: a.max ?? 6 };
    return [fakeQuantOp(op, attrs, node.inputs)];
  };
}
