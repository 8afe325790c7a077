// Lookup tables on the embedded runtime's WASM backend, and through ONNX Runtime's fallback to it.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { EmbeddedRuntime } from '../../src/runtimes/embedded/embedded_runtime.js';
import { OnnxRuntime } from '../../src/runtimes/onnx/onnx_runtime.js';
import { CompositeRuntime } from '../../src/runtimes/composite_runtime.js';
import { i64 } from '../helpers/tiny_graphs.js';
import { lookupModel, lookupTableCases, strings } from './lookup_table_cases.js';

lookupTableCases(() => new EmbeddedRuntime('wasm'), 'wasm');

describe('ONNX Runtime with the embedded fallback', () => {
  it('serves the lookup signature on the fallback, with the right values', async () => {
    const dir = await lookupModel({
      keyDtype: 'string',
      valueDtype: 'int64',
      fill: { kind: 'text file', contents: 'a\nb\n', keyIndex: -2, valueIndex: -1 },
      defaultValue: i64([], [-1]),
    });
    const s = await new CompositeRuntime(new OnnxRuntime({ device: 'cpu' }), new EmbeddedRuntime('wasm')).load(dir, { tags: ['serve'] });
    try {
      const out = await s.run('serving_default', { k: strings([2, 2], ['a', 'zz', 'b', 'a']) });
      assert.deepEqual(out.ids.shape, [2, 2]);
      assert.deepEqual(Array.from(out.ids.values as BigInt64Array, Number), [0, -1, 1, 0]);
    } finally {
      s.dispose();
    }
  });
});
