// int64 beyond 32 bits, exact end to end: a tf.Example with a census tract of 17031832200 (TFX's
// Chicago taxi data) and an id of 2^53 + 1, sent over REST as {"b64": …}, parsed by the
// ParseExample host step, computed on by ONNX Runtime (int64 native), answered as JSON numbers.
// (The embedded runtime, which holds int64 as int32, refuses such a value naming the feature:
// embedded_sparse_ops.test.ts.)
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { protoType } from '../../src/proto/index.js';
import { postJson, startServer, waitAvailable, type RunningServer } from '../helpers/server_process.js';
import { parseExample } from '../helpers/sparse_examples.js';
import { i64, writeTinyModel } from '../helpers/tiny_graphs.js';

const TRACT = '17031832200';
const BEYOND_DOUBLE = '9007199254740993'; // 2^53 + 1: a double would round it to ...992

/** ParseExample of sparse int64 `tract` and dense float `x`; the tracts as parsed, and each + 1 (AddV2 on int64). */
const tractModel = () =>
  writeTinyModel((g) => {
    const p = parseExample(g, [['tract', 'int64']], ['x']);
    const next = g.add('tract_next', p.values[0], g.constant('one', i64([], [1])));
    return {
      inputs: { examples: p.x },
      outputs: {
        tract: g.identity('tract_out', p.values[0]),
        tract_next: g.identity('tract_next_out', next),
        tract_indices: g.identity('indices_out', p.indices[0]),
      },
    };
  });

/** A serialized tf.Example; int64 values as decimal strings (protobufjs reads them exactly with long.js). */
function tractExample(tracts: string[]): string {
  const Example = protoType('tensorflow.Example');
  const bytes = Example.encode(
    Example.fromObject({ features: { feature: { tract: { int64List: { value: tracts } }, x: { floatList: { value: [1] } } } } }),
  ).finish();
  return Buffer.from(bytes).toString('base64');
}

describe('int64 beyond 32 bits through REST, the ParseExample host step and ONNX Runtime (real process)', () => {
  let onnx: RunningServer;
  before(async () => {
    const base = path.dirname(await tractModel());
    onnx = await startServer([`--model_name=taxi`, `--model_base_path=${base}`, '--runtime=onnx', '--num_executors=1']);
    await waitAvailable(onnx, ['taxi']);
  });
  after(async () => {
    assert.equal(await onnx.stop(), 0);
  });

  const body = `{"instances": [{"b64": "${tractExample([TRACT, BEYOND_DOUBLE])}"}, {"b64": "${tractExample(['-' + TRACT])}"}]}`;

  it('answers the tracts exactly, and tract + 1 computed on int64 by ONNX Runtime', async () => {
    const r = await postJson(onnx.url('/v1/models/taxi:predict'), body);
    assert.equal(r.status, 200, r.text);
    // The raw text: JSON.parse on the client side would round 2^53 + 1 itself. Rows: one per parsed value.
    const rows = [...r.text.matchAll(/"tract":\s*(-?\d+),\s*"tract_indices":\s*\[(\d+), (\d+)\],\s*"tract_next":\s*(-?\d+)/g)].map((m) =>
      m.slice(1).join(' '),
    );
    assert.deepEqual(rows, [`${TRACT} 0 0 17031832201`, `${BEYOND_DOUBLE} 0 1 9007199254740994`, `-${TRACT} 1 0 -17031832199`], r.text);
  });
});
