// A signature's RunCost (../run_cost.ts) from the shapes the converter propagated: the graph
// is walked in its dependency order, each node's outputs become live when it runs and die
// after their last consumer, and the peak of what is live at once is kept, as a fixed part
// (fully known shapes) and a part per batch row (shapes known but for a leading -1). ONNX
// Runtime plans its memory from the same lifetimes: the RSS it took during a run measured
// 0.96–1.09× this estimate on keras3_mnist_conv and keras2_traffic_sign_cnn (500–8 000 rows),
// 0.52–0.96× on a three-stage conv net, where it reuses more (npm run bench:run-cost). Feeds
// count too. A value whose shape is not known past its first dim counts as its largest input
// (elementwise ops, reshapes): a rough guess that keeps the estimate defined.
import type { NodeDef } from '../../savedmodel/graph/types.js';
import { parseTensorName } from '../../savedmodel/graph/graph_flattener.js';
import { bytesPerElement } from '../../tensor/dtype.js';
import type { RunCost } from '../run_cost.js';
import type { TfValue } from './tf_value.js';

interface Size {
  fixed: number;
  row: number;
}

const NONE: Size = { fixed: 0, row: 0 };
const larger = (a: Size, b: Size) => (b.row > a.row || (b.row === a.row && b.fixed > a.fixed) ? b : a);

function sizeOf(v: TfValue, guess: Size): Size {
  // A constant's bytes belong to the loaded model, not to a run.
  if (v.value) return NONE;
  if (!v.shape) return guess;
  let bytes = bytesPerElement(v.dtype);
  let perRow = false;
  for (let i = 0; i < v.shape.length; i++) {
    const d = v.shape[i];
    if (d >= 0) bytes *= d;
    else if (i === 0) perRow = true;
    else return guess;
  }
  return perRow ? { fixed: 0, row: bytes } : { fixed: bytes, row: 0 };
}

const tensorKey = (ref: string) => {
  const [name, index] = parseTensorName(ref);
  return `${name}:${index}`;
};

/**
 * Peak live bytes and output bytes of a run of `nodes` (dependency order), whose outputs'
 * dtypes and shapes are in `values` ('node:i' → value), fetching `fetch`.
 */
export function estimateRunCost(nodes: readonly NodeDef[], values: ReadonlyMap<string, TfValue>, fetch: readonly string[]): RunCost {
  const uses = new Map<string, number>();
  const inputsOf = new Map<NodeDef, string[]>();
  for (const node of nodes) {
    const refs = (node.input ?? []).filter((i) => !i.startsWith('^')).map(tensorKey);
    inputsOf.set(node, refs);
    for (const k of refs) uses.set(k, (uses.get(k) ?? 0) + 1);
  }
  const fetched = new Set(fetch.map(tensorKey));
  const live = new Map<string, Size>();
  let fixed = 0;
  let row = 0;
  let peakFixed = 0;
  let peakRow = 0;
  const release = (key: string) => {
    const s = live.get(key);
    if (!s || fetched.has(key) || (uses.get(key) ?? 0) > 0) return;
    fixed -= s.fixed;
    row -= s.row;
    live.delete(key);
  };
  for (const node of nodes) {
    const refs = inputsOf.get(node)!;
    let guess = NONE;
    for (const k of refs) guess = larger(guess, live.get(k) ?? NONE);
    const made: string[] = [];
    for (let i = 0; ; i++) {
      const key = `${node.name}:${i}`;
      const v = values.get(key);
      if (!v) break;
      const s = sizeOf(v, guess);
      live.set(key, s);
      made.push(key);
      fixed += s.fixed;
      row += s.row;
    }
    peakFixed = Math.max(peakFixed, fixed);
    peakRow = Math.max(peakRow, row);
    for (const k of refs) {
      uses.set(k, (uses.get(k) ?? 1) - 1);
      release(k);
    }
    // Outputs nobody reads die at once.
    for (const k of made) release(k);
  }
  let outputFixed = 0;
  let outputRow = 0;
  for (const k of fetched) {
    const s = live.get(k) ?? NONE;
    outputFixed += s.fixed;
    outputRow += s.row;
  }
  return { peakFixedBytes: peakFixed, peakBytesPerRow: peakRow, outputFixedBytes: outputFixed, outputBytesPerRow: outputRow };
}
