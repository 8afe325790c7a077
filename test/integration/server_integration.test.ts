// The real server process, started with TF Serving's flags on a loopback port, against the
// fixture SavedModels: every /v1 endpoint, version policies and labels, a version added while
// requests run, a corrupt version, and a table of bad requests with status and message.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { FIXTURES, fixtureModel, MODELS } from '../helpers/paths.js';
import { getJson, postJson, startServer, type RunningServer } from '../helpers/server_process.js';
import { until } from '../helpers/http_outcome.js';

const MNIST_P7: Record<number, number> = { 1: 0.995411, 2: 0.992924, 3: 0.993447, 4: 0.99666 };
const mnistBody = fs.readFileSync(path.join(FIXTURES, 'requests', 'mnist_test0_instances_1x28x28.json'), 'utf8');

function versionsDir(root: string, name: string, versions: number[]): string {
  const dir = path.join(root, name);
  fs.mkdirSync(dir, { recursive: true });
  for (const v of versions) fs.symlinkSync(fixtureModel('keras2_mnist_dense_4versions', String(v)), path.join(dir, String(v)));
  return dir;
}

describe('tfgate REST server (real process)', () => {
  let server: RunningServer;
  let root: string;

  before(async () => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'tfgate-it-'));
    const mnist = versionsDir(root, 'mnist', [1, 2]);
    versionsDir(root, 'live', [1]);
    const config = `
# two TF1/TF2 half_plus_two exports, one model with two versions, and one that changes on disk
model_config_list {
  config { name: "default" base_path: "${path.join(MODELS, 'saved_model_half_plus_two_cpu')}" model_platform: "tensorflow" }
  config { name: "tf2" base_path: "${path.join(MODELS, 'saved_model_half_plus_two_tf2_cpu')}" }
  config { name: "half_plus_three" base_path: "${path.join(MODELS, 'saved_model_half_plus_three')}" }
  config {
    name: "mnist"
    base_path: "mnist"
    model_version_policy { all {} }
    version_labels { key: "stable" value: 1 }
    version_labels { key: "canary" value: 2 }
  }
  config { name: "mnist_latest" base_path: "${mnist}" }
  config { name: "mnist_specific" base_path: "${mnist}" model_version_policy { specific { versions: 1 } } }
  config { name: "live" base_path: "live" }
}`;
    fs.writeFileSync(path.join(root, 'models.config'), config);
    server = await startServer([
      `--model_config_file=${path.join(root, 'models.config')}`,
      '--file_system_poll_wait_seconds=1',
      '--num_executors=1',
      '--max_num_load_retries=0',
      `--monitoring_config_file=${path.join(FIXTURES, 'configs', 'monitoring_config.txt')}`,
    ]);
  });

  after(async () => {
    const code = await server?.stop();
    assert.equal(code, 0, 'SIGTERM drains and exits 0');
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('GET status: TF Serving JSON for an available version', async () => {
    const { status, json } = await getJson(server.url('/v1/models/default'));
    assert.equal(status, 200);
    assert.deepEqual(json, {
      model_version_status: [{ version: '123', state: 'AVAILABLE', status: { error_code: 'OK', error_message: '' } }],
    });
    assert.equal((await getJson(server.url('/v1/models/default/versions/123'))).status, 200);
  });

  it('GET metadata equals TF Serving\'s response for half_plus_two served as "default"', async () => {
    const { status, json } = await getJson(server.url('/v1/models/default/metadata'));
    assert.equal(status, 200);
    assert.deepEqual(json, JSON.parse(fs.readFileSync(path.join(FIXTURES, 'configs', 'half_plus_two_model_metadata.json'), 'utf8')));
  });

  it('predict: the README and model-server-test examples, row and columnar', async () => {
    assert.deepEqual((await postJson(server.url('/v1/models/default:predict'), { instances: [1.0, 2.0, 5.0] })).json, {
      predictions: [2.5, 3.0, 4.5],
    });
    assert.deepEqual((await postJson(server.url('/v1/models/default:predict'), { instances: [2.0, 3.0, 4.0] })).json, {
      predictions: [3.0, 3.5, 4.0],
    });
    assert.deepEqual((await postJson(server.url('/v1/models/default:predict'), { inputs: [2.0, 3.0, 4.0] })).json, {
      outputs: [3.0, 3.5, 4.0],
    });
    assert.deepEqual(
      (
        await postJson(server.url('/v1/models/default/versions/123:predict'), {
          instances: [
            [1.0, 2.0],
            [3.0, 4.0],
          ],
        })
      ).json,
      {
        predictions: [
          [2.5, 3.0],
          [3.5, 4.0],
        ],
      },
    );
    assert.deepEqual(
      (await postJson(server.url('/v1/models/default:predict'), { signature_name: 'serving_default', inputs: [3.0, 4.0] })).json,
      { outputs: [3.5, 4.0] },
    );
    assert.deepEqual((await postJson(server.url('/v1/models/half_plus_three:predict'), { instances: [1.0, 2.0, 5.0] })).json, {
      predictions: [3.5, 4.0, 5.5],
    });
  });

  it('predict answers carry Server-Timing with where the time went', async () => {
    const r = await postJson(server.url('/v1/models/default:predict'), { instances: [1.0] });
    const names = (r.headers.get('server-timing') ?? '').split(', ').map((p) => /^(\w+);dur=\d+\.\d+$/.exec(p)?.[1]);
    assert.deepEqual(names, ['parse', 'handoff', 'run', 'handback', 'infer', 'serialise']);
  });

  it("predict: bare NaN / Infinity in the body, as TF Serving's parser accepts", async () => {
    const r = await postJson(server.url('/v1/models/default:predict'), '{"instances": [NaN, Infinity, -Infinity, 0.1]}');
    assert.equal(r.status, 200);
    // TF Serving's RapidJSON PrettyWriter layout, byte for byte.
    assert.equal(r.text, '{\n    "predictions": [NaN, Infinity, -Infinity, 2.05\n    ]\n}');
  });

  it('predict on a TF2 export: fixed-shape input, signature default, non-default signature', async () => {
    assert.deepEqual((await postJson(server.url('/v1/models/tf2:predict'), { inputs: { x: [2.0] } })).json, { outputs: [3.0] });
    // x has a SignatureDef default ([0.0]): omitting it is allowed. The default goes to the
    // executor with every such request (copied, never moved), so it answers the same each time.
    for (let i = 0; i < 3; i++) {
      assert.deepEqual((await postJson(server.url('/v1/models/tf2:predict'), { inputs: {} })).json, { outputs: [2.0] });
      assert.deepEqual((await postJson(server.url('/v1/models/tf2:predict'), { inputs: { x: [4.0] } })).json, { outputs: [4.0] });
    }
    assert.deepEqual((await postJson(server.url('/v1/models/tf2:predict'), { signature_name: 'regress_x2_to_y3', inputs: [2.0] })).json, {
      outputs: [4.0],
    });
  });

  it('version policies and labels pick the version that answers (the weights differ)', async () => {
    const p7 = async (p: string) => {
      const r = await postJson(server.url(p), mnistBody);
      assert.equal(r.status, 200, r.text);
      return r.json.predictions[0][7] as number;
    };
    const near = (a: number, b: number) => Math.abs(a - b) < 1e-4;
    assert.ok(near(await p7('/v1/models/mnist/versions/1:predict'), MNIST_P7[1]));
    assert.ok(near(await p7('/v1/models/mnist/versions/2:predict'), MNIST_P7[2]));
    assert.ok(near(await p7('/v1/models/mnist/labels/stable:predict'), MNIST_P7[1]));
    assert.ok(near(await p7('/v1/models/mnist/labels/canary:predict'), MNIST_P7[2]));
    assert.ok(near(await p7('/v1/models/mnist:predict'), MNIST_P7[2]), 'no version: the latest');
    assert.ok(near(await p7('/v1/models/mnist_latest:predict'), MNIST_P7[2]));
    assert.ok(near(await p7('/v1/models/mnist_specific:predict'), MNIST_P7[1]));
    const all = (await getJson(server.url('/v1/models/mnist'))).json.model_version_status.map((s: { version: string }) => s.version);
    assert.deepEqual(all, ['2', '1']);
    assert.equal((await getJson(server.url('/v1/models/mnist_latest'))).json.model_version_status.length, 1);
    assert.equal((await getJson(server.url('/v1/models/mnist/labels/canary'))).json.model_version_status[0].version, '2');
  });

  it('a new version dropped in while requests run: zero failures, then the new version answers', async () => {
    const url = server.url('/v1/models/live:predict');
    let failures = 0;
    let sawNew = false;
    let stop = false;
    const loop = (async () => {
      while (!stop) {
        const r = await postJson(url, mnistBody);
        if (r.status !== 200) failures++;
        else if (Math.abs(r.json.predictions[0][7] - MNIST_P7[2]) < 1e-4) sawNew = true;
      }
    })();
    await new Promise((r) => setTimeout(r, 300));
    const added = Date.now();
    fs.symlinkSync(fixtureModel('keras2_mnist_dense_4versions', '2'), path.join(root, 'live', '2'));
    while (!sawNew && Date.now() - added < 60000) await new Promise((r) => setTimeout(r, 50));
    await new Promise((r) => setTimeout(r, 300));
    stop = true;
    await loop;
    assert.equal(failures, 0);
    assert.ok(sawNew, 'version 2 answered');
    // Version 1 is unloaded once 2 serves; wait for its END rather than guess how long that takes.
    const states = async () =>
      (await getJson(server.url('/v1/models/live'))).json.model_version_status
        .map((s: { version: string; state: string }) => `${s.version}:${s.state}`)
        .join(' ');
    await until(async () => (await states()) === '2:AVAILABLE 1:END', 'version 1 to end', 30_000).catch(() => {});
    assert.equal(await states(), '2:AVAILABLE 1:END');
  });

  it('a corrupt version: its status shows the error, the previous version keeps answering', async () => {
    const bad = path.join(root, 'live', '3');
    fs.mkdirSync(bad);
    fs.writeFileSync(
      path.join(bad, 'saved_model.pb'),
      fs.readFileSync(path.join(fixtureModel('keras2_mnist_dense_4versions', '3'), 'saved_model.pb')).subarray(0, 1000),
    );
    let v3: { state: string; status: { error_code: string; error_message: string } } | undefined;
    // A bound on the wait, not a timing claim: the failed load ends within seconds on a quiet
    // machine, much later on a busy one.
    for (const until = Date.now() + 60_000; Date.now() < until && v3?.state !== 'END';) {
      await new Promise((r) => setTimeout(r, 100));
      const s = await getJson(server.url('/v1/models/live/versions/3'));
      if (s.status === 200) v3 = s.json.model_version_status[0];
    }
    assert.equal(v3?.state, 'END');
    assert.equal(v3?.status.error_code, 'DATA_LOSS');
    assert.match(v3!.status.error_message, /saved_model\.pb/);
    const r = await postJson(server.url('/v1/models/live:predict'), mnistBody);
    assert.equal(r.status, 200);
    assert.ok(Math.abs(r.json.predictions[0][7] - MNIST_P7[2]) < 1e-4);
  });

  const BAD: Array<{ what: string; method?: string; path: string; body?: string; status: number; error: RegExp }> = [
    { what: 'malformed JSON', path: '/v1/models/default:predict', body: '{"instances": [1.0', status: 400, error: /^JSON Parse error: / },
    { what: 'empty body', path: '/v1/models/default:predict', body: '', status: 400, error: /^JSON Parse error: The document is empty$/ },
    { what: 'not an object', path: '/v1/models/default:predict', body: '[1]', status: 400, error: /Is not object$/ },
    {
      what: 'both instances and inputs',
      path: '/v1/models/default:predict',
      body: '{"instances": [1], "inputs": [1]}',
      status: 400,
      error: /Not formatted correctly expecting only one of 'inputs' or 'instances' keys to exist/,
    },
    {
      what: 'neither instances nor inputs',
      path: '/v1/models/default:predict',
      body: '{"foo": 1}',
      status: 400,
      error: /^Missing 'inputs' or 'instances' key$/,
    },
    {
      what: 'empty instances',
      path: '/v1/models/default:predict',
      body: '{"instances": []}',
      status: 400,
      error: /No values in 'instances' array/,
    },
    {
      what: 'unknown input name',
      path: '/v1/models/default:predict',
      body: '{"instances": [{"z": 1.0}]}',
      status: 400,
      error: /does not have named input: z/,
    },
    {
      what: 'ragged list',
      path: '/v1/models/default:predict',
      body: '{"instances": [[1.0, 2.0], [3.0]]}',
      status: 400,
      error: /Expecting tensor size: 2 but got: 1|Expecting shape/,
    },
    {
      what: 'ragged inside one value',
      path: '/v1/models/default:predict',
      body: '{"inputs": [[1.0, 2.0], [3.0]]}',
      status: 400,
      error: /Encountered list at unexpected size: 1 at level: 1 expected size: 2/,
    },
    {
      what: 'string for a float input',
      path: '/v1/models/default:predict',
      body: '{"instances": ["a"]}',
      status: 400,
      error: /JSON Value: "a" Type: String is not of expected type: float/,
    },
    { what: 'float for an int32 input', path: '/v1/models/mnist:predict', body: '{"instances": [1]}', status: 400, error: /./ },
    {
      what: 'unknown signature',
      path: '/v1/models/default:predict',
      body: '{"signature_name": "nope", "instances": [1.0]}',
      status: 400,
      error: /^Serving signature name: "nope" not found in signature def$/,
    },
    {
      what: 'signature_name not a string',
      path: '/v1/models/default:predict',
      body: '{"signature_name": 1, "instances": [1.0]}',
      status: 400,
      error: /'signature_name' key must be a string value/,
    },
    {
      what: 'unknown model',
      path: '/v1/models/nope:predict',
      body: '{"instances": [1.0]}',
      status: 404,
      error: /^Servable not found for request: Latest\(nope\)$/,
    },
    {
      what: 'unknown version',
      path: '/v1/models/default/versions/7:predict',
      body: '{"instances": [1.0]}',
      status: 404,
      error: /^Servable not found for request: Specific\(default, 7\)$/,
    },
    {
      what: 'unknown label',
      path: '/v1/models/mnist/labels/beta:predict',
      body: '{"instances": [1.0]}',
      status: 400,
      error: /^Unrecognized servable version label: beta$/,
    },
    {
      what: 'unknown verb',
      path: '/v1/models/default:explain',
      body: '{}',
      status: 400,
      error: /^Malformed request: POST \/v1\/models\/default:explain$/,
    },
    {
      what: 'GET on :predict',
      method: 'GET',
      path: '/v1/models/default:predict',
      status: 400,
      error: /^Malformed request: GET \/v1\/models\/default:predict$/,
    },
    {
      what: 'status of an unknown model',
      method: 'GET',
      path: '/v1/models/nope',
      status: 404,
      error: /^Could not find any versions of model nope$/,
    },
    {
      what: 'status of an unknown version',
      method: 'GET',
      path: '/v1/models/default/versions/9',
      status: 404,
      error: /^Could not find version 9 of model default$/,
    },
    {
      what: 'classify on a signature without classification outputs',
      path: '/v1/models/default:classify',
      body: '{"signature_name": "regress_x_to_y", "examples": [{"x": 2.0}]}',
      status: 400,
      error: /^Expected classification signature outputs to contain at least one of classes or scores\. Signature was: regress_x_to_y$/,
    },
    {
      what: 'a string that is no tf.Example, fed to a signature that parses them',
      path: '/v1/models/default:predict',
      body: '{"signature_name": "classify_x_to_y", "instances": ["a"]}',
      status: 400,
      error: /^Could not parse example input, value: 'a'$/,
    },
  ];
  for (const c of BAD) {
    it(`bad request: ${c.what} → ${c.status}`, async () => {
      const res = await fetch(server.url(c.path), { method: c.method ?? 'POST', body: c.method === 'GET' ? undefined : c.body });
      const json = (await res.json()) as { error: string };
      assert.equal(res.status, c.status, json.error);
      assert.match(json.error, c.error);
    });
  }

  it("Prometheus metrics at the monitoring config's path, with TF Serving's names and labels", async () => {
    const res = await fetch(server.url('/monitoring/prometheus/metrics'));
    assert.equal(res.status, 200);
    const text = await res.text();
    assert.match(text, /^:tensorflow:serving:request_count\{model_name="default",status="OK"\} \d+$/m);
    // A model the server does not know is counted under one label, whatever name was sent.
    assert.match(text, /^:tensorflow:serving:request_count\{model_name="_unknown_",status="NOT_FOUND"\} \d+$/m);
    assert.doesNotMatch(text, /model_name="nope"/);
    assert.match(text, /^:tensorflow:serving:request_latency_bucket\{le="10",model_name="default",API="predict",entrypoint="REST"\} \d+$/m);
    assert.match(text, /^:tensorflow:serving:runtime_latency_count\{model_name="default",API="Predict",runtime="TF1"\} \d+$/m);
    assert.match(text, /^tfgate_model_version_loads_total\{model_name="live",outcome="failed"\} 1$/m);
    assert.match(text, /^nodejs_eventloop_lag_seconds \d/m);
  });

  it('still serves everyone after all of that', async () => {
    assert.deepEqual((await postJson(server.url('/v1/models/default:predict'), { instances: [1.0] })).json, { predictions: [2.5] });
  });
});
