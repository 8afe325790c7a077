// Flat output indices for function-body references (`node:out_arg:index`), where a SavedModel's
// stripped_op_list may not describe the op (TF 2.0–2.3 left function-body ops out of it).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { OpOutputIndex } from '../../src/savedmodel/graph/op_outputs.js';

describe('OpOutputIndex without OpDefs', () => {
  const index = new OpOutputIndex(new Map());
  it("maps a list op's second output argument past the first", () => {
    assert.equal(index.flatIndex({ name: 'pop', op: 'TensorListPopBack' }, 'tensor', 0), 1);
    assert.equal(index.flatIndex({ name: 'pop', op: 'TensorListPopBack' }, 'output_handle', 0), 0);
    assert.equal(index.flatIndex({ name: 'concat', op: 'TensorListConcatV2' }, 'lengths', 0), 1);
  });
  it("counts a While's loop variables within its one output argument", () => {
    const loop = { name: 'while', op: 'StatelessWhile', attr: { T: { list: { type: ['DT_INT32', 'DT_VARIANT', 'DT_FLOAT'] } } } };
    assert.equal(index.flatIndex(loop, 'output', 2), 2);
    assert.throws(() => index.flatIndex(loop, 'tensor', 0), /has no output argument 'tensor'/);
  });
});
