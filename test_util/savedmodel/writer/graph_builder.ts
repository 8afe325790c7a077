// Builds a TF1-style GraphDef node by node, as TensorFlow's Python graph construction
// would: TF's name uniquing (`dense`, `dense_1`, … compared case-insensitively), the attrs
// each op's registration declares (see op_defs.ts; validated by validateGraph), variables
// as VariableV2 + `<var>/initial_value` + `<var>/Assign` + `<var>/read`, colocation
// (`_class: loc:@…`) where Python adds it. Node and attr objects are protobufjs-ready.
import { dtypeToTf, type DType } from '../../../src/tensor/dtype.js';
import { numElements, type HostTensor } from '../../../src/tensor/host_tensor.js';
import { OP_DEFS, type OpDefInit } from './op_defs.js';
import { makeTensorProto, shapeProto, zerosTensorProto } from './tensor_value.js';

/**
 * Variables up to this many elements keep their value as the initial value in the graph, as
 * `tf.Variable(value)` does; larger ones are initialized with zeros stored in one element,
 * so that saved_model.pb does not repeat the checkpoint (a SavedModel loader restores
 * variables from variables/ and never runs their initializers).
 */
const EMBED_INITIAL_VALUE_LIMIT = 1024;

export type AttrValueInit = Record<string, unknown>;

export interface NodeInit {
  name: string;
  op: string;
  input: string[];
  device?: string;
  attr: Record<string, AttrValueInit>;
}

const enc = new TextEncoder();
function tfType(d: DType | string): string {
  if (d.startsWith('DT_')) return d;
  const name = dtypeToTf(d as DType);
  // A type the table lacks would leave the attr without a value: TF refuses such a graph.
  if (!name) throw new Error(`no TF DataType for '${d}' (give DT_… names for types tfgate does not serve, e.g. DT_RESOURCE)`);
  return name;
}

/** AttrValue constructors. */
export const attr = {
  type: (d: DType | string): AttrValueInit => ({ type: tfType(d) }),
  s: (v: string | Uint8Array): AttrValueInit => ({ s: typeof v === 'string' ? enc.encode(v) : v }),
  i: (v: number): AttrValueInit => ({ i: v }),
  f: (v: number): AttrValueInit => ({ f: v }),
  b: (v: boolean): AttrValueInit => ({ b: v }),
  /** -1 for an unknown dimension, null for unknown rank. */
  shape: (dims: readonly number[] | null): AttrValueInit => ({ shape: shapeProto(dims) }),
  tensor: (t: HostTensor): AttrValueInit => ({ tensor: makeTensorProto(t) }),
  ints: (v: readonly number[]): AttrValueInit => ({ list: v.length ? { i: [...v] } : {} }),
  types: (v: ReadonlyArray<DType | string>): AttrValueInit => ({ list: v.length ? { type: v.map(tfType) } : {} }),
  strings: (v: readonly string[]): AttrValueInit => ({ list: v.length ? { s: v.map((x) => enc.encode(x)) } : {} }),
};

/** Output `index` of node `node`, with what the builder knows of its dtype and shape. */
export class Tensor {
  constructor(
    readonly node: string,
    readonly index: number,
    readonly dtype: DType,
    /** -1 for unknown dimensions; null for unknown rank. */
    readonly shape: number[] | null,
  ) {}

  /** The name TensorInfo and feeds use: `node:index`. */
  get name(): string {
    return `${this.node}:${this.index}`;
  }

  /** The form NodeDef.input uses: `node` for output 0, else `node:index`. */
  get ref(): string {
    return this.index === 0 ? this.node : `${this.node}:${this.index}`;
  }
}

export interface VariableRecord {
  /** VariableV2 node name; also the checkpoint key. */
  name: string;
  value: HostTensor;
  trainable: boolean;
  /** The VariableV2 output (a ref tensor). */
  variable: Tensor;
  initialValue: Tensor;
  /** `<var>/Assign`, the variable's initializer op. */
  initializer: string;
  /** `<var>/read`, what computations consume. */
  snapshot: Tensor;
}

