// Batching over HTTP on a real model (a spawned server): requests that arrive together run as
// one padded batch, its metrics, TF Serving's text for an oversize request, and where the
// parameters come from (--batching_parameters_file, the YAML's sections, a version's
// batching_params.pbtxt). The batching session itself: test/batching/batching_session.test.ts.
import { describe, it, after, before } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import fs from 'node:fs';
import { REPO_ROOT } from '../helpers/paths.js';
import { postJson, startServer, type RunningServer } from '../helpers/server_process.js';
import { writeHalfPlusTwoSavedModel } from '../../test_util/savedmodel/model_zoo.js';
import { tempDir } from '../helpers/temp.js';

describe('batching over HTTP (real server, real model)', () => {
  let server: RunningServer;
  before(async () => {
    const dir = tempDir('tfgate-batching-');
    const cfg = path.join(dir, 'batching.cfg');
    fs.writeFileSync(
      cfg,
      'max_batch_size { value: 8 }\nbatch_timeout_micros { value: 20000 }\nmax_enqueued_batches { value: 100 }\nnum_batch_threads { value: 1 }\nallowed_batch_sizes: 4\nallowed_batch_sizes: 8\n',
    );
    fs.writeFileSync(path.join(dir, 'monitoring.config'), 'prometheus_config { enable: true }\n');
    server = await startServer([
      `--model_base_path=${path.join(REPO_ROOT, 'model_repository', 'half_plus_two')}`,
      '--model_name=hp2',
      '--enable_batching',
      `--batching_parameters_file=${cfg}`,
      '--num_executors=1',
      `--monitoring_config_file=${path.join(dir, 'monitoring.config')}`,
    ]);
  });
  after(async () => assert.equal(await server.stop(), 0));

  it('concurrent requests each get their own answer', async () => {
    const xs = [1, 2, 3, 4, 5, 6, 7];
    const answers = await Promise.all(xs.map((x) => postJson(server.url('/v1/models/hp2:predict'), { instances: [[x]] })));
    for (const a of answers) assert.equal(a.status, 200, a.text);
    assert.deepEqual(
      answers.map((a) => a.json.predictions[0][0]),
      xs.map((x) => 0.5 * x + 2),
    );
    // Server-Timing tells each client the batch it ran in: rows / rows after padding.
    const batches = answers.map((a) => /batch;desc="(\d+)\/(\d+)"/.exec(a.headers.get('server-timing') ?? ''));
    assert.ok(
      batches.every((m) => m && [4, 8].includes(Number(m[2]))),
      'padded to an allowed size',
    );
    assert.ok(
      batches.some((m) => Number(m![1]) > 1),
      'requests that arrived together ran as one batch',
    );
  });

  it('batch metrics: sizes, padding rows and queuing latency', async () => {
    const text = await (await fetch(server.url('/monitoring/prometheus/metrics'))).text();
    assert.match(text, /^tfgate_batch_size_count\{model_name="hp2"\} [1-9]\d*$/m);
    assert.match(text, /^tfgate_batch_padding_rows_total\{model_name="hp2"\} [1-9]\d*$/m);
    assert.match(text, /^:tensorflow:serving:batching_session:queuing_latency_count\{thread_pool_name="batch_threads"\} [1-9]\d*$/m);
  });

  it("a request larger than max_batch_size is a 400 with TF Serving's text", async () => {
    const r = await postJson(server.url('/v1/models/hp2:predict'), { instances: new Array(9).fill([1.0]) });
    assert.equal(r.status, 400);
    assert.equal(r.json.error, 'Task size 9 is larger than maximum input batch size 8');
  });
});

describe('YAML top-level batching section (real server)', () => {
  it('sets the global parameters when no --batching_parameters_file is given', async () => {
    const dir = tempDir('tfgate-yamlbatch-');
    await writeHalfPlusTwoSavedModel(path.join(dir, 'm', '1'));
    fs.writeFileSync(
      path.join(dir, 'tfgate.yaml'),
      'batching: {max_batch_size: 2}\nmodel_config_list:\n  config:\n    - {name: m, base_path: m}\n',
    );
    const server = await startServer([`--config=${path.join(dir, 'tfgate.yaml')}`, '--enable_batching', '--num_executors=1']);
    try {
      const r = await postJson(server.url('/v1/models/m:predict'), { instances: [[1.0], [2.0], [3.0]] });
      assert.equal(r.json.error, 'Task size 3 is larger than maximum input batch size 2');
    } finally {
      assert.equal(await server.stop(), 0);
    }
  });
});

describe('per-model batching parameters (real server)', () => {
  let server: RunningServer;
  before(async () => {
    const dir = tempDir('tfgate-permodel-');
    await writeHalfPlusTwoSavedModel(path.join(dir, 'by_file', '1'));
    await writeHalfPlusTwoSavedModel(path.join(dir, 'by_yaml', '1'));
    await writeHalfPlusTwoSavedModel(path.join(dir, 'global', '1'));
    fs.writeFileSync(path.join(dir, 'by_file', '1', 'batching_params.pbtxt'), 'max_batch_size { value: 2 }\n');
    fs.writeFileSync(path.join(dir, 'batching.cfg'), 'max_batch_size { value: 8 }\nnum_batch_threads { value: 1 }\n');
    fs.writeFileSync(
      path.join(dir, 'tfgate.yaml'),
      'model_config_list:\n  config:\n    - {name: by_file, base_path: by_file}\n    - {name: global, base_path: global}\n    - name: by_yaml\n      base_path: by_yaml\n      batching: {max_batch_size: 3}\n',
    );
    server = await startServer([
      `--config=${path.join(dir, 'tfgate.yaml')}`,
      '--enable_batching',
      `--batching_parameters_file=${path.join(dir, 'batching.cfg')}`,
      '--enable_per_model_batching_parameters',
      '--num_executors=1',
    ]);
  });
  after(async () => assert.equal(await server.stop(), 0));

  const sizeError = async (model: string, rows: number) =>
    (await postJson(server.url(`/v1/models/${model}:predict`), { instances: new Array(rows).fill([1.0]) })).json.error as
      string | undefined;

  it("a version's batching_params.pbtxt, a model's YAML section, else the global file", async () => {
    assert.equal(await sizeError('by_file', 3), 'Task size 3 is larger than maximum input batch size 2');
    assert.equal(await sizeError('by_yaml', 4), 'Task size 4 is larger than maximum input batch size 3');
    assert.equal(await sizeError('by_yaml', 3), undefined);
    assert.equal(await sizeError('global', 8), undefined);
    assert.equal(await sizeError('global', 9), 'Task size 9 is larger than maximum input batch size 8');
  });
});
