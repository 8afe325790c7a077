// ExecutorVersionLoader on half_plus_two: what a load reports (engines, --verify_on_load's
// outcome), that runs come back with their time, and that a dying executor thread is reported
// with the model and version it served; on a version of string signatures, that the check
// refuses the one its engine cannot run, naming the op, and serves the others.
import { describe, it, before } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { ExecutorVersionLoader, type ExecutorLoaderOptions } from '../../src/servables/executor_version_loader.js';
import type { RunStats } from '../../src/services/servable_version.js';
import { Code, ServingError } from '../../src/errors/status.js';
import { writeHalfPlusTwoSavedModel } from '../../test_util/savedmodel/model_zoo.js';
import { FAULTY_EXECUTOR_WORKER, POISON } from '../../test_util/executors/executor_faults.js';
import { tempDir } from '../helpers/temp.js';
import { writeStringSignaturesModel } from '../helpers/string_signatures.js';
import type { VerificationReport } from '../../src/servables/version_verifier.js';

const x = (...v: number[]) => ({ x: { dtype: 'float32' as const, shape: [v.length, 1], values: Float32Array.from(v) } });
const BASE: ExecutorLoaderOptions = { tags: ['serve'], runtime: 'embedded', threadsPerVersion: 1 };

describe('ExecutorVersionLoader', () => {
  let dir: string;
  before(async () => {
    dir = path.join(tempDir(), '1');
    await writeHalfPlusTwoSavedModel(dir);
  });

  it('a load reports each signature\'s engine; runs answer with their time in stats', async () => {
    const loaded: Array<[string, number, string[]]> = [];
    const loader = new ExecutorVersionLoader({ ...BASE, onLoaded: (m, v, d) => loaded.push([m, v, Object.keys(d.engines)]) });
    const version = await loader.load('hp2', 1, dir);
    try {
      assert.deepEqual(loaded, [['hp2', 1, Object.keys(version.description.signatures)]]);
      const stats: RunStats = {};
      const out = await version.run('serving_default', x(1, 2), [], { stats });
      assert.deepEqual(Array.from(out.y.values as Float32Array), [2.5, 3]);
      assert.ok(typeof stats.inferMs === 'number' && typeof stats.computeMs === 'number', JSON.stringify(stats));
    } finally {
      await loader.unload(version);
    }
  });

  it('--verify_on_load=auto over the size limit: not checked, and the reason reported', async () => {
    const verified: unknown[] = [];
    const loader = new ExecutorVersionLoader({ ...BASE, verify: { mode: 'auto', maxBytes: 0 }, onVerified: (_m, _v, r) => verified.push(r) });
    const version = await loader.load('hp2', 1, dir);
    await loader.unload(version);
    assert.equal(verified.length, 1);
    assert.match((verified[0] as { skipped: string }).skipped, /^\d+\.\d MB on disk, over --verify_on_load_max_mb=0$/);
  });

  it('--verify_on_load=false: no check, nothing reported', async () => {
    const verified: unknown[] = [];
    const loader = new ExecutorVersionLoader({ ...BASE, verify: { mode: 'false', maxBytes: 0 }, onVerified: (_m, _v, r) => verified.push(r) });
    await loader.unload(await loader.load('hp2', 1, dir));
    assert.deepEqual(verified, []);
  });

  it('a thread that dies is reported with the model and version it served', async () => {
    const deaths: Array<[string, number, string]> = [];
    const loader = new ExecutorVersionLoader({ ...BASE, workerFile: FAULTY_EXECUTOR_WORKER, onThreadDeath: (m, v, e) => deaths.push([m, v, e.message]) });
    const version = await loader.load('hp2', 7, dir);
    try {
      await assert.rejects(version.run('serving_default', x(POISON), []), (e: unknown) => e instanceof ServingError && e.code === Code.INTERNAL && /^executor thread failed: /.test(e.message));
      assert.equal(deaths.length, 1);
      assert.deepEqual(deaths[0].slice(0, 2), ['hp2', 7]);
      assert.match(deaths[0][2], /^executor thread failed: /);
    } finally {
      await loader.unload(version);
    }
  });
});

describe('ExecutorVersionLoader: --verify_on_load runs every signature on made-up inputs, strings included', () => {
  it('refuses at load a signature its engine cannot run (ReverseV2 of strings on TF.js), naming the op; the others are checked and serve', async () => {
    const base = await writeStringSignaturesModel();
    const reports: VerificationReport[] = [];
    const loader = new ExecutorVersionLoader({ ...BASE, runtime: 'wasm', verify: { mode: 'true', maxBytes: 0 }, onVerified: (_m, _v, r) => reports.push(r as VerificationReport) });
    const version = await loader.load('strings', 1, path.join(base, '1'));
    try {
      const d = version.description;
      assert.deepEqual(Object.keys(d.engines).sort(), ['labels', 'parsed']);
      assert.match(d.refusals.reversed, /^refused by --verify_on_load: wasm cannot run it on made-up inputs: ReverseV2 \(node reverse_words\): Argument 'x' passed to 'reverse' must be numeric tensor, but got string tensor$/);
      // The string and tf.Example signatures were run on both engines, not skipped.
      assert.deepEqual(reports[0].verified, { labels: 'cpu', parsed: 'cpu' });
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
