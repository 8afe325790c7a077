// The version cache: a remote version becomes a local folder only whole (atomic rename),
// never past --model_cache_max_mb or the disk's free space, and goes away after unload.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { VersionCache } from '../../src/storage/version_cache.js';
import { FetchingVersionLoader } from '../../src/storage/fetching_version_loader.js';
import type { Storage } from '../../src/storage/storage.js';
import { tempDir } from '../helpers/temp.js';

/** An in-memory bucket: `objects` by path under gs://b/m/1; `failing` streams break after their first chunk; `listedBytes` lies about sizes. */
function fakeStorage(objects: Record<string, string>, opts: { failing?: string[]; listedBytes?: Record<string, number> } = {}): Storage {
  return {
    async list() {
      return { folders: [], files: [] };
    },
    async listTree() {
      return Object.entries(objects).map(([p, body]) => ({ path: p, bytes: opts.listedBytes?.[p] ?? Buffer.byteLength(body) }));
    },
    async open(file: string) {
      const rel = file.slice('gs://b/m/1/'.length);
      const body = Buffer.from(objects[rel]);
      if (opts.failing?.includes(rel)) {
        return new Readable({
          read() {
            this.push(body.subarray(0, 1));
            this.destroy(new Error('connection reset by peer'));
          },
        });
      }
      return Readable.from([body.subarray(0, 2), body.subarray(2)]);
    },
  };
}

/** Everything under `root`, as relative paths. */
const tree = (root: string) => (fs.readdirSync(root, { recursive: true }) as string[]).sort();

const MODEL = {
  'saved_model.pb': 'graph-bytes',
  'variables/variables.index': 'index',
  'variables/variables.data-00000-of-00001': 'data-data',
};

describe('version cache', () => {
  it('downloads a version whole into its own folder, and removes it', async () => {
    const root = tempDir();
    const cache = new VersionCache({ root, maxBytes: 0 });
    const copy = await cache.fetch(fakeStorage(MODEL), 'gs://b/m/1', 'version 1 of model m');
    assert.equal(fs.readFileSync(path.join(copy.dir, 'variables', 'variables.data-00000-of-00001'), 'utf8'), 'data-data');
    assert.equal(fs.readFileSync(path.join(copy.dir, 'saved_model.pb'), 'utf8'), 'graph-bytes');
    assert.equal(path.dirname(path.dirname(copy.dir)), root, "inside this server's tfgate-models-* folder under the root");
    await copy.remove();
    assert.equal(fs.existsSync(copy.dir), false);
    await cache.close();
    assert.deepEqual(tree(root), []);
  });

  it('a download that breaks leaves nothing a loader could pick up', async () => {
    const root = tempDir();
    const cache = new VersionCache({ root, maxBytes: 0 });
    await assert.rejects(
      cache.fetch(fakeStorage(MODEL, { failing: ['variables/variables.index'] }), 'gs://b/m/1', 'version 1 of model m'),
      /version 1 of model m: downloading gs:\/\/b\/m\/1\/variables\/variables.index failed: connection reset by peer/,
    );
    const [own] = fs.readdirSync(root);
    assert.deepEqual(fs.readdirSync(path.join(root, own)), [], 'no version folder, no .partial folder');
  });

  it('an object that ends short of, or grows past, its listed size fails the download', async () => {
    const cache = new VersionCache({ root: tempDir(), maxBytes: 0 });
    await assert.rejects(
      cache.fetch(fakeStorage(MODEL, { listedBytes: { 'saved_model.pb': 3 } }), 'gs://b/m/1', 'v'),
      /grew past its listed 3 bytes/,
    );
    await assert.rejects(
      cache.fetch(fakeStorage(MODEL, { listedBytes: { 'saved_model.pb': 50 } }), 'gs://b/m/1', 'v'),
      /ended after 11 of its listed 50 bytes/,
    );
  });

  it('refuses a version past --model_cache_max_mb, counting the copies kept, and takes it once one is removed', async () => {
    const total = Object.values(MODEL).join('').length;
    const cache = new VersionCache({ root: tempDir(), maxBytes: total + 5 });
    const first = await cache.fetch(fakeStorage(MODEL), 'gs://b/m/1', 'version 1 of model m');
    await assert.rejects(
      cache.fetch(fakeStorage(MODEL), 'gs://b/m/1', 'version 2 of model m'),
      (e: Error & { code?: string }) =>
        e.code === 'EFBIG' &&
        /version 2 of model m at gs:\/\/b\/m\/1 is .* MB; with the .* MB already cached it would pass --model_cache_max_mb/.test(e.message),
    );
    await first.remove();
    await (await cache.fetch(fakeStorage(MODEL), 'gs://b/m/1', 'version 2 of model m')).remove();
  });

  it("refuses a version larger than the cache disk's free space, before writing a byte", async () => {
    const root = tempDir();
    const cache = new VersionCache({ root, maxBytes: 0, freeBytes: async () => 10 });
    await assert.rejects(
      cache.fetch(fakeStorage(MODEL), 'gs://b/m/1', 'version 1 of model m'),
      (e: Error & { code?: string }) =>
        e.code === 'ENOSPC' && /is 0.0 MB, more than the 0.0 MB free in the model cache .* \(--model_cache_dir\)/.test(e.message),
    );
    const [own] = fs.readdirSync(root);
    assert.deepEqual(fs.readdirSync(path.join(root, own)), []);
  });

  it('refuses an object path that would climb out of the version folder', async () => {
    const cache = new VersionCache({ root: tempDir(), maxBytes: 0 });
    await assert.rejects(
      cache.fetch(fakeStorage({ '../../escape': 'x' }), 'gs://b/m/1', 'v'),
      /would be written outside the version's folder/,
    );
  });
});

describe('fetching version loader', () => {
  it('loads from the local copy, removes it after unload, and after a failed load', async () => {
    const cache = new VersionCache({ root: tempDir(), maxBytes: 0 });
    const seen: string[] = [];
    let fail = false;
    const inner = {
      async load(_model: string, _version: number, dir: string) {
        seen.push(dir);
        if (fail) throw new Error('bad graph');
        return { dir, files: fs.readdirSync(dir).sort() };
      },
      async unload() {},
    };
    const loader = new FetchingVersionLoader(inner, (location, what) => cache.fetch(fakeStorage(MODEL), location, what));
    const loaded = await loader.load('m', 1, 'gs://b/m/1');
    assert.deepEqual(loaded.files, ['saved_model.pb', 'variables']);
    assert.ok(fs.existsSync(loaded.dir));
    await loader.unload(loaded);
    assert.equal(fs.existsSync(loaded.dir), false, 'copy removed after unload');
    fail = true;
    await assert.rejects(loader.load('m', 2, 'gs://b/m/1'), /bad graph/);
    assert.equal(fs.existsSync(seen[1]), false, 'copy removed after a failed load');
  });
});