export interface ConvOptions {
  strides?: [number, number];
  padding: 'SAME' | 'VALID';
  dilations?: [number, number];
}

export interface PoolOptions {
  ksize: [number, number];
  strides: [number, number];
  padding: 'SAME' | 'VALID';
}

const outDim = (size: number, k: number, stride: number, dilation: number, padding: 'SAME' | 'VALID') => {
  if (size < 0) return -1;
  const eff = (k - 1) * dilation + 1;
  return padding === 'SAME' ? Math.ceil(size / stride) : Math.max(0, Math.ceil((size - eff + 1) / stride));
};

export class GraphBuilder {
  readonly nodes: NodeInit[] = [];
  readonly variables: VariableRecord[] = [];
  private readonly namesInUse = new Map<string, number>();
  private readonly byName = new Map<string, NodeInit>();

  /** TF's Graph.unique_name: `name`, then `name_1`, `name_2` … (case-insensitive). */
  uniqueName(name: string): string {
    let key = name.toLowerCase();
    let i = this.namesInUse.get(key) ?? 0;
    this.namesInUse.set(key, i + 1);
    if (i > 0) {
      const base = key;
      while (this.namesInUse.has(key)) key = `${base}_${i++}`;
      this.namesInUse.set(key, 1);
      return `${name}_${i - 1}`;
    }
    return name;
  }

  node(name: string): NodeInit | undefined {
    return this.byName.get(name);
  }

  /**
   * Adds a node named `name` (uniquified); inputs are tensors or node names, control
   * inputs are node names. Returns the node name.
   */
  addNode(
    op: string,
    name: string,
    inputs: ReadonlyArray<Tensor | string>,
    attrs: Record<string, AttrValueInit> = {},
    options: { control?: readonly string[]; device?: string; colocateWith?: string } = {},
  ): string {
    const input = inputs.map((t) => (typeof t === 'string' ? t : t.ref));
    for (const c of options.control ?? []) input.push(`^${c}`);
    for (const ref of input) {
      const target = ref.replace(/^\^/, '').replace(/:\d+$/, '');
      if (!this.byName.has(target)) throw new Error(`node ${name} (${op}) has input ${ref}, which is not in the graph`);
    }
    const node: NodeInit = { name: this.uniqueName(name), op, input, attr: { ...attrs } };
    if (options.colocateWith) node.attr._class = attr.strings([`loc:@${options.colocateWith}`]);
    if (options.device) node.device = options.device;
    this.nodes.push(node);
    this.byName.set(node.name, node);
    return node.name;
  }

  constant(name: string, value: HostTensor, options: { device?: string } = {}): Tensor {
    const n = this.addNode('Const', name, [], { dtype: attr.type(value.dtype), value: attr.tensor(value) }, options);
    return new Tensor(n, 0, value.dtype, [...value.shape]);
  }

  /** `tf.compat.v1.placeholder(dtype, shape, name)`; -1 for unknown dims, null for unknown rank. */
  placeholder(name: string, dtype: DType, shape: number[] | null): Tensor {
    const n = this.addNode('Placeholder', name, [], { dtype: attr.type(dtype), shape: attr.shape(shape) });
    return new Tensor(n, 0, dtype, shape);
  }

  placeholderWithDefault(name: string, input: Tensor, shape: number[] | null): Tensor {
    const n = this.addNode('PlaceholderWithDefault', name, [input], { dtype: attr.type(input.dtype), shape: attr.shape(shape) });
    return new Tensor(n, 0, input.dtype, shape);
  }

  identity(name: string, x: Tensor, options: { control?: readonly string[]; colocateWith?: string } = {}): Tensor {
    const n = this.addNode('Identity', name, [x], { T: attr.type(x.dtype) }, options);
    return new Tensor(n, 0, x.dtype, x.shape);
  }

