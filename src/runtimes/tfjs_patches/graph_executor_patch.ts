// Fixes to tfjs-converter 4.22's GraphExecutor, applied at run time (so that they survive
// `npm ci --omit=dev` and need no install script). GraphExecutor is not exported; its
// prototype is reached through an empty model.
//
// 1. Kept tensors. `_executeAsync` — which runs the async path, and every function call (a
//    While's cond and body, an If's branches) — ends by disposing every tensor it computed
//    except the outputs, the inputs and the weights:
//
//        Object.values(tensorsMap).forEach(list => list.forEach(t => {
//          if (t && !t.isDisposed && !keepIds.has(t.id)) t.dispose(); }));
//
//    It ignores `tensor.kept`, the mark tfjs-converter's TensorList / TensorArray / hash-table
//    ops put on the tensors they now own (its TensorListSetItem keep()s its item). A loop body
//    that writes an intermediate into such a list frees it on return, and the TensorListStack
//    after the loop fails with "Cannot read properties of undefined (reading 'backend')":
//    Keras RNNs hit it whenever the tensor written is not itself returned (masking, Identity
//    ordering). tfgate's own TensorList ops (tensor_list.ts) hold handles of their own and do
//    not depend on this; TensorArrays and hash tables still do. Every
//    other disposal path of the executor (checkTensorForDisposal, the sync path's live-until
//    disposal, the While executor's own clean-up) does skip kept tensors. The fix makes that
//    sweep skip them too, and nothing else: `executeWithControlFlow`, which returns the map
//    the sweep walks, is wrapped to leave kept tensors out of it (the entries of the outputs,
//    which the caller reads, stay whole). Their owners release them: the root execution's
//    context.dispose() closes its lists at the end of the request.
//
// 2. Failed requests. When an op throws, neither path cleans up: the async path leaves every
//    intermediate of the run, the loop variables a While was carrying and the run's lists;
//    the sync path's tidy() frees intermediates but not the kept tensors lists hold. A server
//    that gets a bad input on every request would grow without bound. On failure the wrapped
//    `executeWithControlFlow` disposes what the success path would have: its partial tensor
//    map (recorded from `processStack`), and at the root the results of the run's function
//    calls (recorded from `executeFunctionAsync`, keyed by the run's shared list map) and the
//    context's lists. The wrapped `execute` closes the TensorLists a failed sync run opened
//    (tfgate's own lists, embedded/ops/control/tensor_list.ts: their closing hook is passed in).
//
// 3. Loops that never end. A While whose condition stays true (a float countdown from 1e30,
//    where v - 1 == v) runs for ever, holding its executor thread and every request queued
//    behind it; TF would too (TF Serving sets no run timeout by default). A run whose loops
//    keep calling their functions past loopTimeBound fails instead, with
//    DEADLINE_EXCEEDED naming the bound: its loop is cut at the next call of a cond or body
//    (the loop runs on microtasks, so no timer could interrupt it).
import tfjsConverter from '../tfjs_packages/tfjs_converter.cjs';
import { Code, ServingError } from '../../errors/status.js';
import type { Tensor } from '@tensorflow/tfjs-core';

/** Runs a synchronous graph run; if it throws, closes the lists it opened before rethrowing. */
type CloseListsOpenedDuring = <T>(run: () => T) => T;

type TensorsMap = Record<string, Array<Tensor | undefined>>;

interface ExecutionContext {
  /** Shared by a run's root context and every function call under it. */
  tensorListMap: object;
  dispose(keepIds: Set<number>): void;
}

interface GraphExecutor {
  parent?: unknown;
  weightIds: number[];
  execute(inputs: unknown, outputs: unknown): unknown;
  executeFunctionAsync(inputs: Tensor[], tensorArrayMap: object, tensorListMap: object): Promise<Tensor[]>;
  executeWithControlFlow(
    inputs: Record<string, Tensor>,
    context: ExecutionContext,
    outputNames: string[],
    isFunctionExecution: boolean,
  ): Promise<TensorsMap>;
  processStack(inputNodes: unknown, stack: unknown, context: ExecutionContext, tensorMap: TensorsMap, ...rest: unknown[]): unknown;
}

const PATCHED = Symbol.for('tfgate.graphExecutor.patched');

/**
 * How long one run's loops may keep calling their functions (ms): the REST API's default
 * timeout, past which nobody waits for the answer. Process-wide; tests shorten it.
 */
export const loopTimeBound = { ms: 30_000 };

function loopOutOfTime(calls: number): ServingError {
  const s = loopTimeBound.ms / 1000;
  return new ServingError(
    Code.DEADLINE_EXCEEDED,
    `a loop of this run did not end within ${s} s (${calls} calls of its condition and body); tfgate stops a run's loops after ${s} s`,
  );
}

/** `node` of 'node', 'node:1' or 'node:out:1'. */
const nodeOf = (tensorName: string): string => tensorName.split(':')[0];

