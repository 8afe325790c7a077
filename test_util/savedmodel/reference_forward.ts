// Plain-JS forward passes (no TF.js) of the model zoo's models, in float64: the independent
// reference runtime tests compare against. Semantics follow TF's kernels: row-major
// NHWC tensors, HWIO filters, SAME padding with the extra row/column at the bottom/right,
// MaxPool 2×2 stride 2 VALID, numerically stable softmax over the last axis.
import type { ConvDescription, DenseLayer, MlpDescription } from './model_zoo.js';

function activate(v: Float64Array, cols: number, fn: DenseLayer['activation']): void {
  if (fn === 'softmax') {
    for (let r = 0; r < v.length / cols; r++) {
      let max = -Infinity;
      for (let c = 0; c < cols; c++) max = Math.max(max, v[r * cols + c]);
      let sum = 0;
      for (let c = 0; c < cols; c++) sum += v[r * cols + c] = Math.exp(v[r * cols + c] - max);
      for (let c = 0; c < cols; c++) v[r * cols + c] /= sum;
    }
    return;
  }
  for (let i = 0; i < v.length; i++) {
    const x = v[i];
    v[i] = fn === 'relu' ? Math.max(0, x) : fn === 'tanh' ? Math.tanh(x) : fn === 'sigmoid' ? 1 / (1 + Math.exp(-x)) : x;
  }
}

/** x [rows, in] · kernel [in, out] + bias, then the layer's activation. */
function denseForward(x: ArrayLike<number>, rows: number, layer: DenseLayer): Float64Array {
  const [inDim, outDim] = layer.kernelShape;
  if (x.length !== rows * inDim) throw new RangeError(`dense input has ${x.length} values, expected ${rows}×${inDim}`);
  const out = new Float64Array(rows * outDim);
  for (let r = 0; r < rows; r++) {
    for (let o = 0; o < outDim; o++) {
      let s = layer.bias[o];
      for (let i = 0; i < inDim; i++) s += x[r * inDim + i] * layer.kernel[i * outDim + o];
      out[r * outDim + o] = s;
    }
  }
  activate(out, outDim, layer.activation);
  return out;
}

/** y for a batch of `rows` inputs (row-major [rows, inputDim]). */
export function mlpForward(model: MlpDescription, x: ArrayLike<number>, rows: number): Float64Array {
  let h: ArrayLike<number> = x;
  for (const layer of model.layers) h = denseForward(h, rows, layer);
  return Float64Array.from(h);
}

/** Class probabilities for a batch of NHWC images. */
export function convForward(model: ConvDescription, x: ArrayLike<number>, batch: number): Float64Array {
  let [H, W, C] = model.inputShape;
  if (x.length !== batch * H * W * C) throw new RangeError(`conv input has ${x.length} values, expected ${batch}×${H}×${W}×${C}`);
  let act: ArrayLike<number> = x;
  for (const layer of model.convs) {
    const [kh, kw, cin, F] = layer.kernelShape;
    if (cin !== C) throw new RangeError(`conv layer expects ${cin} input channels, has ${C}`);
    const same = layer.padding === 'SAME';
    const OH = same ? H : H - kh + 1;
    const OW = same ? W : W - kw + 1;
    // TF's SAME padding (stride 1): pad_total = k - 1, pad_before = floor(pad_total / 2).
    const padTop = same ? Math.floor((kh - 1) / 2) : 0;
    const padLeft = same ? Math.floor((kw - 1) / 2) : 0;
    const conv = new Float64Array(batch * OH * OW * F);
    for (let b = 0; b < batch; b++)
      for (let oy = 0; oy < OH; oy++)
        for (let ox = 0; ox < OW; ox++)
          for (let f = 0; f < F; f++) {
            let s = layer.bias[f];
            for (let ky = 0; ky < kh; ky++) {
              const iy = oy + ky - padTop;
              if (iy < 0 || iy >= H) continue;
              for (let kx = 0; kx < kw; kx++) {
                const ix = ox + kx - padLeft;
                if (ix < 0 || ix >= W) continue;
                for (let c = 0; c < C; c++) s += act[((b * H + iy) * W + ix) * C + c] * layer.kernel[((ky * kw + kx) * C + c) * F + f];
              }
            }
            conv[((b * OH + oy) * OW + ox) * F + f] = Math.max(0, s); // BiasAdd + Relu
          }
    const PH = Math.floor(OH / 2);
    const PW = Math.floor(OW / 2);
    const pooled = new Float64Array(batch * PH * PW * F);
    for (let b = 0; b < batch; b++)
      for (let py = 0; py < PH; py++)
        for (let px = 0; px < PW; px++)
          for (let f = 0; f < F; f++) {
            let m = -Infinity;
            for (let dy = 0; dy < 2; dy++)
              for (let dx = 0; dx < 2; dx++) m = Math.max(m, conv[((b * OH + py * 2 + dy) * OW + px * 2 + dx) * F + f]);
            pooled[((b * PH + py) * PW + px) * F + f] = m;
          }
    [H, W, C] = [PH, PW, F];
    act = pooled;
  }
  return denseForward(act, batch, model.dense);
}
