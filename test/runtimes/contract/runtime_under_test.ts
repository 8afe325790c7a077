// The runtimes one contract suite runs over. Each contract_<name>.test.ts file runs the same
// cases on one runtime (a file per runtime: TF.js picks one backend per process, and
// node --test runs each file in a process of its own). A runtime that cannot run a
// signature exactly may refuse it — only with a reason naming the op and node — when the
// runtime is one that refuses rather than falls back (--runtime=onnx).
import type { TestContext } from 'node:test';
import { Code, ServingError } from '../../../src/core/status.js';
import type { LoadOptions, Runtime, Servable } from '../../../src/runtimes/runtime.js';
import { EmbeddedRuntime } from '../../../src/runtimes/embedded/embedded_runtime.js';
import { OnnxRuntime } from '../../../src/runtimes/onnx/onnx_runtime.js';

export interface RuntimeUnderTest {
  name: string;
  load(dir: string, options: LoadOptions): Promise<Servable>;
  /** Is this error a refusal this runtime may give instead of an answer? */
  allowedRefusal(e: unknown): boolean;
}

const noRefusals = () => false;

/** ONNX Runtime alone refuses what it cannot convert, naming op and node (or the folder kind). */
const ONNX_REFUSAL = /ONNX Runtime cannot run exactly: .*\(node .+\)|ONNX Runtime could not build a session|ONNX Runtime cannot run a TF\.js graph model folder/;

function fromRuntime(name: string, runtime: Runtime, allowedRefusal: (e: unknown) => boolean = noRefusals): RuntimeUnderTest {
  return { name, load: (dir, o) => runtime.load(dir, o), allowedRefusal };
}

export const wasmRuntime = () => fromRuntime('wasm', new EmbeddedRuntime('wasm'));
export const cpuRuntime = () => fromRuntime('cpu', new EmbeddedRuntime('cpu'));
export const onnxRuntime = () =>
  fromRuntime('onnx', new OnnxRuntime({ device: 'cpu', fallback: null }), (e) => e instanceof ServingError && (e.code === Code.UNIMPLEMENTED || e.code === Code.FAILED_PRECONDITION) && ONNX_REFUSAL.test(e.message));
export const autoRuntime = () => fromRuntime('onnx+wasm', new OnnxRuntime({ device: 'cpu', fallback: new EmbeddedRuntime('wasm') }));

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
