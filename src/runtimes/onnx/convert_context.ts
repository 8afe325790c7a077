// What an op converter sees and uses: the TF node, its data inputs with what is known of them
// (dtype, static shape, constant value), and the ONNX graph to emit into. An op converter is
// a pure function of these; it returns one value per TF output, with dtype and shape, so the
// next converters know ranks (StridedSlice masks, axis signs and NHWC transposes need them).
import type { DType } from '../../tensor/dtype.js';
import { dtypeFromTf } from '../../tensor/dtype.js';
import type { HostTensor } from '../../tensor/host_tensor.js';
import type { AttrValue, NodeDef } from '../../savedmodel/graph/types.js';
import { attrString } from '../../savedmodel/graph/types.js';
import type { Code } from '../../errors/status.js';
import type { AttrInit, OnnxGraph } from './onnx_graph.js';
import { knownElements } from './known_elements.js';
import type { TfValue } from './tf_value.js';

export type { TfValue };

/** An op (or a use of it) the converter cannot express exactly: the signature stays off ONNX. */
export class UnsupportedOp extends Error {
  constructor(readonly reason: string) {
    super(reason);
  }
}

export type OpConverter = (ctx: OpContext) => TfValue[];

const INT64_MAX = 9223372036854775807n;

export class OpContext {
  constructor(
    readonly node: NodeDef,
    readonly inputs: TfValue[],
    readonly graph: OnnxGraph,
  ) {}

  get op(): string {
    return this.node.op;
  }

  attr(name: string): AttrValue | undefined {
    return this.node.attr?.[name];
  }

  attrInt(name: string, dflt?: number): number {
    const a = this.attr(name);
    if (a?.i !== undefined) return Number(a.i);
    if (dflt === undefined) this.fail(`attr ${name} missing`);
    return dflt;
  }

  attrFloat(name: string, dflt: number): number {
    return this.attr(name)?.f ?? dflt;
  }

  attrBool(name: string, dflt = false): boolean {
    return this.attr(name)?.b ?? dflt;
  }

  attrString(name: string, dflt = ''): string {
    const a = this.attr(name);
    return a?.s ? attrString(a) : dflt;
  }

  attrInts(name: string): number[] {
    return (this.attr(name)?.list?.i ?? []).map(Number);
  }

  attrType(name: string): DType {
    const t = this.attr(name)?.type;
    const d = t ? dtypeFromTf(t) : undefined;
    if (!d) this.fail(`attr ${name} has type ${t ?? 'none'}, which tfgate cannot hold`);
    return d;
  }

  /** Refuses this node: the signature will not run on ONNX Runtime. */
  fail(why: string): never {
    throw new UnsupportedOp(why);
  }

  input(i: number): TfValue {
    const v = this.inputs[i];
    if (!v) this.fail(`input ${i} missing`);
    if (v.unavailable) this.fail(v.unavailable);
    return v;
  }

  /** Rank of input i; refuses when it is not known at conversion. */
  rank(i: number): number {
    const s = this.input(i).shape;
    if (!s) this.fail(`the rank of input ${i} is not known before run time`);
    return s.length;
  }

  /** The constant value of input i; refuses when it is computed at run time. */
  constant(i: number, what = `input ${i}`): HostTensor {
    const v = this.input(i).value;
    if (!v) this.fail(`${what} is computed at run time (tfgate needs it constant)`);
    return v;
  }

  /** Elements of input i known before run time (constants, propagated shapes); null if none are. */
  known(i: number): Array<number | null> | null {
    return knownElements(this.input(i));
  }

  /** Constant integer input as numbers (int32 or int64). */
  constInts(i: number, what?: string): number[] {
    const v = this.constant(i, what);
    if (v.dtype === 'int64' || v.dtype === 'uint64') return Array.from(v.values as BigInt64Array, Number);
    if (v.dtype !== 'int32' && v.dtype !== 'int16' && v.dtype !== 'int8' && v.dtype !== 'uint8')
      this.fail(`${what ?? `input ${i}`} has dtype ${v.dtype}, not an integer`);
    return Array.from(v.values as Int32Array);
  }

  /** ONNX value name of input i (a constant becomes an initializer on first use). */
  use(i: number): string {
    return this.materialize(this.input(i), `${this.node.name}/input${i}`);
  }

