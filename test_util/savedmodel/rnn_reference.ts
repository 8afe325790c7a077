// A plain-JS forward pass (float64) of the recurrent layers loop_model_zoo.ts writes, for
// tests to check the runtime against: no TF.js, no graph, just the cell's formula.
//   simple: h' = tanh(x·K + b + h·R)
//   GRU (Keras, reset_after): [xz xr xn] = x·K + b, [hz hr hn] = h·R,
//        z = σ(xz + hz), r = σ(xr + hr), n = tanh(xn + r ⊙ hn), h' = z ⊙ h + (1 − z) ⊙ n
import { rnnGates, type RnnDescription } from './loop_model_zoo.js';

const sigmoid = (v: number) => 1 / (1 + Math.exp(-v));

/** Row `row` of `x` [rows, inner] times `w` [inner, cols]. */
function rowTimes(x: ArrayLike<number>, row: number, inner: number, w: Float32Array, cols: number): Float64Array {
  const out = new Float64Array(cols);
  for (let k = 0; k < inner; k++) {
    const a = x[row * inner + k];
    for (let c = 0; c < cols; c++) out[c] += a * w[k * cols + c];
  }
  return out;
}

/**
 * `x` is [batch, time, features] row-major; returns the sequence [batch, time, units] and the
 * last state [batch, units], starting from a zero state.
 */
export function rnnForward(
  d: RnnDescription,
  x: ArrayLike<number>,
  batch: number,
  time: number,
): { sequence: Float64Array; last: Float64Array } {
  const u = d.units;
  const width = rnnGates(d.cell) * u;
  const sequence = new Float64Array(batch * time * u);
  const last = new Float64Array(batch * u);
  for (let b = 0; b < batch; b++) {
    let h = new Float64Array(u);
    for (let t = 0; t < time; t++) {
      const xw = rowTimes(x, b * time + t, d.features, d.kernel, width).map((v, c) => v + d.bias[c]);
      const hu = rowTimes(h, 0, u, d.recurrentKernel, width);
      const next = new Float64Array(u);
      for (let j = 0; j < u; j++) {
        if (d.cell === 'simple') {
          next[j] = Math.tanh(xw[j] + hu[j]);
        } else {
          const z = sigmoid(xw[j] + hu[j]);
          const r = sigmoid(xw[u + j] + hu[u + j]);
          const n = Math.tanh(xw[2 * u + j] + r * hu[2 * u + j]);
          next[j] = z * h[j] + (1 - z) * n;
        }
      }
      h = next;
      sequence.set(h, (b * time + t) * u);
    }
    last.set(h, b * u);
  }
  return { sequence, last };
}
