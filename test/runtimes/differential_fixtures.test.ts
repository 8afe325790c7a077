// The differential harness over every fixture SavedModel: each version loads as the server
// loads it (--runtime=auto without libtensorflow), and every signature is checked against
// the reference engine — ONNX Runtime against the WASM runtime (in this process), WASM
// against the plain-JS CPU backend (in a thread of its own: TF.js has one backend per
// thread) — on made-up inputs and the warmup records. Engines must agree on every signature
// that was checked; the ones that could not be are listed.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { referenceThread } from '../../src/servables/version_verifier.js';
import { verifySignatures, type ReferenceOpener } from '../../src/runtimes/verify/verify_signatures.js';
import { EmbeddedRuntime } from '../../src/runtimes/embedded/embedded_runtime.js';
import { OnnxRuntime } from '../../src/runtimes/onnx/onnx_runtime.js';
import { CompositeRuntime } from '../../src/runtimes/composite_runtime.js';
import type { Servable } from '../../src/runtimes/runtime.js';
import { MODELS } from '../helpers/paths.js';

function fixtureVersions(): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (const model of fs.readdirSync(MODELS).sort()) {
    const dir = path.join(MODELS, model);
    if (!fs.statSync(dir).isDirectory()) continue;
    for (const v of fs.readdirSync(dir).sort()) if (fs.existsSync(path.join(dir, v, 'saved_model.pb'))) out.push([model, v]);
  }
  return out;
}

const wasm = new EmbeddedRuntime('wasm');
const auto = new CompositeRuntime(new OnnxRuntime({ device: 'cpu' }), wasm);

/** WASM in this process; any other reference in an executor thread. */
function references(dir: string): ReferenceOpener {
  const thread = referenceThread(dir, ['serve']);
  return async (runtime) => {
    if (runtime !== 'wasm') return thread(runtime);
    const s = await wasm.load(dir, { tags: ['serve'] });
    return {
      engines: s.engines,
      refusals: s.refusals,
      run: (k, i) => s.run(k, i),
      trace: (k, i) => s.trace!(k, i),
      close: async () => s.dispose(),
    };
  };
}

describe('differential harness: every fixture signature on two engines', () => {
  for (const [model, version] of fixtureVersions()) {
    it(`${model}/${version}`, async (t) => {
      const dir = path.join(MODELS, model, version);
      let servable: Servable;
      try {
        servable = await auto.load(dir, { tags: ['serve'] });
      } catch (e) {
        t.diagnostic(`not loaded: ${(e as Error).message}`);
        return;
      }
      try {
        const primary = {
          run: (k: string, i: Parameters<Servable['run']>[1]) => servable.run(k, i),
          trace: (k: string, i: Parameters<Servable['run']>[1]) => servable.trace!(k, i),
        };
        const report = await verifySignatures(primary, servable, dir, references(dir));
        assert.deepEqual(report.refused, {}, 'the engines agree');
        for (const [key, reference] of Object.entries(report.verified))
          t.diagnostic(`${key}: ${servable.engines[key].engine} agrees with ${reference}`);
        for (const [key, why] of Object.entries(report.unchecked)) t.diagnostic(`${key}: not checked: ${why}`);
      } finally {
        servable.dispose();
      }
    });
  }
});
