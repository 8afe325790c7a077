// :regress over HTTP on an Estimator-shaped model (tfgate's writer): JSON examples with a
// variable-length int64 feature become sparse ParseExample outputs, embedded and combined
// (SparseFillEmptyRows, SparseSegmentMean), against the plain-JS reference.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { postJson, startServer, type RunningServer } from '../helpers/server_process.js';
import { estimatorReference, writeEstimatorRegressModel } from '../helpers/sparse_examples.js';

describe(':regress with sparse tf.Example features (real process)', () => {
  let server: RunningServer;
  before(async () => {
    server = await startServer([`--model_name=est`, `--model_base_path=${await writeEstimatorRegressModel()}`, '--num_executors=1']);
    for (
      let i = 0;
      i < 100 && (await (await fetch(server.url('/v1/models/est'))).json()).model_version_status?.[0]?.state !== 'AVAILABLE';
      i++
    ) {
      await new Promise((r) => setTimeout(r, 100));
    }
  });
  after(async () => {
    assert.equal(await server.stop(), 0);
  });

  it('regresses examples with 2, 0 and 3 ids (an example without ids gets the fill id 0)', async () => {
    // Bodies as text: JSON.stringify would write 2.0 as 2, an int64 feature.
    const r = await postJson(
      server.url('/v1/models/est:regress'),
      '{"examples": [{"ids": [1, 3], "x": 2.0}, {"x": -1.0}, {"ids": [4, 4, 2], "x": 0.5}]}',
    );
    assert.equal(r.status, 200, r.text);
    const want = estimatorReference([
      { ids: [1, 3], x: 2 },
      { ids: [], x: -1 },
      { ids: [4, 4, 2], x: 0.5 },
    ]);
    (r.json.results as number[]).forEach((v, i) => assert.ok(Math.abs(v - want[i]) < 1e-5, `example ${i}: ${v} vs ${want[i]}`));
  });

  it("a float list for the int64 feature is refused with TF's text", async () => {
    const r = await postJson(server.url('/v1/models/est:regress'), '{"examples": [{"ids": [1.5], "x": 2.0}]}');
    assert.equal(r.status, 400, r.text);
    assert.equal(r.json.error, "Name: <unknown>, Feature: ids.  Data types don't match. Expected type: int64");
  });
});
