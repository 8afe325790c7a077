// Runs the op cases on one engine, as the server runs it: the case's SavedModel loaded by the
// engine's runtime (its load-time checks included), serving_default run on the case's inputs,
// each output compared with TF's value. TF.js picks one backend per process, and node --test
// runs each file in a process of its own: the CPU backend's cases have a file of their own.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Code, ServingError } from '../../../src/errors/status.js';
import type { HostTensor } from '../../../src/tensor/host_tensor.js';
import type { Runtime } from '../../../src/runtimes/runtime.js';
import { EmbeddedRuntime } from '../../../src/runtimes/embedded/embedded_runtime.js';
import { OnnxRuntime } from '../../../src/runtimes/onnx/onnx_runtime.js';
import { opDefFromRegistration } from '../../../test_util/savedmodel/writer/op_registration.js';
import { writeCaseModel } from './case_model.js';
import { isFailure, type Engine, type EngineNote, type OpCase, type OpFamilyCases } from './op_case.js';

const RUNTIMES: Record<Engine, () => Runtime> = {
  // No fallback: a signature ONNX Runtime cannot run is refused, not run elsewhere.
  onnx: () => new OnnxRuntime({ device: 'cpu' }),
  wasm: () => new EmbeddedRuntime('wasm'),
  cpu: () => new EmbeddedRuntime('cpu'),
};
/** What Servable.engines reports for a signature each engine runs. */
const ENGINE_NAME: Record<Engine, string> = { onnx: 'onnxruntime', wasm: 'wasm', cpu: 'cpu' };
const LOAD = { tags: ['serve'] };

export function runOpCases(engine: Engine, families: readonly OpFamilyCases[]): void {
  const runtime = RUNTIMES[engine]();
  for (const family of families) {
    const defs = new Map((family.registrations ?? []).map(opDefFromRegistration).map((d) => [d.name, d]));
    describe(`${family.family} op cases on ${engine}`, () => {
      for (const c of family.cases) {
        const note = c.engines?.[engine] ?? family.engines?.[engine];
        const skip = note && 'skip' in note ? `${engine}: ${note.skip}` : false;
        const todo = note && 'todo' in note ? `${engine}: ${note.todo}` : false;
        it(`${c.op}: ${c.name}`, { skip, todo }, () => runCase(runtime, engine, c, defs, note));
      }
    });
  }
}

async function runCase(
  runtime: Runtime,
  engine: Engine,
  c: OpCase,
  defs: Parameters<typeof writeCaseModel>[1],
  note: EngineNote | undefined,
): Promise<void> {
  const { dir, feeds } = await writeCaseModel(c, defs);
  const refusal = note && 'refuse' in note ? note.refuse : isFailure(c.want) && c.want.at === 'load' ? c.want.message : null;
  if (refusal) {
    await assert.rejects(runtime.load(dir, LOAD), (e: unknown) => {
      assert.ok(e instanceof ServingError, String(e));
      assert.ok(e.message.includes(c.op), `the refusal names ${c.op}: ${e.message}`);
      assert.match(e.message, refusal);
      return true;
    });
    return;
  }
  const s = await runtime.load(dir, LOAD);
  try {
    assert.equal(
      s.engines.serving_default?.engine,
      ENGINE_NAME[engine],
      `serving_default runs on ${engine} (${s.refusals.serving_default ?? ''})`,
    );
    if (note && 'refuseRun' in note) {
      await assert.rejects(s.run('serving_default', feeds), (e: unknown) => {
        assert.ok(e instanceof ServingError, String(e));
        assert.equal(Code[e.code], Code[Code.UNIMPLEMENTED], e.message);
        assert.ok(e.message.includes(c.op), `the refusal names ${c.op}: ${e.message}`);
        assert.match(e.message, note.refuseRun);
        return true;
      });
      return;
    }
    if (isFailure(c.want)) {
      const { message, code = Code.INVALID_ARGUMENT } = c.want;
      await assert.rejects(s.run('serving_default', feeds), (e: unknown) => {
        assert.ok(e instanceof ServingError, String(e));
        assert.equal(Code[e.code], Code[code], e.message);
        assert.match(e.message, message);
        return true;
      });
      return;
    }
    const got = await s.run('serving_default', feeds, Object.keys(c.want));
    for (const [key, want] of Object.entries(c.want)) assertTensor(got[key], want, c.tol ?? 0, `${c.op} output ${key}`);
  } finally {
    s.dispose();
  }
}

/** Bytes as Latin-1 text, one character per byte, so that any byte shows and compares. */
const latin1 = (t: HostTensor) => (t.values as Uint8Array[]).map((b) => Buffer.from(b).toString('latin1'));

function assertTensor(got: HostTensor | undefined, want: HostTensor, tol: number, what: string): void {
  assert.ok(got, `${what}: missing`);
  assert.equal(got.dtype, want.dtype, `${what}: dtype`);
  assert.deepEqual(got.shape, want.shape, `${what}: shape`);
  if (want.dtype === 'string') {
    assert.deepEqual(latin1(got), latin1(want), `${what}: values`);
    return;
  }
  const g = Array.from(got.values as ArrayLike<number | bigint>);
  const w = Array.from(want.values as ArrayLike<number | bigint>);
  if (typeof w[0] === 'bigint') {
    assert.deepEqual(g, w, `${what}: values`);
    return;
  }
  assert.equal(g.length, w.length, `${what}: length (got ${g.slice(0, 12)} …)`);
  w.forEach((x, i) => {
    const [a, b] = [Number(g[i]), Number(x)];
    const ok = Number.isNaN(b) ? Number.isNaN(a) : a === b || Math.abs(a - b) <= tol * Math.max(1, Math.abs(b));
    assert.ok(ok, `${what}[${i}]: got ${a}, TF states ${b} (tolerance ${tol}; got ${g.slice(0, 12)} …)`);
  });
}
