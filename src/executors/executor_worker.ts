// Entry of an executor thread: hosts the model versions the main thread loads on it (each
// under its id) and runs requests on them. Inference happens here, never on the main
// thread's event loop. See protocol.ts for the two lines it offers.
import { MessageChannel, parentPort, workerData, type MessagePort } from 'node:worker_threads';
import path from 'node:path';
import v8 from 'node:v8';
import vm from 'node:vm';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { Code, ServingError, toStatusData } from '../errors/status.js';
import { readWarmupRuns, WARMUP_FILE } from '../savedmodel/warmup_requests.js';
import { createRuntime, type Runtime } from '../runtimes/index.js';
import type { Servable } from '../runtimes/runtime.js';
import { loadEmbeddedRuntime } from '../runtimes/embedded_on_demand.js';
import { verifySignatures, type VerificationReport } from '../runtimes/verify/verify_signatures.js';
import type { HostTensor } from '../tensor/host_tensor.js';
import type {
  ControlAnswer,
  ControlRequest,
  ControlTask,
  ExecutorReply,
  ExecutorThreadData,
  LoadReport,
  RunLineReply,
  RunLineRequest,
  RunReply,
  RunRequest,
  ThreadLinesOffer,
  VersionLoad,
} from './protocol.js';
import { routeEngineChatter } from '../runtimes/engine_chatter.js';
import { packedBytes, packReplies, unpackRequests } from './run_wire.js';

// The engines' own prints (TF.js banners, XNNPACK errors) join the server's JSON-lines log.
routeEngineChatter();
const data = workerData as ExecutorThreadData;
let runtime: Promise<Runtime> | undefined;

/**
 * A full garbage collection of this thread's heap, run after an unload (and a large run): what the version held
 * (graphs, weights in ArrayBuffers, session wrappers) goes back now, for the next load on this
 * thread to reuse, instead of whenever V8 next gets round to it. V8 keeps gc() behind a flag;
 * a context made after the flag is set has it.
 */
const collectGarbage: () => void = (() => {
  try {
    v8.setFlagsFromString('--expose-gc');
    return vm.runInNewContext('gc') as () => void;
  } catch {
    return () => {};
  }
})();

interface Hosted {
  load: VersionLoad;
  servable: Servable;
  warmupRecords: number;
}

/** The versions loaded on this thread, by id. */
const hosted = new Map<number, Hosted>();

function versionOf(id: number): Hosted {
  const v = hosted.get(id);
  if (!v) throw new ServingError(Code.INTERNAL, `model version ${id} is not loaded on this executor thread`);
  return v;
}

/**
 * Loads a version and replays its warmup records, so that it serves only once warm. Between
 * records the thread's event loop turns: runs of the other versions on this thread get in.
 * `report` gets how it went (TensorFlow's load metrics, TF Serving's warmup metrics).
 */
async function loadVersion(id: number, load: VersionLoad, report: { load?: LoadReport }): Promise<Hosted> {
  runtime ??= createRuntime(data.runtime, undefined, undefined, data.engine);
  const loadStart = performance.now();
  let servable: Servable;
  try {
    servable = await (await runtime).load(load.versionDir, { tags: load.tags, memoryFloorMb: load.memoryFloorMb });
  } catch (e) {
    report.load = { loaded: false, loadMs: performance.now() - loadStart };
    throw e;
  }
  const loaded: LoadReport = (report.load = { loaded: true, loadMs: performance.now() - loadStart });
  let warmupRecords = 0;
  if (load.warmupIterations) {
    const warmupStart = performance.now();
    let replayed = 0;
    try {
      const records = await readWarmupRuns(load.versionDir);
      for (const [i, runs] of (records ?? []).entries()) {
        for (let k = 0; k < load.warmupIterations; k++) {
          for (const r of runs) {
            await Promise.resolve()
              .then(() => {
                // A warmup record is the version's own input: its run is bounded like the load.
                servable.checkLoadRun?.(r.signature, r.inputs);
                return servable.run(r.signature, r.inputs, r.outputKeys);
              })
              .catch((e: unknown) => {
                const status = toStatusData(e);
                throw new ServingError(
                  status.code,
                  `Warmup failed: ${path.join(load.versionDir, WARMUP_FILE)} record ${i} (signature ${r.signature}): ${status.message}`,
                );
              });
          }
        }
        replayed++;
        await nextTurn();
      }
      if (records) loaded.warmup = { records: replayed, ms: performance.now() - warmupStart };
      warmupRecords = records?.length ?? 0;
    } catch (e) {
      loaded.warmup = { records: replayed, ms: performance.now() - warmupStart, error: toStatusData(e) };
      servable.dispose();
      throw e;
    }
  }
  const v: Hosted = { load, servable, warmupRecords };
  hosted.set(id, v);
  return v;
}

