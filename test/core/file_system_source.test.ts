// The file-system source: base path → aspired versions → callback, with TF Serving's
// reliability: an unreadable base path is no call at all (what serves keeps serving).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { FileSystemSource, type WatchedServable } from '../../src/core/file_system_source.js';
import { tempDir } from '../helpers/temp.js';

function source() {
  const calls: Array<[string, number[]]> = [];
  const logs: string[] = [];
  const s = new FileSystemSource<WatchedServable>(0, (msg) => logs.push(msg));
  s.setAspiredVersionsCallback(async (servable, versions) => {
    calls.push([servable.name, versions.map((v) => v.version)]);
  });
  return { s, calls, logs };
}

describe('file system source', () => {
  it('hands the versions the policy aspires to the callback', async () => {
    const dir = tempDir('tfgate-src-');
    for (const v of ['1', '2', '3']) fs.mkdirSync(path.join(dir, v));
    const { s, calls } = source();
    await s.setServables([
      { name: 'latest', base_path: dir, model_version_policy: { latest: { num_versions: 2 } } },
      { name: 'all', base_path: dir, model_version_policy: { all: {} } },
    ]);
    // The base paths are read concurrently, so the calls come in whichever order the reads finish.
    assert.deepEqual(
      new Map(calls),
      new Map([
        ['latest', [2, 3]],
        ['all', [1, 2, 3]],
      ]),
    );
    assert.equal(calls.length, 2);
  });

  it('an unreadable base path makes no call (keeps what serves), logged once per streak', async () => {
    const dir = tempDir('tfgate-src-');
    const { s, calls, logs } = source();
    const missing = { name: 'm', base_path: path.join(dir, 'missing'), model_version_policy: { latest: { num_versions: 1 } } };
    await s.setServables([missing]);
    await s.setServables([missing]);
    assert.deepEqual(calls, []);
    assert.equal(logs.filter((l) => l.includes('Could not find base path')).length, 1);
    fs.mkdirSync(path.join(dir, 'missing', '4'), { recursive: true });
    await s.setServables([missing]);
    assert.deepEqual(calls, [['m', [4]]]);
    assert.ok(logs.some((l) => l.includes('is readable again')));
  });

  it('a readable base path without versions is an empty list (the target unloads)', async () => {
    const { s, calls, logs } = source();
    await s.setServables([{ name: 'm', base_path: tempDir('tfgate-src-'), model_version_policy: { all: {} } }]);
    assert.deepEqual(calls, [['m', []]]);
    assert.ok(logs.some((l) => l.includes('No versions of servable m found')));
  });

  it('the callback can be set only once', () => {
    const { s } = source();
    assert.throws(() => s.setAspiredVersionsCallback(async () => {}), /already set/);
  });
});
