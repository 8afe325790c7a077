// One engine first, another for what the first cannot run: --runtime=auto without
// libtensorflow is ONNX Runtime with the embedded WASM runtime behind it. The first engine
// loads the version through the signature-loading pipeline; the signatures it hands off
// (EngineCannotRun) are loaded by the second in one partial load, and each keeps the first
// engine's reason (EngineChoice.reason). A version the first engine cannot open at all (a
// TF.js graph model folder for ONNX Runtime) is the second engine's whole.
import { ServingError, toStatusData, Code } from '../errors/status.js';
import { CompositeServable } from './composite_servable.js';
import type { LoadOptions, Runtime, Servable } from './runtime.js';
import { EngineCannotRun, loadSignaturesPart, logRefusals, noSignatureServed } from './signature_loading.js';
import type { OpenedSignatures, Refusal, SignatureEngine } from './signature_loading.js';

export class CompositeRuntime<V extends OpenedSignatures, S> implements Runtime {
  readonly name: string;

  constructor(
    private readonly first: SignatureEngine<V, S> & Runtime,
    private readonly then: Runtime,
    private readonly log: (msg: string) => void = () => {},
  ) {
    this.name = first.name;
  }

  async load(dir: string, options: LoadOptions): Promise<Servable> {
    let part;
    try {
      part = await loadSignaturesPart(this.first, dir, options);
    } catch (e) {
      if (e instanceof EngineCannotRun) return this.then.load(dir, options);
      throw e;
    }
    const refused = new Map<string, Refusal>(part.refused);
    const parts: Servable[] = part.servable ? [part.servable] : [];
    const notes: Record<string, string> = {};
    const handOff = part.handOff;
    if (handOff.size) {
      const keys = [...handOff.keys()];
      let other: Servable | undefined;
      try {
        other = await this.then.load(dir, { ...options, signatures: keys });
      } catch (e) {
        const status = toStatusData(e);
        for (const [key, r] of handOff) {
          refused.set(key, {
            spec: r.spec,
            error: new ServingError(status.code, `${r.error.message}; ${this.then.name}: ${status.message}`),
          });
        }
      }
      if (other) {
        parts.push(other);
        for (const [key, r] of handOff) {
          if (other.engines[key]) notes[key] = r.error.message;
          else
            refused.set(key, {
              spec: r.spec,
              error: new ServingError(Code.UNIMPLEMENTED, `${r.error.message}; ${other.refusals[key] ?? 'not loaded'}`),
            });
        }
      }
    }
    if (parts.length === 0) throw noSignatureServed(dir, refused);
    logRefusals(dir, refused, this.log);
    return new CompositeServable(parts, refused, part.signatureDefs, notes);
  }
}
