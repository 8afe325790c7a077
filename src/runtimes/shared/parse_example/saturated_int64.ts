// int64 features beyond 32 bits on the embedded runtime, where TF.js holds integers as int32.
// A parsed int64 value (a census tract of 17031832200) may reach TF.js saturated to INT32_MIN or
// INT32_MAX only where the graph proves that no result can tell: the value is only moved
// (reshaped, gathered, densified), compared with constants strictly inside int32 (a saturated
// value compares with them as the true one does), and replaced by a Select whose condition is
// true wherever it could be saturated — the range guard of Estimator and Keras categorical
// columns: where(values < 0 or values >= num_buckets, default, values). Anything else that reads
// such a value (arithmetic, a cast, a hash, a string conversion, a signature output, a function
// call) keeps the request refused naming the feature, as before.
import { hostTensorFromProto } from '../../../savedmodel/tensor_proto.js';
import { parseTensorName } from '../../../savedmodel/graph/graph_flattener.js';
import type { NodeDef } from '../../../savedmodel/graph/types.js';

/** The parsing node's attr listing the outputs (indices) that may be saturated to int32 (no `_`: those are dropped before TF.js). */
export const SATURATED_OUTPUTS_ATTR = 'tfgate_saturated_int64_outputs';

const INT32_MIN = -(2n ** 31n);
const INT32_MAX = 2n ** 31n - 1n;

/** Ops that move values (input 0, or every data input for the concatenations) without reading them. */
const MOVES_INPUT: Readonly<Record<string, (position: number, node: NodeDef) => boolean>> = {
  Identity: (p) => p === 0,
  Snapshot: (p) => p === 0,
  Squeeze: (p) => p === 0,
  Reshape: (p) => p === 0,
  ExpandDims: (p) => p === 0,
  StridedSlice: (p) => p === 0,
  Slice: (p) => p === 0,
  GatherV2: (p) => p === 0,
  GatherNd: (p) => p === 0,
  Transpose: (p) => p === 0,
  Tile: (p) => p === 0,
  Pack: () => true,
  ConcatV2: (p, n) => p < dataInputs(n).length - 1,
  // SparseToDense(indices, output_shape, sparse_values, default_value).
  SparseToDense: (p) => p === 2 || p === 3,
};

/** Ops whose outputs depend only on the shape of their input. */
const READS_SHAPE_ONLY = new Set(['Shape', 'ShapeN', 'Size', 'Rank', 'ZerosLike', 'OnesLike']);

/** Comparisons: which saturated side (below INT32_MIN, above INT32_MAX) makes `x op c` true. */
const COMPARISONS: Readonly<Record<string, { low: boolean; high: boolean }>> = {
  Less: { low: true, high: false },
  LessEqual: { low: true, high: false },
  Greater: { low: false, high: true },
  GreaterEqual: { low: false, high: true },
  Equal: { low: false, high: false },
  NotEqual: { low: true, high: true },
};
/** The same comparison with its operands swapped (`c op x`). */
const MIRRORED: Readonly<Record<string, string>> = {
  Less: 'Greater',
  LessEqual: 'GreaterEqual',
  Greater: 'Less',
  GreaterEqual: 'LessEqual',
  Equal: 'Equal',
  NotEqual: 'NotEqual',
};

const dataInputs = (n: NodeDef) => (n.input ?? []).filter((i) => !i.startsWith('^'));
const canonical = (ref: string) => {
  const [name, index] = parseTensorName(ref);
  return `${name}:${index}`;
};

/** Where a bool tensor is known true: wherever tensor `x` holds a value below (low) or above (high) int32. */
interface Cover {
  x: string;
  low: boolean;
  high: boolean;
}

class SaturationCheck {
  private readonly byName: Map<string, NodeDef>;
  private readonly consumers = new Map<string, Array<{ node: NodeDef; position: number }>>();
  private readonly outputs: Set<string>;

  constructor(nodes: readonly NodeDef[], outputs: readonly string[]) {
    this.byName = new Map(nodes.map((n) => [n.name, n]));
    for (const node of nodes) {
      dataInputs(node).forEach((ref, position) => {
        const key = canonical(ref);
        let list = this.consumers.get(key);
        if (!list) this.consumers.set(key, (list = []));
        list.push({ node, position });
      });
    }
    this.outputs = new Set(outputs.map(canonical));
  }

  /** The tensor an Identity chain forwards. */
  private source(ref: string): string {
    let key = canonical(ref);
    for (;;) {
      const [name, index] = parseTensorName(key);
      const node = this.byName.get(name);
      if (index !== 0 || (node?.op !== 'Identity' && node?.op !== 'Snapshot')) return key;
      key = canonical(dataInputs(node)[0]);
    }
  }

  /**
   * An integer constant's values, if every one lies strictly inside int32 (so no saturated value
   * equals one). A Cast of an integer constant counts: between integer types a value inside
   * int32 casts to itself.
   */
  private innerConstant(ref: string): boolean {
    let [name, index] = parseTensorName(this.source(ref));
    let node = this.byName.get(name);
    if (node?.op === 'Cast' && index === 0) {
      [name, index] = parseTensorName(this.source(dataInputs(node)[0]));
      node = this.byName.get(name);
    }
    if (node?.op !== 'Const' || index !== 0) return false;
    const t = hostTensorFromProto(node.attr?.value?.tensor ?? {}, `constant ${node.name}`);
    if (t.dtype !== 'int64' && t.dtype !== 'int32') return false;
    if (t.values.length !== 1) return false; // a scalar: the comparison keeps x's shape, element for element
    const v = BigInt(t.values[0] as number | bigint);
    return v > INT32_MIN && v < INT32_MAX;
  }

