// The runtimes one contract suite runs over. Each contract_<name>.test.ts file runs the same
// cases on one runtime (a file per runtime: TF.js picks one backend per process, and
// node --test runs each file in a process of its own). A runtime that cannot run a
// signature exactly may refuse it — only with a reason naming the op and node — when the
// runtime is one that refuses rather than falls back (--runtime=onnx). Cases a runtime does
// not take at all are declared, as Hono's router suite declares them: skipped, with the reason.
import type { TestContext } from 'node:test';
import { Code, ServingError } from '../../../src/errors/status.js';
import type { LoadOptions, Runtime, Servable } from '../../../src/runtimes/runtime.js';
import { EmbeddedRuntime } from '../../../src/runtimes/embedded/embedded_runtime.js';
import { OnnxRuntime } from '../../../src/runtimes/onnx/onnx_runtime.js';
import { CompositeRuntime } from '../../../src/runtimes/composite_runtime.js';
import { ExecutorPool } from '../../../src/executors/executor_pool.js';
import type { ResolvedRuntime } from '../../../src/runtimes/runtime_selection.js';

/** Cases (by name, or 'every case') this runtime does not run, and why. */
interface Skip {
  reason: string;
  tests: readonly string[] | 'every case';
}

export interface RuntimeUnderTest {
  name: string;
  load(dir: string, options: LoadOptions): Promise<Servable>;
  /** Is this error a refusal this runtime may give instead of an answer? */
  allowedRefusal(e: unknown): boolean;
  skip?: readonly Skip[];
}

/** The reason `test` is skipped on `rt`, if it is. */
export function skipReason(rt: RuntimeUnderTest, test: string): string | undefined {
  return rt.skip?.find((s) => s.tests === 'every case' || s.tests.includes(test))?.reason;
}

/** TF.js graph model folders (model.json) in the suite: only TF.js runtimes read them. */
export const TFJS_GRAPH_MODEL_CASES = ['matmul_2x2', 'dense_1x1 (_FusedMatMul)', 'dense_10x1'];

const noRefusals = () => false;

/** ONNX Runtime alone refuses what it cannot convert, naming op and node. */
const ONNX_REFUSAL = /ONNX Runtime cannot run exactly: .*\(node .+\)|ONNX Runtime could not build a session/;

function fromRuntime(
  name: string,
  runtime: Runtime,
  allowedRefusal: (e: unknown) => boolean = noRefusals,
  skip?: Skip[],
): RuntimeUnderTest {
  return { name, load: (dir, o) => runtime.load(dir, o), allowedRefusal, skip };
}

export const wasmRuntime = () => fromRuntime('wasm', new EmbeddedRuntime('wasm'));
export const cpuRuntime = () => fromRuntime('cpu', new EmbeddedRuntime('cpu'));
export const onnxRuntime = () =>
  fromRuntime(
    'onnx',
    new OnnxRuntime({ device: 'cpu' }),
    (e) =>
      e instanceof ServingError && (e.code === Code.UNIMPLEMENTED || e.code === Code.FAILED_PRECONDITION) && ONNX_REFUSAL.test(e.message),
    // contract_onnx.test.ts checks the refusal itself.
    [
      {
        reason: 'ONNX Runtime converts SavedModels only; it refuses a TF.js graph model folder (--runtime=auto or wasm serves it)',
        tests: TFJS_GRAPH_MODEL_CASES,
      },
    ],
  );
export const autoRuntime = () =>
  fromRuntime('onnx+wasm', new CompositeRuntime(new OnnxRuntime({ device: 'cpu' }), new EmbeddedRuntime('wasm')));

/**
 * A runtime as the server runs it: on an executor thread, every tensor crossing the thread
 * protocol both ways. Each load opens a one-thread pool; dispose closes it.
 */
export const executorRuntime = (runtime: ResolvedRuntime): RuntimeUnderTest => ({
  name: `executor thread (${runtime})`,
  allowedRefusal: noRefusals,
  load: async (dir, options) => {
    const pool = await ExecutorPool.open({ versionDir: dir, tags: options.tags, runtime, threads: 1 });
    const { backend, engines, signatures, signatureDefs, refusals } = pool.description;
    return {
      backend,
      engines,
      signatures,
      signatureDefs,
      refusals,
      run: (key, inputs, outputKeys = []) => pool.run(key, inputs, outputKeys),
      trace: (key, inputs) => pool.trace(key, inputs),
      dispose: () => void pool.close(),
    };
  },
});

/**
 * Runs a case body; an allowed refusal ends the case as passed, reported as a diagnostic
 * (the closing list of what ran where comes from these).
 */
export async function runCase(rt: RuntimeUnderTest, t: TestContext, body: () => Promise<void>): Promise<void> {
  try {
    await body();
  } catch (e) {
    if (!rt.allowedRefusal(e)) throw e;
    t.diagnostic(`${rt.name} refused: ${(e as Error).message}`);
  }
}
