// Entry of an executor thread: loads one model version once, then runs tasks on it.
// Inference happens here, never on the main thread's event loop.
import { MessageChannel, parentPort, workerData } from 'node:worker_threads';
import path from 'node:path';
import { Code, ServingError, toStatusData } from '../errors/status.js';
import { readWarmupRuns, WARMUP_FILE } from '../savedmodel/warmup_requests.js';
import { createRuntime } from '../runtimes/index.js';
import type { Servable } from '../runtimes/runtime.js';
import { EmbeddedRuntime } from '../runtimes/embedded/embedded_runtime.js';
import { verifySignatures, type VerificationReport } from '../runtimes/verify/verify_signatures.js';
import type { HostTensor } from '../tensor/host_tensor.js';
import type { ExecutorReply, ExecutorTask, ExecutorWorkerData, LoadReport, RunLineOffer, RunLineRequest, RunReply, RunRequest } from './protocol.js';
import { routeEngineChatter } from '../runtimes/engine_chatter.js';

// The engines' own prints (TF.js banners, XNNPACK errors) join the server's JSON-lines log.
routeEngineChatter();
const data = workerData as ExecutorWorkerData;
let warmupRecords = 0;
/** How loading went, told with the answer to `describe`. */
let loadReport: LoadReport | undefined;
// Every thread loads the version and replays its warmup records before answering anything,
// so the version is AVAILABLE only once all its executors are warm.
const loading: Promise<Servable> = (async () => {
  const loadStart = performance.now();
  let servable: Servable;
  try {
    servable = await (await createRuntime(data.runtime, undefined, undefined, data.engine)).load(data.versionDir, { tags: data.tags, memoryFloorMb: data.memoryFloorMb });
  } catch (e) {
    loadReport = { loaded: false, loadMs: performance.now() - loadStart };
    throw e;
  }
  const report: LoadReport = (loadReport = { loaded: true, loadMs: performance.now() - loadStart });
  if (data.warmupIterations) {
    const warmupStart = performance.now();
    let replayed = 0;
    try {
      const records = await readWarmupRuns(data.versionDir);
      for (const [i, runs] of (records ?? []).entries()) {
        for (let k = 0; k < data.warmupIterations; k++) {
          for (const r of runs) {
            await Promise.resolve()
              .then(() => {
                // A warmup record is the version's own input: its run is bounded like the load.
                servable.checkLoadRun?.(r.signature, r.inputs);
                return servable.run(r.signature, r.inputs, r.outputKeys);
              })
              .catch((e: unknown) => {
                const status = toStatusData(e);
                throw new ServingError(status.code, `Warmup failed: ${path.join(data.versionDir, WARMUP_FILE)} record ${i} (signature ${r.signature}): ${status.message}`);
              });
          }
        }
        replayed++;
      }
      if (records) report.warmup = { records: replayed, ms: performance.now() - warmupStart };
      warmupRecords = records?.length ?? 0;
    } catch (e) {
      report.warmup = { records: replayed, ms: performance.now() - warmupStart, error: toStatusData(e) };
      throw e;
    }
  }
  return servable;
})();
// Keep a load failure from becoming an unhandled rejection; tasks report it.
loading.catch(() => {});

async function runOne(servable: Servable, r: RunRequest): Promise<RunReply> {
  try {
    const t0 = performance.now();
    const outputs = await servable.run(r.signature, r.inputs, r.outputKeys);
    const t1 = performance.now();
    return { ok: true, kind: 'run', outputs, computeMs: t1 - t0, startedAt: performance.timeOrigin + t0, endedAt: performance.timeOrigin + t1 };
  } catch (e) {
    return { ok: false, error: toStatusData(e) };
  }
}

/** The WASM runtime, loaded here for the check only, as the reference for these signatures. */
async function verifyInThisThread(servable: Servable, signatures: string[]): Promise<VerificationReport> {
  const engines = Object.fromEntries(signatures.filter((k) => servable.engines[k]).map((k) => [k, servable.engines[k]]));
  const primary = { run: (k: string, i: Record<string, HostTensor>) => servable.run(k, i), trace: (k: string, i: Record<string, HostTensor>) => (servable.trace ? servable.trace(k, i) : Promise.resolve([])) };
  return verifySignatures(primary, { engines, signatures: servable.signatures }, data.versionDir, async () => {
    const reference = await new EmbeddedRuntime('wasm').load(data.versionDir, { tags: data.tags, signatures });
    return {
      engines: reference.engines,
      refusals: reference.refusals,
      run: (k, i) => reference.run(k, i),
      trace: (k, i) => (reference.trace ? reference.trace(k, i) : Promise.resolve([])),
      close: async () => reference.dispose(),
    };
  }, (k, i) => servable.checkLoadRun?.(k, i));
}

export default async function handle(task: ExecutorTask): Promise<ExecutorReply> {
  try {
    const servable = await loading;
    if (task.kind === 'describe') {
      const { backend, engines, signatures, refusals, signatureDefs, runCosts } = servable;
      return { ok: true, kind: 'describe', description: { backend, engines, signatures, refusals, signatureDefs, runCosts, warmupRecords }, load: loadReport };
    }
    if (task.kind === 'trace') {
      if (!servable.trace) return { ok: false, error: { code: Code.UNIMPLEMENTED, message: `the ${servable.backend} runtime cannot trace a run` } };
      return { ok: true, kind: 'trace', tensors: await servable.trace(task.signature, task.inputs) };
    }
    if (task.kind === 'verify') return { ok: true, kind: 'verify', report: await verifyInThisThread(servable, task.signatures) };
    if (task.kind === 'checkLoadRun') {
      servable.checkLoadRun?.(task.signature, task.inputs);
      return { ok: true, kind: 'checkLoadRun' };
    }
    const replies: RunReply[] = [];
    for (const r of task.requests) replies.push(await runOne(servable, r));
    return { ok: true, kind: 'runMany', replies };
  } catch (e) {
    return { ok: false, error: toStatusData(e), ...(task.kind === 'describe' && loadReport && { load: loadReport }) };
  }
}

// Once loaded, offer the main thread a line of this thread's own for runs (see RunLineOffer).
// Messages on it run one after another, as piscina's one task per thread did: a second waits
// for the first, and a thread that dies loses only the message it was running.
void loading.then(() => {
  const { port1, port2 } = new MessageChannel();
  let previous: Promise<unknown> = Promise.resolve();
  port1.on('message', (m: RunLineRequest) => {
    previous = previous.then(async () => port1.postMessage(await handle({ kind: 'runMany', requests: m.requests })));
  });
  parentPort!.postMessage({ kind: 'runLine', port: port2 } satisfies RunLineOffer, [port2]);
}, () => {});
