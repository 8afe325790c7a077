// --verify_on_load: before a version serves, its signatures are checked against a reference
// engine (verify_signatures.ts), and one whose engines disagree is refused while the others
// serve. Where the reference can share a thread with the engine under check — the WASM
// runtime beside ONNX Runtime, the common case — the check runs inside the version's first
// executor thread, which already holds both; any other reference loads in a thread of its
// own (TF.js has one backend per thread), used for the check only and closed after it.
import { ExecutorPool } from '../executors/executor_pool.js';
import type { ModelDescription, RuntimeName } from '../executors/protocol.js';
import { REFERENCE_ENGINE, verifySignatures, type ReferenceOpener, type VerificationReport } from '../runtimes/verify/verify_signatures.js';

export type { VerificationReport } from '../runtimes/verify/verify_signatures.js';

/** The reference runtime in an executor thread of its own (stopped when `signal` aborts: the load ran out of time). */
export function referenceThread(versionDir: string, tags: string[], signal?: AbortSignal): ReferenceOpener {
  return async (runtime) => {
    const pool = await ExecutorPool.open({ versionDir, tags, runtime, threads: 1, warmupIterations: 0, signal });
    signal?.addEventListener('abort', () => pool.terminate(), { once: true });
    return {
      engines: pool.description.engines,
      refusals: pool.description.refusals,
      run: (s, inputs) => pool.run(s, inputs),
      trace: (s, inputs) => pool.trace(s, inputs),
      close: () => pool.close(),
    };
  };
}

/** Runtimes whose executor threads can also hold the WASM runtime as a reference. */
const SHARES_THREAD_WITH_WASM: ReadonlySet<RuntimeName> = new Set(['onnx', 'onnx+embedded']);

export async function verifyVersion(pool: ExecutorPool, runtime: RuntimeName, versionDir: string, tags: string[], signal?: AbortSignal): Promise<VerificationReport> {
  const description: ModelDescription = pool.description;
  const inThread = (engine: string) => SHARES_THREAD_WITH_WASM.has(runtime) && REFERENCE_ENGINE[engine] === 'wasm';
  const split = (keep: (engine: string) => boolean) => Object.fromEntries(Object.entries(description.engines).filter(([, e]) => keep(e.engine)));
  const here = split(inThread);
  const elsewhere = split((e) => !inThread(e));
  const reports: VerificationReport[] = [];
  if (Object.keys(here).length) reports.push(await pool.verifyInThread(Object.keys(here)));
  if (Object.keys(elsewhere).length) {
    reports.push(await verifySignatures(pool, { engines: elsewhere, signatures: description.signatures }, versionDir, referenceThread(versionDir, tags, signal), (s, inputs) => pool.checkLoadRun(s, inputs)));
  }
  return {
    refused: Object.assign({}, ...reports.map((r) => r.refused)),
    verified: Object.assign({}, ...reports.map((r) => r.verified)),
    unchecked: Object.assign({}, ...reports.map((r) => r.unchecked)),
  };
}
