// Predict, shared by every transport: find the version, check the request against the
// signature (TF Serving's predict_util rules), run it on the version's executors.
import { ServingError, Code, failedPrecondition } from '../errors/status.js';
import * as MSG from '../errors/messages.js';
import type { HostTensor } from '../tensor/host_tensor.js';
import type { SignatureSpec } from '../savedmodel/signature_spec.js';
import type { ModelSpec, Release, RunStats, ServableVersion, VersionSource } from './servable_version.js';
import type { ServableHandle } from '../core/servable_handle.js';
import { checkInputAliases, checkInputDtypes, checkOutputFilter } from './predict_checks.js';
import { ownValue } from '../util/own_property.js';
import type { MemoryClaim } from './memory_budget.js';
import { runMemoryBytes } from './run_memory.js';
import { capturePredictRequest } from './prediction_log.js';
import type { RequestLogSampler } from './request_logger.js';

/** How long the caller waits: performance.now() ms (see RunOptions.deadline); the request's memory. */
interface CallOptions {
  deadline?: number;
  /**
   * The request's share of --max_inflight_request_bytes: what its run will add (run_memory.ts)
   * is charged to it before the run, refused RESOURCE_EXHAUSTED when it does not fit.
   */
  claim?: MemoryClaim;
}

export interface PredictOptions extends CallOptions {
  /**
   * The error for a signature the model does not have. Each API words it its own way:
   * gRPC Predict FAILED_PRECONDITION (predict_util.cc, the default), REST :predict and
   * Classify / Regress INVALID_ARGUMENT with their own texts.
   */
  signatureNotFound?: (name: string) => ServingError;
  /** The caller logs this run in a record of its own (Classify, Regress, MultiInference): no PredictLog. */
  loggedByCaller?: boolean;
}

export const DEFAULT_SIGNATURE_KEY = 'serving_default';

/** What a caller builds from the signature (fill): the inputs, and the outputs to return (all when none). */
interface PredictInputs {
  inputs: Record<string, HostTensor>;
  outputFilter?: string[];
}

export interface PredictResult {
  version: number;
  signatureName: string;
  outputs: Record<string, HostTensor>;
  stats: RunStats;
  /** The request log keeps the outputs (it writes them later): they must stay readable here. */
  logged?: boolean;
}

/** servedSignatures' answer, once per version (a description does not change while it is loaded). */
const servedByDescription = new WeakMap<object, Record<string, SignatureSpec>>();

const predictSignatureNotFound = (name: string) => failedPrecondition(MSG.predictSignatureNotFound(name));

export class PredictionService {
  constructor(
    private readonly versions: VersionSource,
    /** Request logging (logging_config): which calls are logged, and where their records go. */
    readonly requestLog?: RequestLogSampler,
  ) {}

  /**
   * Admission of a request for `spec` before anything of it is read (ServableVersion.admit):
   * throws the refusal (UNAVAILABLE) when the version's queue has no room, else returns the
   * release of the place held, to call once the request's inputs are built. Any other
   * outcome, errors included, is left to predict() so that they keep TF Serving's order and
   * wording (a version that cannot be found, or is replaced meanwhile, admits).
   */
  admit(spec: ModelSpec): Release {
    let handle: ServableHandle<ServableVersion>;
    try {
      handle = this.versions.acquire(spec);
    } catch {
      return () => {};
    }
    try {
      return handle.servable.admit?.() ?? (() => {});
    } finally {
      handle.release();
    }
  }

  /**
   * The signatures of the version a spec resolves to now, as TF Serving's GetServableHandle
   * finds it (its errors: no name, unknown label, not found). Lets a caller check a request
   * against them before running anything (MultiInference validates all its tasks first).
   */
  signatures(spec: ModelSpec): Readonly<Record<string, SignatureSpec>> {
    const handle = this.versions.acquire(spec);
    try {
      return handle.servable.description.signatures;
    } finally {
      handle.release();
    }
  }

  /**
   * The signatures a request for `spec` may be read against before predict() looks the model
   * up (with TF Serving's errors, in its order): those the version resolved now serves (none
   * refused), or undefined when there is no such version. A REST body that names its signature
   * certainly is then read in one pass; predict() hands its fill the same objects as long as
   * the version is the same one.
   */
  servedSignatures(spec: ModelSpec): Readonly<Record<string, SignatureSpec>> | undefined {
    let handle: ServableHandle<ServableVersion>;
    try {
      handle = this.versions.acquire(spec);
    } catch {
      return undefined;
    }
    try {
      const description = handle.servable.description;
      let served = servedByDescription.get(description);
      if (!served) {
        served = Object.create(null) as Record<string, SignatureSpec>;
        for (const [name, signature] of Object.entries(description.signatures))
          if (!ownValue(description.refusals ?? {}, name)) served[name] = signature;
        servedByDescription.set(description, served);
      }
      return served;
    } finally {
      handle.release();
    }
  }

  /**
   * Runs `fill` with the resolved version's signature to build the inputs (the REST layer
   * parses JSON against it, on a parser thread for a large body), checks them and the output
   * filter as TF Serving does, then runs the signature. The version stays acquired throughout,
   * so an unload waits for this request.
   */
  async predict(
    spec: ModelSpec,
    signatureName: string | undefined,
    fill: (signature: SignatureSpec, version: ServableVersion) => PredictInputs | Promise<PredictInputs>,
    call: PredictOptions = {},
  ): Promise<PredictResult> {
    const handle = this.versions.acquire(spec);
    try {
      const name = signatureName || DEFAULT_SIGNATURE_KEY;
      const version = handle.servable;
      const signature = ownValue(version.description.signatures, name);
      if (!signature) throw (call.signatureNotFound ?? predictSignatureNotFound)(name);
      const refusal = ownValue(version.description.refusals, name);
      if (refusal)
        throw new ServingError(
          Code.UNIMPLEMENTED,
          `signature "${name}" of model ${spec.name} version ${handle.version} cannot be served: ${refusal}`,
        );
      const filled = fill(signature, version);
      // Awaited only when it is a promise: a synchronous fill costs no extra turn.
      const { inputs, outputFilter = [] } = filled instanceof Promise ? await filled : filled;
      checkInputAliases(signature, Object.keys(inputs));
      checkOutputFilter(signature, outputFilter);
      checkInputDtypes(signature, inputs);
      call.claim?.add(runMemoryBytes(version.description.runCosts?.[name], inputs));
      const logged = call.loggedByCaller ? undefined : this.requestLog?.sample(spec.name);
      const request = logged && capturePredictRequest(spec, signatureName, inputs, outputFilter);
      const stats: RunStats = {};
      const outputs = await version.run(name, inputs, outputFilter, { stats, deadline: call.deadline });
      if (logged)
        logged.log({ kind: 'predict', request: request!, name: spec.name, version: handle.version, signatureName: name, outputs });
      return { version: handle.version, signatureName: name, outputs, stats, ...(logged && { logged: true }) };
    } finally {
      handle.release();
    }
  }
}
