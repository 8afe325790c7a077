// The one signature-loading pipeline every runtime goes through, as TF Serving's two bundle
// factories share servables/tensorflow/bundle_factory_util.h. An engine supplies three steps
// (SignatureEngine): open the version once, prepare one signature, wrap what it prepared in a
// Servable. The pipeline owns the rules between them, the same on every engine:
//   - what all signatures share (the MetaGraphDef, the variables, the lookup tables) is read
//     once, by `open`;
//   - the init op's signature (__saved_model_init_op) is not served: it is skipped;
//   - NOT_FOUND or DATA_LOSS from a signature (a missing variable, a corrupt checkpoint)
//     spoils the whole version: the load fails, naming the folder;
//   - EngineCannotRun (an op this engine lacks) refuses the signature on this engine only:
//     a CompositeRuntime hands it to the engine behind it, a lone engine refuses it;
//   - any other failure refuses that signature with its reason, and the others serve;
//   - a complete load then checks every checkpoint tensor's checksum, read or not (TF's
//     RestoreV2 restores them all);
//   - a version none of whose signatures is served fails with FAILED_PRECONDITION naming
//     each signature's refusal.
// Worked example: signatures a (prepared), b (an op the engine lacks), c (writes a variable)
// on ONNX Runtime alone give a servable of a, b refused UNIMPLEMENTED, c refused with its own
// code; with the embedded runtime behind it, b is loaded there instead.
import { setImmediate as nextTurn } from 'node:timers/promises';
import { Code, ServingError, toStatusData } from '../errors/status.js';
import type { MetaGraphObject, SignatureDefObject } from '../savedmodel/saved_model_reader.js';
import { INIT_OP_SIGNATURE_KEY, signatureSpec, type SignatureSpec } from '../savedmodel/signature_spec.js';
import { verifyVariables } from '../savedmodel/saved_model_version.js';
import type { TensorBundle } from '../savedmodel/tensor_bundle/tensor_bundle_reader.js';
import type { LoadOptions, Servable } from './runtime.js';

/** A signature that is not served, and why. */
export interface Refusal {
  spec: SignatureSpec;
  error: ServingError;
}

/**
 * This engine cannot run the signature (or, thrown by `open`, the version) exactly, but
 * another engine may: an op without a converter, a session the engine will not build.
 * UNIMPLEMENTED when no other engine takes it.
 */
export class EngineCannotRun extends ServingError {
  constructor(message: string) {
    super(Code.UNIMPLEMENTED, message);
  }
}

/** What an engine reads once per version, for all its signatures. */
export interface OpenedSignatures {
  metaGraph: MetaGraphObject;
  /** The checkpoint, checked in full after a complete load (null: none, or the engine reads it itself). */
  variables: TensorBundle | null;
  /** Frees what the version holds beside its signatures, when no servable takes it over. */
  release?(): void;
}

/**
 * The per-engine part of a load. `open` and `prepare` run on the executor thread that will
 * serve the version, one load at a time per call; each throws a ServingError naming the file,
 * op or node at fault (see the header for what each code does).
 */
export interface SignatureEngine<V extends OpenedSignatures, S> {
  /** Named in a whole-version refusal ("no signature can be served by libtensorflow"); absent: not named. */
  readonly servedBy?: string;
  /** Reads what all signatures share. EngineCannotRun: another engine may load the whole version. */
  open(dir: string, options: LoadOptions): Promise<V>;
  /** Prepares one signature of the opened version. */
  prepare(version: V, key: string): Promise<S> | S;
  /**
   * The servable of the prepared signatures (one at least), answering the refused ones with
   * their refusal. It owns the prepared signatures and the version's resources from then on.
   */
  servable(version: V, prepared: ReadonlyMap<string, S>, refused: ReadonlyMap<string, Refusal>): Servable;
}