  /** `ref = value`; returns the Assign output (a ref to the variable). */
  assign(name: string, ref: Tensor, value: Tensor, colocateWith: string): Tensor {
    const n = this.addNode(
      'Assign',
      name,
      [ref, value],
      { T: attr.type(ref.dtype), validate_shape: attr.b(true), use_locking: attr.b(true) },
      { colocateWith },
    );
    return new Tensor(n, 0, ref.dtype, ref.shape);
  }

  /**
   * A TF1 `tf.Variable(initial_value, name=name)`: `<name>/initial_value` (Const), `<name>`
   * (VariableV2), `<name>/Assign`, `<name>/read`. Returns the `<name>/read` tensor. The
   * checkpoint holds `value`; the initial value is `value` too unless the variable is larger
   * than EMBED_INITIAL_VALUE_LIMIT (then zeros), or as `embedInitialValue` says.
   */
  variable(name: string, value: HostTensor, options: { trainable?: boolean; embedInitialValue?: boolean } = {}): Tensor {
    const scope = this.uniqueName(name);
    // The scope name is now taken; the VariableV2 node gets exactly that name.
    this.namesInUse.delete(scope.toLowerCase());
    const embed = options.embedInitialValue ?? numElements(value.shape) <= EMBED_INITIAL_VALUE_LIMIT;
    const initialValue = embed
      ? this.constant(`${scope}/initial_value`, value)
      : new Tensor(
          this.addNode('Const', `${scope}/initial_value`, [], {
            dtype: attr.type(value.dtype),
            value: { tensor: zerosTensorProto(value.dtype, value.shape) },
          }),
          0,
          value.dtype,
          [...value.shape],
        );
    const vName = this.addNode('VariableV2', scope, [], {
      shape: attr.shape(value.shape),
      dtype: attr.type(value.dtype),
      container: attr.s(''),
      shared_name: attr.s(''),
    });
    const variable = new Tensor(vName, 0, value.dtype, [...value.shape]);
    const init = this.assign(`${vName}/Assign`, variable, initialValue, vName);
    const snapshot = this.identity(`${vName}/read`, variable, { colocateWith: vName });
    this.variables.push({
      name: vName,
      value,
      trainable: options.trainable ?? true,
      variable,
      initialValue,
      initializer: init.node,
      snapshot,
    });
    return snapshot;
  }

  noOp(name: string, control: readonly string[], options: { device?: string } = {}): string {
    return this.addNode('NoOp', name, [], {}, { ...options, control });
  }

  matMul(name: string, a: Tensor, b: Tensor, options: { transposeA?: boolean; transposeB?: boolean } = {}): Tensor {
    const ta = options.transposeA ?? false;
    const tb = options.transposeB ?? false;
    const n = this.addNode('MatMul', name, [a, b], { transpose_a: attr.b(ta), transpose_b: attr.b(tb), T: attr.type(a.dtype) });
    const rows = a.shape?.length === 2 ? a.shape[ta ? 1 : 0] : -1;
    const cols = b.shape?.length === 2 ? b.shape[tb ? 0 : 1] : -1;
    return new Tensor(n, 0, a.dtype, [rows, cols]);
  }

  biasAdd(name: string, x: Tensor, bias: Tensor): Tensor {
    const n = this.addNode('BiasAdd', name, [x, bias], { T: attr.type(x.dtype), data_format: attr.s('NHWC') });
    return new Tensor(n, 0, x.dtype, x.shape);
  }

  private elementwise(op: string, name: string, x: Tensor, y: Tensor): Tensor {
    const n = this.addNode(op, name, [x, y], { T: attr.type(x.dtype) });
    const shape = x.shape && y.shape ? broadcastShape(x.shape, y.shape) : null;
    return new Tensor(n, 0, x.dtype, shape);
  }

