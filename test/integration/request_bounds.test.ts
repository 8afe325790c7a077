// Bounds before work, against the real process: every request decoder checks the signature's
// dtype and charges --max_inflight_request_bytes by the declared element count and what each
// element will cost *before* it decodes the elements, so a small message that declares
// millions of strings is refused at once and the server keeps serving everyone else.
//
// The server runs with a 256 MB V8 heap (NODE_OPTIONS) and a 96 MiB budget. 2 Mi empty
// strings are 4 MB of gRPC message, 6 MB of JSON or 8 MB of binary BYTES data, and ~400 MB
// of Uint8Array objects once decoded (192 bytes each, tensor_cost.ts): decoding them first,
// as the decoders did, took this heap past its limit and the process with it. Each big
// request runs beside a small Predict and a status probe, which must be answered.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { MODELS } from '../helpers/paths.js';
import { freePort, startServer, waitAvailable, type RunningServer } from '../helpers/server_process.js';
import { mb, rssBytes, rssSampler } from '../helpers/rss.js';
import { call, connect, grpc, isGrpcError, type Clients } from '../helpers/grpc_client.js';
import { runPythonClient } from '../helpers/python_grpc.js';

const HP2 = path.join(MODELS, 'saved_model_half_plus_two_cpu');
const BUDGET = 96 * 2 ** 20;
const HEAP_MB = 256;
const STRINGS = 2 * 2 ** 20;
const UNKNOWN_KEYS = 20_000;
/** The float input x (serving_default) and the serialized-Example input of classify_x_to_y. */
const FLOAT_INPUT = { signature: 'serving_default', alias: 'x' };
const STRING_INPUT = { signature: 'classify_x_to_y', alias: 'inputs' };

function varint(n: number): Buffer {
  const out: number[] = [];
  for (; n > 127; n = Math.floor(n / 128)) out.push((n & 127) | 128);
  out.push(n);
  return Buffer.from(out);
}
const field = (tag: number, body: Buffer) => Buffer.concat([Buffer.from([tag]), varint(body.length), body]);

/**
 * PredictRequest bytes: model "hp2", `signature`, one input `alias` of dtype DT_STRING and
 * shape [n] holding n empty string_val (built by hand: a client library would make an object
 * per element before sending).
 */
function emptyStringsRequest(signature: string, alias: string, n: number): Buffer {
  const shape = field(18, field(18, Buffer.concat([Buffer.from([8]), varint(n)])));
  const strings = Buffer.alloc(2 * n);
  for (let i = 0; i < n; i++) strings[2 * i] = 66; // string_val (8 << 3 | 2), length 0
  const tensor = Buffer.concat([Buffer.from([8, 7]), shape, strings]); // dtype DT_STRING
  const entry = field(18, Buffer.concat([field(10, Buffer.from(alias)), field(18, tensor)]));
  const spec = field(10, Buffer.concat([field(10, Buffer.from('hp2')), field(26, Buffer.from(signature))]));
  return Buffer.concat([spec, entry]);
}

/** n empty messages as a repeated message field `tag` (2 bytes each). */
function emptyMessages(tag: number, n: number): Buffer {
  const out = Buffer.alloc(2 * n);
  for (let i = 0; i < n; i++) out[2 * i] = tag;
  return out;
}

/** Sends raw request bytes to a PredictionService method; resolves with the status code and details. */
function callRaw(
  clients: Clients,
  message: Buffer,
  method = 'Predict',
  deadlineMs = 30_000,
): Promise<{ code: grpc.status; details: string }> {
  return new Promise((resolve) => {
    clients.prediction.makeUnaryRequest(
      `/tensorflow.serving.PredictionService/${method}`,
      (b: Buffer) => b,
      (b: Buffer) => b,
      message,
      { deadline: new Date(Date.now() + deadlineMs) },
      (err: grpc.ServiceError | null) => resolve(err ? { code: err.code, details: err.details } : { code: grpc.status.OK, details: '' }),
    );
  });
}

const smallPredict = {
  model_spec: { name: 'hp2' },
  inputs: { x: { dtype: 'DT_FLOAT', tensor_shape: { dim: [{ size: 2 }] }, float_val: [1, 2] } },
};

