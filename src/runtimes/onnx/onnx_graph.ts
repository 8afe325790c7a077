// Builds an ONNX model in memory: nodes, initializers, graph inputs and outputs, encoded
// with the project's onnx.proto. Value names are TF tensor names ('dense/MatMul:0') for
// values that correspond to a TF tensor, and '<node>/<suffix>' for helper values, made
// unique here. Opset 18 is targeted: Reduce*/Squeeze/Unsqueeze/Split/Pad take axes and
// sizes as inputs there, and Resize has `axes` (NHWC images resize without transposes).
import { protoType } from '../../proto/index.js';
import type { Code } from '../../errors/status.js';
import type { DType } from '../../tensor/dtype.js';
import type { HostTensor } from '../../tensor/host_tensor.js';
import { ONNX_TYPE } from './onnx_dtype.js';

const ONNX_OPSET = 18;
/** IR version 8 is what opset 18 needs (ONNX 1.13). */
const IR_VERSION = 8;

export type AttrInit = number | string | number[] | { floats: number[] } | { ints: number[] } | { tensor: HostTensor } | { float: number };

interface AttributeObject {
  name: string;
  type: number;
  f?: number;
  i?: number;
  s?: Uint8Array;
  t?: Record<string, unknown>;
  floats?: number[];
  ints?: number[];
}

interface NodeObject {
  input: string[];
  output: string[];
  name: string;
  opType: string;
  domain?: string;
  attribute: AttributeObject[];
}

const enc = new TextEncoder();

/** TensorProto object for a HostTensor (raw little-endian bytes; strings as string_data). */
function tensorProtoObject(name: string, t: HostTensor): Record<string, unknown> {
  const base = { name, dims: t.shape, dataType: ONNX_TYPE[t.dtype] };
  if (t.dtype === 'string') return { ...base, stringData: t.values as Uint8Array[] };
  const v = t.values as Exclude<HostTensor['values'], Uint8Array[]>;
  return { ...base, rawData: new Uint8Array(v.buffer, v.byteOffset, v.byteLength) };
}

function toAttribute(name: string, value: AttrInit): AttributeObject {
  // AttributeProto.AttributeType numbers (onnx.proto).
  if (typeof value === 'number') return Number.isInteger(value) ? { name, type: 2, i: value } : { name, type: 1, f: value };
  if (typeof value === 'string') return { name, type: 3, s: enc.encode(value) };
  if (Array.isArray(value)) return { name, type: 7, ints: value };
  if ('float' in value) return { name, type: 1, f: value.float };
  if ('floats' in value) return { name, type: 6, floats: value.floats };
  if ('ints' in value) return { name, type: 7, ints: value.ints };
  return { name, type: 4, t: tensorProtoObject('', value.tensor) };
}

export interface GraphValue {
  name: string;
  dtype: DType;
  /** -1 for unknown dims; null for unknown rank. */
  shape: number[] | null;
}

function valueInfo(v: GraphValue): Record<string, unknown> {
  const tensorType: Record<string, unknown> = { elemType: ONNX_TYPE[v.dtype] };
  if (v.shape) tensorType.shape = { dim: v.shape.map((d) => (d >= 0 ? { dimValue: d } : {})) };
  return { name: v.name, type: { tensorType } };
}

/**
 * A check of a value only known at run time that TF makes in its kernel (an input out of
 * range) or that marks an input this conversion cannot answer exactly: `value` is an int64
 * vector [trip, …details], computed with the outputs; a non-zero trip fails the run.
 */
export interface RunGuard {
  value: string;
  code: Code;
  message: (details: bigint[]) => string;
}

export class OnnxGraph {
  readonly guards: RunGuard[] = [];
  private readonly nodes: NodeObject[] = [];
  private readonly initializers: Array<Record<string, unknown>> = [];
  private readonly inputs: GraphValue[] = [];
  private readonly outputs: GraphValue[] = [];
  private readonly names = new Set<string>();

  /** A name not used yet: `hint`, else `hint_1`, `hint_2` … */
  unique(hint: string): string {
    let name = hint;
    for (let i = 1; this.names.has(name); i++) name = `${hint}_${i}`;
    this.names.add(name);
    return name;
  }

  /** Marks a name as taken (values named after TF tensors). */
  reserve(name: string): string {
    this.names.add(name);
    return name;
  }

  addInput(v: GraphValue): void {
    this.reserve(v.name);
    this.inputs.push(v);
  }

  addOutput(v: GraphValue): void {
    this.outputs.push(v);
  }

  /** A constant as an initializer; returns its value name. */
  addInitializer(hint: string, t: HostTensor): string {
    const name = this.unique(hint);
    this.initializers.push(tensorProtoObject(name, t));
    return name;
  }

  /** Adds one node producing exactly the value names `outputs` (see unique / reserve); returns them. */
  addNode(
    opType: string,
    inputs: string[],
    outputs: string[],
    attrs: Record<string, AttrInit | undefined> = {},
    domain?: string,
  ): string[] {
    const attribute: AttributeObject[] = [];
    for (const [k, v] of Object.entries(attrs)) if (v !== undefined) attribute.push(toAttribute(k, v));
    this.nodes.push({
      input: inputs,
      output: outputs,
      name: this.unique(`${opType}:${outputs[0]}`),
      opType,
      attribute,
      ...(domain ? { domain } : {}),
    });
    return outputs;
  }

  get nodeCount(): number {
    return this.nodes.length;
  }

  encode(graphName: string): Uint8Array {
    const Model = protoType('onnx.ModelProto');
    const model = Model.fromObject({
      irVersion: IR_VERSION,
      opsetImport: [{ domain: '', version: ONNX_OPSET }],
      producerName: 'tfgate',
      graph: {
        name: graphName,
        node: this.nodes,
        initializer: this.initializers,
        input: this.inputs.map(valueInfo),
        output: this.outputs.map(valueInfo),
      },
    });
    return Model.encode(model).finish();
  }
}
