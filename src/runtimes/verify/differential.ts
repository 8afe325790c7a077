// Runs one signature on two engines with the same inputs and says whether they agree; when
// they do not, traces both runs node by node and names the first node whose output differs
// (the kernel, attribute or conversion at fault is there, not in what follows from it). An
// engine that cannot run the signature at all (an op it cannot compute, whatever the inputs)
// is reported as failing, naming the op, whatever the reference does.
import { Code, toStatusData } from '../../errors/status.js';
import type { HostTensor } from '../../tensor/host_tensor.js';
import { firstDifferingTensor, outputsDifference } from './compare_tensors.js';

/** An engine as the check needs it: a loaded servable, in this thread or behind executors. */
export interface EngineUnderCheck {
  /** 'onnxruntime', 'wasm', 'cpu' … */
  name: string;
  run(signature: string, inputs: Record<string, HostTensor>): Promise<Record<string, HostTensor>>;
  trace(signature: string, inputs: Record<string, HostTensor>): Promise<Array<[string, HostTensor]>>;
}

export type CheckResult =
  | { kind: 'agree' }
  | { kind: 'disagree'; message: string }
  /**
   * The engine under check cannot run the signature at all (it fails with an engine error —
   * an op it cannot compute — not with TF's message about these inputs): no request would
   * succeed. `message` names the op where the engine says which.
   */
  | { kind: 'fails'; message: string }
  /** The check could not be made (the reference engine failed, say): neither agreement nor not. */
  | { kind: 'unchecked'; reason: string };

type Settled<T> = { ok: true; value: T } | { ok: false; error: string; code: Code };

async function settle<T>(p: Promise<T>): Promise<Settled<T>> {
  try {
    return { ok: true, value: await p };
  } catch (e) {
    const status = toStatusData(e);
    return { ok: false, error: status.message, code: status.code };
  }
}

/**
 * Failures that say the engine cannot compute an op — whatever the inputs — rather than that
 * these inputs are invalid (INVALID_ARGUMENT and the like: TF refuses them too).
 */
const CANNOT_RUN: ReadonlySet<Code> = new Set([Code.UNIMPLEMENTED, Code.INTERNAL, Code.UNKNOWN]);

/** The engine's failure, naming the node its trace stops at when the engine can tell. */
async function failure(
  engine: EngineUnderCheck,
  signature: string,
  inputs: Record<string, HostTensor>,
  inputsFrom: string,
  error: string,
): Promise<string> {
  const traced = await settle(engine.trace(signature, inputs));
  return `${engine.name} cannot run it on ${inputsFrom}: ${traced.ok ? error : traced.error}`;
}

export async function checkSignature(
  primary: EngineUnderCheck,
  reference: EngineUnderCheck,
  signature: string,
  inputs: Record<string, HostTensor>,
  inputsFrom: string,
): Promise<CheckResult> {
  const [a, b] = await Promise.all([settle(primary.run(signature, inputs)), settle(reference.run(signature, inputs))]);
  if (!a.ok && CANNOT_RUN.has(a.code)) return { kind: 'fails', message: await failure(primary, signature, inputs, inputsFrom, a.error) };
  if (!b.ok)
    return {
      kind: 'unchecked',
      reason: a.ok ? `${reference.name} failed on ${inputsFrom}: ${b.error}` : `both engines refuse ${inputsFrom}: ${a.error}`,
    };
  if (!a.ok) return { kind: 'disagree', message: `${primary.name} failed on ${inputsFrom} where ${reference.name} answered: ${a.error}` };
  const difference = outputsDifference(a.value, b.value);
  if (!difference) return { kind: 'agree' };
  let where = '';
  const [ta, tb] = await Promise.all([settle(primary.trace(signature, inputs)), settle(reference.trace(signature, inputs))]);
  if (ta.ok && tb.ok) {
    const first = firstDifferingTensor(ta.value, tb.value);
    where = first
      ? `; first differing node: ${first.tensor} (${first.detail})`
      : '; no single node differs beyond the tolerance (the error accumulates)';
  } else {
    where = `; the runs could not be traced node by node (${ta.ok ? '' : ta.error}${tb.ok ? '' : ` ${tb.error}`})`;
  }
  return { kind: 'disagree', message: `${primary.name} and ${reference.name} disagree on ${inputsFrom}: ${difference}${where}` };
}
