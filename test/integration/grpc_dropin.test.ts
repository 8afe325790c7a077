// gRPC answers that must be TF Serving's, word for word, against the real process through a
// client built from TF Serving's own definitions (grpc_client.ts). Each case names the TF
// Serving (or TensorFlow) source its expected answer is read from. Where REST can reach the
// same message, the case asks REST too.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { MODELS } from '../helpers/paths.js';
import { freePort, getJson, postJson, startServer, waitAvailable, type RunningServer } from '../helpers/server_process.js';
import { call, connect, grpc, type Clients, type Message } from '../helpers/grpc_client.js';

const HP2 = path.join(MODELS, 'saved_model_half_plus_two_cpu');
const HP2_TF2 = path.join(MODELS, 'saved_model_half_plus_two_tf2_cpu');
const HP3 = path.join(MODELS, 'saved_model_half_plus_three');
const TWO_VERSIONS = path.join(MODELS, 'saved_model_half_plus_two_2_versions');

const floats = (xs: number[], shape = [xs.length]) => ({
  dtype: 'DT_FLOAT',
  tensor_shape: { dim: shape.map((size) => ({ size })) },
  float_val: xs,
});
const example = (features: Record<string, number>) => ({
  features: { feature: Object.fromEntries(Object.entries(features).map(([k, v]) => [k, { float_list: { value: [v] } }])) },
});
const examples = (...xs: Record<string, number>[]) => ({ example_list: { examples: xs.map(example) } });

/** Rejects with exactly this gRPC code and details. */
async function rejectsWith(p: Promise<unknown>, code: grpc.status, details: string): Promise<void> {
  await assert.rejects(p, (e: unknown) => {
    const err = e as grpc.ServiceError;
    assert.equal(grpc.status[err.code], grpc.status[code], err.details);
    assert.equal(err.details, details);
    return true;
  });
}

/** A ModelServerConfig; the two-version model serves both versions. */
const config = (models: Array<[string, string]>) => ({
  config: {
    model_config_list: {
      config: models.map(([name, base_path]) => ({
        name,
        base_path,
        model_platform: 'tensorflow',
        ...(base_path === TWO_VERSIONS && { model_version_policy: { all: {} } }),
      })),
    },
  },
});

