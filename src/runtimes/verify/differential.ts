// Runs one signature on two engines with the same inputs and says whether they agree; when
// they do not, traces both runs node by node and names the first node whose output differs
// (the kernel, attribute or conversion at fault is there, not in what follows from it).
import { toStatusData } from '../../errors/status.js';
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
  /** The check could not be made (the reference engine failed, say): neither agreement nor not. */
  | { kind: 'unchecked'; reason: string };

async function settle<T>(p: Promise<T>): Promise<{ ok: true; value: T } | { ok: false; error: string }> {
  try {
    return { ok: true, value: await p };
  } catch (e) {
    return { ok: false, error: toStatusData(e).message };
  }
}

export async function checkSignature(primary: EngineUnderCheck, reference: EngineUnderCheck, signature: string, inputs: Record<string, HostTensor>, inputsFrom: string): Promise<CheckResult> {
  const [a, b] = await Promise.all([settle(primary.run(signature, inputs)), settle(reference.run(signature, inputs))]);
  if (!b.ok) return a.ok ? { kind: 'unchecked', reason: `${reference.name} failed on ${inputsFrom}: ${b.error}` } : { kind: 'agree' };
  if (!a.ok) return { kind: 'disagree', message: `${primary.name} failed on ${inputsFrom} where ${reference.name} answered: ${a.error}` };
  const difference = outputsDifference(a.value, b.value);
  if (!difference) return { kind: 'agree' };
  let where = '';
  const [ta, tb] = await Promise.all([settle(primary.trace(signature, inputs)), settle(reference.trace(signature, inputs))]);
  if (ta.ok && tb.ok) {
    const first = firstDifferingTensor(ta.value, tb.value);
    where = first ? `; first differing node: ${first.tensor} (${first.detail})` : '; no single node differs beyond the tolerance (the error accumulates)';
  } else {
    where = `; the runs could not be traced node by node (${ta.ok ? '' : ta.error}${tb.ok ? '' : ` ${tb.error}`})`;
  }
  return { kind: 'disagree', message: `${primary.name} and ${reference.name} disagree on ${inputsFrom}: ${difference}${where}` };
}
