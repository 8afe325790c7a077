// Predict, shared by every transport: find the version, check the request against the
// signature (TF Serving's predict_util rules), run it on the version's executors.
import { invalidArgument, ServingError, Code } from '../core/status.js';
import type { HostTensor } from '../tensor/host_tensor.js';
import type { SignatureSpec } from '../runtimes/runtime.js';
import type { ModelSpec, RunStats, ServableVersion, VersionSource } from './servable_version.js';

/** How long the caller waits: performance.now() ms (see RunOptions.deadline). */
export interface CallOptions {
  deadline?: number;
}

export const DEFAULT_SIGNATURE_KEY = 'serving_default';

export interface PredictResult {
  version: number;
  signatureName: string;
  outputs: Record<string, HostTensor>;
  stats: RunStats;
}

/** The input-count check of TF Serving's predict_util.cc, with its message. */
export function verifyRequestInputsSize(signature: SignatureSpec, inputs: Record<string, HostTensor>): void {
  const sent = Object.keys(inputs);
  const expected = Object.keys(signature.inputs);
  const hasDefaults = Object.keys(signature.defaults).length > 0;
  if (sent.length > expected.length || (sent.length < expected.length && !hasDefaults)) {
    const sorted = (a: string[]) => [...a].sort().join(',');
    const extra = sent.filter((k) => !(k in signature.inputs));
    const missing = expected.filter((k) => !(k in inputs));
    throw invalidArgument(
      `input size does not match signature: ${sent.length}!=${expected.length} len({${sorted(sent)}}) != len({${sorted(expected)}}). ` +
        `Sent extra: {${sorted(extra)}}. Missing but required: {${sorted(missing)}}.`,
    );
  }
}

export class PredictionService {
  constructor(private readonly versions: VersionSource) {}

  /**
   * Runs `fill` with the resolved version's signature to build the inputs (the REST layer
   * parses JSON against it), then runs the signature. The version stays acquired throughout,
   * so an unload waits for this request.
   */
  async predict(
    spec: ModelSpec,
    signatureName: string | undefined,
    fill: (signature: SignatureSpec, version: ServableVersion) => { inputs: Record<string, HostTensor>; outputFilter?: string[] },
    call: CallOptions = {},
  ): Promise<PredictResult> {
    const handle = this.versions.acquire(spec);
    try {
      const name = signatureName || DEFAULT_SIGNATURE_KEY;
      const version = handle.servable;
      const signature = version.description.signatures[name];
      if (!signature) throw invalidArgument(`Serving signature name: "${name}" not found in signature def`);
      const refusal = version.description.refusals[name];
      if (refusal) throw new ServingError(Code.UNIMPLEMENTED, `signature "${name}" of model ${spec.name} version ${handle.version} cannot be served: ${refusal}`);
      const { inputs, outputFilter = [] } = fill(signature, version);
      verifyRequestInputsSize(signature, inputs);
      const stats: RunStats = {};
      const outputs = await version.run(name, inputs, outputFilter, { stats, deadline: call.deadline });
      return { version: handle.version, signatureName: name, outputs, stats };
    } finally {
      handle.release();
    }
  }
}
