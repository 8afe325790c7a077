// The server started from a YAML config that changes while it runs, and its request limits:
// body size, JSON depth, and --rest_api_timeout_in_ms on a model slow enough to hit it.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { writeMlpSavedModel } from '../../test_util/savedmodel/model_zoo.js';
import { REPO_ROOT, MODELS } from '../helpers/paths.js';
import { getJson, postJson, startServer, waitAvailable, type RunningServer } from '../helpers/server_process.js';
import { until } from '../helpers/http_outcome.js';

describe('tfgate server: YAML config reload and limits (real process)', () => {
  let server: RunningServer;
  let root: string;
  let yamlFile: string;
  const yaml = (models: Array<[string, string]>) =>
    `model_config_list:\n  config:\n${models.map(([name, base]) => `    - name: ${name}\n      base_path: ${base}\n`).join('')}`;

  before(async () => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'tfgate-it2-'));
    // About 67 GFLOP a request at batch 1000 (≥ 500 ms here on ONNX Runtime, which runs
    // ~100 GFLOP/s a core), against a 100 ms timeout that half_plus_two (~1 ms) never reaches.
    await writeMlpSavedModel(path.join(root, 'slow', '1'), {
      inputDim: 16,
      hiddenSizes: [4096, 4096, 4096],
      outputDim: 4,
      activation: 'relu',
      seed: 9,
    });
    yamlFile = path.join(root, 'tfgate.yaml');
    fs.writeFileSync(
      yamlFile,
      yaml([
        ['hp2', path.join(REPO_ROOT, 'model_repository', 'half_plus_two')],
        ['slow', 'slow'],
      ]),
    );
    server = await startServer([
      `--config=${yamlFile}`,
      '--model_config_file_poll_wait_seconds=1',
      '--num_executors=1',
      '--max_request_body_bytes=65536',
      '--json_max_depth=4',
      '--rest_api_timeout_in_ms=100',
    ]);
    await waitAvailable(server, ['hp2', 'slow']);
    // The first request of a shape other than the declared one builds that shape's ONNX Runtime
    // session, which on a loaded machine can take longer than the 100 ms the tests hold
    // half_plus_two's answers to: build it before they start (it is kept once built).
    const deadline = Date.now() + 20_000;
    while ((await postJson(server.url('/v1/models/hp2:predict'), { instances: [1.0, 2.0, 5.0] })).status !== 200) {
      if (Date.now() > deadline) throw new Error(`half_plus_two never answered within 100 ms:\n${server.logs()}`);
    }
  });

  after(async () => {
    assert.equal(await server?.stop(), 0);
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('serves the models of the YAML config', async () => {
    const r = await postJson(server.url('/v1/models/hp2:predict'), { instances: [1.0, 2.0, 5.0] });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.json, { predictions: [2.5, 3.0, 4.5] });
  });

  it('a body over --max_request_body_bytes is refused with 413 before parsing', async () => {
    const r = await postJson(server.url('/v1/models/hp2:predict'), { instances: new Array(20000).fill(1.5) });
    assert.equal(r.status, 413);
    assert.match(r.json.error, /larger than the limit of 65536 bytes/);
  });

  it('JSON nested deeper than --json_max_depth is a 400', async () => {
    const r = await postJson(server.url('/v1/models/hp2:predict'), '{"instances": [[[[[1.0]]]]]}');
    assert.equal(r.status, 400);
    assert.match(r.json.error, /deeper than the limit of 4/);
  });

  it('a predict running past --rest_api_timeout_in_ms is answered 504, and the server goes on', async () => {
    // 1000 rows of 16 zeros: 34 KB, under the 64 KB body limit.
    const rows = Array.from({ length: 1000 }, () => new Array(16).fill(0));
    const r = await postJson(server.url('/v1/models/slow:predict'), { instances: rows });
    assert.equal(r.status, 504, r.text);
    // Which deadline text depends on where the 100 ms ran out: running on the executor, or
    // still waiting for it (a busy machine); both are DEADLINE_EXCEEDED, answered 504.
    assert.match(
      r.json.error,
      /^(Request timed out after 100 ms \(--rest_api_timeout_in_ms\)|Deadline exceeded while the request waited to run; it was not run)$/,
    );
    // The server goes on: half_plus_two is answered once the slow run has left the executor.
    let next = await postJson(server.url('/v1/models/hp2:predict'), { instances: [1.0] });
    for (let i = 0; i < 50 && next.status === 504; i++) next = await postJson(server.url('/v1/models/hp2:predict'), { instances: [1.0] });
    assert.equal(next.status, 200, next.text);
  });

  it('a model added to the YAML file is served after the next config poll; a removed one stops serving, its status END', async () => {
    fs.writeFileSync(
      yamlFile,
      yaml([
        ['hp2', path.join(REPO_ROOT, 'model_repository', 'half_plus_two')],
        ['hp3', path.join(MODELS, 'saved_model_half_plus_three')],
      ]),
    );
    // Each wait ends in the assertion below it, which says what was there instead.
    const hp3 = () => postJson(server.url('/v1/models/hp3:predict'), { instances: [1.0] });
    await until(async () => (await hp3()).status === 200, 'hp3 to serve', 60_000).catch(() => {});
    assert.deepEqual((await hp3()).json, { predictions: [3.5] });
    // TF Serving's state monitor keeps a removed model's versions, END.
    const slowStates = async () =>
      (await getJson(server.url('/v1/models/slow'))).json.model_version_status as { state: string; status: { error_code: string } }[];
    await until(async () => (await slowStates())?.[0]?.state === 'END', 'slow to end', 30_000).catch(() => {});
    assert.deepEqual(
      (await slowStates()).map((v) => [v.state, v.status.error_code]),
      [['END', 'OK']],
    );
    assert.equal((await postJson(server.url('/v1/models/slow:predict'), { instances: [[0.5]] })).status, 404);
  });

  it('a config edit that does not parse is logged and the running models keep serving', async () => {
    fs.writeFileSync(yamlFile, 'model_config_list: [\n');
    // Polled every second: wait for the poll that reads it, however late a busy machine runs it.
    await until(() => /Failed to reload model config .*tfgate\.yaml:\d+:\d+/.test(server.logs()), 'the failed reload to be logged');
    assert.equal((await postJson(server.url('/v1/models/hp2:predict'), { instances: [1.0] })).status, 200);
  });
});