/**
 * The map the executor's final sweep walks, minus tensors a TensorList (etc.) has kept.
 * Entries of the requested outputs stay whole: the caller reads its results from them, and
 * the sweep leaves output tensors alone anyway. Lists are copied, never edited: the map
 * shares the weights' lists.
 */
export function withoutKeptTensors(tensorsMap: TensorsMap, outputNames: readonly string[]): TensorsMap {
  const outputs = new Set(outputNames.map(nodeOf));
  const result: TensorsMap = {};
  for (const [key, list] of Object.entries(tensorsMap)) {
    // Keys inside TF1 loop frames carry a `-<frame id>` suffix.
    const node = key.replace(/-\d+$/, '');
    result[key] = outputs.has(key) || outputs.has(node) || !list.some((t) => t?.kept) ? list : list.map((t) => (t?.kept ? undefined : t));
  }
  return result;
}

/** What the success path frees, freed after a failure: tensors that nothing else owns. */
function disposeAfterFailure(tensors: Iterable<Tensor | undefined>, keepIds: Set<number>): void {
  for (const t of tensors) if (t && !t.kept && !t.isDisposed && !keepIds.has(t.id)) t.dispose();
}

function graphExecutorPrototype(): GraphExecutor & { [PATCHED]?: boolean } {
  const empty = tfjsConverter.loadGraphModelSync({
    modelTopology: { node: [], versions: { producer: 1 } },
    weightSpecs: [],
    weightData: new ArrayBuffer(0),
    format: 'graph-model',
  });
  const executor = (empty as unknown as { executor?: object }).executor;
  const proto = executor && (Object.getPrototypeOf(executor) as GraphExecutor & { [PATCHED]?: boolean });
  for (const method of ['execute', 'executeFunctionAsync', 'executeWithControlFlow', 'processStack'] as const) {
    if (typeof proto?.[method] !== 'function')
      throw new Error(`tfjs-converter's GraphExecutor has no ${method}: tfgate's patch does not fit this version`);
  }
  return proto!;
}

/** Applies the fixes to tfjs-converter's GraphExecutor (once per process). */
export function patchGraphExecutor(closeListsOpenedDuring: CloseListsOpenedDuring): void {
  const proto = graphExecutorPrototype();
  if (proto[PATCHED]) return;
  const partialMaps = new WeakMap<ExecutionContext, TensorsMap>();
  const functionResults = new WeakMap<object, Set<Tensor>>();

  const processStack = proto.processStack;
  proto.processStack = function (this: GraphExecutor, inputNodes, stack, context, tensorMap, ...rest) {
    partialMaps.set(context, tensorMap);
    return processStack.call(this, inputNodes, stack, context, tensorMap, ...rest);
  };

  const loopClock = new WeakMap<object, { start: number; calls: number }>();
  const executeFunctionAsync = proto.executeFunctionAsync;
  proto.executeFunctionAsync = async function (this: GraphExecutor, inputs, tensorArrayMap, tensorListMap) {
    // One clock per run: every function call of a run shares its list map.
    const clock = loopClock.get(tensorListMap) ?? { start: performance.now(), calls: 0 };
    loopClock.set(tensorListMap, clock);
    if (++clock.calls % 64 === 0 && performance.now() - clock.start > loopTimeBound.ms) throw loopOutOfTime(clock.calls);
    const results = await executeFunctionAsync.call(this, inputs, tensorArrayMap, tensorListMap);
    const seen = functionResults.get(tensorListMap) ?? new Set<Tensor>();
    functionResults.set(tensorListMap, seen);
    for (const t of results) seen.add(t);
    return results;
  };

  const executeWithControlFlow = proto.executeWithControlFlow;
  proto.executeWithControlFlow = async function (this: GraphExecutor, inputs, context, outputNames, isFunctionExecution) {
    const root = this.parent == null;
    try {
      return withoutKeptTensors(await executeWithControlFlow.call(this, inputs, context, outputNames, isFunctionExecution), outputNames);
    } catch (e) {
      const keepIds = new Set([...Object.values(inputs).map((t) => t.id), ...this.weightIds]);
      disposeAfterFailure(Object.values(partialMaps.get(context) ?? {}).flat(), keepIds);
      if (root) {
        disposeAfterFailure(functionResults.get(context.tensorListMap) ?? [], keepIds);
        context.dispose(keepIds);
      }
      throw e;
    } finally {
      partialMaps.delete(context);
      if (root) functionResults.delete(context.tensorListMap);
    }
  };

  const execute = proto.execute;
  proto.execute = function (this: GraphExecutor, inputs, outputs) {
    return closeListsOpenedDuring(() => execute.call(this, inputs, outputs));
  };
  proto[PATCHED] = true;
}

export function isGraphExecutorPatched(): boolean {
  return Boolean(graphExecutorPrototype()[PATCHED]);
}