describe('bounds before work: huge declared string tensors (real process, 256 MB heap)', () => {
  let server: RunningServer;
  let clients: Clients;
  let address = '';
  let baseline = 0;
  let sampler: { stop: () => number };

  before(async () => {
    const port = await freePort();
    server = await startServer(
      [`--port=${port}`, `--model_base_path=${HP2}`, '--model_name=hp2', '--num_executors=1', `--max_inflight_request_bytes=${BUDGET}`],
      {
        readyPath: '/v1/models/hp2',
        env: { NODE_OPTIONS: `--max-old-space-size=${HEAP_MB}` },
      },
    );
    await waitAvailable(server, ['hp2']);
    address = `127.0.0.1:${port}`;
    clients = connect(address, { 'grpc.max_send_message_length': -1, 'grpc.max_receive_message_length': -1 });
    await call(clients.prediction, 'Predict', smallPredict);
    baseline = rssBytes(server.proc.pid!);
    sampler = rssSampler(server.proc.pid!);
  });

  after(async () => {
    const peak = sampler?.stop() ?? 0;
    clients?.close();
    console.log(`# request_bounds: RSS ${mb(baseline)} MB at start, peak ${mb(peak)} MB`);
    assert.equal(await server.stop(), 0, `the server survived:\n${server.logs().slice(-2000)}`);
  });

  /** Runs `work` while a small Predict and a status probe go on beside it; both must be answered. */
  async function besideOthers<T>(work: Promise<T>): Promise<T> {
    let done = false;
    const answered: string[] = [];
    const others = (async () => {
      do {
        const [grpcAnswer, status] = await Promise.all([
          call(clients.prediction, 'Predict', smallPredict).then((r) => r.outputs.y.float_val.join(',')),
          fetch(server.url('/v1/models/hp2')).then((r) => r.status),
        ]);
        answered.push(`${grpcAnswer} ${status}`);
        await new Promise((r) => setTimeout(r, 20));
      } while (!done);
    })();
    const result = await work.finally(() => (done = true));
    await others;
    assert.ok(answered.length > 0 && answered.every((a) => a === '2.5,3 200'), `others were answered: ${answered.join('; ')}`);
    return result;
  }

  it("gRPC: 2 Mi empty strings for a float input: TF Serving's dtype error, nothing decoded", async () => {
    const r = await besideOthers(callRaw(clients, emptyStringsRequest(FLOAT_INPUT.signature, FLOAT_INPUT.alias, STRINGS)));
    assert.deepEqual(r, { code: grpc.status.INVALID_ARGUMENT, details: 'Expects arg[0] to be float but string is provided' });
  });

  it('gRPC: 2 Mi empty strings for a string input: RESOURCE_EXHAUSTED before they are decoded', async () => {
    const r = await besideOthers(callRaw(clients, emptyStringsRequest(STRING_INPUT.signature, STRING_INPUT.alias, STRINGS)));
    assert.equal(r.code, grpc.status.RESOURCE_EXHAUSTED, r.details);
    assert.match(r.details, /--max_inflight_request_bytes/);
  });

  it('gRPC Classify with 2 Mi empty Examples: RESOURCE_EXHAUSTED before they are read; MultiInference with 2 Mi tasks: its error at the second', async () => {
    const spec = field(10, Buffer.concat([field(10, Buffer.from('hp2')), field(26, Buffer.from(STRING_INPUT.signature))]));
    // ClassificationRequest {model_spec, input {example_list {examples: {} × n}}}.
    const classify = await besideOthers(
      callRaw(clients, Buffer.concat([spec, field(18, field(10, emptyMessages(10, STRINGS)))]), 'Classify'),
    );
    assert.equal(classify.code, grpc.status.RESOURCE_EXHAUSTED, classify.details);
    assert.match(classify.details, /--max_inflight_request_bytes/);
    // MultiInferenceRequest {tasks: {} × n, input}: the first task names no model.
    const multi = await besideOthers(
      callRaw(clients, Buffer.concat([emptyMessages(10, STRINGS), field(18, field(10, emptyMessages(10, 1)))]), 'MultiInference'),
    );
    assert.equal(multi.code, grpc.status.INVALID_ARGUMENT, multi.details);
  });

  it('Python grpcio: the float-input request gets the same answer', async () => {
    const answer = await besideOthers(
      runPythonClient(
        address,
        `
channel = grpc.insecure_channel(ADDRESS, options=[('grpc.max_send_message_length', -1), ('grpc.max_receive_message_length', -1)])
predict = channel.unary_unary('/tensorflow.serving.PredictionService/Predict', request_serializer=predict_pb2.PredictRequest.SerializeToString, response_deserializer=predict_pb2.PredictResponse.FromString)
request = predict_pb2.PredictRequest()
request.model_spec.name = 'hp2'
tensor = request.inputs['${FLOAT_INPUT.alias}']
tensor.dtype = 7
tensor.tensor_shape.dim.add().size = ${STRINGS}
tensor.string_val.extend([b''] * ${STRINGS})
try:
    predict(request, timeout=30)
    print(json.dumps(['OK', '']))
except grpc.RpcError as e:
    print(json.dumps([e.code().name, e.details()]))
`,
      ),
    );
    assert.deepEqual(answer, ['INVALID_ARGUMENT', 'Expects arg[0] to be float but string is provided']);
  });

  it('REST :predict, 2 Mi "" for a string input: 503 before they are decoded', async () => {
    const body = `{"signature_name": "${STRING_INPUT.signature}", "instances": [${'"",'.repeat(STRINGS - 1)}""]}`;
    const r = await besideOthers(
      fetch(server.url('/v1/models/hp2:predict'), { method: 'POST', body }).then(async (res) => ({
        status: res.status,
        text: await res.text(),
      })),
    );
    assert.equal(r.status, 503, r.text);
    assert.match(JSON.parse(r.text).error, /--max_inflight_request_bytes/);
  });

  it('/v2 JSON BYTES, 2 Mi "": 503 for a string input, the datatype refused for a float one, before decoding', async () => {
    const body = (name: string, signature: string) =>
      `{"parameters": {"signature_name": "${signature}"}, "inputs": [{"name": "${name}", "shape": [${STRINGS}], "datatype": "BYTES", "data": [${'"",'.repeat(STRINGS - 1)}""]}]}`;
    const post = (text: string) =>
      fetch(server.url('/v2/models/hp2/infer'), { method: 'POST', body: text }).then(async (res) => ({
        status: res.status,
        text: await res.text(),
      }));
    const toString = await besideOthers(post(body(STRING_INPUT.alias, STRING_INPUT.signature)));
    assert.equal(toString.status, 503, toString.text);
    assert.match(toString.text, /--max_inflight_request_bytes/);
    const toFloat = await besideOthers(post(body(FLOAT_INPUT.alias, FLOAT_INPUT.signature)));
    assert.equal(toFloat.status, 400, toFloat.text);
    assert.match(toFloat.text, /Input 'x' has datatype BYTES; model 'hp2' expects FP32/);
  });

  it('/v2 binary BYTES, 2 Mi empty elements (8 MB): 503 before they are split', async () => {
    const json = Buffer.from(
      `{"parameters": {"signature_name": "${STRING_INPUT.signature}"}, "inputs": [{"name": "${STRING_INPUT.alias}", "shape": [${STRINGS}], "datatype": "BYTES", "parameters": {"binary_data_size": ${4 * STRINGS}}}]}`,
    );
    const body = Buffer.concat([json, Buffer.alloc(4 * STRINGS)]);
    const r = await besideOthers(
      fetch(server.url('/v2/models/hp2/infer'), {
        method: 'POST',
        body,
        headers: { 'Inference-Header-Content-Length': String(json.length) },
      }).then(async (res) => ({ status: res.status, text: await res.text() })),
    );
    assert.equal(r.status, 503, r.text);
    assert.match(r.text, /--max_inflight_request_bytes/);
  });

  it("gRPC, 20 000 unknown input keys: grpc-js and Python grpcio clients get INVALID_ARGUMENT with TF Serving's message, cut to fit the trailer", async () => {
    const inputs: Record<string, object> = {};
    for (let i = 0; i < UNKNOWN_KEYS; i++)
      inputs[`unknown_${i}`] = { dtype: 'DT_FLOAT', tensor_shape: { dim: [{ size: 1 }] }, float_val: [1] };
    await assert.rejects(
      call(clients.prediction, 'Predict', { model_spec: { name: 'hp2' }, inputs }, 20_000),
      isGrpcError(
        grpc.status.INVALID_ARGUMENT,
        /^input size does not match signature: 20000!=1 len\(\{unknown_0,unknown_1,unknown_10,.*… \(\d+ more characters not sent\)$/s,
      ),
    );
    const answer = await runPythonClient(
      address,
      `
channel = grpc.insecure_channel(ADDRESS, options=[('grpc.max_send_message_length', -1)])
predict = channel.unary_unary('/tensorflow.serving.PredictionService/Predict', request_serializer=predict_pb2.PredictRequest.SerializeToString, response_deserializer=predict_pb2.PredictResponse.FromString)
request = predict_pb2.PredictRequest()
request.model_spec.name = 'hp2'
for i in range(${UNKNOWN_KEYS}):
    tensor = request.inputs['unknown_%d' % i]
    tensor.dtype = 1
    tensor.tensor_shape.dim.add().size = 1
    tensor.float_val.append(1.0)
try:
    predict(request, timeout=20)
    print(json.dumps(['OK', '']))
except grpc.RpcError as e:
    print(json.dumps([e.code().name, e.details()]))
`,
    );
    const [code, details] = answer as [string, string];
    assert.equal(code, 'INVALID_ARGUMENT', details);
    assert.match(details, /^input size does not match signature: 20000!=1 /);
  });
});
