// File-system and config glitches against the real process: none of them may unload a
// healthy model or take the server down. The version poll failing (base path moved away
// for a moment, EMFILE at the fd limit), the config file emptied by a non-atomic writer,
// and a corrupt newest version that must neither hide its error nor block later versions.
import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { MODELS } from '../helpers/paths.js';
import { getJson, postJson, startServer, waitAvailable, type RunningServer } from '../helpers/server_process.js';
import { tempDir } from '../helpers/temp.js';

const HALF_PLUS_TWO = path.join(MODELS, 'saved_model_half_plus_two_cpu', '00000123');

/** Polls until `predicate` holds, or fails with `what` and the server's logs at the deadline. */
async function until(server: RunningServer, what: string, predicate: () => boolean | Promise<boolean>, timeoutMs = 20_000): Promise<void> {
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

/** The lines logged after `from` characters of the log. */
const logsSince = (server: RunningServer, from: number) => server.logs().slice(from);

describe('version poll errors keep what is served (real process)', () => {
  const servers: RunningServer[] = [];
  /** half_plus_two copied to a fresh base path, served with a poll every second. */
  async function servePolledCopy(): Promise<{ base: string; server: RunningServer }> {
    const base = path.join(tempDir(), 'hp');
    fs.cpSync(HALF_PLUS_TWO, path.join(base, '1'), { recursive: true });
    const server = await startServer([
      '--model_name=hp',
      `--model_base_path=${base}`,
      '--file_system_poll_wait_seconds=1',
      '--num_executors=1',
    ]);
    servers.push(server);
    await waitAvailable(server, ['hp']);
    return { base, server };
  }
  after(async () => {
    for (const s of servers) assert.equal(await s.stop(), 0, s.logs());
  });

  it('a base path moved away and back under load: no request fails, the error is logged', async () => {
    const { base, server } = await servePolledCopy();

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
    fs.renameSync(base, path.join(path.dirname(base), 'away'));
    // Away until at least one poll found it missing (whatever that poll then did).
    await until(
      server,
      'a poll of the missing base path',
      () => /hp/.test(logsSince(server, mark)) && /base path/i.test(logsSince(server, mark)),
    );
    fs.renameSync(path.join(path.dirname(base), 'away'), base);
    await new Promise((r) => setTimeout(r, 1500));
    running = false;
    await Promise.all(loops);

    assert.deepEqual(failures.slice(0, 3), [], `${failures.length} of ${failures.length + served} requests failed`);
    assert.ok(served > 10, `served ${served}`);
    assert.equal(await versionStates(server, 'hp'), '1:AVAILABLE');
    const away = logsSince(server, mark);
    assert.doesNotMatch(away, /Unloaded servable version/);
    assert.match(away, /Could not find base path .*hp.* for servable hp.*ENOENT/);
  });

  it('EMFILE while listing the base path keeps the model, logs the reason, and the server lives on', async () => {
    const { base, server } = await servePolledCopy();

    // Lower the running server's fd limit to a few above what it holds, then hold enough
    // connections open that every descriptor is taken: the next poll's readdir gets EMFILE.
    const pid = server.proc.pid!;
    const open = fs.readdirSync(`/proc/${pid}/fd`).length;
    // The soft limit only: lowering the hard one could not be undone without CAP_SYS_RESOURCE.
    const [soft] = execFileSync('prlimit', [`--pid=${pid}`, '--nofile', '--raw', '--noheadings', '--output=SOFT'])
      .toString()
      .trim()
      .split(/\s+/);
    execFileSync('prlimit', [`--pid=${pid}`, `--nofile=${open + 4}:`]);
    const mark = server.logs().length;
    const sockets: net.Socket[] = [];
    for (let i = 0; i < 16; i++) {
      const s = net.connect(server.port, '127.0.0.1');
      s.on('error', () => {});
      sockets.push(s);
    }
    await until(server, 'a poll that could not list the base path', () =>
      /EMFILE|No versions of servable hp/.test(logsSince(server, mark)),
    );
    for (const s of sockets) s.destroy();
    execFileSync('prlimit', [`--pid=${pid}`, `--nofile=${soft}:`]);
    // Two more polls with descriptors to spare.
    await new Promise((r) => setTimeout(r, 2500));

    assert.equal(server.proc.exitCode, null, server.logs());
    const since = logsSince(server, mark);
    assert.doesNotMatch(since, /No versions of servable hp|Unloaded servable version/);
    assert.match(since, /for servable hp.*EMFILE/);
    assert.equal(await versionStates(server, 'hp'), '1:AVAILABLE');
    const r = await postJson(server.url('/v1/models/hp:predict'), { instances: [2] });
    assert.equal(r.status, 200, r.text);
  });
});

describe('a load at the fd limit (real process)', () => {
  it("fails with its reason and the server lives on (it exited on piscina's unheard error event)", async () => {
    const root = tempDir();
    const base = path.join(root, 'hp');
    fs.cpSync(HALF_PLUS_TWO, path.join(base, '1'), { recursive: true });
    const server = await startServer([
      '--model_name=hp',
      `--model_base_path=${base}`,
      '--file_system_poll_wait_seconds=1',
      '--num_executors=1',
      '--max_num_load_retries=0',
    ]);
    try {
      await waitAvailable(server, ['hp']);
      // Two descriptors to spare: enough for the poll's readdir, not for an executor thread.
      const pid = server.proc.pid!;
      const [soft] = execFileSync('prlimit', [`--pid=${pid}`, '--nofile', '--raw', '--noheadings', '--output=SOFT'])
        .toString()
        .trim()
        .split(/\s+/);
      execFileSync('prlimit', [`--pid=${pid}`, `--nofile=${fs.readdirSync(`/proc/${pid}/fd`).length + 2}:`]);
      const mark = server.logs().length;
      fs.cpSync(HALF_PLUS_TWO, path.join(root, 'v2'), { recursive: true });
      fs.renameSync(path.join(root, 'v2'), path.join(base, '2'));
      await until(
        server,
        'the load of version 2 to end',
        () =>
          server.proc.exitCode !== null ||
          /version: 2\}.*(failed|Successfully)|Successfully loaded servable version \{name: hp version: 2\}/.test(logsSince(server, mark)),
      );
      execFileSync('prlimit', [`--pid=${pid}`, `--nofile=${soft}:`]);
      assert.equal(server.proc.exitCode, null, logsSince(server, mark));
      // Where the limit was hit, the failure names it.
      for (const line of logsSince(server, mark)
        .split('\n')
        .filter((l) => l.includes('EMFILE')))
        assert.match(line, /load_failed|Loading servable/);
      assert.equal((await postJson(server.url('/v1/models/hp:predict'), { instances: [2] })).status, 200);
    } finally {
      await server.stop();
    }
  });
});

