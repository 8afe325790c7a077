// A signature's sessions by feed shape (shape_specialized_sessions.ts): feeds that fit the
// declared shapes take the main session; any other shape gets a session built once for it and
// kept, the least recently used let go (disposed) past eight. Sessions here are stand-ins.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ShapeSpecializedSessions } from '../../../src/runtimes/onnx/shape_specialized_sessions.js';
import type { OnnxSession } from '../../../src/runtimes/onnx/onnx_session.js';
import type { FeedSpec } from '../../../src/runtimes/onnx/tf_to_onnx.js';
import type { HostTensor } from '../../../src/tensor/host_tensor.js';

interface StandIn {
  shape: string;
  disposed: boolean;
}

function sessions() {
  const built: StandIn[] = [];
  const declared = new Map<string, FeedSpec>([['x', { dtype: 'float32', shape: [-1, 1] }]]);
  const main = { shape: 'main', disposed: false, dispose() {} };
  const s = new ShapeSpecializedSessions(declared, main as unknown as OnnxSession, async (feeds) => {
    const b = { shape: String(feeds.get('x')!.shape), disposed: false };
    built.push(b);
    return { ...b, dispose: () => (b.disposed = true) } as unknown as OnnxSession;
  });
  const shapeOf = async (shape: number[]) => {
    const x: HostTensor = { dtype: 'float32', shape, values: new Float32Array(shape.reduce((a, d) => a * d, 1)) };
    return ((await s.sessionFor(new Map([['x', x]]))) as unknown as StandIn).shape;
  };
  /** Whether sessionFor answered at once (no promise) for this shape. */
  const atOnce = (shape: number[]) => {
    const x: HostTensor = { dtype: 'float32', shape, values: new Float32Array(shape.reduce((a, d) => a * d, 1)) };
    return !(s.sessionFor(new Map([['x', x]])) instanceof Promise);
  };
  return { built, shapeOf, atOnce };
}

describe('sessions by feed shape', () => {
  it('the declared shapes take the main session; another shape one built once, its unknown dims left unknown', async () => {
    const { built, shapeOf } = sessions();
    assert.equal(await shapeOf([4, 1]), 'main');
    for (let i = 0; i < 3; i++) assert.equal(await shapeOf([3]), '-1');
    assert.equal(await shapeOf([2, 3]), '-1,3');
    assert.equal(await shapeOf([3]), '-1');
    assert.deepEqual(
      built.map((b) => b.shape),
      ['-1', '-1,3'],
    );
  });

  it('past eight shapes the least recently used goes (disposed), and is built again when it comes back', async () => {
    const { built, shapeOf } = sessions();
    await shapeOf([1, 1, 1]); // [-1,1,1]: used first, then again below
    await shapeOf([1, 2]); // [-1,2]: the least recently used once [-1,1,1] is used again
    await shapeOf([1, 1, 1]);
    for (let d = 3; d <= 9; d++) await shapeOf([1, d]); // seven more: nine in all
    assert.deepEqual(
      built.filter((b) => b.disposed).map((b) => b.shape),
      ['-1,2'],
    );
    await shapeOf([1, 1, 1]);
    assert.equal(built.filter((b) => b.shape === '-1,1,1').length, 1, 'kept: not built again');
    await shapeOf([1, 2]);
    assert.equal(built.filter((b) => b.shape === '-1,2').length, 2, 'built again');
  });

  it('the shapes served last take their session at once; any other shape goes through the cache', async () => {
    const { built, shapeOf, atOnce } = sessions();
    assert.equal(atOnce([4, 1]), true, 'the declared shapes: the main session');
    assert.equal(await shapeOf([3]), '-1');
    assert.equal(atOnce([3]), true);
    assert.equal(await shapeOf([2, 3]), '-1,3');
    assert.equal(atOnce([3]), false, 'not the last shapes');
    assert.equal(await shapeOf([3]), '-1');
    assert.equal(atOnce([3]), true);
    assert.equal(atOnce([5]), false, 'same session, other shapes: looked up');
    assert.equal(await shapeOf([5]), '-1');
    assert.deepEqual(
      built.map((b) => b.shape),
      ['-1', '-1,3'],
    );
  });
});
