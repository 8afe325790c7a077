// TF Serving's gRPC API against the real server process, through a client generated the way
// TF Serving users generate theirs (grpc_client.ts): Predict with tensor_content and with
// typed values, Classify / Regress / MultiInference, GetModelMetadata compared with TF
// Serving's own answers, GetModelStatus, HandleReloadConfigRequest under load, Health,
// and the errors (NOT_FOUND, INVALID_ARGUMENT, UNAVAILABLE, DEADLINE_EXCEEDED).
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import protobuf from 'protobufjs';
import { FIXTURES, MODELS } from '../helpers/paths.js';
import { freePort, startServer, waitAvailable, type RunningServer } from '../helpers/server_process.js';
import { tempDir } from '../helpers/temp.js';
import { writeQueueingConvModel } from '../helpers/queueing_model.js';
import { call, connect, grpc, isGrpcError, CLIENT_PROTOS, type Clients, type Message } from '../helpers/grpc_client.js';

const HP2 = path.join(MODELS, 'saved_model_half_plus_two_cpu');
const HP2_TF2 = path.join(MODELS, 'saved_model_half_plus_two_tf2_cpu');
const HW = 48;

const floatBytes = (xs: number[]) => Buffer.from(Float32Array.from(xs).buffer);
const floatsOf = (t: Message): number[] =>
  t.float_val?.length ? t.float_val : Array.from(new Float32Array(new Uint8Array(t.tensor_content).buffer));
const shapeOf = (t: Message) => (t.tensor_shape?.dim ?? []).map((d: Message) => Number(d.size));
const tensor = (shape: number[], xs: number[], content: boolean) => ({
  dtype: 'DT_FLOAT',
  tensor_shape: { dim: shape.map((size) => ({ size })) },
  ...(content ? { tensor_content: floatBytes(xs) } : { float_val: xs }),
});
const example = (x: number) => ({ features: { feature: { x: { float_list: { value: [x] } } } } });

