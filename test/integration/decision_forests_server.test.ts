// A TF Decision Forests SavedModel served by the real server as TF Serving serves it
// (TF-DF's documentation/tensorflow_serving.md): the corpus model tfdf_adult_rf under the
// default runtime (ONNX Runtime refuses TF-DF's ops, the embedded runtime serves the
// signature), asked over REST and gRPC for the three rows TF-DF's keras_test.py states.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { freePort, postJson, startServer, waitAvailable, type RunningServer } from '../helpers/server_process.js';
import { call, connect, type Clients } from '../helpers/grpc_client.js';
import { REPO_ROOT } from '../helpers/paths.js';

const ADULT_RF = path.join(REPO_ROOT, 'test', 'corpus', 'models', 'tfdf_adult_rf');
/** The first three rows of Yggdrasil's adult_test.csv; the second has no native_country (TF-DF feeds ""). */
const INSTANCES = [
  {
    age: 39,
    workclass: 'State-gov',
    fnlwgt: 77516,
    education: 'Bachelors',
    education_num: 13,
    marital_status: 'Never-married',
    occupation: 'Adm-clerical',
    relationship: 'Not-in-family',
    race: 'White',
    sex: 'Male',
    capital_gain: 2174,
    capital_loss: 0,
    hours_per_week: 40,
    native_country: 'United-States',
  },
  {
    age: 40,
    workclass: 'Private',
    fnlwgt: 121772,
    education: 'Assoc-voc',
    education_num: 11,
    marital_status: 'Married-civ-spouse',
    occupation: 'Craft-repair',
    relationship: 'Husband',
    race: 'Asian-Pac-Islander',
    sex: 'Male',
    capital_gain: 0,
    capital_loss: 0,
    hours_per_week: 40,
    native_country: '',
  },
  {
    age: 40,
    workclass: 'Private',
    fnlwgt: 193524,
    education: 'Doctorate',
    education_num: 16,
    marital_status: 'Married-civ-spouse',
    occupation: 'Prof-specialty',
    relationship: 'Husband',
    race: 'White',
    sex: 'Male',
    capital_gain: 0,
    capital_loss: 0,
    hours_per_week: 60,
    native_country: 'United-States',
  },
];
/** keras_test.py test_golden_model_gbt (assertNear 1e-5). */
const STATED = [0.13323984, 0.47678572, 0.81846154];

/** The rows as gRPC Predict inputs: int64 and string TensorProtos of shape [3]. */
function tensorProtos(): Record<string, object> {
  const enc = (s: string) => new TextEncoder().encode(s);
  return Object.fromEntries(
    Object.keys(INSTANCES[0]).map((k) => {
      const column = INSTANCES.map((r) => r[k as keyof (typeof INSTANCES)[0]]);
      const shape = { dim: [{ size: column.length }] };
      const tensor =
        typeof column[0] === 'number'
          ? { dtype: 'DT_INT64', tensor_shape: shape, int64_val: column.map(String) }
          : { dtype: 'DT_STRING', tensor_shape: shape, string_val: column.map((v) => enc(String(v))) };
      return [k, tensor];
    }),
  );
}

function assertStated(values: number[], how: string): void {
  assert.equal(values.length, 3, how);
  values.forEach((v, i) => assert.ok(Math.abs(v - STATED[i]) <= 1e-5, `${how} row ${i}: ${v}, stated ${STATED[i]}`));
}

describe('a TF-DF model served end to end (real process)', () => {
  let server: RunningServer;
  let clients: Clients;

  before(async () => {
    const grpcPort = await freePort();
    server = await startServer([`--port=${grpcPort}`, '--model_name=adult', `--model_base_path=${ADULT_RF}`, '--num_executors=1']);
    await waitAvailable(server, ['adult'], 60_000);
    clients = connect(`127.0.0.1:${grpcPort}`);
  });

  after(async () => {
    clients?.close();
    await server?.stop();
  });

  it('REST :predict (instances, as TF-DF’s TF Serving guide sends them) answers the stated probabilities', async () => {
    const res = await postJson(server.url('/v1/models/adult:predict'), { instances: INSTANCES });
    assert.equal(res.status, 200, res.text);
    const predictions = res.json.predictions as number[][];
    assert.ok(
      predictions.every((p) => p.length === 1),
      res.text,
    );
    assertStated(
      predictions.map((p) => p[0]),
      'REST',
    );
  });

  it('gRPC Predict answers the same', async () => {
    const res = await call(clients.prediction, 'Predict', { model_spec: { name: 'adult' }, inputs: tensorProtos() });
    const out = res.outputs.output_1;
    assert.deepEqual(
      out.tensor_shape.dim.map((d: { size: string }) => Number(d.size)),
      [3, 1],
    );
    const values: number[] = out.float_val?.length ? out.float_val : [...new Float32Array(new Uint8Array(out.tensor_content).buffer)];
    assertStated(values, 'gRPC');
  });

  it('runs it on the embedded runtime and says why', () => {
    assert.match(
      server.logs(),
      /signature 'serving_default' runs on wasm \(not ONNX Runtime: [^\n]*SimpleMLCreateModelResource/,
      server.logs(),
    );
  });
});
