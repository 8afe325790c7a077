// :classify and :regress over HTTP against the real server: TF Serving's documented results on
// the TF1 / TF2 half_plus_two and half_plus_three fixtures, context merging, b64 bytes, and
// errors with their statuses.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { MODELS } from '../helpers/paths.js';
import { postJson, startServer, type RunningServer } from '../helpers/server_process.js';
import { tempDir } from '../helpers/temp.js';

describe(':classify and :regress (real process)', () => {
  let server: RunningServer;
  before(async () => {
    const config = path.join(tempDir(), 'models.config');
    fs.writeFileSync(
      config,
      `model_config_list {
  config { name: "default" base_path: "${path.join(MODELS, 'saved_model_half_plus_two_cpu')}" }
  config { name: "tf2" base_path: "${path.join(MODELS, 'saved_model_half_plus_two_tf2_cpu')}" }
  config { name: "three" base_path: "${path.join(MODELS, 'saved_model_half_plus_three')}" }
}`,
    );
    server = await startServer([`--model_config_file=${config}`, '--num_executors=1']);
    for (const m of ['default', 'tf2', 'three']) {
      for (
        let i = 0;
        i < 100 && (await (await fetch(server.url(`/v1/models/${m}`))).json()).model_version_status?.[0]?.state !== 'AVAILABLE';
        i++
      ) {
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  });
  after(async () => {
    assert.equal(await server.stop(), 0);
  });

  const call = (model: string, verb: string, body: unknown) => postJson(server.url(`/v1/models/${model}:${verb}`), body);

  it("TF Serving's documented results (model server test, REST handler test, api_rest.md)", async () => {
    for (const model of ['default', 'tf2']) {
      // Bodies as text: JSON.stringify would write 2.0 as 2, an int64 feature.
      assert.deepEqual(
        (await call(model, 'classify', '{"signature_name": "classify_x_to_y", "examples": [{"x": 2.0}]}')).json,
        { results: [[['', 3]]] },
        model,
      );
      assert.deepEqual(
        (await call(model, 'regress', '{"signature_name": "regress_x_to_y", "examples": [{"x": 2.0}]}')).json,
        { results: [3] },
        model,
      );
    }
    assert.deepEqual((await call('default', 'regress', '{"signature_name": "regress_x_to_y", "examples": [{"x": 80.0}]}')).json, {
      results: [42],
    });
    assert.deepEqual(
      (await call('default', 'classify', '{"signature_name": "classify_x_to_y", "examples": [{"x": 20.0}, {"x": 10.0}]}')).json,
      { results: [[['', 12]], [['', 7]]] },
    );
    assert.deepEqual((await call('default', 'regress', '{"signature_name": "regress_x_to_y2", "examples": [{"x": 2.0}]}')).json, {
      results: [4],
    });
    const three = await call('three', 'regress', '{"signature_name": "tensorflow/serving/regress", "examples": [{"x": 1.0}, {"x": 2.0}]}');
    assert.equal(three.status, 200);
    assert.deepEqual(three.json, { results: [3.5, 4] });
    assert.equal(three.text, '{\n    "results": [3.5, 4.0]\n}', "TF Serving's layout and number format");
    const classified = await call('default', 'classify', '{"signature_name": "classify_x_to_y", "examples": [{"x": 20.0}, {"x": 10.0}]}');
    assert.equal(classified.text, '{\n    "results": [[["", 12.0]], [["", 7.0]]\n    ]\n}');
  });

  it("context is merged into every example; an example's own feature wins", async () => {
    const r = await call('default', 'regress', '{"signature_name": "regress_x_to_y", "context": {"x": 2.0}, "examples": [{}, {"x": 4.0}]}');
    assert.deepEqual(r.json, { results: [3, 4] });
  });

  it('errors: int64 literal for a float feature, missing feature, bad body, wrong signature, unknown model', async () => {
    const cases: Array<[string, string, string, number, RegExp]> = [
      [
        'default',
        'regress',
        '{"signature_name": "regress_x_to_y", "examples": [{"x": 2}]}',
        400,
        /^Name: <unknown>, Feature: x\.  Data types don't match\. Data type: int64 but expected type: float$/,
      ],
      [
        'default',
        'regress',
        '{"signature_name": "regress_x_to_y", "examples": [{"y": 2.0}]}',
        400,
        /^Name: <unknown>, Feature: x \(data type: float\) is required but could not be found\.$/,
      ],
      [
        'default',
        'regress',
        '{"signature_name": "regress_x_to_y", "examples": [{"x": [1.0, "a"]}]}',
        400,
        /^Unexpected element type in feature: x expecting type: float$/,
      ],
      [
        'default',
        'regress',
        '{"signature_name": "regress_x_to_y"}',
        400,
        /When method is classify, key 'examples' is expected and was not found$/,
      ],
      [
        'default',
        'regress',
        '{"signature_name": "serving_default", "examples": [{"x": 2.0}]}',
        400,
        /^No regression inputs found in SignatureDef: serving_default$/,
      ],
      ['default', 'regress', '{"signature_name": "nope", "examples": [{"x": 2.0}]}', 400, /^No signature was found with the name: nope$/],
      ['nope', 'classify', '{"examples": [{"x": 2.0}]}', 404, /Servable not found for request: Latest\(nope\)/],
    ];
    for (const [model, verb, body, status, re] of cases) {
      const r = await call(model, verb, body);
      assert.equal(r.status, status, `${body}: ${r.text}`);
      assert.match(r.json.error, re, body);
    }
  });
});