  /** `tf.add` (AddV2 in the TF release imitated). */
  add(name: string, x: Tensor, y: Tensor): Tensor {
    return this.elementwise('AddV2', name, x, y);
  }

  mul(name: string, x: Tensor, y: Tensor): Tensor {
    return this.elementwise('Mul', name, x, y);
  }

  /** Relu, Tanh, Sigmoid or Softmax. */
  unary(op: 'Relu' | 'Tanh' | 'Sigmoid' | 'Softmax', name: string, x: Tensor): Tensor {
    const n = this.addNode(op, name, [x], { T: attr.type(x.dtype) });
    return new Tensor(n, 0, x.dtype, x.shape);
  }

  /** NHWC Conv2D with an HWIO filter. */
  conv2d(name: string, x: Tensor, filter: Tensor, o: ConvOptions): Tensor {
    const [sh, sw] = o.strides ?? [1, 1];
    const [dh, dw] = o.dilations ?? [1, 1];
    const n = this.addNode('Conv2D', name, [x, filter], {
      T: attr.type(x.dtype),
      strides: attr.ints([1, sh, sw, 1]),
      use_cudnn_on_gpu: attr.b(true),
      padding: attr.s(o.padding),
      explicit_paddings: attr.ints([]),
      data_format: attr.s('NHWC'),
      dilations: attr.ints([1, dh, dw, 1]),
    });
    let shape: number[] | null = null;
    if (x.shape?.length === 4 && filter.shape?.length === 4) {
      const [kh, kw, , f] = filter.shape;
      shape = [x.shape[0], outDim(x.shape[1], kh, sh, dh, o.padding), outDim(x.shape[2], kw, sw, dw, o.padding), f];
    }
    return new Tensor(n, 0, x.dtype, shape);
  }

  maxPool(name: string, x: Tensor, o: PoolOptions): Tensor {
    const n = this.addNode('MaxPool', name, [x], {
      T: attr.type(x.dtype),
      ksize: attr.ints([1, o.ksize[0], o.ksize[1], 1]),
      strides: attr.ints([1, o.strides[0], o.strides[1], 1]),
      padding: attr.s(o.padding),
      explicit_paddings: attr.ints([]),
      data_format: attr.s('NHWC'),
    });
    const shape =
      x.shape?.length === 4
        ? [
            x.shape[0],
            outDim(x.shape[1], o.ksize[0], o.strides[0], 1, o.padding),
            outDim(x.shape[2], o.ksize[1], o.strides[1], 1, o.padding),
            x.shape[3],
          ]
        : null;
    return new Tensor(n, 0, x.dtype, shape);
  }

  /** `tf.reshape(x, shape)`; the shape becomes an int32 Const `<name>/shape`. */
  reshape(name: string, x: Tensor, shape: number[]): Tensor {
    const unique = this.uniqueName(name);
    this.namesInUse.delete(unique.toLowerCase());
    const s = this.constant(`${unique}/shape`, { dtype: 'int32', shape: [shape.length], values: Int32Array.from(shape) });
    const n = this.addNode('Reshape', unique, [x, s], { T: attr.type(x.dtype), Tshape: attr.type('int32') });
    return new Tensor(n, 0, x.dtype, [...shape]);
  }
}

function broadcastShape(a: number[], b: number[]): number[] | null {
  const rank = Math.max(a.length, b.length);
  const out: number[] = [];
  for (let i = 0; i < rank; i++) {
    const x = a[a.length - rank + i] ?? 1;
    const y = b[b.length - rank + i] ?? 1;
    if (x === 1) out.push(y);
    else if (y === 1 || x === y) out.push(x);
    else if (x === -1 || y === -1) out.push(-1);
    else return null;
  }
  return out;
}

const attrKind = (v: AttrValueInit): string | undefined => {
  const keys = Object.keys(v);
  if (keys.length !== 1) return undefined;
  const k = keys[0];
  if (k === 'list') return 'list';
  return { s: 'string', i: 'int', f: 'float', b: 'bool', type: 'type', shape: 'shape', tensor: 'tensor', func: 'func' }[k];
};

