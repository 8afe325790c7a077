// Hostile versions dropped beside a serving one, against the real process: a FIFO
// saved_model.pb, a variables.index linked to /dev/zero, a MaxPool with a zero-size window.
// Each fails to load at once with its reason in the version's status (TF's message and code
// for the MaxPool), the serving version answers every request meanwhile, the poll still sees
// a good new version, and every line the server logged is JSON.
import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { MODELS } from '../helpers/paths.js';
import { getJson, postJson, startServer, type RunningServer } from '../helpers/server_process.js';
import { tempDir } from '../helpers/temp.js';
import { writeRawSavedModel } from '../../test_util/savedmodel/raw_saved_model.js';
import { HOSTILE_GRAPHS } from '../../test_util/savedmodel/hostile_graphs.js';

const HALF_PLUS_TWO = path.join(MODELS, 'saved_model_half_plus_two_cpu', '00000123');

interface VersionStatus {
  version: string;
  state: string;
  status: { error_code: string; error_message: string };
}

async function until(server: RunningServer, what: string, predicate: () => Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await predicate())) {
    if (Date.now() > deadline) throw new Error(`${what} not reached in time:\n${server.logs()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The status of `version`, once it has one (an error, or AVAILABLE). */
async function settledStatus(server: RunningServer, version: number): Promise<VersionStatus> {
  let found: VersionStatus | undefined;
  await until(server, `version ${version} settled`, async () => {
    const r = await getJson(server.url(`/v1/models/hp/versions/${version}`));
    found = r.status === 200 ? (r.json.model_version_status as VersionStatus[])[0] : undefined;
    return !!found && (found.state === 'AVAILABLE' || found.status.error_message !== '');
  });
  return found!;
}

describe('hostile versions beside a serving one (real process)', () => {
  let server: RunningServer | undefined;
  after(async () => {
    if (server) assert.equal(await server.stop(), 0, server.logs());
  });

  it('a FIFO, a link to /dev/zero and a zero-size MaxPool are refused by name; version 1 serves throughout; a good version is picked up', async () => {
    const base = path.join(tempDir('tfgate-hostile-'), 'hp');
    fs.cpSync(HALF_PLUS_TWO, path.join(base, '1'), { recursive: true });
    server = await startServer([
      '--model_name=hp',
      `--model_base_path=${base}`,
      '--file_system_poll_wait_seconds=1',
      '--num_executors=1',
      '--max_num_load_retries=0',
    ]);
    await until(server, 'version 1 AVAILABLE', async () => (await settledStatus(server!, 1)).state === 'AVAILABLE');

    let running = true;
    const failures: string[] = [];
    let served = 0;
    const load = (async () => {
      while (running) {
        const r = await postJson(server!.url('/v1/models/hp/versions/1:predict'), { instances: [2] });
        if (r.status === 200 && r.json.predictions[0] === 3) served++;
        else failures.push(`${r.status} ${r.text}`);
      }
    })();

    // Written beside the base path and renamed in, as a deployment drops a version.
    const drop = async (version: number, make: (dir: string) => Promise<void> | void) => {
      const staging = path.join(path.dirname(base), `staging-${version}`);
      await make(staging);
      fs.renameSync(staging, path.join(base, String(version)));
    };
    await drop(2, (dir) => {
      fs.cpSync(HALF_PLUS_TWO, dir, { recursive: true });
      fs.rmSync(path.join(dir, 'saved_model.pb'));
      execFileSync('mkfifo', [path.join(dir, 'saved_model.pb')]);
    });
    const fifo = await settledStatus(server, 2);
    assert.equal(fifo.status.error_code, 'FAILED_PRECONDITION');
    assert.match(fifo.status.error_message, /saved_model\.pb is a FIFO, not a regular file/);

    await drop(3, (dir) => {
      fs.cpSync(HALF_PLUS_TWO, dir, { recursive: true });
      fs.rmSync(path.join(dir, 'variables', 'variables.index'));
      fs.symlinkSync('/dev/zero', path.join(dir, 'variables', 'variables.index'));
    });
    const zero = await settledStatus(server, 3);
    assert.equal(zero.status.error_code, 'FAILED_PRECONDITION');
    assert.match(zero.status.error_message, /variables\.index is a symbolic link to \/dev\/zero, outside the version folder/);

    await drop(4, (dir) => writeRawSavedModel(dir, HOSTILE_GRAPHS.maxPoolZeroWindow()));
    const pool = await settledStatus(server, 4);
    assert.equal(pool.status.error_code, 'FAILED_PRECONDITION', pool.status.error_message);
    assert.match(
      pool.status.error_message,
      /no signature can be served \(serving_default: signature 'serving_default': Sliding window ksize for dimension 1 was zero\./,
    );

    running = false;
    await load;
    assert.deepEqual(failures.slice(0, 3), [], `${failures.length} of ${failures.length + served} requests to version 1 failed`);
    assert.ok(served > 10, `served ${served}`);

    // The poll still sees a good version, which then replaces version 1.
    await drop(5, (dir) => fs.cpSync(HALF_PLUS_TWO, dir, { recursive: true }));
    assert.equal((await settledStatus(server, 5)).state, 'AVAILABLE');
    const r = await postJson(server.url('/v1/models/hp:predict'), { instances: [4] });
    assert.deepEqual(r.json, { predictions: [4] });
    const notJson = server
      .logs()
      .split('\n')
      .filter((line) => line.trim() && !line.startsWith('{'));
    assert.deepEqual(notJson, [], 'every log line is JSON');
  });
});
