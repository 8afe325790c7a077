// Batching over HTTP against the real server process and real models: requests gathered
// into one padded batch, TF Serving's oversize and queue-full errors verbatim, large-batch
// splitting put back in order, and adaptive mode (latency target refusals with Retry-After).
// Per-model batching sections of the YAML config set each model's parameters.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { FIXTURES, fixtureModel } from '../helpers/paths.js';
import { postJson, startServer, waitAvailable, type RunningServer } from '../helpers/server_process.js';
import { tempDir } from '../helpers/temp.js';
import { writeQueueingConvModel } from '../helpers/queueing_model.js';
import { connectionsWithUnreadData } from '../helpers/kernel_sockets.js';
import { until } from '../helpers/http_outcome.js';

const HW = 64;

describe('batching over HTTP (real process)', () => {
  let server: RunningServer;
  let convBody: string;

  before(async () => {
    const root = tempDir();
    // Four times the default filters' work (~1.7 GFLOP an image): a run takes several times
    // what the server needs to read and parse the next request, so a burst must queue.
    await writeQueueingConvModel(path.join(root, 'conv', '1'), HW, 5, [128, 256]);
    convBody = JSON.stringify({
      instances: [Array.from({ length: HW }, (_, i) => Array.from({ length: HW }, (_, j) => [((i * j) % 7) / 7]))],
    });
    const hp2 = path.dirname(fixtureModel('saved_model_half_plus_two_cpu', '00000123'));
    const config = `
model_config_list:
  config:
    - name: hp2
      base_path: ${hp2}
      batching: {max_batch_size: 4, batch_timeout_micros: 300000, allowed_batch_sizes: [2, 4]}
    - name: hp2_split
      base_path: ${hp2}
      batching: {max_batch_size: 8, enable_large_batch_splitting: true, max_execution_batch_size: 2}
    - name: conv
      base_path: conv
      batching: {max_batch_size: 1, max_enqueued_batches: 1}
    - name: conv_adaptive
      base_path: conv
      batching: {max_batch_size: 8, max_enqueued_batches: 100, mode: adaptive, latency_target_ms: 1}
batching:
  num_batch_threads: 1
`;
    fs.writeFileSync(path.join(root, 'tfgate.yaml'), config);
    server = await startServer(
      [
        `--config=${path.join(root, 'tfgate.yaml')}`,
        '--enable_batching',
        '--num_executors=1',
        `--monitoring_config_file=${path.join(FIXTURES, 'configs', 'monitoring_config.txt')}`,
      ],
      { readyPath: '/v1/models/conv_adaptive' },
    );
    await waitAvailable(server, ['hp2', 'hp2_split', 'conv', 'conv_adaptive']);
  });

  after(async () => {
    assert.equal(await server?.stop(), 0);
  });

  const predict = (model: string, body: unknown) => postJson(server.url(`/v1/models/${model}:predict`), body);

  it('requests arriving together share one batch, padded to the next allowed size; each gets its own rows', async () => {
    const answers = await Promise.all([1, 2, 5].map((x) => predict('hp2', { instances: [[x]] })));
    assert.deepEqual(
      answers.map((a) => [a.status, a.json.predictions]),
      [
        [200, [[2.5]]],
        [200, [[3]]],
        [200, [[4.5]]],
      ],
    );
    for (const a of answers) assert.match(a.headers.get('server-timing')!, /batch;desc="3\/4"/);
  });

  it("a request larger than max_batch_size: 400 with TF Serving's text", async () => {
    const r = await predict('hp2', { instances: [[1], [2], [3], [4], [5]] });
    assert.equal(r.status, 400);
    assert.equal(r.json.error, 'Task size 5 is larger than maximum input batch size 4');
  });

  it('large-batch splitting runs a request in batches of max_execution_batch_size and answers in order', async () => {
    const xs = [0, 1, 2, 3, 4, 5, 6];
    const r = await predict('hp2_split', { instances: xs.map((x) => [x]) });
    assert.equal(r.status, 200);
    assert.deepEqual(
      r.json.predictions,
      xs.map((x) => [0.5 * x + 2]),
    );
    const desc = /batch;desc="(\d+)\/(\d+)"/.exec(r.headers.get('server-timing')!);
    assert.ok(desc && Number(desc[1]) <= 2, `batches of at most 2 rows: ${r.headers.get('server-timing')}`);
  });

  it("past max_enqueued_batches: 503 with TF Serving's text at once, the rest answered, then it recovers", async () => {
    // The 16 must reach the server together, however the client's sends are spread: they are
    // sent while the server is stopped, and it resumes once the kernel holds all of them. (Sent
    // to a running server they could arrive one run apart and never fill the queue.) One
    // request first, so the model's first run (its session set-up) is not part of the burst.
    assert.equal((await predict('conv', convBody)).status, 200);
    const pid = server.proc.pid!;
    process.kill(pid, 'SIGSTOP');
    let sent: Promise<Awaited<ReturnType<typeof predict>>>[];
    try {
      sent = Array.from({ length: 16 }, () => predict('conv', convBody));
      await until(() => connectionsWithUnreadData(server.port) >= 16, '16 requests in the kernel', 20_000);
    } finally {
      process.kill(pid, 'SIGCONT');
    }
    const answers = await Promise.all(sent);
    const full = answers.filter((a) => a.status === 503);
    const ok = answers.filter((a) => a.status === 200);
    assert.equal(full.length + ok.length, 16, `only 200 and 503: ${answers.map((a) => a.status)}`);
    assert.ok(full.length > 0, `some requests found the queue full: ${answers.map((a) => a.status)}`);
    assert.ok(ok.length > 0, 'some were served');
    // Refused at admission the queue may still be empty ("currently 0"); refused when scheduled it holds its one batch.
    for (const a of full)
      assert.match(
        a.json.error,
        /^The batch scheduling queue to which this task was submitted is full; currently [01] batches enqueued and max_enqueued_batches is 1$/,
      );
    for (const a of ok) assert.equal(a.json.predictions[0].length, 4);
    const after = await predict('conv', convBody);
    assert.equal(after.status, 200);
  });

  it('adaptive mode: one request at a time runs alone and at once', async () => {
    for (let i = 0; i < 5; i++) {
      const r = await predict('conv_adaptive', convBody);
      assert.equal(r.status, 200);
      assert.match(r.headers.get('server-timing')!, /batch;desc="1\/1"/);
    }
  });

  it('adaptive mode with a latency target: requests that would wait behind others are refused at once with 503 and Retry-After', async () => {
    const answers = await Promise.all(Array.from({ length: 24 }, () => predict('conv_adaptive', convBody)));
    const refused = answers.filter((a) => a.status === 503);
    const ok = answers.filter((a) => a.status === 200);
    assert.equal(refused.length + ok.length, 24, `only 200 and 503: ${answers.map((a) => a.status)}`);
    assert.ok(refused.length > 0 && ok.length > 0, `${ok.length} served, ${refused.length} refused`);
    for (const a of refused) {
      assert.match(
        a.json.error,
        /^The request would miss the model's latency target: about \d+ ms predicted for the work queued ahead of it, target 1 ms; retry later$/,
      );
      assert.match(a.headers.get('retry-after') ?? '', /^[1-9]\d*$/);
    }
    assert.equal((await predict('conv_adaptive', convBody)).status, 200, 'a lone request is served again');
  });

  it('batching figures by model in the Prometheus metrics: batch sizes, padding, queueing delay, executor time, queue depth', async () => {
    const text = await (await fetch(server.url('/monitoring/prometheus/metrics'))).text();
    const value = (re: RegExp) => Number(re.exec(text)?.[1] ?? NaN);
    assert.ok(value(/^tfgate_batch_size_count\{model_name="hp2"\} (\d+)$/m) >= 1);
    assert.ok(value(/^tfgate_batch_padding_rows_total\{model_name="hp2"\} (\d+)$/m) >= 1, 'the 3-row batch was padded to 4');
    assert.ok(value(/^tfgate_batch_queuing_delay_seconds_count\{model_name="conv"\} (\d+)$/m) >= 1);
    assert.ok(value(/^tfgate_executor_busy_seconds_total\{model_name="conv_adaptive"\} ([\d.e-]+)$/m) > 0);
    assert.equal(value(/^tfgate_batch_queue_rows\{model_name="conv"\} (\d+)$/m), 0, 'nothing waits now');
  });
});