/**
 * Checks nodes against the writer's OpDefs: known op, every attr without a default set
 * with a value of the declared kind (and an allowed value where the OpDef restricts it), no
 * undeclared attr (except `_`-prefixed internal ones), the declared number of data inputs,
 * every input naming an earlier node (or, for a Merge, a loop's NextIteration). Returns the problems found. `extraDefs`: OpDefs of ops
 * the writer does not declare (an op case's, from TF's registration text).
 */
export function validateGraph(nodes: readonly NodeInit[], extraDefs: ReadonlyMap<string, OpDefInit> = new Map()): string[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  const nextIterations = new Set(nodes.filter((n) => n.op === 'NextIteration').map((n) => n.name));
  const dec = new TextDecoder();
  for (const node of nodes) {
    const def = extraDefs.get(node.op) ?? OP_DEFS.get(node.op);
    if (seen.has(node.name)) problems.push(`${node.name}: duplicate node name`);
    if (!def) {
      problems.push(`${node.name}: op ${node.op} has no OpDef`);
      seen.add(node.name);
      continue;
    }
    const declared = new Map((def.attr ?? []).map((a) => [a.name, a]));
    for (const [name, value] of Object.entries(node.attr)) {
      if (name.startsWith('_')) continue;
      const a = declared.get(name);
      if (!a) {
        problems.push(`${node.name}: attr ${name} is not declared by ${node.op}`);
        continue;
      }
      const kind = attrKind(value);
      const want = a.type.startsWith('list(') ? 'list' : a.type;
      if (kind !== want) problems.push(`${node.name}: attr ${name} should be ${a.type}`);
      const allowed = a.allowedValues?.list;
      if (allowed?.type && value.type !== undefined && !allowed.type.includes(value.type as string))
        problems.push(`${node.name}: ${name}=${value.type} not allowed`);
      if (allowed?.s && value.s instanceof Uint8Array && !allowed.s.some((x) => dec.decode(x) === dec.decode(value.s as Uint8Array))) {
        problems.push(`${node.name}: ${name}=${dec.decode(value.s)} not allowed`);
      }
      if (a.hasMinimum && want === 'list') {
        const list = (value.list ?? {}) as Record<string, unknown[]>;
        const len = Object.values(list).reduce((n, l) => n + (Array.isArray(l) ? l.length : 0), 0);
        if (len < (a.minimum ?? 0)) problems.push(`${node.name}: attr ${name} needs at least ${a.minimum} values`);
      }
    }
    for (const a of def.attr ?? [])
      if (!a.defaultValue && !(a.name in node.attr)) problems.push(`${node.name}: required attr ${a.name} missing`);
    const data = node.input.filter((i) => !i.startsWith('^'));
    let expected = 0;
    let variadic = false;
    for (const arg of def.inputArg ?? []) {
      if (arg.numberAttr) {
        const n = node.attr[arg.numberAttr]?.i;
        expected += typeof n === 'number' ? n : 0;
      } else if (arg.typeListAttr) {
        const l = (node.attr[arg.typeListAttr]?.list as { type?: string[] } | undefined)?.type;
        expected += l?.length ?? 0;
        variadic = true;
      } else expected += 1;
    }
    if (data.length !== expected)
      problems.push(`${node.name}: ${data.length} data inputs, ${node.op} takes ${expected}${variadic ? ' (from its type list)' : ''}`);
    for (const ref of node.input) {
      const target = ref.replace(/^\^/, '').replace(/:\d+$/, '');
      // A TF1 loop's back edge: its Merge reads the NextIteration made later in the body.
      const backEdge = node.op === 'Merge' && nextIterations.has(target);
      if (!seen.has(target) && !backEdge) problems.push(`${node.name}: input ${ref} does not name an earlier node`);
    }
    seen.add(node.name);
  }
  return problems;
}