describe("gRPC answers as TF Serving gives them (real process, a client from TF Serving's definitions)", () => {
  let server: RunningServer;
  let clients: Clients;
  const MODELS_SERVED: Array<[string, string]> = [
    ['hp2', HP2],
    ['tf2', HP2_TF2],
    ['hp3', HP3],
    ['two', TWO_VERSIONS],
  ];

  before(async () => {
    const port = await freePort();
    // The method-name check is left at TF Serving's default (off).
    server = await startServer(
      [
        `--port=${port}`,
        `--model_base_path=${HP2}`,
        '--model_name=hp2',
        '--enable_grpc_healthcheck_service',
        '--num_executors=1',
        '--file_system_poll_wait_seconds=0',
      ],
      { readyPath: '/v1/models/hp2' },
    );
    clients = connect(`127.0.0.1:${port}`);
    await waitAvailable(server, ['hp2']);
    await call(clients.model, 'HandleReloadConfigRequest', config(MODELS_SERVED));
    await waitAvailable(server, ['tf2', 'hp3', 'two']);
    // Both versions of 'two', not just the first to load.
    const deadline = Date.now() + 20_000;
    while (
      (await getJson(server.url('/v1/models/two'))).json.model_version_status.filter((s: Message) => s.state === 'AVAILABLE').length < 2
    ) {
      if (Date.now() > deadline) throw new Error(`both versions of 'two' not AVAILABLE in time:\n${server.logs()}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  });

  after(async () => {
    clients?.close();
    assert.equal(await server?.stop(), 0);
  });

  it('Predict, unknown signature_name: FAILED_PRECONDITION (predict_util.cc)', async () => {
    await rejectsWith(
      call(clients.prediction, 'Predict', { model_spec: { name: 'hp2', signature_name: 'nope' }, inputs: { x: floats([1]) } }),
      grpc.status.FAILED_PRECONDITION,
      'Serving signature key "nope" not found.',
    );
  });

  it('Classify and Regress, unknown signature_name: INVALID_ARGUMENT (classifier.cc, regressor.cc), REST alike', async () => {
    for (const method of ['Classify', 'Regress']) {
      await rejectsWith(
        call(clients.prediction, method, { model_spec: { name: 'tf2', signature_name: 'nope' }, input: examples({ x: 1 }) }),
        grpc.status.INVALID_ARGUMENT,
        'No signature was found with the name: nope',
      );
      const rest = await postJson(server.url(`/v1/models/tf2:${method.toLowerCase()}`), { signature_name: 'nope', examples: [{ x: 1.0 }] });
      assert.equal(rest.status, 400);
      assert.equal(rest.json.error, 'No signature was found with the name: nope');
    }
  });

  it('MultiInference, unknown signature: INVALID_ARGUMENT (multi_inference.cc)', async () => {
    const tasks = [{ model_spec: { name: 'tf2', signature_name: 'nope' }, method_name: 'tensorflow/serving/regress' }];
    await rejectsWith(
      call(clients.prediction, 'MultiInference', { tasks, input: examples({ x: 2 }) }),
      grpc.status.INVALID_ARGUMENT,
      'Requested signature not found in model graph: nope',
    );
  });

  it('output_filter: a name twice is INVALID_ARGUMENT, an unknown one too (predict_util.cc)', async () => {
    const predict = (output_filter: string[]) =>
      call(clients.prediction, 'Predict', { model_spec: { name: 'hp2' }, inputs: { x: floats([1]) }, output_filter });
    await rejectsWith(predict(['y', 'y']), grpc.status.INVALID_ARGUMENT, 'duplicate output tensor alias: y');
    await rejectsWith(
      predict(['z']),
      grpc.status.INVALID_ARGUMENT,
      'output tensor alias not found in signature: z Outputs expected to be in the set {y}.',
    );
    assert.deepEqual((await predict(['y'])).outputs.y.float_val, [2.5]);
  });

  it('a ModelSpec with an empty name: INVALID_ARGUMENT (server_core.cc); GetModelStatus looks it up as any name', async () => {
    const empty = { name: '' };
    const message = 'ModelSpec has no name specified.';
    await rejectsWith(
      call(clients.prediction, 'Predict', { model_spec: empty, inputs: { x: floats([1]) } }),
      grpc.status.INVALID_ARGUMENT,
      message,
    );
    await rejectsWith(
      call(clients.prediction, 'Regress', { model_spec: empty, input: examples({ x: 1 }) }),
      grpc.status.INVALID_ARGUMENT,
      message,
    );
    await rejectsWith(
      call(clients.prediction, 'GetModelMetadata', { model_spec: empty, metadata_field: ['signature_def'] }),
      grpc.status.INVALID_ARGUMENT,
      message,
    );
    // multi_inference_helper.cc resolves tasks(0)'s spec, or an empty one when there is no task.
    await rejectsWith(
      call(clients.prediction, 'MultiInference', { tasks: [], input: examples({ x: 1 }) }),
      grpc.status.INVALID_ARGUMENT,
      message,
    );
    await rejectsWith(
      call(clients.model, 'GetModelStatus', { model_spec: empty }),
      grpc.status.NOT_FOUND,
      'Could not find any versions of model ',
    );
  });

  it("ExampleListWithContext: the context's features are merged into every example, an example's own winning (util.cc)", async () => {
    const input = {
      example_list_with_context: { context: example({ x: 2 }), examples: [example({}), example({ y: 7 }), example({ x: 10 })] },
    };
    const reg = await call(clients.prediction, 'Regress', { model_spec: { name: 'tf2', signature_name: 'regress_x_to_y' }, input });
    assert.deepEqual(
      reg.result.regressions.map((r: Message) => r.value),
      [3, 3, 7],
    );
    const cls = await call(clients.prediction, 'Classify', { model_spec: { name: 'hp2', signature_name: 'classify_x_to_y' }, input });
    assert.deepEqual(
      cls.result.classifications.map((c: Message) => c.classes[0].score),
      [3, 3, 7],
    );
  });

  it('MultiInference on a TF2 SavedModel with the method-name check off, as tensorflow_model_server_test.py runs it', async () => {
    const res = await call(clients.prediction, 'MultiInference', {
      tasks: [
        { model_spec: { name: 'tf2', signature_name: 'regress_x_to_y' }, method_name: 'tensorflow/serving/regress' },
        { model_spec: { name: 'tf2', signature_name: 'classify_x_to_y' }, method_name: 'tensorflow/serving/classify' },
      ],
      input: examples({ x: 2 }),
    });
    assert.equal(res.results.length, 2);
    assert.equal(res.results[0].regression_result.regressions[0].value, 3);
    assert.equal(res.results[1].classification_result.classifications[0].classes[0].score, 3);
    assert.deepEqual(res.results[0].model_spec, { name: 'tf2', version: { value: '123' }, signature_name: 'regress_x_to_y' });
    assert.deepEqual(res.results[1].model_spec, { name: 'tf2', version: { value: '123' }, signature_name: 'classify_x_to_y' });
  });

  it('Health: "", "PredictionService" and "ModelService" are SERVING; package-qualified names are not registered', async () => {
    for (const service of ['', 'PredictionService', 'ModelService'])
      assert.deepEqual(await call(clients.health, 'Check', { service }), { status: 'SERVING' }, service);
    for (const service of ['tensorflow.serving.PredictionService', 'tensorflow.serving.ModelService']) {
      await assert.rejects(
        call(clients.health, 'Check', { service }),
        (e: unknown) => (e as grpc.ServiceError).code === grpc.status.NOT_FOUND,
      );
    }
  });

  it('GetModelStatus ignores a version label, as get_model_status_impl.cc does; REST alike', async () => {
    const all = [
      { version: '124', state: 'AVAILABLE', status: { error_code: 'OK' } },
      { version: '123', state: 'AVAILABLE', status: { error_code: 'OK' } },
    ];
    const byLabel = await call(clients.model, 'GetModelStatus', { model_spec: { name: 'two', version_label: 'no_such_label' } });
    assert.deepEqual(
      byLabel.model_version_status.map((s: Message) => ({ ...s, status: { error_code: s.status.error_code } })),
      all,
    );
    await rejectsWith(
      call(clients.model, 'GetModelStatus', { model_spec: { name: 'nope', version_label: 'stable' } }),
      grpc.status.NOT_FOUND,
      'Could not find any versions of model nope',
    );
    const rest = await getJson(server.url('/v1/models/nope/labels/stable'));
    assert.equal(rest.status, 404);
    assert.equal(rest.json.error, 'Could not find any versions of model nope');
  });

  it('messages: a TensorProto that does not decode is "tensor parsing error: <alias>" alone (GetInputValues)', async () => {
    const bad = { dtype: 'DT_FLOAT', tensor_shape: { dim: [{ size: 2 }] }, tensor_content: Buffer.alloc(3) };
    await rejectsWith(
      call(clients.prediction, 'Predict', { model_spec: { name: 'hp2' }, inputs: { x: bad } }),
      grpc.status.INVALID_ARGUMENT,
      'tensor parsing error: x',
    );
  });

  it("messages: an unknown input alias gets GetInputValues' text, with and without signature defaults", async () => {
    await rejectsWith(
      call(clients.prediction, 'Predict', { model_spec: { name: 'hp2' }, inputs: { z: floats([1]) } }),
      grpc.status.INVALID_ARGUMENT,
      'Signature input alias: x(feed name: x:0) not found in request and no default value provided. Inputs expected to be in the request {z}, or default input alias set: ',
    );
    // The TF2 half_plus_two has a default for x, so z passes the count and is named as invalid.
    await rejectsWith(
      call(clients.prediction, 'Predict', { model_spec: { name: 'tf2' }, inputs: { z: floats([1]) } }),
      grpc.status.INVALID_ARGUMENT,
      'Inputs contains invalid name. Used request inputs: , request input: z',
    );
  });

  it("messages: a feed of the wrong dtype names both as TensorFlow does (function.cc), against the graph's placeholder; REST alike", async () => {
    const str = { dtype: 'DT_STRING', tensor_shape: { dim: [{ size: 1 }] }, string_val: [Buffer.from('a')] };
    await rejectsWith(
      call(clients.prediction, 'Predict', { model_spec: { name: 'hp2' }, inputs: { x: str } }),
      grpc.status.INVALID_ARGUMENT,
      'Expects arg[0] to be float but string is provided',
    );
    // classify_x2_to_y3 takes a float: Classify feeds it serialized Examples (strings).
    await rejectsWith(
      call(clients.prediction, 'Classify', { model_spec: { name: 'tf2', signature_name: 'classify_x2_to_y3' }, input: examples({ x: 1 }) }),
      grpc.status.INVALID_ARGUMENT,
      'Expects arg[0] to be float but string is provided',
    );
    const rest = await postJson(server.url('/v1/models/tf2:classify'), { signature_name: 'classify_x2_to_y3', examples: [{ x: 1.0 }] });
    assert.equal(rest.status, 400);
    assert.equal(rest.json.error, 'Expects arg[0] to be float but string is provided');
    // half_plus_three's regress signature declares DT_FLOAT for a DT_STRING placeholder: TF goes by the graph.
    await rejectsWith(
      call(clients.prediction, 'Predict', {
        model_spec: { name: 'hp3', signature_name: 'tensorflow/serving/regress' },
        inputs: { inputs: floats([1]) },
      }),
      grpc.status.INVALID_ARGUMENT,
      'Expects arg[0] to be string but float is provided',
    );
    const regress = await call(clients.prediction, 'Regress', {
      model_spec: { name: 'hp3', signature_name: 'tensorflow/serving/regress' },
      input: examples({ x: 2 }),
    });
    assert.deepEqual(
      regress.result.regressions.map((r: Message) => r.value),
      [4],
    );
  });

  // Last: it removes models from the config.
  it('a model removed by HandleReloadConfigRequest still lists its versions, END and OK (servable_state_monitor.cc); REST alike', async () => {
    const reloaded = await call(clients.model, 'HandleReloadConfigRequest', config(MODELS_SERVED.filter(([name]) => name !== 'two')));
    assert.deepEqual(reloaded.status, { error_code: 'OK' });
    const status = await call(clients.model, 'GetModelStatus', { model_spec: { name: 'two' } });
    assert.deepEqual(status.model_version_status, [
      { version: '124', state: 'END', status: { error_code: 'OK' } },
      { version: '123', state: 'END', status: { error_code: 'OK' } },
    ]);
    const rest = await getJson(server.url('/v1/models/two'));
    assert.equal(rest.status, 200);
    assert.deepEqual(
      rest.json.model_version_status.map((s: Message) => [s.version, s.state, s.status.error_code]),
      [
        ['124', 'END', 'OK'],
        ['123', 'END', 'OK'],
      ],
    );
    await assert.rejects(
      call(clients.prediction, 'Predict', { model_spec: { name: 'two' }, inputs: { x: floats([1]) } }),
      (e: unknown) => (e as grpc.ServiceError).code === grpc.status.NOT_FOUND,
    );
  });
});

describe('gRPC with --enable_signature_method_name_check (real process)', () => {
  let server: RunningServer;
  let clients: Clients;

  before(async () => {
    const port = await freePort();
    server = await startServer(
      [`--port=${port}`, `--model_base_path=${HP2_TF2}`, '--model_name=tf2', '--enable_signature_method_name_check', '--num_executors=1'],
      { readyPath: '/v1/models/tf2' },
    );
    clients = connect(`127.0.0.1:${port}`);
    await waitAvailable(server, ['tf2']);
  });

  after(async () => {
    clients?.close();
    assert.equal(await server?.stop(), 0);
  });

  it('MultiInference refuses a TF2 signature labelled predict, as Regress does (classifier.cc / regressor.cc)', async () => {
    const task = { model_spec: { name: 'tf2', signature_name: 'regress_x_to_y' }, method_name: 'tensorflow/serving/regress' };
    const expected = 'Expected regression signature method_name to be tensorflow/serving/regress. Was: tensorflow/serving/predict';
    await rejectsWith(
      call(clients.prediction, 'MultiInference', { tasks: [task], input: examples({ x: 2 }) }),
      grpc.status.INVALID_ARGUMENT,
      expected,
    );
    await rejectsWith(
      call(clients.prediction, 'Regress', { model_spec: task.model_spec, input: examples({ x: 2 }) }),
      grpc.status.INVALID_ARGUMENT,
      expected,
    );
  });
});
