// Request logging end to end (real processes): a model's logging_config makes REST and gRPC
// calls into PredictionLog records; the log, given to a second server as its model's warmup
// file, replays there, and each logged request gets the logged answer again. A log disk that
// never answers (a FIFO nobody reads) costs records, counted, and no request waits for it.
// The second server's scrape is then checked against TF Serving's metric list.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MODELS } from '../helpers/paths.js';
import { freePort, postJson, startServer, waitAvailable, type RunningServer } from '../helpers/server_process.js';
import { call, connect, type Clients, type Message } from '../helpers/grpc_client.js';
import { tempDir } from '../helpers/temp.js';
import { logFiles, readPredictionLogs } from '../helpers/prediction_log_reader.js';

const HP2 = path.join(MODELS, 'saved_model_half_plus_two_cpu');
const METRICS_PATH = '/monitoring/prometheus/metrics';
const CLASSIFY = 'tensorflow/serving/classify';
const REGRESS = 'tensorflow/serving/regress';

const floats = (xs: number[]) => ({ dtype: 'DT_FLOAT', tensor_shape: { dim: [{ size: xs.length }] }, float_val: xs });
const examples = (...xs: number[]) => ({
  example_list: { examples: xs.map((x) => ({ features: { feature: { x: { float_list: { value: [x] } } } } })) },
});

/** A float tensor's values, from float_val or tensor_content. */
function floatValues(t: Message): number[] {
  if (t.float_val?.length) return [...t.float_val];
  const b = Buffer.from(t.tensor_content);
  return Array.from(new Float32Array(b.buffer, b.byteOffset, b.length / 4));
}

/** A MultiInference result's classification or regression (the rest is compared elsewhere). */
const payload = (r: Message) => r.classification_result ?? r.regression_result;

async function scrape(server: RunningServer): Promise<string> {
  return (await fetch(server.url(METRICS_PATH))).text();
}

/** The value of one sample of the scrape (0 when absent). */
function sample(text: string, series: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line ? Number(line.slice(series.length + 1)) : 0;
}

