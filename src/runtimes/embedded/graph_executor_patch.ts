// A fix for tfjs-converter 4.22's GraphExecutor, applied at run time (so that it survives
// `npm ci --omit=dev` and needs no install script).
//
// What upstream does wrong: `_executeAsync` — which runs the async path, and every
// function call (a While's cond and body, an If's branches) — ends by disposing every tensor
// it computed except the outputs, the inputs and the weights:
//
//     Object.values(tensorsMap).forEach(list => list.forEach(t => {
//       if (t && !t.isDisposed && !keepIds.has(t.id)) t.dispose(); }));
//
// It ignores `tensor.kept`, the mark TensorList / TensorArray / hash-table ops put on the
// tensors they now own (TensorList.setItem calls keep(item)). A loop body that writes an
// intermediate into a list therefore frees it on return, and the TensorListStack after the
// loop fails with "Cannot read properties of undefined (reading 'backend')". Keras RNNs hit it
// whenever the tensor written is not itself returned (masking, Identity ordering). Every
// other disposal path of the executor (checkTensorForDisposal, the sync path's live-until
// disposal, the While executor's own clean-up) does skip kept tensors.
//
// Why this patch is right: it makes that sweep skip kept tensors too, and nothing else.
// Kept tensors are owned by their list (or array, or table), which the root execution's
// context.dispose() releases at the end of the request; tfgate's tests check that no tensor
// outlives a request. The patch wraps `executeWithControlFlow`, the step that returns the
// map the sweep walks: the wrapper returns a copy in which kept tensors are left out, except
// at the outputs the caller reads from it.
import { loadGraphModelSync } from '@tensorflow/tfjs-converter';
import type { Tensor } from '@tensorflow/tfjs-core';

type TensorsMap = Record<string, Array<Tensor | undefined>>;

interface GraphExecutorPrototype {
  executeWithControlFlow(inputs: unknown, context: unknown, outputNames: string[], isFunctionExecution: boolean): Promise<TensorsMap>;
}

const PATCHED = Symbol.for('tfgate.graphExecutor.keptTensorsSpared');

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

/** tfjs-converter's GraphExecutor prototype, reached through an empty model (GraphExecutor is not exported). */
function graphExecutorPrototype(): GraphExecutorPrototype & { [PATCHED]?: boolean } {
  const empty = loadGraphModelSync({ modelTopology: { node: [], versions: { producer: 1 } }, weightSpecs: [], weightData: new ArrayBuffer(0), format: 'graph-model' });
  const executor = (empty as unknown as { executor?: object }).executor;
  const proto = executor && (Object.getPrototypeOf(executor) as GraphExecutorPrototype & { [PATCHED]?: boolean });
  if (!proto || typeof proto.executeWithControlFlow !== 'function') {
    throw new Error('tfjs-converter GraphExecutor has no executeWithControlFlow: the kept-tensor patch does not fit this version');
  }
  return proto;
}

/** Applies the fix to tfjs-converter's GraphExecutor (once per process). */
export function patchGraphExecutor(): void {
  const proto = graphExecutorPrototype();
  if (proto[PATCHED]) return;
  const original = proto.executeWithControlFlow;
  proto.executeWithControlFlow = async function (this: unknown, inputs, context, outputNames, isFunctionExecution) {
    const tensorsMap = await original.call(this, inputs, context, outputNames, isFunctionExecution);
    return withoutKeptTensors(tensorsMap, outputNames);
  };
  proto[PATCHED] = true;
}

export function isGraphExecutorPatched(): boolean {
  return Boolean(graphExecutorPrototype()[PATCHED]);
}