/** One request's run: answered at once when the servable answers at once (servable.runNow). */
function runOne(servable: Servable, r: RunRequest): RunReply | Promise<RunReply> {
  const t0 = performance.now();
  let ran: Record<string, HostTensor> | Promise<Record<string, HostTensor>>;
  try {
    ran = servable.runNow ? servable.runNow(r.signature, r.inputs, r.outputKeys) : servable.run(r.signature, r.inputs, r.outputKeys);
  } catch (e) {
    return failed(e);
  }
  return ran instanceof Promise ? ran.then((outputs) => ranReply(outputs, t0), failed) : ranReply(ran, t0);
}

function ranReply(outputs: Record<string, HostTensor>, t0: number): RunReply {
  const t1 = performance.now();
  return {
    ok: true,
    kind: 'run',
    outputs,
    computeMs: t1 - t0,
    startedAt: performance.timeOrigin + t0,
    endedAt: performance.timeOrigin + t1,
  };
}

function failed(e: unknown): RunReply {
  return { ok: false, error: toStatusData(e) };
}

/** The WASM runtime, loaded here for the check only, as the reference for these signatures. */
async function verifyInThisThread(v: Hosted, signatures: string[]): Promise<VerificationReport> {
  const { servable, load } = v;
  const engines = Object.fromEntries(signatures.filter((k) => servable.engines[k]).map((k) => [k, servable.engines[k]]));
  const primary = {
    run: (k: string, i: Record<string, HostTensor>) => servable.run(k, i),
    trace: (k: string, i: Record<string, HostTensor>) => (servable.trace ? servable.trace(k, i) : Promise.resolve([])),
  };
  return verifySignatures(
    primary,
    { engines, signatures: servable.signatures },
    load.versionDir,
    async () => {
      const reference = await (
        await loadEmbeddedRuntime('wasm')
      ).load(load.versionDir, {
        tags: load.tags,
        signatures,
        memoryFloorMb: load.memoryFloorMb,
      });
      return {
        engines: reference.engines,
        refusals: reference.refusals,
        run: (k, i) => reference.run(k, i),
        trace: (k, i) => (reference.trace ? reference.trace(k, i) : Promise.resolve([])),
        close: async () => reference.dispose(),
      };
    },
    (k, i) => servable.checkLoadRun?.(k, i),
  );
}

async function control(task: ControlTask): Promise<ExecutorReply> {
  // How a load went, told with its answer whether it loaded or not.
  const report: { load?: LoadReport } = {};
  try {
    if (task.kind === 'load') {
      const { servable, warmupRecords } = await loadVersion(task.id, task.load, report);
      const { backend, engines, signatures, refusals, signatureDefs, runCosts } = servable;
      // What the load left (the converted graphs' bytes ONNX Runtime copied, the files read)
      // goes back now: a thread idle after its load collects nothing.
      setImmediate(collectGarbage);
      return {
        ok: true,
        kind: 'describe',
        description: { backend, engines, signatures, refusals, signatureDefs, runCosts, warmupRecords },
        load: report.load,
      };
    }
    if (task.kind === 'unload') {
      const v = hosted.get(task.id);
      hosted.delete(task.id);
      v?.servable.dispose();
      collectGarbage();
      return { ok: true, kind: 'unloaded' };
    }
    const v = versionOf(task.id);
    if (task.kind === 'trace') {
      if (!v.servable.trace)
        return { ok: false, error: { code: Code.UNIMPLEMENTED, message: `the ${v.servable.backend} runtime cannot trace a run` } };
      return { ok: true, kind: 'trace', tensors: await v.servable.trace(task.signature, task.inputs) };
    }
    if (task.kind === 'checkLoadRun') {
      v.servable.checkLoadRun?.(task.signature, task.inputs);
      return { ok: true, kind: 'checkLoadRun' };
    }
    return { ok: true, kind: 'verify', report: await verifyInThisThread(v, task.signatures) };
  } catch (e) {
    return { ok: false, error: toStatusData(e), ...(report.load && { load: report.load }) };
  }
}