async function until(what: string, ok: () => Promise<boolean>, server: RunningServer): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!(await ok())) {
    if (Date.now() > deadline) throw new Error(`${what} did not happen:\n${server.logs()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

function writeConfig(dir: string, models: string): { config: string; monitoring: string } {
  const config = path.join(dir, 'models.config');
  const monitoring = path.join(dir, 'monitoring.config');
  fs.writeFileSync(config, `model_config_list {\n${models}\n}\n`);
  fs.writeFileSync(monitoring, `prometheus_config { enable: true path: "${METRICS_PATH}" }\n`);
  return { config, monitoring };
}

const loggedModel = (name: string, basePath: string, prefix: string, rate: number) =>
  `config { name: '${name}' base_path: '${basePath}' logging_config { log_collector_config { type: 'file' filename_prefix: '${prefix}' } sampling_config { sampling_rate: ${rate} } } }`;

describe('request logging (real processes)', () => {
  const dir = tempDir();
  let a: RunningServer;
  let aClients: Clients;
  let b: RunningServer | undefined;
  let bClients: Clients | undefined;
  /** What the clients were answered, call by call, in the order they were made. */
  const answers: Array<{ kind: string; answer: Message }> = [];
  let fifo = '';

  before(async () => {
    fs.mkdirSync(path.join(dir, 'logs'));
    fs.mkdirSync(path.join(dir, 'stuck'));
    // 'hp2' logs every call under logs/ (relative: against the config's folder); 'never' logs
    // none; 'blocked' logs every call to a disk that never answers.
    const { config, monitoring } = writeConfig(
      dir,
      [
        loggedModel('hp2', HP2, 'logs/hp2', 1),
        loggedModel('never', HP2, 'logs/never', 0),
        loggedModel('blocked', HP2, 'stuck/req', 1),
      ].join('\n'),
    );
    const port = await freePort();
    a = await startServer([
      `--model_config_file=${config}`,
      `--monitoring_config_file=${monitoring}`,
      `--port=${port}`,
      '--num_executors=1',
      '--verify_on_load=false',
      '--request_log_queue_max_bytes=4096',
      '--shutdown_drain_seconds=1',
    ]);
    aClients = connect(`127.0.0.1:${port}`);
    await waitAvailable(a, ['hp2', 'never', 'blocked']);
    // The log file 'blocked' will open first, made a FIFO before any call: opening it for
    // writing waits for a reader that never comes.
    fifo = `${path.join(dir, 'stuck', 'req')}.${os.hostname()}.${a.proc.pid}.00000.tfrecord`;
    execFileSync('mkfifo', [fifo]);
  });

  after(async () => {
    aClients?.close();
    bClients?.close();
    await b?.stop();
    await a?.stop();
  });

  it('REST and gRPC Predict, Classify, Regress and MultiInference are logged, each with its answer', async () => {
    // Bodies as text: JSON.stringify would write 2.0 as 2, an int64 feature to TF Serving's parser.
    const rest = async (kind: string, body: string) => {
      const r = await postJson(a.url(`/v1/models/hp2:${kind}`), body);
      assert.equal(r.status, 200, r.text);
      answers.push({ kind, answer: r.json });
    };
    await rest('predict', '{"instances": [1.0, 2.0, 5.0]}');
    await rest('classify', '{"signature_name": "classify_x_to_y", "examples": [{"x": 2.0}, {"x": 10.0}]}');
    await rest('regress', '{"signature_name": "regress_x_to_y", "examples": [{"x": 80.0}]}');
    const grpc = async (method: string, request: Message) =>
      answers.push({ kind: method, answer: await call(aClients.prediction, method, request) });
    await grpc('Predict', { model_spec: { name: 'hp2' }, inputs: { x: floats([4, 6]) } });
    await grpc('Classify', { model_spec: { name: 'hp2', signature_name: 'classify_x_to_y' }, input: examples(20) });
    await grpc('Regress', { model_spec: { name: 'hp2', signature_name: 'regress_x_to_y2' }, input: examples(2, 4) });
    await grpc('MultiInference', {
      tasks: [
        { model_spec: { name: 'hp2', signature_name: 'classify_x_to_y' }, method_name: CLASSIFY },
        { model_spec: { name: 'hp2', signature_name: 'regress_x_to_y2' }, method_name: REGRESS },
      ],
      input: examples(6),
    });
    assert.deepEqual(answers[0].answer, { predictions: [2.5, 3.0, 4.5] });
    await postJson(a.url('/v1/models/never:predict'), { instances: [1.0] });

    await until(
      '7 records written',
      async () => sample(await scrape(a), ':tensorflow:serving:request_log_count{model_name="hp2",status_code="OK"}') === 7,
      a,
    );
    const records = logFiles(path.join(dir, 'logs', 'hp2')).flatMap(readPredictionLogs);
    assert.deepEqual(
      records.map((r) => r.log_type),
      ['predict_log', 'classify_log', 'regress_log', 'predict_log', 'classify_log', 'regress_log', 'multi_inference_log'],
    );
    for (const r of records) {
      assert.equal(r.log_metadata.model_spec.name, 'hp2');
      assert.equal(r.log_metadata.model_spec.version.value, 123);
      assert.deepEqual(r.log_metadata.sampling_config, { sampling_rate: 1 });
      assert.deepEqual(r.log_metadata.saved_model_tags, ['serve']);
      assert.ok(Math.abs(r.log_metadata.timestamp_secs - Date.now() / 1000) < 3600);
    }
    assert.deepEqual(
      records.map((r) => r.log_metadata.model_spec.signature_name ?? ''),
      ['serving_default', 'classify_x_to_y', 'regress_x_to_y', 'serving_default', 'classify_x_to_y', 'regress_x_to_y2', ''],
    );
    // The logged responses are what the clients were answered.
    const [restPredict, restClassify, restRegress, grpcPredict, grpcClassify, grpcRegress, grpcMulti] = records;
    assert.deepEqual(floatValues(restPredict.predict_log.response.outputs.y), answers[0].answer.predictions);
    assert.deepEqual(restPredict.predict_log.request.inputs.x.tensor_shape, { dim: [{ size: 3 }] });
    assert.deepEqual(
      restClassify.classify_log.response.result.classifications.map((c: Message) =>
        c.classes.map((k: Message) => [k.label ?? '', k.score]),
      ),
      answers[1].answer.results,
    );
    assert.deepEqual(
      restRegress.regress_log.response.result.regressions.map((r: Message) => r.value),
      answers[2].answer.results,
    );
    assert.deepEqual(floatValues(grpcPredict.predict_log.response.outputs.y), answers[3].answer.outputs.y.float_val);
    assert.deepEqual(grpcClassify.classify_log.response.result, answers[4].answer.result);
    assert.deepEqual(grpcRegress.regress_log.response.result, answers[5].answer.result);
    assert.deepEqual(grpcMulti.multi_inference_log.response.results.map(payload), answers[6].answer.results.map(payload));
    assert.deepEqual(logFiles(path.join(dir, 'logs', 'never')), [], 'sampling_rate 0 logs nothing');
  });

  it('a log disk that never answers drops records, counted, while every request is answered', async () => {
    const results = await Promise.all([
      ...Array.from({ length: 40 }, (_, i) =>
        postJson(a.url('/v1/models/blocked:predict'), { instances: [i] }).then((r) => r.json.predictions[0]),
      ),
      ...Array.from({ length: 10 }, (_, i) =>
        call(aClients.prediction, 'Predict', { model_spec: { name: 'blocked' }, inputs: { x: floats([i]) } }).then(
          (r) => r.outputs.y.float_val[0],
        ),
      ),
    ]);
    assert.deepEqual(results, [...Array.from({ length: 40 }, (_, i) => 0.5 * i + 2), ...Array.from({ length: 10 }, (_, i) => 0.5 * i + 2)]);
    const text = await scrape(a);
    const dropped = sample(text, 'tfgate_request_log_dropped_total{model_name="blocked",reason="queue_full"}');
    assert.ok(dropped > 0 && dropped < 50, `${dropped} of 50 dropped: 4 KiB hold some, the rest are dropped`);
    assert.equal(sample(text, ':tensorflow:serving:request_log_count{model_name="blocked",status_code="RESOURCE_EXHAUSTED"}'), dropped);
    assert.equal(
      sample(text, ':tensorflow:serving:request_log_count{model_name="blocked",status_code="OK"}'),
      0,
      'nothing was written: the open never returned',
    );
    assert.equal(a.logs().match(/the queue of records to write is full/g)?.length, 1, `said once:\n${a.logs()}`);
  });

  it("the log, as another server's warmup file, replays there: each logged request gets the logged answer", async () => {
    // A copy of the model whose warmup file is the log.
    const version = path.join(dir, 'replay', 'hp2', '123');
    fs.cpSync(path.join(HP2, '00000123'), version, { recursive: true });
    fs.mkdirSync(path.join(version, 'assets.extra'));
    const logged = logFiles(path.join(dir, 'logs', 'hp2'));
    fs.writeFileSync(
      path.join(version, 'assets.extra', 'tf_serving_warmup_requests'),
      Buffer.concat(logged.map((f) => fs.readFileSync(f))),
    );
    const replayDir = path.join(dir, 'replay');
    const { config, monitoring } = writeConfig(replayDir, loggedModel('hp2', path.join(replayDir, 'hp2'), 'relog/hp2', 1));
    const port = await freePort();
    b = await startServer([
      `--model_config_file=${config}`,
      `--monitoring_config_file=${monitoring}`,
      `--port=${port}`,
      '--num_executors=1',
      '--verify_on_load=false',
      '--enable_batching',
    ]);
    bClients = connect(`127.0.0.1:${port}`);
    await waitAvailable(b, ['hp2']);
    const warm = await scrape(b);
    assert.equal(
      sample(warm, `:tensorflow:serving:model_warmup_records_read{model_path="${version}",status="OK"}`),
      7,
      'all 7 records replayed at load',
    );

    const records = logged.flatMap(readPredictionLogs);
    for (const r of records) {
      const [method, log] = Object.entries({
        Predict: r.predict_log,
        Classify: r.classify_log,
        Regress: r.regress_log,
        MultiInference: r.multi_inference_log,
      }).find(([, l]) => l)!;
      const answer = await call(bClients.prediction, method, log.request);
      if (method === 'Predict') assert.deepEqual(floatValues(answer.outputs.y), floatValues(log.response.outputs.y));
      else if (method === 'MultiInference') assert.deepEqual(answer.results.map(payload), log.response.results.map(payload));
      else assert.deepEqual(answer.result, log.response.result);
    }
  });

  it("the replaying server's scrape has TF Serving's metrics, names and labels as TF Serving's source declares them", async () => {
    // One REST call besides the gRPC replays, so that both entry points are on the page.
    assert.equal((await postJson(b!.url('/v1/models/hp2:predict'), { instances: [1.0] })).status, 200);
    await until(
      'the replays logged',
      async () => sample(await scrape(b!), ':tensorflow:serving:request_log_count{model_name="hp2",status_code="OK"}') === 8,
      b!,
    );
    checkScrape(await scrape(b!));
  });
});

/**
 * Every metric TF Serving exports outside its MLMD and TFRT builds, and TensorFlow's SavedModel
 * load metrics, as declared in their source (tensorflow/serving @ 9d981c5c; tensorflow/tensorflow
 * cc/saved_model/loader.cc): Prometheus name (TF Serving's exporter writes "/" as ":"), label
 * names in order, kind, and buckets (monitoring::Buckets::Exponential(scale, growth, count):
 * `count` bounds scale·growthⁱ, then +Inf). Left out: /tensorflow/serving/mlmd_map (ML Metadata
 * builds), /tensorflow/serving/saved_model_with_batching/queuing_latency (TFRT),
 * /tensorflow/cc/saved_model/load_latency_by_stage (loading stages tfgate does not have).
 */
const TF_METRICS: ReadonlyArray<{
  name: string;
  labels: string[];
  kind: 'counter' | 'histogram';
  buckets?: [number, number, number];
  from: string;
}> = [
  {
    name: ':tensorflow:serving:request_count',
    labels: ['model_name', 'status'],
    kind: 'counter',
    from: 'tensorflow_serving/servables/tensorflow/util.cc',
  },
  {
    name: ':tensorflow:serving:request_latency',
    labels: ['model_name', 'API', 'entrypoint'],
    kind: 'histogram',
    buckets: [10, 1.8, 33],
    from: 'tensorflow_serving/servables/tensorflow/util.cc',
  },
  {
    name: ':tensorflow:serving:runtime_latency',
    labels: ['model_name', 'API', 'runtime'],
    kind: 'histogram',
    buckets: [10, 1.8, 33],
    from: 'tensorflow_serving/servables/tensorflow/util.cc',
  },
  {
    name: ':tensorflow:serving:request_example_counts',
    labels: ['model'],
    kind: 'histogram',
    buckets: [1, 2, 15],
    from: 'tensorflow_serving/servables/tensorflow/util.cc',
  },
  {
    name: ':tensorflow:serving:request_example_count_total',
    labels: ['model'],
    kind: 'counter',
    from: 'tensorflow_serving/servables/tensorflow/util.cc',
  },
  {
    name: ':tensorflow:serving:model_warmup_latency',
    labels: ['model_path', 'status'],
    kind: 'histogram',
    buckets: [10, 1.8, 33],
    from: 'tensorflow_serving/servables/tensorflow/saved_model_warmup_util.cc',
  },
  {
    name: ':tensorflow:serving:model_warmup_records_read',
    labels: ['model_path', 'status'],
    kind: 'counter',
    from: 'tensorflow_serving/servables/tensorflow/saved_model_warmup_util.cc',
  },
  {
    name: ':tensorflow:serving:request_log_count',
    labels: ['model_name', 'status_code'],
    kind: 'counter',
    from: 'tensorflow_serving/core/request_logger.cc',
  },
  {
    name: ':tensorflow:serving:batching_session:queuing_latency',
    labels: ['thread_pool_name'],
    kind: 'histogram',
    buckets: [100, 1.2, 52],
    from: 'tensorflow_serving/batching/batching_session.cc',
  },
  {
    name: ':tensorflow:serving:batching_session:wrapped_run_count',
    labels: [],
    kind: 'counter',
    from: 'tensorflow_serving/batching/batching_session.cc',
  },
  {
    name: ':tensorflow:serving:batching_session:padding_size',
    labels: ['execution_batch_size'],
    kind: 'histogram',
    buckets: [1, 2, 14],
    from: 'tensorflow_serving/batching/batching_util.h (BatchingSessionTask::Name() "batching_session")',
  },
  {
    name: ':tensorflow:serving:batching_session:input_batch_size',
    labels: [],
    kind: 'histogram',
    buckets: [1, 2, 14],
    from: 'tensorflow_serving/batching/batching_util.h',
  },
  {
    name: ':tensorflow:serving:batching_session:processed_batch_size',
    labels: [],
    kind: 'histogram',
    buckets: [1, 2, 14],
    from: 'tensorflow_serving/batching/batching_util.h',
  },
  {
    name: ':tensorflow:cc:saved_model:load_attempt_count',
    labels: ['model_path', 'status'],
    kind: 'counter',
    from: 'tensorflow/cc/saved_model/loader.cc',
  },
  { name: ':tensorflow:cc:saved_model:load_latency', labels: ['model_path'], kind: 'counter', from: 'tensorflow/cc/saved_model/loader.cc' },
];

/** `name{a="x",b="y"} v` → its label names in order (le left out) and values. */
function parseSeries(line: string): { name: string; labels: Array<[string, string]> } {
  const m = /^([^{\s]+)(?:\{(.*)\})? /.exec(line)!;
  const labels = [...(m[2] ?? '').matchAll(/([a-zA-Z_]\w*)="((?:[^"\\]|\\.)*)"/g)].map((l) => [l[1], l[2]] as [string, string]);
  return { name: m[1], labels };
}

function checkScrape(text: string): void {
  const lines = text.split('\n').filter((l) => l && !l.startsWith('#'));
  for (const metric of TF_METRICS) {
    const suffixes = metric.kind === 'histogram' ? ['_bucket', '_sum', '_count'] : [''];
    const series = lines.map(parseSeries).filter((s) => suffixes.some((x) => s.name === metric.name + x));
    assert.ok(series.length, `${metric.name} (${metric.from}) is on the page`);
    assert.match(
      text,
      new RegExp(`^# TYPE ${metric.name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} ${metric.kind}$`, 'm'),
      `${metric.name} is a ${metric.kind}`,
    );
    for (const s of series)
      assert.deepEqual(
        s.labels.map(([k]) => k).filter((k) => k !== 'le'),
        metric.labels,
        `${s.name}'s labels are ${metric.from}'s`,
      );
    if (metric.buckets) {
      const [scale, growth, count] = metric.buckets;
      const first = series.find((s) => s.name.endsWith('_bucket'))!;
      const key = JSON.stringify(first.labels.filter(([k]) => k !== 'le'));
      const les = series
        .filter((s) => s.name.endsWith('_bucket') && JSON.stringify(s.labels.filter(([k]) => k !== 'le')) === key)
        .map((s) => s.labels.find(([k]) => k === 'le')![1]);
      assert.equal(les.length, count + 1, `${metric.name}: ${count} bounds and +Inf`);
      assert.equal(les.at(-1), '+Inf');
      les
        .slice(0, -1)
        .forEach((le, i) => assert.ok(Math.abs(Number(le) / (scale * growth ** i) - 1) < 1e-5, `${metric.name} bound ${i}: ${le}`));
    }
  }
  // Label values as TF Serving writes them.
  assert.match(
    text,
    /^:tensorflow:serving:request_latency_count\{model_name="hp2",API="Predict",entrypoint="GRPC"\} [1-9]/m,
    'prediction_service_impl.cc: API="Predict" on gRPC',
  );
  assert.match(text, /^:tensorflow:serving:request_latency_count\{model_name="hp2",API="Classify",entrypoint="GRPC"\} [1-9]/m);
  assert.match(
    text,
    /^:tensorflow:serving:request_latency_count\{model_name="hp2",API="predict",entrypoint="REST"\} [1-9]/m,
    'http_server.cc: the REST method',
  );
  assert.match(
    text,
    /^:tensorflow:serving:runtime_latency_count\{model_name="hp2",API="Regress",runtime="TF1"\} [1-9]/m,
    'regressor.cc: runtime "TF1"',
  );
  assert.match(text, /^:tensorflow:serving:request_example_count_total\{model="hp2"\} 1$/m, 'one MultiInference of one example');
  assert.match(text, /^:tensorflow:cc:saved_model:load_attempt_count\{model_path="[^"]+\/hp2\/123",status="success"\} 1$/m);
  assert.match(text, /^:tensorflow:serving:batching_session:queuing_latency_count\{thread_pool_name="model_server_batch_threads"\} [1-9]/m);
  assert.doesNotMatch(
    text,
    /API="(predict|classify|regress|multi_inference|get_model_metadata)",entrypoint="GRPC"/,
    'no lower-case API label on gRPC',
  );
}
