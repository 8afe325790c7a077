// The batching loader refuses a latency target that its model's batching would never read (a
// YAML section without a mode under --batching_mode=fixed), before the version below is loaded.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { BatchingVersionLoader } from '../../src/servables/batching_version_loader.js';
import { resolveBatchingParameters } from '../../src/config/batching_parameters.js';
import type { VersionLoader } from '../../src/core/aspired_versions_manager.js';
import type { ServableVersion } from '../../src/services/servable_version.js';
import { Code } from '../../src/errors/status.js';

function countingLoader(): VersionLoader<ServableVersion> & { loads: number } {
  const loader = {
    loads: 0,
    async load(): Promise<ServableVersion> {
      loader.loads++;
      return { description: 'fake', run: async () => ({}) } as unknown as ServableVersion;
    },
    async unload() {},
  };
  return loader;
}

describe('BatchingVersionLoader and latency targets', () => {
  const global = resolveBatchingParameters({}, 'batching.cfg');
  const setup = (perModel: Record<string, ReturnType<typeof resolveBatchingParameters>>, mode: 'fixed' | 'adaptive') => ({
    global,
    perVersionFiles: false,
    perModel: () => perModel,
    defaults: { mode, latencyTargetMs: 0 },
  });
  const targeted = resolveBatchingParameters({ max_batch_size: 8, latency_target_ms: 40 }, 'c.yaml');

  it('a target in a section without a mode, under --batching_mode=fixed: refused, nothing loaded', async () => {
    const inner = countingLoader();
    const loader = new BatchingVersionLoader(inner, setup({ m: targeted }, 'fixed'));
    await assert.rejects(loader.load('m', 1, '/nowhere/m/1'), (e: { code?: number; message?: string }) => {
      assert.equal(e.code, Code.FAILED_PRECONDITION);
      assert.match(e.message ?? '', /latency_target_ms is read by adaptive batching only.*--batching_mode is fixed/);
      return true;
    });
    assert.equal(inner.loads, 0);
  });

  it('the same section under --batching_mode=adaptive loads', async () => {
    const inner = countingLoader();
    const loader = new BatchingVersionLoader(inner, setup({ m: targeted }, 'adaptive'));
    const v = await loader.load('m', 1, '/nowhere/m/1');
    assert.equal(inner.loads, 1);
    await loader.unload(v);
  });
});
