// Models on s3:// against the real process: tfgate started with S3_ENDPOINT at an
// S3-compatible server on loopback (s3rver), its model config file and its model both in
// the bucket. A version added is picked up, one removed is unloaded, the bucket going away
// for a while under load fails no request, a missing bucket keeps readiness at 503 naming
// the model, and schemes tfgate cannot read stop start-up naming the scheme.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { MODELS } from '../helpers/paths.js';
import { getJson, postJson, startServer, TFGATE_BIN, waitAvailable, type RunningServer } from '../helpers/server_process.js';
import { S3Fixture } from '../helpers/s3_server.js';
import { tempDir } from '../helpers/temp.js';

const HALF_PLUS_TWO = path.join(MODELS, 'saved_model_half_plus_two_cpu', '00000123');

/** Polls until `predicate` holds, or fails with `what` and the server's logs at the deadline. */
async function until(server: RunningServer, what: string, predicate: () => boolean | Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await predicate())) {
    if (Date.now() > deadline) throw new Error(`${what} not reached in time:\n${server.logs()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function versionStates(server: RunningServer, model: string): Promise<string> {
  const r = await getJson(server.url(`/v1/models/${model}`));
  if (r.status !== 200) return `HTTP ${r.status}`;
  return r.json.model_version_status.map((v: { version: string; state: string }) => `${v.version}:${v.state}`).join(' ');
}

/** Version folders in the server's model cache (its own tfgate-models-* folder under --model_cache_dir). */
function cachedCopies(cacheDir: string): string[] {
  return fs
    .readdirSync(cacheDir)
    .flatMap((own) => fs.readdirSync(path.join(cacheDir, own)))
    .sort();
}

const modelsConfig = (models: string[][]) =>
  `model_config_list {\n${models.map(([name, base]) => `  config { name: "${name}" base_path: "${base}" model_platform: "tensorflow" }\n`).join('')}}\n`;

function isJsonLine(line: string): boolean {
  try {
    return typeof JSON.parse(line) === 'object';
  } catch {
    return false;
  }
}

describe('models on s3:// (real process, S3-compatible server on loopback)', () => {
  let s3: S3Fixture;
  let server: RunningServer;
  const cacheDir = tempDir('tfgate-cache-');

  before(async () => {
    s3 = await S3Fixture.start();
    await s3.createBucket('models');
    await s3.putFolder('models', 'hp/1', HALF_PLUS_TWO);
    // A relative base path in a config file read from s3:// is a prefix of the same bucket.
    await s3.put(
      'models',
      'config/models.config',
      modelsConfig([
        ['hp', '../hp'],
        ['ghost', 's3://no-such-bucket/ghost'],
      ]),
    );
    server = await startServer(
      [
        '--model_config_file=s3://models/config/models.config',
        '--model_config_file_poll_wait_seconds=1',
        '--file_system_poll_wait_seconds=1',
        '--num_executors=1',
        '--load_retry_interval_micros=300000',
        `--model_cache_dir=${cacheDir}`,
      ],
      { env: s3.env() },
    );
  });
  after(async () => {
    assert.equal(await server.stop(), 0, server.logs());
    assert.deepEqual(fs.readdirSync(cacheDir), [], 'the cache folder is removed at shutdown');
    await s3.stop();
    // The AWS SDK's process warning (about Node versions) too is a JSON log line.
    const notJson = server
      .logs()
      .split('\n')
      .filter((l) => l.trim() && !isJsonLine(l));
    assert.deepEqual(notJson, [], 'every log line is JSON');
  });

  it('serves a model from s3:// named in a config file on s3://; a missing bucket keeps readiness 503, naming the model and why', async () => {
    await waitAvailable(server, ['hp']);
    const r = await postJson(server.url('/v1/models/hp:predict'), { instances: [1, 2, 5] });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.json, { predictions: [2.5, 3, 4.5] });
    const ready = await getJson(server.url('/monitoring/tfgate/ready'));
    assert.equal(ready.status, 503);
    assert.deepEqual(
      ready.json.not_ready.map((m: { name: string }) => m.name),
      ['ghost'],
    );
    assert.match(
      ready.json.not_ready[0].error,
      /Could not list base path s3:\/\/no-such-bucket\/ghost for servable ghost with error NoSuchBucket: The specified bucket does not exist/,
    );
    assert.deepEqual(
      cachedCopies(cacheDir).map((d) => d.replace(/-[0-9a-f]{8}$/, '')),
      ['version_1_of_model_hp'],
    );
  });

  it('a version added while serving is picked up; the one it supersedes unloads and its copy goes', async () => {
    await s3.putFolder('models', 'hp/2', HALF_PLUS_TWO);
    await until(
      server,
      'version 2 AVAILABLE and version 1 unloaded',
      async () => (await versionStates(server, 'hp')) === '2:AVAILABLE 1:END',
    );
    const r = await postJson(server.url('/v1/models/hp/versions/2:predict'), { instances: [4] });
    assert.deepEqual(r.json, { predictions: [4] });
    await until(server, "version 1's copy removed", () => cachedCopies(cacheDir).length === 1);
    assert.match(cachedCopies(cacheDir)[0], /^version_2_of_model_hp-/);
  });

  it('a version removed is unloaded and the one before it serves again', async () => {
    await s3.removePrefix('models', 'hp/2');
    await until(server, 'version 1 back, version 2 unloaded', async () => (await versionStates(server, 'hp')) === '2:END 1:AVAILABLE');
    await until(
      server,
      "version 2's copy removed",
      () => cachedCopies(cacheDir).length === 1 && /^version_1_of_model_hp-/.test(cachedCopies(cacheDir)[0]),
    );
  });

  it('the bucket unreachable for a while under load: no request fails, the error is logged once', async () => {
    let running = true;
    const failures: string[] = [];
    let served = 0;
    const loop = async () => {
      while (running) {
        const r = await postJson(server.url('/v1/models/hp:predict'), { instances: [2] });
        if (r.status === 200) served++;
        else failures.push(`${r.status} ${r.text}`);
      }
    };
    const loops = [loop(), loop()];
    const mark = server.logs().length;
    assert.equal(
      server.logs().match(/Could not list base path s3:\/\/no-such-bucket\/ghost/g)?.length,
      1,
      'the missing bucket was logged once over every poll so far',
    );
    await s3.pause();
    await until(server, 'a poll of the unreachable bucket', () =>
      /Could not list base path s3:\/\/models\/hp for servable hp/.test(server.logs().slice(mark)),
    );
    // Down for at least one more poll.
    await new Promise((r) => setTimeout(r, 2000));
    await s3.resume();
    await until(server, 'the base path readable again', () =>
      /Base path s3:\/\/models\/hp of servable hp is readable again/.test(server.logs().slice(mark)),
    );
    running = false;
    await Promise.all(loops);
    assert.deepEqual(failures.slice(0, 3), [], `${failures.length} of ${failures.length + served} requests failed`);
    assert.ok(served > 10, `served ${served}`);
    const outage = server.logs().slice(mark);
    assert.equal(outage.match(/Could not list base path s3:\/\/models\/hp /g)?.length, 1, outage);
    assert.ok(
      (outage.match(/Failed to reload model config s3:\/\/models\/config\/models.config/g)?.length ?? 0) <= 1,
      'the unreadable config file is said once per streak too',
    );
    assert.doesNotMatch(outage, /Unloaded servable version/);
    assert.equal(await versionStates(server, 'hp'), '2:END 1:AVAILABLE');
  });

  it('the config file edited in the bucket applies: without the missing bucket the server is ready', async () => {
    await s3.put('models', 'config/models.config', modelsConfig([['hp', 's3://models/hp']]));
    await until(server, 'ready', async () => (await fetch(server.url('/monitoring/tfgate/ready'))).status === 200);
  });
});

// (--model_base_path=hdfs://… is refused by flag, exit 2: test/config/storage_uri.test.ts.)
describe('schemes tfgate cannot read stop start-up, naming the scheme', () => {
  const run = (args: string[]) => spawnSync(process.execPath, [TFGATE_BIN, ...args, '--dry_run'], { encoding: 'utf8' });

  it('a base_path of hdfs:// in models.config: exit 1, naming the model and the scheme', () => {
    const config = path.join(tempDir(), 'models.config');
    fs.writeFileSync(config, modelsConfig([['m', 'hdfs://namenode/models/m']]));
    const r = run([`--model_config_file=${config}`]);
    assert.equal(r.status, 1, r.stderr);
    assert.match(r.stderr, /Model m has base_path hdfs:\/\/namenode\/models\/m: the hdfs:\/\/ scheme is not supported/);
  });
});
