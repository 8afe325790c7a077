// Sessions on onnxruntime-node's native binding (synchronous runs) against sessions through
// its public InferenceSession: the same answers and the same refusals, without a turn of the
// event loop per run.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import v8 from 'node:v8';
import vm from 'node:vm';
import { OnnxSession } from '../../../src/runtimes/onnx/onnx_session.js';
import { convertToOnnx } from '../../../src/runtimes/onnx/tf_to_onnx.js';
import { Code, ServingError } from '../../../src/errors/status.js';
import { a, GraphCase, f32, randomF32 } from './graph_case.js';

/** x [?, 3] float → y = x·W + b (float), its argmax (int64) and whether y > 0 (bool). */
function denseGraph(): { g: GraphCase; fetch: string[] } {
  const g = new GraphCase();
  const x = g.placeholder('x', 'float32', [-1, 3]);
  const w = g.const('w', randomF32([3, 4], 7));
  const b = g.const('b', randomF32([4], 8));
  const y = g.op('BiasAdd', 'y', [g.op('MatMul', 'mm', [x, w], { T: a.type('float32') }), b], { T: a.type('float32') });
  const axis = g.const('axis', { dtype: 'int32', shape: [], values: Int32Array.of(1) });
  const argmax = g.op('ArgMax', 'argmax', [y, axis], { T: a.type('float32'), Tidx: a.type('int32'), output_type: a.type('int64') });
  const zero = g.const('zero', f32([], [0]));
  const positive = g.op('Greater', 'positive', [y, zero], { T: a.type('float32') });
  return { g, fetch: [y, argmax, positive] };
}

/** The dense graph on both runners, disposed after `use`. */
async function withBothRunners(use: (s: { fetch: string[]; direct: OnnxSession; viaPublic: OnnxSession }) => Promise<void>): Promise<void> {
  const { g, fetch } = denseGraph();
  const model = convertToOnnx(g.nodes, g.feeds, fetch);
  const direct = await OnnxSession.create(model, { device: 'cpu' });
  const viaPublic = await OnnxSession.create(model, { device: 'cpu', via: 'public' });
  try {
    await use({ fetch, direct, viaPublic });
  } finally {
    direct.dispose();
    viaPublic.dispose();
  }
}

describe('ONNX Runtime session runners', () => {
  it('runs on the native binding by default, and answers as the public InferenceSession does', () =>
    withBothRunners(async ({ fetch, direct, viaPublic }) => {
      assert.equal(direct.runner, 'binding');
      assert.equal(viaPublic.runner, 'public');
      for (const rows of [1, 5]) {
        const feeds = new Map([['x', randomF32([rows, 3], rows)]]);
        const [got, want] = [await direct.run(feeds, fetch), await viaPublic.run(feeds, fetch)];
        assert.deepEqual(
          got.map((t) => t.dtype),
          ['float32', 'int64', 'bool'],
        );
        assert.deepEqual(got, want);
        assert.deepEqual(got[0].shape, [rows, 4]);
      }
    }));

  it('refuses a feed that does not fit the graph with the same INVALID_ARGUMENT either way', () =>
    withBothRunners(async ({ fetch, direct, viaPublic }) => {
      const feeds = new Map([['x', randomF32([2, 5], 1)]]);
      const refusal = async (s: OnnxSession) =>
        s.run(feeds, fetch).then(
          () => assert.fail('ran'),
          (e: unknown) => e as ServingError,
        );
      const [got, want] = [await refusal(direct), await refusal(viaPublic)];
      assert.ok(got instanceof ServingError);
      assert.equal(got.code, Code.INVALID_ARGUMENT);
      assert.equal(want.code, Code.INVALID_ARGUMENT);
      assert.equal(got.message, want.message);
      assert.match(got.message, /dimension|shape/i);
    }));

  it('runs one after another within one turn of the event loop (the public API waits for a turn per run)', () =>
    withBothRunners(async ({ fetch, direct, viaPublic }) => {
      const feeds = new Map([['x', randomF32([1, 3], 3)]]);
      const turnsDuringRuns = async (s: OnnxSession) => {
        // A chain of setImmediate callbacks counts the loop's turns while the runs go on.
        let turns = 0;
        let counting = true;
        const count = () => {
          if (!counting) return;
          turns++;
          setImmediate(count);
        };
        setImmediate(count);
        for (let i = 0; i < 5; i++) await s.run(feeds, fetch);
        counting = false;
        return turns;
      };
      assert.equal(await turnsDuringRuns(direct), 0);
      assert.ok((await turnsDuringRuns(viaPublic)) >= 4);
    }));

  it("lets the converted model's bytes go once ONNX Runtime has its copy (a model's weights, per session per thread)", async () => {
    v8.setFlagsFromString('--expose-gc');
    const gc = vm.runInNewContext('gc') as () => void;
    // Weights larger than Node's pooled buffers, so that the bytes have an ArrayBuffer of their own.
    const g = new GraphCase();
    const x = g.placeholder('x', 'float32', [-1, 64]);
    const y = g.op('MatMul', 'y', [x, g.const('w', randomF32([64, 64], 3))], { T: a.type('float32') });
    const model = convertToOnnx(g.nodes, g.feeds, [y]);
    assert.ok(model.bytes.buffer.byteLength >= 64 * 64 * 4 && model.bytes.byteLength === model.bytes.buffer.byteLength);
    const bytes = new WeakRef(model.bytes.buffer);
    const session = await OnnxSession.create({ ...model }, { device: 'cpu' });
    model.bytes = new Uint8Array(0);
    try {
      await new Promise(setImmediate);
      gc();
      assert.equal(bytes.deref(), undefined, 'the session still holds the bytes');
      assert.deepEqual((await session.run(new Map([['x', randomF32([2, 64], 1)]]), [y]))[0].shape, [2, 64]);
    } finally {
      session.dispose();
    }
  });

  it('answers runNow at once on the binding (a promise through the public API), the same tensors as run', () =>
    withBothRunners(async ({ fetch, direct, viaPublic }) => {
      const feeds = new Map([['x', randomF32([2, 3], 4)]]);
      const now = direct.runNow(feeds, fetch);
      assert.ok(Array.isArray(now));
      assert.ok(viaPublic.runNow(feeds, fetch) instanceof Promise);
      assert.deepEqual(now, await viaPublic.run(feeds, fetch));
    }));

  it('refuses values that do not match their shape or dtype as ort.Tensor does, on either runner', () =>
    withBothRunners(async ({ fetch, direct, viaPublic }) => {
      const x = randomF32([2, 3], 5);
      const cases = [
        // More values than the shape holds: the binding alone would read the first six.
        { ...x, values: new Float32Array(12) },
        { ...x, values: new Float32Array(3) },
        { ...x, shape: [-2, -3] },
        { ...x, values: new Float64Array(6) },
      ];
      for (const t of cases) {
        const error = (s: OnnxSession) =>
          s.run(new Map([['x', t]]), fetch).then(
            () => assert.fail(`ran ${String(t.values.constructor.name)} [${t.shape}]`),
            (e: unknown) => e as Error,
          );
        const [got, want] = [await error(direct), await error(viaPublic)];
        assert.equal(got.constructor, want.constructor);
        assert.equal(got.message, want.message);
      }
    }));
});
