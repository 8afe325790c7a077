// The load's time bound around the loaders under it: past the bound their signal aborts and
// the load fails with DEADLINE_EXCEEDED in tfgate's words, whatever the loader under it threw;
// a load within the bound keeps its own failure; a folder that is not a model is refused before
// the loader under it is called.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { TimeBoundedVersionLoader } from '../../src/servables/load_time_bound.js';
import type { VersionLoader } from '../../src/core/aspired_versions_manager.js';
import { Code, ServingError } from '../../src/errors/status.js';
import { isError } from '../helpers/errors.js';
import { tempDir } from '../helpers/temp.js';

function versionDir(): string {
  const dir = path.join(tempDir('tfgate-bound-'), '1');
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'saved_model.pb'), Buffer.alloc(16));
  return dir;
}

/** A loader that never ends on its own: it fails only when its signal aborts. */
function waitsForAbort(seen: unknown[]): VersionLoader<string> {
  return {
    load: (_m, _v, _p, signal) =>
      new Promise((_resolve, reject) => {
        const stop = () => {
          seen.push(signal?.reason);
          reject(new Error('the inner loader stopped'));
        };
        if (signal?.aborted) stop();
        else signal?.addEventListener('abort', stop, { once: true });
      }),
    unload: async () => {},
  };
}

describe('TimeBoundedVersionLoader', () => {
  it('a load past its bound is abandoned below (signal aborted) and fails with DEADLINE_EXCEEDED', async () => {
    const seen: unknown[] = [];
    const loader = new TimeBoundedVersionLoader(waitsForAbort(seen), 0.05);
    await assert.rejects(loader.load('m', 1, versionDir()), isError(Code.DEADLINE_EXCEEDED, /loading took longer than its time bound of 0\.05 s \(--load_timeout_seconds=0\.05 plus 1 s per 4 MB on disk\); its executor threads were stopped/));
    assert.equal(seen.length, 1);
  });

  it("shutdown's signal reaches the loader below; the load keeps that loader's failure", async () => {
    const seen: unknown[] = [];
    const loader = new TimeBoundedVersionLoader(waitsForAbort(seen), 60);
    const shutdown = new AbortController();
    const load = loader.load('m', 1, versionDir(), shutdown.signal);
    setImmediate(() => shutdown.abort(new ServingError(Code.CANCELLED, 'stopping')));
    await assert.rejects(load, /the inner loader stopped/);
    assert.equal(seen.length, 1);
  });

  it('a folder that is not a model is refused before the loader below is called', async () => {
    let called = 0;
    const loader = new TimeBoundedVersionLoader<string>({ load: async () => String(++called), unload: async () => {} }, 60);
    await assert.rejects(loader.load('m', 1, path.join(tempDir('tfgate-bound-'), 'missing')));
    assert.equal(called, 0);
  });
});
