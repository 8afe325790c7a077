// GET /monitoring/tfgate/ready, the readiness probe of deploy/kubernetes: 200 only while every
// configured model has a version AVAILABLE. The rule as a table, then a real process through
// what a cluster does to it: a model whose folder is not there yet, one that fails to load
// (GET /v1/models/<name> still answers 200 for it, as TF Serving does), a ConfigMap edit.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { readiness } from '../../src/server/server_status.js';
import type { ModelVersionStatus } from '../../src/core/aspired_versions_manager.js';
import { Code } from '../../src/errors/status.js';
import { REPO_ROOT } from '../helpers/paths.js';
import { startServer, waitAvailable, type RunningServer } from '../helpers/server_process.js';
import { tempDir } from '../helpers/temp.js';

const v = (version: number, state: ModelVersionStatus['state']): ModelVersionStatus => ({
  version,
  state,
  status: { code: Code.OK, message: '' },
});

describe('readiness (pure)', () => {
  const TABLE: [string, { name: string; versions: ModelVersionStatus[] }[], boolean, string[]][] = [
    [
      'every model has a version AVAILABLE',
      [
        { name: 'a', versions: [v(1, 'AVAILABLE')] },
        { name: 'b', versions: [v(2, 'LOADING'), v(1, 'AVAILABLE')] },
      ],
      true,
      [],
    ],
    ['the only version is LOADING', [{ name: 'a', versions: [v(1, 'LOADING')] }], false, ['a']],
    [
      'a model with no version found yet',
      [
        { name: 'a', versions: [v(1, 'AVAILABLE')] },
        { name: 'b', versions: [] },
      ],
      false,
      ['b'],
    ],
    ['the last version failed to load (END)', [{ name: 'a', versions: [v(1, 'END')] }], false, ['a']],
    ['no model configured: nothing to wait for', [], true, []],
  ];
  for (const [what, models, ready, notReady] of TABLE) {
    it(`${what} → ${ready ? 'ready' : `not ready (${notReady.join(', ')})`}`, () => {
      const r = readiness(models, false);
      assert.equal(r.ready, ready);
      assert.deepEqual(
        r.not_ready.map((m) => m.name),
        notReady,
      );
    });
  }
  it('draining: never ready', () => assert.equal(readiness([{ name: 'a', versions: [v(1, 'AVAILABLE')] }], true).ready, false));
});

describe('GET /monitoring/tfgate/ready (real process)', () => {
  const root = tempDir('tfgate-ready-');
  const config = path.join(root, 'models.config');
  const entry = (name: string) => `  config { name: "${name}" base_path: "${path.join(root, name)}" model_platform: "tensorflow" }\n`;
  const writeConfig = (names: string[]) => {
    // Replaced at once, as the kubelet swaps a ConfigMap's files.
    fs.writeFileSync(`${config}.new`, `model_config_list {\n${names.map(entry).join('')}}\n`);
    fs.renameSync(`${config}.new`, config);
  };
  const halfPlusTwo = path.join(REPO_ROOT, 'model_repository', 'half_plus_two', '1');
  let server: RunningServer;

  async function until(what: string, predicate: () => Promise<boolean>): Promise<void> {
    // A bound, not a measurement.
    const deadline = Date.now() + 30_000;
    while (!(await predicate())) {
      if (Date.now() > deadline) throw new Error(`${what}: not in time\n${server.logs()}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  const ready = async () => {
    const r = await fetch(server.url('/monitoring/tfgate/ready'));
    return { status: r.status, body: (await r.json()) as { ready: boolean; not_ready: { name: string; states: string[] }[] } };
  };

  before(async () => {
    fs.cpSync(halfPlusTwo, path.join(root, 'good', '1'), { recursive: true });
    fs.mkdirSync(path.join(root, 'broken', '1'), { recursive: true });
    fs.writeFileSync(path.join(root, 'broken', '1', 'saved_model.pb'), 'not a protobuf at all');
    writeConfig(['good', 'broken', 'late']);
    server = await startServer([
      `--model_config_file=${config}`,
      '--model_config_file_poll_wait_seconds=1',
      '--file_system_poll_wait_seconds=1',
      '--max_num_load_retries=0',
      '--num_executors=1',
    ]);
    await waitAvailable(server, ['good']);
  });
  after(async () => {
    await server?.stop();
  });

  it('503 naming the model whose folder is not there yet and the one that failed to load; /v1/models answers 200 for the failed one', async () => {
    const r = await ready();
    assert.equal(r.status, 503);
    assert.equal(r.body.ready, false);
    assert.deepEqual(r.body.not_ready.map((m) => m.name).sort(), ['broken', 'late']);
    assert.equal((await fetch(server.url('/v1/models/broken'))).status, 200, "TF Serving's status API: 200 whatever the state");
    assert.equal((await fetch(server.url('/v1/models/late'))).status, 404);
  });

  it('the late model appears: still 503 for the broken one; the broken one is edited out of the config: 200', async () => {
    fs.cpSync(halfPlusTwo, path.join(root, 'late.tmp', '1'), { recursive: true });
    fs.renameSync(path.join(root, 'late.tmp'), path.join(root, 'late'));
    await waitAvailable(server, ['late'], 30_000);
    const r = await ready();
    assert.equal(r.status, 503);
    assert.deepEqual(
      r.body.not_ready.map((m) => m.name),
      ['broken'],
    );
    writeConfig(['good', 'late']);
    await until('ready after the config edit', async () => (await ready()).status === 200);
    assert.deepEqual((await ready()).body, { ready: true, not_ready: [] });
  });
});
