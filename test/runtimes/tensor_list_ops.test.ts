// tfgate's TensorList ops against TensorFlow's semantics (list_kernels), on a writer-made
// graph: a reserved list has its reserved length and reads as zeros where unset, element
// shapes are reported, and what TF refuses fails the request with TF's message (where
// tfjs-converter's own ops gave length 0 and a shorter stack).
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import * as tf from '@tensorflow/tfjs-core';
import { EmbeddedRuntime } from '../../src/runtimes/embedded/embedded_runtime.js';
import type { Servable } from '../../src/runtimes/runtime.js';
import { writeTensorListOpsModel } from '../../test_util/savedmodel/loop_model_zoo.js';
import type { HostTensor } from '../../src/tensor/host_tensor.js';
import { Code } from '../../src/errors/status.js';
import { isError } from '../helpers/errors.js';
import { tempDir } from '../helpers/temp.js';

const f32 = (shape: number[], values: number[]): HostTensor => ({ dtype: 'float32', shape, values: Float32Array.from(values) });
const x = f32([2], [7, 8]);

describe('TensorList ops with TensorFlow semantics', () => {
  let s: Servable;
  before(async () => {
    const dir = path.join(tempDir('tfgate-tensor-lists-'), '1');
    await writeTensorListOpsModel(dir);
    s = await new EmbeddedRuntime('auto').load(dir, { tags: ['serve'] });
  });
  after(() => s.dispose());

  const run = async (signature: string, inputs: Record<string, HostTensor> = { x }) => (await s.run(signature, inputs)).y;

  it('a reserved list has the reserved length', async () => {
    const y = await run('length_reserved');
    assert.deepEqual([y.dtype, y.shape, Array.from(y.values as Int32Array)], ['int32', [], [3]]);
  });

  it('stacks unset elements as zeros of the element shape', async () => {
    const y = await run('stack_partial');
    assert.deepEqual(y.shape, [3, 2]);
    assert.deepEqual(Array.from(y.values as Float32Array), [0, 0, 7, 8, 0, 0]);
  });

  it('reports the element shape, -1 for unknown dims and the scalar -1 for an unknown rank', async () => {
    assert.deepEqual(Array.from((await run('element_shape')).values as Int32Array), [-1, 2]);
    const unknown = await run('element_shape_unknown_rank');
    assert.deepEqual([unknown.shape, Array.from(unknown.values as Int32Array)], [[], [-1]]);
  });

  it('makes a list of the rows of a tensor', async () => {
    const out = await s.run('from_tensor', { rows: f32([4, 2], [1, 2, 3, 4, 5, 6, 7, 8]) });
    assert.deepEqual(Array.from(out.length.values as Int32Array), [4]);
    assert.deepEqual([out.row_1.shape, Array.from(out.row_1.values as Float32Array)], [[2], [3, 4]]);
  });

  it("fails what TF fails, with TF's message", async () => {
    await assert.rejects(
      run('read_unset'),
      isError(
        Code.INVALID_ARGUMENT,
        /trying to read an uninitialized tensor but element_shape is not fully defined: \[\?\] and no list element is set/,
      ),
    );
    await assert.rejects(run('set_out_of_range'), isError(Code.INVALID_ARGUMENT, /Trying to modify element 5 in a list with 3 elements/));
    await assert.rejects(
      run('stack_count'),
      isError(Code.INVALID_ARGUMENT, /Operation expected a list with 2 elements but got a list with 3 elements/),
    );
  });

  it('leaves no tensor behind, failed requests included', async () => {
    await run('stack_partial');
    const before = tf.memory().numTensors;
    for (const signature of ['length_reserved', 'stack_partial', 'element_shape', 'read_unset', 'set_out_of_range'])
      await run(signature).catch(() => undefined);
    await s.run('from_tensor', { rows: f32([3, 2], [1, 2, 3, 4, 5, 6]) });
    assert.equal(tf.memory().numTensors, before);
  });
});