describe('gRPC API (real process)', () => {
  let server: RunningServer;
  let clients: Clients;
  let root: string;
  let convRequest: Message;

  before(async () => {
    root = tempDir();
    // Four times the default filters' work: a run outlasts the decoding of the next requests by far.
    await writeQueueingConvModel(path.join(root, 'conv', '1'), HW, 3, [128, 256]);
    const convInput = Array.from({ length: HW * HW }, (_, i) => (i % 7) / 7);
    convRequest = {
      model_spec: { name: 'conv' },
      inputs: {
        images: {
          dtype: 'DT_FLOAT',
          tensor_shape: { dim: [{ size: 1 }, { size: HW }, { size: HW }, { size: 1 }] },
          tensor_content: floatBytes(convInput),
        },
      },
    };
    // The conv model's queue holds one batch of one request: easy to fill.
    fs.writeFileSync(
      path.join(root, 'tfgate.yaml'),
      `model_config_list:
  config:
    - {name: hp2, base_path: ${HP2}}
    - {name: hp2_tf2, base_path: ${HP2_TF2}}
    - {name: saved_model_half_plus_two_2_versions, base_path: ${path.join(MODELS, 'saved_model_half_plus_two_2_versions')}, model_version_policy: {all: {}}}
    - name: conv
      base_path: ${path.join(root, 'conv')}
      batching: {max_batch_size: 1, batch_timeout_micros: 0, max_enqueued_batches: 1}
batching:
  num_batch_threads: 1
`,
    );
    const port = await freePort();
    server = await startServer(
      [
        `--port=${port}`,
        `--config=${path.join(root, 'tfgate.yaml')}`,
        '--enable_grpc_healthcheck_service',
        '--num_executors=1',
        '--enable_batching',
        `--monitoring_config_file=${path.join(FIXTURES, 'configs', 'monitoring_config.txt')}`,
      ],
      { readyPath: '/v1/models/conv' },
    );
    clients = connect(`127.0.0.1:${port}`);
    await waitAvailable(server, ['hp2', 'hp2_tf2', 'conv', 'saved_model_half_plus_two_2_versions']);
  });

  after(async () => {
    clients?.close();
    assert.equal(await server?.stop(), 0);
  });

  it("logs where gRPC listens, in TF Serving's words", () => {
    assert.match(server.logs(), /Running gRPC ModelServer at 0\.0\.0\.0:\d+ \.\.\./);
  });

  for (const [model, label] of [
    ['hp2', 'TF1'],
    ['hp2_tf2', 'TF2'],
  ]) {
    for (const content of [true, false]) {
      for (const shape of [[1], [1, 1]]) {
        it(`Predict on the ${label} half_plus_two with ${content ? 'tensor_content' : 'float_val'}, shape [${shape}]`, async () => {
          const res = await call(clients.prediction, 'Predict', {
            model_spec: { name: model },
            inputs: { x: tensor(shape, [3], content) },
          });
          assert.deepEqual(floatsOf(res.outputs.y), [3.5]);
          assert.deepEqual(shapeOf(res.outputs.y), shape);
          assert.equal(res.outputs.y.dtype, 'DT_FLOAT');
          assert.deepEqual(res.model_spec, { name: model, version: { value: '123' }, signature_name: 'serving_default' });
        });
      }
    }
  }

  it('Predict reads a large tensor_content wherever it lies in the message (each offset mod 4 in what gRPC receives)', async () => {
    // tensor_content on a 4-byte boundary of the received buffer reaches the model as a view
    // of the message; elsewhere as a copy. The message's layout moves it: the signature name
    // (17 bytes) by one, each length of the entry, the TensorProto and tensor_content that
    // passes 16 KB (a 3-byte varint) by one more. One row of n (batches hold up to 1000 rows).
    const pb = new protobuf.Root();
    pb.resolvePath = (_o, t) => (t.startsWith('google/protobuf/') ? t : path.join(CLIENT_PROTOS, t));
    pb.loadSync('prediction_service.proto', { keepCase: true });
    const PredictRequest = pb.lookupType('tensorflow.serving.PredictRequest');
    const offsets = new Set<number>();
    for (const n of [3000, 4094, 5000]) {
      for (const signature_name of [undefined, 'serving_default']) {
        const xs = Array.from({ length: n }, (_, i) => (i % 1000) - 499.75);
        const request = { model_spec: { name: 'hp2', signature_name }, inputs: { x: tensor([1, n], xs, true) } };
        // gRPC puts a 5-byte header before the message it receives.
        offsets.add((5 + Buffer.from(PredictRequest.encode(PredictRequest.fromObject(request)).finish()).indexOf(floatBytes(xs))) % 4);
        const res = await call(clients.prediction, 'Predict', request);
        assert.deepEqual(
          floatsOf(res.outputs.y),
          xs.map((x) => x / 2 + 2),
        );
      }
    }
    assert.equal(offsets.size, 4, 'every offset mod 4 sent');
  });

  it("Predict answers with typed *_val fields (TF Serving's default), a batch of 3, and one float_val filling the shape", async () => {
    const res = await call(clients.prediction, 'Predict', {
      model_spec: { name: 'hp2', version: { value: 123 }, signature_name: 'serving_default' },
      inputs: { x: { dtype: 'DT_FLOAT', tensor_shape: { dim: [{ size: 3 }, { size: 1 }] }, float_val: [2] } },
    });
    assert.deepEqual(res.outputs.y.float_val, [3, 3, 3]);
    assert.equal(res.outputs.y.tensor_content, undefined);
  });

  it('Predict honours output_filter and signature_name', async () => {
    const res = await call(clients.prediction, 'Predict', {
      model_spec: { name: 'hp2', signature_name: 'regress_x2_to_y3' },
      inputs: { inputs: tensor([1, 1], [4], false) },
      output_filter: ['outputs'],
    });
    assert.deepEqual(Object.keys(res.outputs), ['outputs']);
    assert.deepEqual(res.outputs.outputs.float_val, [5]);
    assert.equal(res.model_spec.signature_name, 'regress_x2_to_y3');
  });

  it('Classify and Regress on half_plus_two (tf.Example inputs, with and without context)', async () => {
    const reg = await call(clients.prediction, 'Regress', {
      model_spec: { name: 'hp2', signature_name: 'regress_x_to_y' },
      input: { example_list: { examples: [example(1), example(2)] } },
    });
    assert.deepEqual(
      reg.result.regressions.map((r: Message) => r.value),
      [2.5, 3],
    );
    assert.deepEqual(reg.model_spec, { name: 'hp2', version: { value: '123' }, signature_name: 'regress_x_to_y' });
    const cls = await call(clients.prediction, 'Classify', {
      model_spec: { name: 'hp2', signature_name: 'classify_x_to_y' },
      input: { example_list_with_context: { examples: [{}, example(4)], context: example(6) } },
    });
    // The context's x for the first example, the example's own x for the second.
    assert.deepEqual(
      cls.result.classifications.map((c: Message) => c.classes.map((k: Message) => k.score)),
      [[5], [4]],
    );
  });

  it('MultiInference runs classify and regress tasks over one input', async () => {
    const res = await call(clients.prediction, 'MultiInference', {
      tasks: [
        { model_spec: { name: 'hp2', signature_name: 'classify_x_to_y' }, method_name: 'tensorflow/serving/classify' },
        { model_spec: { name: 'hp2', signature_name: 'regress_x_to_y2' }, method_name: 'tensorflow/serving/regress' },
      ],
      input: { example_list: { examples: [example(2)] } },
    });
    assert.equal(res.results.length, 2);
    assert.deepEqual(res.results[0].classification_result.classifications[0].classes[0].score, 3);
    assert.deepEqual(res.results[1].regression_result.regressions[0].value, 4);
    await assert.rejects(
      call(clients.prediction, 'MultiInference', {
        tasks: [
          { model_spec: { name: 'hp2' }, method_name: 'tensorflow/serving/regress' },
          { model_spec: { name: 'hp2_tf2' }, method_name: 'tensorflow/serving/regress' },
        ],
        input: { example_list: { examples: [example(2)] } },
      }),
      isGrpcError(grpc.status.INVALID_ARGUMENT, /^All ModelSpecs in a MultiInferenceRequest must access the same model name\.$/),
    );
    await assert.rejects(
      call(clients.prediction, 'MultiInference', {
        tasks: [{ model_spec: { name: 'hp2' }, method_name: 'tensorflow/serving/predict' }],
        input: { example_list: { examples: [example(2)] } },
      }),
      isGrpcError(grpc.status.UNIMPLEMENTED, /^Unsupported signature method_name: tensorflow\/serving\/predict$/),
    );
  });

  it("GetModelMetadata equals TF Serving's own answer for the same model", async () => {
    const res = await call(clients.prediction, 'GetModelMetadata', { model_spec: { name: 'hp2' }, metadata_field: ['signature_def'] });
    const any = res.metadata.signature_def;
    assert.equal(any.type_url, 'type.googleapis.com/tensorflow.serving.SignatureDefMap');
    // Decode the Any as a client would, with the client's .proto files (snake_case, protobuf JSON shapes).
    const pb = new protobuf.Root();
    pb.resolvePath = (_o, t) => (t.startsWith('google/protobuf/') ? t : path.join(CLIENT_PROTOS, t));
    pb.loadSync('prediction_service.proto', { keepCase: true });
    const SignatureDefMap = pb.lookupType('tensorflow.serving.SignatureDefMap');
    const decoded = SignatureDefMap.toObject(SignatureDefMap.decode(any.value), {
      longs: String,
      enums: String,
      defaults: true,
      oneofs: false,
    });
    const expected = JSON.parse(fs.readFileSync(path.join(FIXTURES, 'configs', 'half_plus_two_model_metadata.json'), 'utf8'));
    assert.deepEqual(withoutNulls(decoded), expected.metadata.signature_def);
    assert.deepEqual(
      res.model_spec,
      { name: 'hp2', version: { value: '123' }, signature_name: '' },
      'as TF Serving: the signature name is empty',
    );
    // The two-version model, asked for the version TF Serving's answer was recorded from.
    const expectedTwo = JSON.parse(
      fs.readFileSync(path.join(FIXTURES, 'configs', 'saved_model_half_plus_two_2_versions_metadata.json'), 'utf8'),
    );
    const two = await call(clients.prediction, 'GetModelMetadata', {
      model_spec: { name: 'saved_model_half_plus_two_2_versions', version: { value: expectedTwo.model_spec.version } },
      metadata_field: ['signature_def'],
    });
    assert.deepEqual(
      withoutNulls(
        SignatureDefMap.toObject(SignatureDefMap.decode(two.metadata.signature_def.value), {
          longs: String,
          enums: String,
          defaults: true,
          oneofs: false,
        }),
      ),
      expectedTwo.metadata.signature_def,
    );
    assert.equal(two.model_spec.version.value, expectedTwo.model_spec.version);
    await assert.rejects(
      call(clients.prediction, 'GetModelMetadata', { model_spec: { name: 'hp2' } }),
      isGrpcError(grpc.status.INVALID_ARGUMENT, /^GetModelMetadataRequest must specify at least one metadata_field$/),
    );
    await assert.rejects(
      call(clients.prediction, 'GetModelMetadata', { model_spec: { name: 'hp2' }, metadata_field: ['graph'] }),
      isGrpcError(grpc.status.INVALID_ARGUMENT, /^Metadata field graph is not supported$/),
    );
  });

  it('GetModelStatus, and Health for the server and per model', async () => {
    const res = await call(clients.model, 'GetModelStatus', { model_spec: { name: 'hp2' } });
    assert.deepEqual(res.model_version_status, [{ version: '123', state: 'AVAILABLE', status: { error_code: 'OK' } }]);
    await assert.rejects(
      call(clients.model, 'GetModelStatus', { model_spec: { name: 'nope' } }),
      isGrpcError(grpc.status.NOT_FOUND, /nope/),
    );
    assert.deepEqual(await call(clients.health, 'Check', { service: '' }), { status: 'SERVING' });
    assert.deepEqual(await call(clients.health, 'Check', { service: 'hp2' }), { status: 'SERVING' });
    await assert.rejects(call(clients.health, 'Check', { service: 'nope' }), isGrpcError(grpc.status.NOT_FOUND, /nope/));
  });

  it('errors: unknown model NOT_FOUND, bad tensors INVALID_ARGUMENT, missing ModelSpec', async () => {
    await assert.rejects(
      call(clients.prediction, 'Predict', { model_spec: { name: 'nope' }, inputs: { x: tensor([1], [1], false) } }),
      isGrpcError(grpc.status.NOT_FOUND, /nope/),
    );
    await assert.rejects(
      call(clients.prediction, 'Predict', {
        model_spec: { name: 'hp2' },
        inputs: { x: { dtype: 'DT_FLOAT', tensor_shape: { dim: [{ size: 2 }] }, tensor_content: Buffer.alloc(3) } },
      }),
      isGrpcError(grpc.status.INVALID_ARGUMENT, /^tensor parsing error: x$/),
    );
    await assert.rejects(
      call(clients.prediction, 'Predict', {
        model_spec: { name: 'hp2' },
        inputs: { x: { dtype: 'DT_STRING', tensor_shape: { dim: [{ size: 1 }] }, string_val: [Buffer.from('a')] } },
      }),
      isGrpcError(grpc.status.INVALID_ARGUMENT, /^Expects arg\[0\] to be float but string is provided$/),
    );
    await assert.rejects(
      call(clients.prediction, 'Predict', { model_spec: { name: 'hp2' }, inputs: { z: tensor([1], [1], false) } }),
      isGrpcError(
        grpc.status.INVALID_ARGUMENT,
        /^Signature input alias: x\(feed name: x:0\) not found in request and no default value provided\. Inputs expected to be in the request \{z\}, or default input alias set: $/,
      ),
    );
    await assert.rejects(
      call(clients.prediction, 'Predict', { inputs: { x: tensor([1], [1], false) } }),
      isGrpcError(grpc.status.INVALID_ARGUMENT, /^Missing ModelSpec$/),
    );
  });

  it("queue full: UNAVAILABLE with TF Serving's text; a deadline that passes in the queue: DEADLINE_EXCEEDED, not run", async () => {
    const answers = await Promise.allSettled(Array.from({ length: 12 }, () => call(clients.prediction, 'Predict', convRequest)));
    const refused = answers.filter((a) => a.status === 'rejected').map((a) => (a as PromiseRejectedResult).reason as grpc.ServiceError);
    assert.ok(refused.length > 0, 'some found the queue full');
    assert.ok(
      refused.every((e) => e.code === grpc.status.UNAVAILABLE),
      refused.map((e) => e.details).join('\n'),
    );
    assert.ok(
      answers.some((a) => a.status === 'fulfilled'),
      'some were served',
    );
    for (const e of refused) {
      assert.equal(e.code, grpc.status.UNAVAILABLE, e.details);
      assert.match(
        e.details,
        /^The batch scheduling queue to which this task was submitted is full; currently 1 batches enqueued and max_enqueued_batches is 1$/,
      );
    }
    const convBatches = async () =>
      Number(
        /^tfgate_batch_size_count\{model_name="conv"\} (\d+)$/m.exec(
          await (await fetch(server.url('/monitoring/prometheus/metrics'))).text(),
        )?.[1] ?? 0,
      );
    const batchesBefore = await convBatches();
    // One conv request occupies the executor; the next waits in the queue past its 1 ms deadline.
    // Sent back to back on one channel, so the server takes them in this order and the conv run
    // has barely begun when the deadline starts; a pause here let the run finish first at times.
    const running = call(clients.prediction, 'Predict', convRequest);
    const late = call(clients.prediction, 'Predict', { model_spec: { name: 'hp2' }, inputs: { x: tensor([1], [1], false) } }, 30_000);
    const expired = call(clients.prediction, 'Predict', convRequest, 1);
    await assert.rejects(expired, (e: unknown) => (e as grpc.ServiceError).code === grpc.status.DEADLINE_EXCEEDED);
    await running;
    await late;
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(await convBatches(), batchesBefore + 1, 'the expired request never ran');
  });

  it('HandleReloadConfigRequest adds and removes a model while Predict calls run, with zero failures', async () => {
    let running = true;
    const failures: string[] = [];
    let served = 0;
    const loop = async () => {
      while (running) {
        try {
          const res = await call(clients.prediction, 'Predict', { model_spec: { name: 'hp2' }, inputs: { x: tensor([1], [2], false) } });
          if (res.outputs.y.float_val[0] !== 3) failures.push(JSON.stringify(res));
          served++;
        } catch (e) {
          failures.push((e as grpc.ServiceError).details);
        }
      }
    };
    const loops = [loop(), loop(), loop()];
    const config = (names: string[]) => ({
      config: {
        model_config_list: {
          config: names.map((name) => ({
            name,
            base_path: name === 'added' ? HP2_TF2 : name === 'hp2_tf2' ? HP2_TF2 : name === 'conv' ? path.join(root, 'conv') : HP2,
            model_platform: 'tensorflow',
          })),
        },
      },
    });
    const added = await call(clients.model, 'HandleReloadConfigRequest', config(['hp2', 'hp2_tf2', 'conv', 'added']));
    assert.deepEqual(added.status, { error_code: 'OK' });
    const res = await call(clients.prediction, 'Predict', { model_spec: { name: 'added' }, inputs: { x: tensor([1], [1], false) } });
    assert.deepEqual(res.outputs.y.float_val, [2.5]);
    const removed = await call(clients.model, 'HandleReloadConfigRequest', config(['hp2', 'conv']));
    assert.deepEqual(removed.status, { error_code: 'OK' });
    await assert.rejects(
      call(clients.prediction, 'Predict', { model_spec: { name: 'added' }, inputs: { x: tensor([1], [1], false) } }),
      isGrpcError(grpc.status.NOT_FOUND, /added/),
    );
    await assert.rejects(
      call(clients.model, 'HandleReloadConfigRequest', { config: { model_config_list: { config: [{ name: 'x', base_path: '' }] } } }),
      isGrpcError(grpc.status.INVALID_ARGUMENT, /absolute path or URI/),
    );
    await assert.rejects(
      call(clients.model, 'HandleReloadConfigRequest', { config: {} }),
      isGrpcError(grpc.status.INVALID_ARGUMENT, /Only ModelConfigList is currently supported/),
    );
    running = false;
    await Promise.all(loops);
    assert.deepEqual(failures, []);
    assert.ok(served > 20, `served ${served}`);
  });
});

