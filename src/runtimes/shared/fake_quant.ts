// TensorFlow's fake quantisation parameters (FakeQuantWithMinMaxArgs / …Vars / …VarsPerChannel),
// computed once for both engines: the embedded runtime's kernel (embedded/ops/…/fake_quant.ts)
// and the ONNX converter (onnx/ops/fake_quant.ts) both use this nudging.
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
