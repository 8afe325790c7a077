// Checking a loaded version's signatures against a reference engine: each signature runs
// once on both with the same inputs — made up from its declared specs (strings and tf.Example
// protos included), plus its warmup records — and a signature whose engines disagree is
// reported with the outputs and the first differing node named; one the engine cannot run
// at all (an op failing whatever the inputs) is reported with that op named. The reference for each engine:
//   ONNX Runtime → the WASM runtime; WASM → TF.js's plain-JS CPU backend (another
//   implementation of every kernel); CPU → WASM; libtensorflow → ONNX Runtime.
// A signature part of which every engine runs on one implementation (EngineChoice.singleEngine:
// a decision forest on Yggdrasil's WASM engine) is compared all the same, but reported
// unchecked, with that reason, when the rest agrees: it is never called verified.
import type { ResolvedRuntime } from '../runtime_selection.js';
import type { EngineChoice } from '../runtime.js';
import type { SignatureSpec } from '../../savedmodel/signature_spec.js';
import { checkSignature, type EngineUnderCheck } from './differential.js';
import { seededInputs } from './seeded_inputs.js';
import { readWarmupRuns } from '../../savedmodel/warmup_requests.js';
import type { HostTensor } from '../../tensor/host_tensor.js';
import { toStatusData } from '../../errors/status.js';

type RuntimeName = ResolvedRuntime;

/** Warmup records checked per signature, besides the made-up inputs. */
const MAX_RECORDS_PER_SIGNATURE = 2;

export const REFERENCE_ENGINE: Record<string, RuntimeName> = {
  onnxruntime: 'wasm',
  wasm: 'cpu',
  cpu: 'wasm',
  tensorflow: 'onnx+embedded',
};

export interface VerificationReport {
  /** Signature → why it is refused (the engines disagree, or the engine cannot run it). */
  refused: Record<string, string>;
  /** Signatures whose engines agreed on every input tried, with the reference engine. */
  verified: Record<string, string>;
  /** Signature → why it could not be checked. */
  unchecked: Record<string, string>;
}

/** The version loaded on a reference runtime, for the check only. */
export interface ReferenceEngine {
  engines: Record<string, EngineChoice>;
  refusals: Record<string, string>;
  run(signature: string, inputs: Record<string, HostTensor>): Promise<Record<string, HostTensor>>;
  trace(signature: string, inputs: Record<string, HostTensor>): Promise<Array<[string, HostTensor]>>;
  close(): Promise<void>;
}

export type ReferenceOpener = (runtime: RuntimeName) => Promise<ReferenceEngine>;

/**
 * Checks every served signature of `primary` (described by `description`) against a reference
 * runtime opened by `openReference`; `versionDir` supplies warmup records as extra inputs.
 */
export async function verifySignatures(
  primary: Pick<EngineUnderCheck, 'run' | 'trace'>,
  description: { engines: Record<string, EngineChoice>; signatures: Record<string, SignatureSpec> },
  versionDir: string,
  openReference: ReferenceOpener,
  /**
   * Refuses a trial whose tensors would exceed the load's memory bound (Servable.checkLoadRun),
   * before either engine runs it: the signature is then refused.
   */
  checkRun: (signature: string, inputs: Record<string, HostTensor>) => void | Promise<void> = () => {},
): Promise<VerificationReport> {
  const report: VerificationReport = { refused: {}, verified: {}, unchecked: {} };
  const records = (await readWarmupRuns(versionDir).catch(() => null)) ?? [];
  const byReference = new Map<RuntimeName, string[]>();
  for (const [key, { engine }] of Object.entries(description.engines)) {
    const reference = REFERENCE_ENGINE[engine];
    if (!reference) {
      report.unchecked[key] = `no reference engine for ${engine}`;
      continue;
    }
    byReference.set(reference, [...(byReference.get(reference) ?? []), key]);
  }
  for (const [reference, keys] of byReference) {
    let pool: ReferenceEngine;
    try {
      pool = await openReference(reference);
    } catch (e) {
      for (const key of keys) report.unchecked[key] = `the ${reference} runtime did not load the version: ${(e as Error).message}`;
      continue;
    }
    try {
      for (const key of keys) {
        const a: EngineUnderCheck = {
          name: description.engines[key].engine,
          run: (s, i) => primary.run(s, i),
          trace: (s, i) => primary.trace(s, i),
        };
        const b: EngineUnderCheck = {
          name: pool.engines[key]?.engine ?? reference,
          run: (s, i) => pool.run(s, i),
          trace: (s, i) => pool.trace(s, i),
        };
        if (!pool.engines[key]) {
          report.unchecked[key] = `the ${reference} runtime does not serve it (${pool.refusals[key] ?? 'not loaded'})`;
          continue;
        }
        const trials: Array<[string, Record<string, HostTensor>]> = [];
        const seeded = seededInputs(description.signatures[key]);
        if ('inputs' in seeded) trials.push(['made-up inputs', seeded.inputs]);
        records
          .flatMap((runs, i) =>
            runs.filter((r) => r.signature === key).map((r) => [`warmup record ${i}`, r.inputs] as [string, Record<string, HostTensor>]),
          )
          .slice(0, MAX_RECORDS_PER_SIGNATURE)
          .forEach((t) => trials.push(t));
        if (!trials.length) {
          report.unchecked[key] = `no inputs to check it with (${'skip' in seeded ? seeded.skip : ''}, and no warmup record)`;
          continue;
        }
        let verdict: 'agree' | 'unchecked' = 'agree';
        for (const [from, inputs] of trials) {
          try {
            await checkRun(key, inputs);
          } catch (e) {
            report.refused[key] = `on ${from}: ${toStatusData(e).message}`;
            break;
          }
          const result = await checkSignature(a, b, key, inputs, from);
          if (result.kind === 'disagree' || result.kind === 'fails') {
            report.refused[key] = result.message;
            break;
          }
          if (result.kind === 'unchecked') {
            report.unchecked[key] = result.reason;
            verdict = 'unchecked';
          }
        }
        const single = description.engines[key].singleEngine;
        if (!report.refused[key] && verdict === 'agree') {
          if (single)
            report.unchecked[key] = `${single}, under ${b.name} as well: only the graph around it was compared with ${b.name} (it agreed)`;
          else report.verified[key] = b.name;
        }
      }
    } finally {
      await pool.close();
    }
  }
  return report;
}