/** protobufjs with defaults:true writes null for unset messages; protobuf JSON leaves them out. */
function withoutNulls(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(withoutNulls);
  if (v && typeof v === 'object' && !(v instanceof Uint8Array))
    return Object.fromEntries(
      Object.entries(v)
        .filter(([, x]) => x !== null)
        .map(([k, x]) => [k, withoutNulls(x)]),
    );
  return v;
}

describe('gRPC on a Unix socket, with channel arguments (real process)', () => {
  let server: RunningServer;
  let clients: Clients;
  let socket: string;

  before(async () => {
    socket = path.join(tempDir(), 'tfgate.sock');
    server = await startServer(
      [
        '--port=0',
        `--grpc_socket_path=${socket}`,
        `--model_base_path=${HP2}`,
        '--model_name=hp2',
        '--grpc_channel_arguments=grpc.max_receive_message_length=4096',
      ],
      { readyPath: '/v1/models/hp2' },
    );
    clients = connect(`unix:${socket}`);
    await waitAvailable(server, ['hp2']);
  });

  after(async () => {
    clients?.close();
    assert.equal(await server?.stop(), 0);
  });

  it('serves Predict on the socket, and refuses a message over grpc.max_receive_message_length with RESOURCE_EXHAUSTED', async () => {
    assert.match(server.logs(), new RegExp(`Running gRPC ModelServer at unix:${socket.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}`));
    const res = await call(clients.prediction, 'Predict', { model_spec: { name: 'hp2' }, inputs: { x: tensor([2, 1], [0, 2], true) } });
    assert.deepEqual(floatsOf(res.outputs.y), [2, 3]);
    const big = Array.from({ length: 2048 }, (_, i) => i);
    await assert.rejects(
      call(clients.prediction, 'Predict', { model_spec: { name: 'hp2' }, inputs: { x: tensor([2048, 1], big, true) } }),
      (e: unknown) => (e as grpc.ServiceError).code === grpc.status.RESOURCE_EXHAUSTED,
    );
  });
});
