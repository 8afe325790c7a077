// Version policies (pure) and the manager's lifecycle, with an in-memory loader.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { aspiredVersions } from '../../src/core/version_policy.js';
import { AspiredVersionsManager, type ManagerEvent, type VersionLoader } from '../../src/core/aspired_versions_manager.js';
import { listVersions } from '../../src/core/version_dirs.js';
import { Code, ServingError } from '../../src/errors/status.js';
import { tempDir } from '../helpers/temp.js';

describe('version policy', () => {
  const TABLE: Array<[number[], Parameters<typeof aspiredVersions>[1], number[]]> = [
    [[1, 2, 3], { latest: { num_versions: 1 } }, [3]],
    [[3, 1, 2], { latest: { num_versions: 2 } }, [2, 3]],
    [[1], { latest: { num_versions: 5 } }, [1]],
    [[], { latest: { num_versions: 1 } }, []],
    [[1, 2, 3], { all: {} }, [1, 2, 3]],
    [[1, 2, 3], { specific: { versions: [1, 3, 7] } }, [1, 3]],
  ];
  for (const [disk, policy, want] of TABLE)
    it(`${JSON.stringify(policy)} over ${disk} → ${want}`, () => assert.deepEqual(aspiredVersions(disk, policy), want));
});

describe('version dirs', () => {
  it('lists numeric folders only (leading zeros allowed), ignoring files and other folders', async () => {
    const dir = tempDir('tfgate-fs-');
    for (const d of ['00000123', '7', 'variables', 'tmp_1']) fs.mkdirSync(path.join(dir, d));
    fs.writeFileSync(path.join(dir, 'saved_model.pb'), '');
    fs.writeFileSync(path.join(dir, '9'), '');
    assert.deepEqual(
      (await listVersions(dir)).map((v) => v.version),
      [7, 123],
    );
  });

  it("a SavedModel directly in the base path (KServe's /mnt/models) is version 1 there, unless there are version folders", async () => {
    const dir = tempDir('tfgate-fs-');
    assert.deepEqual(await listVersions(dir), [], 'an empty base path: no version');
    fs.mkdirSync(path.join(dir, 'variables'));
    assert.deepEqual(await listVersions(dir), [], 'variables/ alone: no version');
    fs.writeFileSync(path.join(dir, 'saved_model.pb'), '');
    assert.deepEqual(await listVersions(dir), [{ version: 1, path: dir }]);
    fs.mkdirSync(path.join(dir, '3'));
    assert.deepEqual(
      (await listVersions(dir)).map((v) => v.version),
      [3],
      'version folders win, as TF Serving ignores the stray file',
    );
  });

  it('an unreadable base path or version link is an error, never "no versions"', async () => {
    const dir = tempDir('tfgate-fs-');
    await assert.rejects(listVersions(path.join(dir, 'missing')), (e: NodeJS.ErrnoException) => e.code === 'ENOENT');
    fs.mkdirSync(path.join(dir, '1'));
    fs.symlinkSync(path.join(dir, 'nowhere'), path.join(dir, '2'));
    assert.deepEqual(
      (await listVersions(dir)).map((v) => v.version),
      [1],
      'a dangling link is no version',
    );
    fs.symlinkSync(path.join(dir, '3'), path.join(dir, '3')); // stat: ELOOP
    await assert.rejects(listVersions(dir), (e: NodeJS.ErrnoException) => e.code === 'ELOOP');
  });
});

class FakeLoader implements VersionLoader<string> {
  pending = new Map<number, { resolve: (v: string) => void; reject: (e: Error) => void }>();
  unloaded: string[] = [];
  load(_m: string, version: number): Promise<string> {
    return new Promise((resolve, reject) => this.pending.set(version, { resolve, reject }));
  }
  async unload(v: string): Promise<void> {
    this.unloaded.push(v);
  }
}
const tick = () => new Promise((r) => setImmediate(r));
const manager = (loader: FakeLoader) =>
  new AspiredVersionsManager(loader, { allowVersionLabelsForUnavailableModels: false, maxNumLoadRetries: 0, loadRetryIntervalMs: 0 });

/** A manager whose model 'm' has `versions` loaded and AVAILABLE. */
async function loadedManager(versions: number[]) {
  const loader = new FakeLoader();
  const m = manager(loader);
  const p = m.setAspiredVersions(
    'm',
    versions.map((v) => ({ version: v, path: `/${v}` })),
  );
  await tick();
  for (const v of versions) loader.pending.get(v)!.resolve(`v${v}`);
  await p;
  return { loader, m };
}

