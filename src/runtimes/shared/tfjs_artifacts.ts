// PreparedGraph → the in-memory ModelArtifacts that tfjs-converter's GraphModel loads, the
// same shape as the TF.js converter's model.json: a GraphDef in proto3 JSON form (with the
// functions its loops call as `library`), every Const value moved into the weights buffer
// (the executor reads constants from there).
import type * as tf from '@tensorflow/tfjs-core';
import type { PreparedGraph } from '../../savedmodel/graph/prepare_signature_graph.js';
import type { PreparedFunction } from '../../savedmodel/graph/control_flow_functions.js';
import type { AttrValue, NodeDef } from '../../savedmodel/graph/types.js';
import { hostTensorFromProto } from '../../savedmodel/tensor_proto.js';
import { tfjsDtype, tfjsValues } from './tfjs_values.js';

/** The file that makes a version folder a TF.js graph model (the TF.js converter's output). */
export const TFJS_MODEL_JSON = 'model.json';

const TFJS_TF_TYPE = { float32: 'DT_FLOAT', int32: 'DT_INT32', bool: 'DT_BOOL', string: 'DT_STRING' } as const;

/**
 * proto3 JSON form of an AttrValue: bytes as base64 (tfjs-converter decodes `s` that way) and
 * no empty repeated fields (tfjs picks the first non-missing list kind, so `f: []` would hide `i`).
 */
function jsonAttr(a: AttrValue): unknown {
  const j: Record<string, unknown> = { ...a };
  delete j.value; // protobufjs' oneof discriminator
  if (a.s) j.s = Buffer.from(a.s).toString('base64');
  if (a.list) {
    const list: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(a.list)) {
      if (!Array.isArray(v) || v.length === 0) continue;
      list[k] = k === 's' ? (v as Uint8Array[]).map((s) => Buffer.from(s).toString('base64')) : v;
    }
    j.list = list;
  }
  return j;
}

function encodeStrings(values: Uint8Array[]): Uint8Array {
  const total = values.reduce((n, v) => n + 4 + v.length, 0);
  const out = new Uint8Array(total);
  const view = new DataView(out.buffer);
  let off = 0;
  for (const v of values) {
    view.setUint32(off, v.length, true);
    out.set(v, off + 4);
    off += 4 + v.length;
  }
  return out;
}

/** Every Const value, in the order the weights buffer holds them. */
class Weights {
  readonly specs: tf.io.WeightsManifestEntry[] = [];
  private readonly chunks: Uint8Array[] = [];

  /** Moves a Const node's value into the weights and leaves in `attr` what the executor still reads. */
  add(n: NodeDef, attr: Record<string, unknown>): void {
    const value = hostTensorFromProto(n.attr?.value?.tensor ?? {}, `constant ${n.name}`);
    const dtype = tfjsDtype(value.dtype);
    const data = tfjsValues(value, `constant ${n.name}`, true);
    this.chunks.push(
      dtype === 'string'
        ? encodeStrings(data as Uint8Array[])
        : new Uint8Array((data as Float32Array).buffer, (data as Float32Array).byteOffset, (data as Float32Array).byteLength),
    );
    this.specs.push({ name: n.name, shape: value.shape, dtype });
    attr.dtype = { type: TFJS_TF_TYPE[dtype] };
    attr.value = { tensor: { dtype: TFJS_TF_TYPE[dtype], tensorShape: { dim: value.shape.map((size) => ({ size })) } } };
  }

  buffer(): ArrayBuffer {
    const size = this.chunks.reduce((s, c) => s + c.byteLength, 0);
    const out = new Uint8Array(size);
    let off = 0;
    for (const c of this.chunks) {
      out.set(c, off);
      off += c.byteLength;
    }
    return out.buffer;
  }
}

function jsonNode(n: NodeDef, weights: Weights): Record<string, unknown> {
  const attr: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(n.attr ?? {})) {
    // `_output_shapes`, `_class` …: TF-internal annotations the executor does not read.
    if (!k.startsWith('_')) attr[k] = jsonAttr(v);
  }
  if (n.op === 'Const') weights.add(n, attr);
  return { name: n.name, op: n.op, input: n.input ?? [], attr };
}

/**
 * A prepared function as a FunctionDef in JSON form. Its constants go to the same weights
 * as the graph's (tfjs-converter's function executors share the model's weight map, looked
 * up by node name, which is why prepared function nodes have model-wide unique names).
 */
function jsonFunction(f: PreparedFunction, weights: Weights): Record<string, unknown> {
  return {
    signature: {
      name: f.name,
      inputArg: f.inputs.map((a) => ({ name: a.name, type: a.type })),
      outputArg: f.outputs.map((a) => ({ name: a.name, type: a.type })),
    },
    nodeDef: f.nodes.map((n) => jsonNode(n, weights)),
    ret: Object.fromEntries(f.outputs.map((o, j) => [o.name, f.ret[j]])),
  };
}

export function toModelArtifacts(graph: PreparedGraph): tf.io.ModelArtifacts {
  const weights = new Weights();
  const nodes = graph.nodes.map((n) => jsonNode(n, weights));
  const functions = graph.functions ?? [];
  const library = functions.length ? { library: { function: functions.map((f) => jsonFunction(f, weights)) } } : {};
  return {
    modelTopology: { node: nodes, ...library, versions: { producer: 1 } },
    weightSpecs: weights.specs,
    weightData: weights.buffer(),
    format: 'graph-model',
    generatedBy: 'tfgate',
  };
}
