// Tiny TF graphs for converter tests: written as NodeDefs (the form prepared signature graphs
// have), run through the ONNX converter on ONNX Runtime and through tfjs-converter's
// GraphModel on TF.js's CPU backend (a reference that implements TF's op semantics in plain
// JS), and compared element by element.
import assert from 'node:assert/strict';
import * as tf from '@tensorflow/tfjs-core';
import { loadGraphModelSync } from '@tensorflow/tfjs-converter';
import type { AttrValue, NodeDef } from '../../../src/savedmodel/graph/types.js';
import { hostTensorToProto } from '../../../src/savedmodel/tensor_proto.js';
import type { DType } from '../../../src/tensor/dtype.js';
import { dtypeToTf } from '../../../src/tensor/dtype.js';
import type { HostTensor } from '../../../src/tensor/host_tensor.js';
import { initBackend } from '../../../src/runtimes/shared/tfjs_backend.js';
import { registerEmbeddedOps } from '../../../src/runtimes/embedded/ops/index.js';
import { toModelArtifacts } from '../../../src/runtimes/shared/tfjs_artifacts.js';
import { fromTfTensor, toTfTensor } from '../../../src/runtimes/shared/tensor_convert.js';
import { convertToOnnx, type FeedSpec } from '../../../src/runtimes/onnx/tf_to_onnx.js';
import { OnnxSession } from '../../../src/runtimes/onnx/onnx_session.js';

const enc = new TextEncoder();

/** AttrValue shorthands. */
export const a = {
  i: (i: number): AttrValue => ({ i }),
  f: (f: number): AttrValue => ({ f }),
  b: (b: boolean): AttrValue => ({ b }),
  s: (s: string): AttrValue => ({ s: enc.encode(s) }),
  type: (d: DType): AttrValue => ({ type: dtypeToTf(d) }),
  ints: (i: number[]): AttrValue => ({ list: { i } }),
};

export const f32 = (shape: number[], values: ArrayLike<number>): HostTensor => ({
  dtype: 'float32',
  shape,
  values: Float32Array.from(values),
});
export const i32 = (shape: number[], values: ArrayLike<number>): HostTensor => ({ dtype: 'int32', shape, values: Int32Array.from(values) });

/** Deterministic values in (-scale, scale). */
function seeded(n: number, seed: number, scale = 2): number[] {
  return Array.from({ length: n }, (_, i) => Math.sin(i * 12.9898 + seed * 78.233) * scale);
}

export function randomF32(shape: number[], seed: number, scale = 2): HostTensor {
  return f32(
    shape,
    seeded(
      shape.reduce((x, y) => x * y, 1),
      seed,
      scale,
    ),
  );
}

/** A graph under construction: placeholders, constants and op nodes, in dependency order. */
export class GraphCase {
  readonly nodes: NodeDef[] = [];
  readonly feeds = new Map<string, FeedSpec>();

  placeholder(name: string, dtype: DType, shape: number[] | null): string {
    this.nodes.push({
      name,
      op: 'Placeholder',
      input: [],
      attr: { dtype: a.type(dtype), shape: { shape: shape ? { dim: shape.map((size) => ({ size })) } : { unknownRank: true } } },
    });
    this.feeds.set(name, { dtype, shape });
    return `${name}:0`;
  }

  const(name: string, t: HostTensor): string {
    this.nodes.push({ name, op: 'Const', input: [], attr: { dtype: a.type(t.dtype), value: { tensor: hostTensorToProto(t) } } });
    return `${name}:0`;
  }

  op(op: string, name: string, inputs: string[], attr: Record<string, AttrValue> = {}): string {
    this.nodes.push({ name, op, input: inputs, attr });
    return `${name}:0`;
  }
}

let backendReady: Promise<string> | undefined;

/** Runs `fetch` on TF.js (CPU backend). */
async function runTfjs(g: GraphCase, feeds: Record<string, HostTensor>, fetch: string[]): Promise<HostTensor[]> {
  backendReady ??= initBackend('cpu');
  await backendReady;
  // The embedded runtime's own ops (FakeQuant, Einsum, ParseExample …), as its graphs run them.
  registerEmbeddedOps();
  const model = loadGraphModelSync(
    toModelArtifacts({
      signature: { key: 't', methodName: '', inputs: {}, outputs: {}, defaults: {} },
      nodes: g.nodes,
      inputs: {},
      outputs: {},
    }),
  );
  const feed: Record<string, tf.Tensor> = {};
  for (const [k, v] of Object.entries(feeds)) feed[k] = toTfTensor(v, k);
  try {
    const out = await model.executeAsync(feed, fetch);
    const list = Array.isArray(out) ? out : [out];
    const result: HostTensor[] = [];
    for (const t of list) result.push(await fromTfTensor(t, dtypeToTf(t.dtype === 'string' ? 'string' : (t.dtype as DType))));
    tf.dispose(list);
    return result;
  } finally {
    tf.dispose(Object.values(feed));
    model.dispose();
  }
}

/** Runs `fetch` on ONNX Runtime after conversion. */
export async function runOnnx(g: GraphCase, feeds: Record<string, HostTensor>, fetch: string[]): Promise<HostTensor[]> {
  const model = convertToOnnx(g.nodes, g.feeds, fetch);
  const session = await OnnxSession.create(model, { device: 'cpu' });
  try {
    return await session.run(new Map(Object.entries(feeds)), fetch);
  } finally {
    session.dispose();
  }
}

function numbers(t: HostTensor): number[] {
  return Array.from(t.values as ArrayLike<number | bigint>, Number);
}

/** Asserts both engines give the same shapes and values (relative+absolute tolerance). */
export async function assertSameOnBoth(
  g: GraphCase,
  feeds: Record<string, HostTensor>,
  fetch: string[],
  tol = 1e-5,
): Promise<HostTensor[]> {
  const want = await runTfjs(g, feeds, fetch);
  const got = await runOnnx(g, feeds, fetch);
  fetch.forEach((name, k) => {
    assert.deepEqual(got[k].shape, want[k].shape, `${name}: shape`);
    const x = numbers(got[k]);
    const y = numbers(want[k]);
    for (let i = 0; i < y.length; i++) {
      const ok = Number.isNaN(y[i]) ? Number.isNaN(x[i]) : Math.abs(x[i] - y[i]) <= tol * Math.max(1, Math.abs(y[i]));
      assert.ok(ok, `${name}[${i}]: onnx ${x[i]}, tfjs ${y[i]} (onnx ${x.slice(0, 12)} … tfjs ${y.slice(0, 12)} …)`);
    }
  });
  return got;
}

export function values(t: HostTensor): number[] {
  return numbers(t);
}
