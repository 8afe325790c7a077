// --verify_on_load as a loader around the executor loader: on a version of string signatures
// the check refuses the one its engine cannot run, naming the op, and serves the others; a
// version over --verify_on_load_max_mb is not checked and says why; =false checks nothing; a
// report the load probe brought is applied without checking again; a version left with no
// signature fails to load and its threads are closed.
import { describe, it, before } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { ExecutorServableVersion, ExecutorVersionLoader, type ExecutorLoaderOptions } from '../../src/servables/executor_version_loader.js';
import { VerifyingVersionLoader, type VerifyOnLoad } from '../../src/servables/verifying_version_loader.js';
import type { VerificationReport } from '../../src/servables/version_verifier.js';
import type { VersionLoader } from '../../src/core/aspired_versions_manager.js';
import { Code, ServingError } from '../../src/errors/status.js';
import { writeHalfPlusTwoSavedModel } from '../../test_util/savedmodel/model_zoo.js';
import { tempDir } from '../helpers/temp.js';
import { writeStringSignaturesModel } from '../helpers/string_signatures.js';

const BASE: ExecutorLoaderOptions = { tags: ['serve'], runtime: 'embedded', threadsPerVersion: 1 };

function verifying(inner: VersionLoader<ExecutorServableVersion>, verify: VerifyOnLoad, reports: unknown[], runtime: ExecutorLoaderOptions['runtime'] = 'embedded') {
  return new VerifyingVersionLoader(inner, { verify, runtime, tags: ['serve'], onVerified: (_m, _v, r) => reports.push(r) });
}

describe('VerifyingVersionLoader', () => {
  let dir: string;
  before(async () => {
    dir = path.join(tempDir(), '1');
    await writeHalfPlusTwoSavedModel(dir);
  });

  it('--verify_on_load=auto over the size limit: not checked, and the reason reported', async () => {
    const reports: unknown[] = [];
    const loader = verifying(new ExecutorVersionLoader(BASE), { mode: 'auto', maxBytes: 0 }, reports);
    await loader.unload(await loader.load('hp2', 1, dir));
    assert.equal(reports.length, 1);
    assert.match((reports[0] as { skipped: string }).skipped, /^\d+\.\d MB on disk, over --verify_on_load_max_mb=0$/);
  });

  it('--verify_on_load=false: no check, nothing reported', async () => {
    const reports: unknown[] = [];
    const loader = verifying(new ExecutorVersionLoader(BASE), { mode: 'false', maxBytes: 0 }, reports);
    await loader.unload(await loader.load('hp2', 1, dir));
    assert.deepEqual(reports, []);
  });

  it("the load probe's report is applied as it is (no second check); a version it leaves with no signature fails to load, its threads closed", async () => {
    const executors = new ExecutorVersionLoader(BASE);
    let unloaded = 0;
    const probed: VersionLoader<ExecutorServableVersion> = {
      load: async (...args) => {
        const v = await executors.load(...args);
        return new ExecutorServableVersion(v.pool, v.bytesOnDisk, { refused: { serving_default: 'engines disagree (made up by the test)' }, verified: {}, unchecked: {} });
      },
      unload: async (v) => {
        unloaded++;
        await executors.unload(v);
      },
    };
    const reports: unknown[] = [];
    const loader = verifying(probed, { mode: 'true', maxBytes: 0 }, reports);
    await assert.rejects(loader.load('hp2', 1, dir), (e: unknown) => e instanceof ServingError && e.code === Code.FAILED_PRECONDITION && /no signature can be served \(.*serving_default: refused by --verify_on_load: engines disagree \(made up by the test\)/.test(e.message));
    assert.equal(reports.length, 1);
    assert.equal(unloaded, 1);
  });
});

describe('VerifyingVersionLoader: --verify_on_load runs every signature on made-up inputs, strings included', () => {
  it('refuses at load a signature its engine cannot run (ReverseV2 of strings on TF.js), naming the op; the others are checked and serve', async () => {
    const base = await writeStringSignaturesModel();
    const reports: unknown[] = [];
    const loader = verifying(new ExecutorVersionLoader({ ...BASE, runtime: 'wasm' }), { mode: 'true', maxBytes: 0 }, reports, 'wasm');
    const version = await loader.load('strings', 1, path.join(base, '1'));
    try {
      const d = version.description;
      assert.deepEqual(Object.keys(d.engines).sort(), ['labels', 'parsed']);
      assert.match(d.refusals.reversed, /^refused by --verify_on_load: wasm cannot run it on made-up inputs: ReverseV2 \(node reverse_words\): Argument 'x' passed to 'reverse' must be numeric tensor, but got string tensor$/);
      // The string and tf.Example signatures were run on both engines, not skipped.
      assert.deepEqual((reports[0] as VerificationReport).verified, { labels: 'cpu', parsed: 'cpu' });
      const words = { dtype: 'string' as const, shape: [2], values: [Buffer.from('a'), Buffer.from('b')] };
      const flags = { dtype: 'bool' as const, shape: [2], values: Uint8Array.of(1, 0) };
      const out = await version.run('labels', { words, flags }, []);
      assert.deepEqual((out.labels.values as Uint8Array[]).map((b) => Buffer.from(b).toString()), ['a', 'none']);
      // Run anyway (the prediction service answers with the refusal first): TF.js's failure is the engine's, not the request's.
      await assert.rejects(version.run('reversed', { words }, []), (e: unknown) => e instanceof ServingError && e.code === Code.UNIMPLEMENTED);
    } finally {
      await loader.unload(version);
    }
  });
});