  /** Where the bool tensor `ref` is known true from a comparison (or an or of them) on one tensor. */
  private cover(ref: string): Cover | undefined {
    const [name, index] = parseTensorName(this.source(ref));
    const node = this.byName.get(name);
    if (!node || index !== 0) return undefined;
    const [a, b] = dataInputs(node);
    if (node.op === 'LogicalOr') {
      const ca = this.cover(a);
      const cb = this.cover(b);
      if (!ca || !cb || ca.x !== cb.x) return ca ?? cb;
      return { x: ca.x, low: ca.low || cb.low, high: ca.high || cb.high };
    }
    if (!COMPARISONS[node.op]) return undefined;
    if (this.innerConstant(b)) return { x: this.source(a), ...COMPARISONS[node.op] };
    if (this.innerConstant(a)) return { x: this.source(b), ...COMPARISONS[MIRRORED[node.op]] };
    return undefined;
  }

  /** Null when every reader of tensor `start` (and of what it moves into) is safe with it saturated, else why not. */
  problem(start: string): string | null {
    const seen = new Set<string>();
    const stack = [canonical(start)];
    while (stack.length) {
      const ref = stack.pop()!;
      if (seen.has(ref)) continue;
      seen.add(ref);
      if (this.outputs.has(ref)) return `it is a signature output (${ref})`;
      for (const { node, position } of this.consumers.get(ref) ?? []) {
        const why = this.step(node, position, ref, stack);
        if (why) return why;
      }
    }
    return null;
  }

  /** One reader of a possibly saturated tensor: pushes the outputs that carry it on; why not, if unsafe. */
  private step(node: NodeDef, position: number, ref: string, stack: string[]): string | null {
    const op = node.op;
    const unsafe = () => `${op} (node ${node.name}) reads it`;
    if (READS_SHAPE_ONLY.has(op)) return null;
    if (MOVES_INPUT[op]) {
      if (!MOVES_INPUT[op](position, node)) return unsafe();
      stack.push(`${node.name}:0`);
      return null;
    }
    if (op === 'Cast') return node.attr?.DstT?.type === 'DT_INT64' ? (stack.push(`${node.name}:0`), null) : unsafe();
    if (COMPARISONS[op]) {
      const other = dataInputs(node)[position === 0 ? 1 : 0];
      return this.innerConstant(other) ? null : `${op} (node ${node.name}) compares it with something other than a constant inside int32`;
    }
    if (op === 'Select' || op === 'SelectV2') {
      if (position === 0) return unsafe();
      const [cond, then] = dataInputs(node);
      // The else branch is replaced wherever the value could be saturated, and the then branch is exact.
      const c = position === 2 ? this.cover(cond) : undefined;
      const guarded = c !== undefined && c.low && c.high && c.x === this.source(ref) && !this.carries(then);
      if (!guarded) stack.push(`${node.name}:0`);
      return null;
    }
    return unsafe();
  }

  /**
   * Whether the tensor's values may come from a parsed value (following values, not shapes:
   * Fill's value, a Select's branches, what an op moves; any input of any other op).
   */
  private carries(ref: string, seen = new Set<string>()): boolean {
    const key = canonical(ref);
    if (seen.has(key)) return false;
    seen.add(key);
    const node = this.byName.get(parseTensorName(key)[0]);
    if (!node || node.op === 'Const' || READS_SHAPE_ONLY.has(node.op) || COMPARISONS[node.op] || node.op.startsWith('Logical'))
      return false;
    if (node.op === 'ParseExample' || node.op === 'ParseExampleV2') return true;
    const inputs = dataInputs(node);
    const moving = MOVES_INPUT[node.op];
    const flows = (i: number) =>
      moving ? moving(i, node) : node.op === 'Fill' ? i === 1 : node.op === 'Select' || node.op === 'SelectV2' ? i > 0 : true;
    return inputs.some((i, position) => flows(position) && this.carries(i, seen));
  }
}

const typesOf = (node: NodeDef, attr: string) => node.attr?.[attr]?.list?.type ?? [];

/** The parsing node's int64 value outputs: sparse values [s, 2s) and dense outputs from 3s on. */
function int64ValueOutputs(node: NodeDef): Array<{ index: number; feature: string }> {
  const sparse = typesOf(node, 'sparse_types');
  const dense = typesOf(node, 'Tdense');
  const s = sparse.length;
  const out: Array<{ index: number; feature: string }> = [];
  sparse.forEach((t, i) => t === 'DT_INT64' && out.push({ index: s + i, feature: `sparse ${i}` }));
  dense.forEach((t, i) => t === 'DT_INT64' && out.push({ index: 3 * s + i, feature: `dense ${i}` }));
  return out;
}

/**
 * The nodes with each parsing node told (SATURATED_OUTPUTS_ATTR) which int64 outputs may reach
 * TF.js saturated; the others keep refusing a value beyond int32. `outputs`: the graph's outputs.
 */
export function markSaturatedInt64(nodes: NodeDef[], outputs: readonly string[]): NodeDef[] {
  if (!nodes.some((n) => n.op === 'ParseExample' || n.op === 'ParseExampleV2')) return nodes;
  const check = new SaturationCheck(nodes, outputs);
  return nodes.map((node) => {
    if (node.op !== 'ParseExample' && node.op !== 'ParseExampleV2') return node;
    // Only this check may set the attr: a model that carries one of its own loses it.
    const { [SATURATED_OUTPUTS_ATTR]: _carried, ...attr } = node.attr ?? {};
    const safe = int64ValueOutputs(node).filter((o) => check.problem(`${node.name}:${o.index}`) === null);
    if (safe.length) attr[SATURATED_OUTPUTS_ATTR] = { list: { i: safe.map((o) => o.index) } };
    return { ...node, attr };
  });
}
