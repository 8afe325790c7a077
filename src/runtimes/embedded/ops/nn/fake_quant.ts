// TensorFlow's FakeQuantWithMinMaxArgs, FakeQuantWithMinMaxVars and
// FakeQuantWithMinMaxVarsPerChannel for TF.js, inference semantics. tfjs-converter maps
// FakeQuantWithMinMaxVars to Identity ("This op is currently ignored") and knows neither of
// the others, so a quantisation-aware-trained model would silently run unquantised. The
// arithmetic (TF's nudging, with a worked example) is in shared/fake_quant.ts.
import tf from '../../../tfjs_packages/tfjs_core.cjs';
import type * as tfconv from '@tensorflow/tfjs-converter';
import { invalidArgument } from '../../../../errors/status.js';
import type { NodeDef } from '../../../../savedmodel/graph/types.js';
import { nudge, quantRange, type FakeQuantAttrs } from '../../../shared/fake_quant.js';

export const FAKE_QUANT_OPS = ['FakeQuantWithMinMaxArgs', 'FakeQuantWithMinMaxVars', 'FakeQuantWithMinMaxVarsPerChannel'] as const;
export type FakeQuantOp = (typeof FAKE_QUANT_OPS)[number];

const f = Math.fround;

/**
 * Fake-quantizes `x` with one range per element of `min`/`max` along the last dimension
 * (a single range when they have one element and `perChannel` is false).
 */
function fakeQuantize(
  x: tf.Tensor,
  min: ArrayLike<number>,
  max: ArrayLike<number>,
  attrs: FakeQuantAttrs,
  form: { perChannel: boolean; divide: boolean },
): tf.Tensor {
  const [quantMin, quantMax] = quantRange(attrs);
  const d = min.length;
  const p = {
    nudgedMin: new Float32Array(d),
    nudgedMax: new Float32Array(d),
    scale: new Float32Array(d),
    invScale: new Float32Array(d),
    quantZero: new Float32Array(d),
  };
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
  if (op === 'FakeQuantWithMinMaxArgs')
    return fakeQuantize(x, [attrs.min ?? -6], [attrs.max ?? 6], attrs, { perChannel: false, divide: false });
  const min = inputs[1].dataSync() as Float32Array;
  const max = inputs[2].dataSync() as Float32Array;
  if (op === 'FakeQuantWithMinMaxVars') {
    if (min.length !== 1 || max.length !== 1)
      throw invalidArgument(
        `FakeQuantWithMinMaxVars: min and max must be scalars, got shapes [${inputs[1].shape}] and [${inputs[2].shape}]`,
      );
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
  if (node.op === 'FakeQuantWithMinMaxArgs' && !(attrs.min! < attrs.max!))
    return `min has to be smaller than max, was: ${attrs.min} >= ${attrs.max}`;
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