describe('aspired versions manager', () => {
  it('keeps the old version serving until the new one is available, then unloads it', async () => {
    const { loader, m } = await loadedManager([1]);
    const second = m.setAspiredVersions('m', [{ version: 2, path: '/2' }]);
    await tick();
    const h = m.acquire({ name: 'm' });
    assert.equal(h.servable, 'v1', 'v2 still loading: v1 answers');
    h.release();
    loader.pending.get(2)!.resolve('v2');
    await second;
    assert.equal(m.acquire({ name: 'm' }).servable, 'v2');
    assert.deepEqual(loader.unloaded, ['v1']);
    assert.deepEqual(
      m.status({ name: 'm' }).map((s) => [s.version, s.state]),
      [
        [2, 'AVAILABLE'],
        [1, 'END'],
      ],
    );
  });

  it('a failed load ends in END with its error; the previous version keeps serving', async () => {
    const { loader, m } = await loadedManager([1]);
    const second = m.setAspiredVersions('m', [{ version: 2, path: '/2' }]);
    await tick();
    loader.pending.get(2)!.reject(new ServingError(Code.DATA_LOSS, 'corrupt saved_model.pb'));
    await second;
    const [v2, v1] = m.status({ name: 'm' });
    assert.deepEqual([v2.version, v2.state, v2.status.code, v2.status.message], [2, 'END', Code.DATA_LOSS, 'corrupt saved_model.pb']);
    assert.equal(v1.state, 'AVAILABLE');
    assert.equal(m.acquire({ name: 'm' }).servable, 'v1');
  });

  it('a failing load shows its error while it retries, logs each attempt, and a newer version supersedes it', async () => {
    const loader = new FakeLoader();
    const events: ManagerEvent[] = [];
    // A minute between retries: the newer version must not wait for it.
    const m = new AspiredVersionsManager(loader, {
      allowVersionLabelsForUnavailableModels: false,
      maxNumLoadRetries: 5,
      loadRetryIntervalMs: 60_000,
      onEvent: (e) => events.push(e),
    });
    const first = m.setAspiredVersions('m', [{ version: 1, path: '/1' }]);
    await tick();
    loader.pending.get(1)!.resolve('v1');
    await first;
    const second = m.setAspiredVersions('m', [{ version: 2, path: '/2' }]);
    await tick();
    loader.pending.get(2)!.reject(new ServingError(Code.DATA_LOSS, 'corrupt saved_model.pb'));
    await tick();
    const [v2] = m.status({ name: 'm', version: 2 });
    assert.deepEqual([v2.state, v2.status.code, v2.status.message], ['LOADING', Code.DATA_LOSS, 'corrupt saved_model.pb']);
    assert.deepEqual(
      events
        .filter((e) => e.kind === 'load_retry')
        .map((e) => e.kind === 'load_retry' && [e.version, e.attempt, e.retryInMs, e.error.message]),
      [[2, 1, 60_000, 'corrupt saved_model.pb']],
    );

    const third = m.setAspiredVersions('m', [{ version: 3, path: '/3' }]);
    await tick();
    loader.pending.get(3)!.resolve('v3');
    await Promise.all([second, third]);
    assert.deepEqual(
      m.status({ name: 'm' }).map((s) => [s.version, s.state, s.status.code]),
      [
        [3, 'AVAILABLE', Code.OK],
        [2, 'END', Code.DATA_LOSS],
        [1, 'END', Code.OK],
      ],
    );
    assert.equal(m.acquire({ name: 'm' }).servable, 'v3');
  });

  it('an unload that fails is told and the version ends; nothing is left unhandled', async () => {
    const loader = new FakeLoader();
    const events: ManagerEvent[] = [];
    const m = new AspiredVersionsManager(loader, {
      allowVersionLabelsForUnavailableModels: false,
      maxNumLoadRetries: 0,
      loadRetryIntervalMs: 0,
      onEvent: (e) => events.push(e),
    });
    const first = m.setAspiredVersions('m', [{ version: 1, path: '/1' }]);
    await tick();
    loader.pending.get(1)!.resolve('v1');
    await first;
    loader.unload = async () => {
      throw new Error('worker pool gone');
    };
    const next = m.setAspiredVersions('m', [{ version: 2, path: '/2' }]);
    await tick();
    loader.pending.get(2)!.resolve('v2');
    await next;
    assert.deepEqual(
      m.status({ name: 'm' }).map((s) => [s.version, s.state]),
      [
        [2, 'AVAILABLE'],
        [1, 'END'],
      ],
    );
    // A fault of tfgate's own: told as INTERNAL with an id, its text only in the log.
    const failed = events.find((e) => e.kind === 'unload_failed' && e.version === 1);
    assert.ok(failed && failed.kind === 'unload_failed', JSON.stringify(events));
    assert.equal(failed.error.code, Code.INTERNAL);
    assert.match(failed.error.message, /^Internal error [0-9a-f]{8} in tfgate/);
  });

  it('unloading waits for handles still held', async () => {
    const { loader, m } = await loadedManager([1]);
    const h = m.acquire({ name: 'm', version: 1 });
    const removed = m.removeModel('m');
    await tick();
    assert.deepEqual(loader.unloaded, [], 'held: not unloaded yet');
    h.release();
    await removed;
    assert.deepEqual(loader.unloaded, ['v1']);
  });

  it("resolves versions and labels with TF Serving's errors", async () => {
    const { m } = await loadedManager([1, 2]);
    m.setVersionLabels('m', { stable: 1 });
    assert.equal(m.acquire({ name: 'm', label: 'stable' }).servable, 'v1');
    const err = (f: () => unknown) => {
      try {
        f();
      } catch (e) {
        return [(e as ServingError).code, (e as Error).message];
      }
      return undefined;
    };
    assert.deepEqual(
      err(() => m.acquire({ name: 'x' })),
      [Code.NOT_FOUND, 'Servable not found for request: Latest(x)'],
    );
    assert.deepEqual(
      err(() => m.acquire({ name: 'm', version: 9 })),
      [Code.NOT_FOUND, 'Servable not found for request: Specific(m, 9)'],
    );
    assert.deepEqual(
      err(() => m.acquire({ name: 'm', label: 'beta' })),
      [Code.INVALID_ARGUMENT, 'Unrecognized servable version label: beta'],
    );
    assert.deepEqual(
      err(() => m.status({ name: 'x' })),
      [Code.NOT_FOUND, 'Could not find any versions of model x'],
    );
    assert.deepEqual(
      err(() => m.setVersionLabels('m', { canary: 3 })),
      [Code.FAILED_PRECONDITION, 'Request to assign label to version 3 of model m, which is not currently available for inference'],
    );
    assert.deepEqual(
      err(() => m.acquire({ name: '' })),
      [Code.INVALID_ARGUMENT, 'ModelSpec has no name specified.'],
    );
  });

  it('status ignores labels, as get_model_status_impl.cc reads only the version', async () => {
    const { m } = await loadedManager([1, 2]);
    m.setVersionLabels('m', { stable: 1 });
    const all = [
      [2, 'AVAILABLE'],
      [1, 'AVAILABLE'],
    ];
    assert.deepEqual(
      m.status({ name: 'm', label: 'stable' }).map((s) => [s.version, s.state]),
      all,
    );
    assert.deepEqual(
      m.status({ name: 'm', label: 'no_such_label' }).map((s) => [s.version, s.state]),
      all,
    );
    assert.throws(
      () => m.status({ name: 'x', label: 'stable' }),
      (e: unknown) => e instanceof ServingError && e.code === Code.NOT_FOUND && e.message === 'Could not find any versions of model x',
    );
  });

  it('a removed model keeps its versions in status, END and OK, and serves no more', async () => {
    const { m } = await loadedManager([1, 2]);
    m.setVersionLabels('m', { stable: 1 });
    await m.removeModel('m');
    assert.deepEqual(
      m.status({ name: 'm' }).map((s) => [s.version, s.state, s.status.code]),
      [
        [2, 'END', Code.OK],
        [1, 'END', Code.OK],
      ],
    );
    assert.throws(
      () => m.acquire({ name: 'm' }),
      (e: unknown) => e instanceof ServingError && e.code === Code.NOT_FOUND && e.message === 'Servable not found for request: Latest(m)',
    );
    assert.throws(
      () => m.acquire({ name: 'm', label: 'stable' }),
      (e: unknown) => e instanceof ServingError && e.message === 'Unrecognized servable version label: stable',
      'its labels went with the config',
    );
  });
});

describe('--num_load_threads', () => {
  it('bounds the loads running at once; the rest start as slots free up', async () => {
    const loader = new FakeLoader();
    const m = new AspiredVersionsManager(loader, {
      allowVersionLabelsForUnavailableModels: false,
      maxNumLoadRetries: 0,
      loadRetryIntervalMs: 0,
      maxConcurrentLoads: 1,
    });
    const a = m.setAspiredVersions('a', [{ version: 1, path: '/a1' }]);
    const b = m.setAspiredVersions('b', [{ version: 1, path: '/b1' }]);
    await tick();
    assert.equal(loader.pending.size, 1, 'one load at a time');
    loader.pending.get(1)!.resolve('a1');
    loader.pending.delete(1);
    await a;
    await tick();
    assert.equal(loader.pending.size, 1, 'the second load starts when the first ends');
    loader.pending.get(1)!.resolve('b1');
    await b;
    assert.equal(m.acquire({ name: 'b' }).servable, 'b1');
  });
});
