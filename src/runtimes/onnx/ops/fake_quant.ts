// FakeQuantWithMinMaxArgs / …Vars / …VarsPerChannel (quantisation-aware-trained models) as
// element-wise ONNX ops with TF's float32 nudging (core/kernels/fake_quant_ops_functor.h; the
// parameters are computed as the embedded runtime computes them: shared/fake_quant.ts, with
// the worked example). ONNX's QuantizeLinear/DequantizeLinear
// round differently (half to even, no nudged range), so they are not used. The range must be
// constant (it is in every exported QAT graph); ONNX Runtime folds the ops away where x is a
// constant too (quantized weights).
import type { OpConverter } from '../convert_context.js';
import { nudge, quantRange, type FakeQuantAttrs } from '../../shared/fake_quant.js';

const f = Math.fround;

function fakeQuant(kind: 'args' | 'vars' | 'perChannel'): OpConverter {
  return (ctx) => {
    const x = ctx.input(0);
    if (x.dtype !== 'float32') ctx.fail(`${ctx.op} on ${x.dtype}`);
    const attrs: FakeQuantAttrs = { numBits: ctx.attrInt('num_bits', 8), narrowRange: ctx.attrBool('narrow_range') };
    if (!(attrs.numBits >= 2 && attrs.numBits <= 16)) ctx.fail('num_bits must be between 2 and 16, inclusive');
    let min: number[];
    let max: number[];
    if (kind === 'args') {
      min = [ctx.attrFloat('min', -6)];
      max = [ctx.attrFloat('max', 6)];
      if (!(min[0] < max[0])) ctx.fail(`min has to be smaller than max, was: ${min[0]} >= ${max[0]}`);
    } else {
      min = Array.from(ctx.constant(1, 'min').values as Float32Array);
      max = Array.from(ctx.constant(2, 'max').values as Float32Array);
      const depth = kind === 'perChannel' ? x.shape?.at(-1) : 1;
      if (depth === undefined || depth < 0) ctx.fail('the channel count is known only at run time');
      if (min.length !== depth || max.length !== depth) ctx.fail(`min/max of ${min.length}/${max.length} values for ${depth} channels`);
    }
    const [quantMin, quantMax] = quantRange(attrs);
    const n = min.length;
    const p = {
      nudgedMin: new Float32Array(n),
      nudgedMax: new Float32Array(n),
      scale: new Float32Array(n),
      invScale: new Float32Array(n),
      quantZero: new Float32Array(n),
    };
    for (let i = 0; i < n; i++) {
      // Every parameter 0 (min = max = 0) makes the output 0.
      if (min[i] === 0 && max[i] === 0) continue;
      const r = nudge(min[i], max[i], quantMin, quantMax);
      p.nudgedMin[i] = r.nudgedMin;
      p.nudgedMax[i] = r.nudgedMax;
      p.scale[i] = r.scale;
      p.invScale[i] = r.invScale;
      p.quantZero[i] = Math.floor(f(f(-r.nudgedMin * r.invScale) + 0.5));
    }
    if (kind === 'vars' && min[0] === 0 && max[0] === 0) {
      const zeros = ctx.emit('ConstantOfShape', [ctx.emit('Shape', [ctx.use(0)])], {
        value: { tensor: { dtype: 'float32', shape: [1], values: Float32Array.of(0) } },
      });
      return [ctx.out(zeros, 'float32', x.shape)];
    }
    const param = (v: Float32Array, hint: string) =>
      ctx.constTensor(
        kind === 'perChannel'
          ? { dtype: 'float32', shape: [n], values: v }
          : { dtype: 'float32', shape: [], values: Float32Array.of(v[0]) },
        hint,
      );
    const clamped = ctx.emit(
      'Max',
      [ctx.emit('Min', [ctx.use(0), param(p.nudgedMax, 'nudged_max')], {}, 'clamp_max'), param(p.nudgedMin, 'nudged_min')],
      {},
      'clamped',
    );
    const shifted = ctx.emit('Sub', [clamped, param(p.nudgedMin, 'nudged_min_')], {}, 'shifted');
    // …Vars divides by the scale, …Args and …PerChannel multiply by its inverse (as TF does).
    const scaled =
      kind === 'vars'
        ? ctx.emit('Div', [shifted, param(p.scale, 'scale_div')], {}, 'scaled')
        : ctx.emit('Mul', [shifted, param(p.invScale, 'inv_scale')], {}, 'scaled');
    const rounded = ctx.emit(
      'Floor',
      [
        ctx.emit(
          'Add',
          [ctx.emit('Sub', [scaled, param(p.quantZero, 'quant_zero')], {}, 'centred'), ctx.scalar('float32', 0.5, 'half')],
          {},
          'plus_half',
        ),
      ],
      {},
      'rounded',
    );
    return [ctx.out(ctx.emit('Mul', [rounded, param(p.scale, 'scale')], {}, 'fake_quant'), 'float32', x.shape)];
  };
}

export const FAKE_QUANT_OPS: Record<string, OpConverter> = {
  FakeQuantWithMinMaxArgs: fakeQuant('args'),
  FakeQuantWithMinMaxVars: fakeQuant('vars'),
  FakeQuantWithMinMaxVarsPerChannel: fakeQuant('perChannel'),
};