/**
 * A run whose tensors reach this size is followed by a full collection: what it left (the
 * inputs moved in, the engine's outputs once packed) goes back now. Left to V8, a thread that
 * allocates little on its heap keeps such buffers until its external memory has grown by about
 * 64 MB: four 20 MB requests in a row held 80 MB of dead tensors here.
 */
const LARGE_RUN_BYTES = 16 * 2 ** 20;

type RunLineAnswer = [RunLineReply, ArrayBuffer[]];

/** Runs a message's requests one after another; the answer and the buffers it moves, at once when every run answered at once. */
function runMany(m: RunLineRequest): RunLineAnswer | Promise<RunLineAnswer> {
  let requests: RunRequest[];
  let servable: Servable;
  try {
    const unpacked = unpackRequests(m);
    requests = unpacked.requests;
    servable = versionOf(unpacked.id).servable;
  } catch (e) {
    return [{ ok: false, error: toStatusData(e) }, []];
  }
  const replies: RunReply[] = [];
  for (let i = 0; i < requests.length; i++) {
    const reply = runOne(servable, requests[i]);
    if (reply instanceof Promise) return finishLater(servable, requests, i, reply, replies);
    replies.push(reply);
  }
  return packed(replies);
}

/** The rest of runMany once a run (request `i`, `pending`) has to be waited for. */
async function finishLater(
  servable: Servable,
  requests: RunRequest[],
  i: number,
  pending: Promise<RunReply>,
  replies: RunReply[],
): Promise<RunLineAnswer> {
  replies.push(await pending);
  for (let k = i + 1; k < requests.length; k++) replies.push(await runOne(servable, requests[k]));
  return packed(replies);
}

function packed(replies: RunReply[]): RunLineAnswer {
  try {
    const { packed, transfer } = packReplies(replies);
    return [packed instanceof ArrayBuffer ? packed : { ok: true, kind: 'runMany', replies: packed }, transfer];
  } catch (e) {
    return [{ ok: false, error: toStatusData(e) }, []];
  }
}

/**
 * Messages on the run line run one after another: a thread that dies loses only the one it was
 * running. A message whose runs all answer at once is answered within its own event, no
 * promise made; one that waits holds the next ones back until it is answered.
 */
function serveRunLine(port: MessagePort): void {
  const waiting: RunLineRequest[] = [];
  let busy = false;
  const answer = ([reply, transfer]: RunLineAnswer, m: RunLineRequest): void => {
    const moved = transfer.reduce((n, b) => n + b.byteLength, 0);
    port.postMessage(reply, transfer);
    // On the next turn: this message (its inputs) is let go of first.
    if (moved + packedBytes(m) >= LARGE_RUN_BYTES) setImmediate(collectGarbage);
  };
  const serveWaiting = (): void => {
    while (!busy && waiting.length) {
      const m = waiting.shift()!;
      const result = runMany(m);
      if (!(result instanceof Promise)) {
        answer(result, m);
        continue;
      }
      busy = true;
      void result
        .then((r) => answer(r, m))
        .finally(() => {
          busy = false;
          serveWaiting();
        });
    }
  };
  port.on('message', (m: RunLineRequest) => {
    waiting.push(m);
    serveWaiting();
  });
}

function serveControlLine(port: MessagePort): void {
  port.on('message', (m: ControlRequest) => {
    void control(m.task).then((reply) => port.postMessage({ seq: m.seq, reply } satisfies ControlAnswer));
  });
}

/** piscina's task entry: unused (the lines carry everything), but piscina wants one. */
export default async function handle(): Promise<ExecutorReply> {
  return { ok: false, error: { code: Code.UNIMPLEMENTED, message: 'executor threads take work on their lines only' } };
}

const run = new MessageChannel();
const ctl = new MessageChannel();
serveRunLine(run.port1);
serveControlLine(ctl.port1);
parentPort!.postMessage({ kind: 'lines', run: run.port2, control: ctl.port2 } satisfies ThreadLinesOffer, [run.port2, ctl.port2]);