/** One engine's share of a version, before anyone decides whether the version serves. */
export interface PartialLoad {
  /** The signatures this engine serves; null when none. */
  servable: Servable | null;
  signatureDefs: Record<string, SignatureDefObject>;
  /** Refused for a reason no other engine changes (a graph that writes its variables). */
  refused: Map<string, Refusal>;
  /** Refused by this engine alone (EngineCannotRun): another engine may serve them. */
  handOff: Map<string, Refusal>;
}

/** A version none of whose signatures can be served: FAILED_PRECONDITION, each signature's refusal named. */
export function noSignatureServed(dir: string, refused: ReadonlyMap<string, { error: ServingError }>, servedBy?: string): ServingError {
  const reasons = [...refused].map(([k, r]) => `${k}: ${r.error.message}`).join('; ');
  const by = servedBy ? ` by ${servedBy}` : '';
  return new ServingError(Code.FAILED_PRECONDITION, `${dir}: no signature can be served${by}${reasons ? ` (${reasons})` : ''}`);
}

/** Loads a version on one engine: its servable, or the load's failure (none served: FAILED_PRECONDITION). */
export async function loadSignatures<V extends OpenedSignatures, S>(
  engine: SignatureEngine<V, S>,
  dir: string,
  options: LoadOptions,
  log: (msg: string) => void = () => {},
): Promise<Servable> {
  const part = await loadSignaturesPart(engine, dir, options);
  const refused = new Map([...part.refused, ...part.handOff]);
  if (!part.servable) throw noSignatureServed(dir, refused, engine.servedBy);
  logRefusals(dir, refused, log);
  return part.servable;
}

/** Loads what one engine can of a version (options.signatures: only those); throws only what spoils the version. */
export async function loadSignaturesPart<V extends OpenedSignatures, S>(
  engine: SignatureEngine<V, S>,
  dir: string,
  options: LoadOptions,
): Promise<PartialLoad> {
  const version = await engine.open(dir, options);
  const defs = version.metaGraph.signatureDef ?? {};
  const prepared = new Map<string, S>();
  const refused = new Map<string, Refusal>();
  const handOff = new Map<string, Refusal>();
  let servable: Servable | null = null;
  try {
    for (const [key, def] of Object.entries(defs)) {
      if (key === INIT_OP_SIGNATURE_KEY) continue;
      if (options.signatures && !options.signatures.includes(key)) continue;
      try {
        prepared.set(key, await engine.prepare(version, key));
      } catch (e) {
        if (e instanceof EngineCannotRun) {
          handOff.set(key, { spec: specOf(key, def), error: new ServingError(e.code, e.message) });
        } else {
          const status = toStatusData(e);
          if (status.code === Code.NOT_FOUND || status.code === Code.DATA_LOSS)
            throw new ServingError(status.code, `${dir}: ${status.message}`);
          refused.set(key, { spec: specOf(key, def), error: new ServingError(status.code, status.message) });
        }
      }
      // A turn of the thread's event loop per signature: runs of the other versions sharing
      // this executor thread get in between (a version may have thousands of signatures).
      await nextTurn();
    }
    if (prepared.size) servable = engine.servable(version, prepared, new Map([...refused, ...handOff]));
    // A partial load is another engine's share or a reference: the full load checks the checkpoint.
    if (!options.signatures) verifyVariables(dir, version.variables);
  } catch (e) {
    // A servable of what was prepared is the one owner that can free it.
    if (servable) servable.dispose();
    else if (prepared.size) engine.servable(version, prepared, refused).dispose();
    else version.release?.();
    throw e;
  }
  if (!servable) version.release?.();
  return { servable, signatureDefs: defs, refused, handOff };
}

export function logRefusals(dir: string, refused: ReadonlyMap<string, Refusal>, log: (msg: string) => void): void {
  for (const [key, r] of refused) log(`${dir}: signature '${key}' is not served: ${r.error.message}`);
}

/** The signature as its SignatureDef declares it, or an empty one when even that cannot be read. */
function specOf(key: string, def: SignatureDefObject): SignatureSpec {
  try {
    return signatureSpec(key, def);
  } catch {
    return { key, methodName: def.methodName ?? '', inputs: {}, outputs: {}, defaults: {} };
  }
}