  materialize(v: TfValue, hint: string): string {
    if (v.name) return v.name;
    if (!v.value) throw new Error(`value without name or constant (${hint})`);
    v.name = this.graph.addInitializer(hint, v.value);
    return v.name;
  }

  /** A new constant initializer. */
  constTensor(t: HostTensor, hint = 'const'): string {
    return this.graph.addInitializer(`${this.node.name}/${hint}`, t);
  }

  int64s(values: readonly number[], hint = 'ints'): string {
    return this.constTensor(
      {
        dtype: 'int64',
        shape: [values.length],
        values: BigInt64Array.from(values, (x) => (Number.isFinite(x) ? BigInt(x) : x > 0 ? INT64_MAX : -INT64_MAX - 1n)),
      },
      hint,
    );
  }

  scalar(dtype: DType, value: number, hint = 'scalar'): string {
    return this.constTensor(scalarTensor(dtype, value), hint);
  }

  /** Input i as int64 (ONNX shape/axes/index inputs): a constant converts at conversion, else a Cast. */
  int64Input(i: number): string {
    const v = this.input(i);
    if (v.dtype === 'int64') return this.use(i);
    if (v.value) {
      const values = BigInt64Array.from(this.constInts(i), (x) => BigInt(x));
      return this.constTensor({ dtype: 'int64', shape: [...v.value.shape], values }, `input${i}_i64`);
    }
    return this.emit('Cast', [this.use(i)], { to: 7 }, 'i64');
  }

  /** Emits one node with one output; returns its value name. */
  emit(opType: string, inputs: string[], attrs: Record<string, AttrInit | undefined> = {}, hint = opType): string {
    const out = this.graph.unique(`${this.node.name}/${hint}`);
    this.graph.addNode(opType, inputs, [out], attrs);
    return out;
  }

  /** Emits one node with `count` outputs. */
  emitMany(opType: string, inputs: string[], count: number, attrs: Record<string, AttrInit | undefined> = {}, hint = opType): string[] {
    const outs = Array.from({ length: count }, (_, k) => this.graph.unique(`${this.node.name}/${hint}_${k}`));
    this.graph.addNode(opType, inputs, outs, attrs);
    return outs;
  }

  /**
   * Fails the run with `code` and `message(details)` when `check`, an int64 vector
   * [trip, …details] computed with the graph's outputs, has a non-zero trip: TF's own
   * run-time checks, and inputs this conversion cannot answer as TF does.
   */
  guard(check: string, code: Code, message: (details: bigint[]) => string): void {
    this.graph.guards.push({ value: check, code, message });
  }

  /** A result value. */
  out(name: string, dtype: DType, shape: number[] | null): TfValue {
    return { name, dtype, shape };
  }
}

function scalarTensor(dtype: DType, value: number): HostTensor {
  switch (dtype) {
    case 'float32':
      return { dtype, shape: [], values: Float32Array.of(value) };
    case 'float64':
      return { dtype, shape: [], values: Float64Array.of(value) };
    case 'int32':
      return { dtype, shape: [], values: Int32Array.of(value) };
    case 'int64':
      return { dtype, shape: [], values: BigInt64Array.of(BigInt(value)) };
    case 'bool':
      return { dtype, shape: [], values: Uint8Array.of(value ? 1 : 0) };
    default:
      throw new UnsupportedOp(`a scalar of dtype ${dtype}`);
  }
}

/** numpy broadcasting of two static shapes; null when either rank is unknown. */
export function broadcastShapes(a: number[] | null, b: number[] | null): number[] | null {
  if (!a || !b) return null;
  const rank = Math.max(a.length, b.length);
  const out: number[] = [];
  for (let i = 0; i < rank; i++) {
    const x = a[a.length - rank + i] ?? 1;
    const y = b[b.length - rank + i] ?? 1;
    if (x === 1) out.push(y);
    else if (y === 1) out.push(x);
    else if (x === -1) out.push(y);
    else out.push(x);
  }
  return out;
}

/** TF's negative axis → non-negative, checked against rank. */
export function normalizeAxis(ctx: OpContext, axis: number, rank: number): number {
  const a = axis < 0 ? axis + rank : axis;
  if (a < 0 || a >= rank) ctx.fail(`axis ${axis} is out of range for rank ${rank}`);
  return a;
}