describe('an emptied config file takes no action (real process)', () => {
  for (const kind of ['model_config_file', 'config'] as const) {
    it(`--${kind}: truncated to nothing, the models stay; the new content then applies`, async () => {
      const root = tempDir();
      fs.cpSync(HALF_PLUS_TWO, path.join(root, 'hp', '1'), { recursive: true });
      const file = path.join(root, kind === 'config' ? 'tfgate.yaml' : 'models.config');
      const content =
        kind === 'config'
          ? `model_config_list:\n  config:\n    - name: hp\n      base_path: ${path.join(root, 'hp')}\n`
          : `model_config_list { config { name: "hp" base_path: "${path.join(root, 'hp')}" } }\n`;
      fs.writeFileSync(file, content);
      const server = await startServer([`--${kind}=${file}`, '--model_config_file_poll_wait_seconds=1', '--num_executors=1']);
      try {
        await waitAvailable(server, ['hp']);
        const mark = server.logs().length;
        fs.writeFileSync(file, '');
        await until(server, 'a reload of the empty config', () =>
          /Taking no action for empty config|Unloaded servable version|Failed to reload/.test(logsSince(server, mark)),
        );
        // And a further poll or two of the same empty file.
        await new Promise((r) => setTimeout(r, 1500));
        assert.equal(await versionStates(server, 'hp'), '1:AVAILABLE');
        assert.equal((await postJson(server.url('/v1/models/hp:predict'), { instances: [2] })).status, 200);
        assert.match(logsSince(server, mark), /Taking no action for empty config/);
        // A real change still applies: an explicitly empty list unloads the model.
        fs.writeFileSync(file, kind === 'config' ? 'model_config_list:\n  config: []\n' : 'model_config_list {}\n');
        await until(server, 'the explicit empty list to unload hp', async () => (await versionStates(server, 'hp')) === '1:END');
      } finally {
        assert.equal(await server.stop(), 0);
      }
    });
  }
});

describe('a corrupt newest version (real process)', () => {
  it('shows and logs its load error, and a newer good version still loads', async () => {
    const root = tempDir();
    const base = path.join(root, 'hp');
    fs.cpSync(HALF_PLUS_TWO, path.join(base, '1'), { recursive: true });
    // TF Serving's defaults: 5 retries, 60 s apart.
    const server = await startServer([
      '--model_name=hp',
      `--model_base_path=${base}`,
      '--file_system_poll_wait_seconds=1',
      '--num_executors=1',
    ]);
    try {
      await waitAvailable(server, ['hp']);
      const mark = server.logs().length;
      fs.mkdirSync(path.join(root, 'bad'));
      fs.writeFileSync(path.join(root, 'bad', 'saved_model.pb'), 'not a protobuf at all');
      fs.renameSync(path.join(root, 'bad'), path.join(base, '2'));

      // The failure is in the status while the load retries (LOADING) or once it gave up (END).
      let v2: { state: string; status: { error_code: string; error_message: string } } | undefined;
      await until(server, 'version 2 to show its load error', async () => {
        const r = await getJson(server.url('/v1/models/hp/versions/2'));
        v2 = r.status === 200 ? r.json.model_version_status[0] : undefined;
        return !!v2 && v2.status.error_message !== '';
      });
      assert.notEqual(v2!.status.error_code, 'OK');
      assert.match(logsSince(server, mark), /\{name: hp version: 2\}.*(retry|failed)/);
      // Version 1 keeps serving meanwhile.
      assert.equal((await postJson(server.url('/v1/models/hp:predict'), { instances: [2] })).status, 200);

      fs.cpSync(HALF_PLUS_TWO, path.join(root, 'good'), { recursive: true });
      fs.renameSync(path.join(root, 'good'), path.join(base, '3'));
      await until(server, 'version 3 to be AVAILABLE and 1 unloaded', async () =>
        /^3:AVAILABLE 2:END 1:END$/.test(await versionStates(server, 'hp')),
      );
      const r = await postJson(server.url('/v1/models/hp:predict'), { instances: [2] });
      assert.equal(r.status, 200, r.text);
    } finally {
      assert.equal(await server.stop(), 0);
    }
  });
});
