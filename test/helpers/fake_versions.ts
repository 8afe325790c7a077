// A VersionSource with no threads and no model files, for testing the services and the REST
// app in-process: each model has one version whose `run` is a plain function (by default
// half_plus_two, y = 0.5x + 2). It counts acquires and releases, so a test can tell that a
// request let go of its version whichever way it ended.
import { notFound } from '../../src/errors/status.js';
import * as MSG from '../../src/errors/messages.js';
import type { SignatureSpec } from '../../src/savedmodel/signature_spec.js';
import type { HostTensor } from '../../src/tensor/host_tensor.js';
import type { ModelSpec, RunOptions, ServableVersion, VersionSource } from '../../src/services/servable_version.js';

export type FakeRun = (
  signature: string,
  inputs: Record<string, HostTensor>,
  outputKeys: string[],
  options: RunOptions,
) => Promise<Record<string, HostTensor>>;

const floatSpec = (name: string) => ({ name, dtype: 'DT_FLOAT', shape: [-1, 1] });

/** half_plus_two's signatures as the embedded runtime describes them (x:0 → y:0). */
export function halfPlusTwoSignatures(): Record<string, SignatureSpec> {
  return {
    serving_default: {
      key: 'serving_default',
      methodName: 'tensorflow/serving/predict',
      inputs: { x: floatSpec('x:0') },
      outputs: { y: floatSpec('y:0') },
      defaults: {},
    },
    regress_x_to_y: {
      key: 'regress_x_to_y',
      methodName: 'tensorflow/serving/regress',
      inputs: { inputs: { name: 'tf_example:0', dtype: 'DT_STRING', shape: [-1] } },
      outputs: { outputs: floatSpec('y:0') },
      defaults: {},
    },
  };
}

/** y = 0.5x + 2 on every float input, as output `y`. */
export const halfPlusTwo: FakeRun = async (_signature, inputs) => {
  const x = Object.values(inputs)[0];
  return { y: { dtype: 'float32', shape: [...x.shape], values: Float32Array.from(x.values as Float32Array, (v) => 0.5 * v + 2) } };
};

export interface FakeModel {
  version?: number;
  signatures?: Record<string, SignatureSpec>;
  refusals?: Record<string, string>;
  run?: FakeRun;
  /** ServableVersion.admit: throw to refuse a request before its body is read (a full queue). */
  admit?: () => () => void;
}

export class FakeVersions implements VersionSource {
  acquired = 0;
  released = 0;
  private readonly models: Map<string, { version: number; servable: ServableVersion }>;

  constructor(models: Record<string, FakeModel>) {
    this.models = new Map(
      Object.entries(models).map(([name, m]) => {
        const signatures = m.signatures ?? halfPlusTwoSignatures();
        const run = m.run ?? halfPlusTwo;
        const servable: ServableVersion = {
          description: { backend: 'fake', engines: {}, signatures, refusals: m.refusals ?? {}, signatureDefs: {}, warmupRecords: 0 },
          run: (signature, inputs, outputKeys, options = {}) => run(signature, inputs, outputKeys, options),
          ...(m.admit && { admit: m.admit }),
        };
        return [name, { version: m.version ?? 1, servable }];
      }),
    );
  }

  /** Held now: acquired and not yet released. */
  get held(): number {
    return this.acquired - this.released;
  }

  acquire(spec: ModelSpec) {
    const m = this.models.get(spec.name);
    if (!m) throw notFound(MSG.couldNotFindAnyVersions(spec.name));
    if (spec.version !== undefined && spec.version !== m.version) throw notFound(MSG.couldNotFindVersion(spec.version, spec.name));
    this.acquired++;
    let done = false;
    return {
      modelName: spec.name,
      version: m.version,
      servable: m.servable,
      release: () => {
        if (!done) this.released++;
        done = true;
      },
    };
  }
}
