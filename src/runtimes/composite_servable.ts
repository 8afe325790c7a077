// One model version served by several engines: each signature is answered by the servable
// that loaded it (e.g. ONNX Runtime for most, the WASM runtime for one with an op ONNX
// cannot express). Signatures no engine could load keep their refusal.
import type { SignatureDefObject } from '../savedmodel/saved_model_reader.js';
import type { HostTensor } from '../tensor/host_tensor.js';
import type { EngineChoice, Servable } from './runtime.js';
import type { SignatureSpec } from '../savedmodel/signature_spec.js';
import { servableSignature } from './signature_checks.js';
import type { RunCost } from './run_cost.js';
import type { Refusal } from './signature_loading.js';

export class CompositeServable implements Servable {
  readonly backend: string;
  readonly signatures: Record<string, SignatureSpec> = {};
  readonly refusals: Record<string, string> = {};
  readonly engines: Record<string, EngineChoice> = {};
  readonly runCosts: Record<string, RunCost> = {};
  private readonly owner = new Map<string, Servable>();

  constructor(
    parts: Servable[],
    private readonly refused: Map<string, Refusal>,
    readonly signatureDefs: Record<string, SignatureDefObject>,
    /** Why a signature is not on the preferred engine, by signature key. */
    notes: Record<string, string> = {},
  ) {
    for (const part of parts) {
      for (const key of Object.keys(part.engines)) {
        this.owner.set(key, part);
        this.signatures[key] = part.signatures[key];
        this.engines[key] = notes[key] ? { ...part.engines[key], reason: notes[key] } : part.engines[key];
        const cost = part.runCosts?.[key];
        if (cost) this.runCosts[key] = cost;
      }
    }
    for (const [key, r] of refused) {
      this.signatures[key] = r.spec;
      this.refusals[key] = r.error.message;
    }
    this.backend = [...new Set(parts.map((p) => p.backend))].join('+');
  }

  checkLoadRun(key: string, inputs: Record<string, HostTensor>): void {
    this.owner.get(key)?.checkLoadRun?.(key, inputs);
  }

  async run(key: string, inputs: Record<string, HostTensor>, outputKeys?: string[]): Promise<Record<string, HostTensor>> {
    return servableSignature(key, this.owner, this.refused).run(key, inputs, outputKeys);
  }

  runNow(
    key: string,
    inputs: Record<string, HostTensor>,
    outputKeys?: string[],
  ): Record<string, HostTensor> | Promise<Record<string, HostTensor>> {
    const part = servableSignature(key, this.owner, this.refused);
    return part.runNow ? part.runNow(key, inputs, outputKeys) : part.run(key, inputs, outputKeys);
  }

  async trace(key: string, inputs: Record<string, HostTensor>): Promise<Array<[string, HostTensor]>> {
    const part = servableSignature(key, this.owner, this.refused);
    return part.trace ? part.trace(key, inputs) : [];
  }

  dispose(): void {
    for (const part of new Set(this.owner.values())) part.dispose();
  }
}
