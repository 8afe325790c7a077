// A model reload under load, against the real process: a new version folder appears in the
// base path while clients keep predicting; the server loads it, moves traffic to it and
// unloads the old one, and no request fails on the way.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { MODELS } from '../helpers/paths.js';
import { getJson, postJson, startServer, waitAvailable, type RunningServer } from '../helpers/server_process.js';
import { tempDir } from '../helpers/temp.js';

const TWO_VERSIONS = path.join(MODELS, 'saved_model_half_plus_two_2_versions');

describe('a new version under load (real process)', () => {
  let server: RunningServer;
  let root: string;

  before(async () => {
    root = tempDir();
    fs.cpSync(path.join(TWO_VERSIONS, '00000123'), path.join(root, 'hp2', '1'), { recursive: true });
    server = await startServer([
      '--model_name=hp2',
      `--model_base_path=${path.join(root, 'hp2')}`,
      '--file_system_poll_wait_seconds=1',
      '--num_executors=1',
    ]);
    await waitAvailable(server, ['hp2']);
  });

  after(async () => {
    assert.equal(await server?.stop(), 0);
  });

  it('serves every request while version 2 loads and version 1 unloads', async () => {
    let running = true;
    const failures: string[] = [];
    let served = 0;
    const loop = async (k: number) => {
      for (let i = 0; running; i++) {
        const x = k * 1000 + i;
        const r = await postJson(server.url('/v1/models/hp2:predict'), { instances: [x] }).catch((e: Error) => ({
          status: 0,
          json: undefined,
          text: e.message,
        }));
        if (r.status !== 200 || r.json?.predictions?.[0] !== x / 2 + 2) failures.push(`${r.status} ${r.text}`);
        else served++;
      }
    };
    const loops = [0, 1, 2, 3].map(loop);
    await new Promise((r) => setTimeout(r, 500));
    // Written aside, then renamed in, as a deploy does: the server never sees half a folder.
    fs.cpSync(path.join(TWO_VERSIONS, '00000124'), path.join(root, 'v2'), { recursive: true });
    fs.renameSync(path.join(root, 'v2'), path.join(root, 'hp2', '2'));
    const deadline = Date.now() + 20_000;
    let states = '';
    for (;;) {
      const status = await getJson(server.url('/v1/models/hp2'));
      states = status.json.model_version_status.map((v: { version: string; state: string }) => `${v.version}:${v.state}`).join(' ');
      if (states === '2:AVAILABLE 1:END' || Date.now() > deadline) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    await new Promise((r) => setTimeout(r, 500));
    running = false;
    await Promise.all(loops);
    assert.equal(states, '2:AVAILABLE 1:END');
    assert.deepEqual(failures, []);
    assert.ok(served > 50, `served ${served}`);
    assert.match(server.logs(), /Successfully loaded servable version \{name: hp2 version: 2\}/);
    assert.match(server.logs(), /Unloaded servable version \{name: hp2 version: 1\}/);
  });
});
