// PredictionService over fake versions: which signature runs, which error a missing or
// refused one gets, the checks run before anything does, what travels to the run, and that
// the version is let go however the call ends.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { PredictionService } from '../../src/services/prediction_service.js';
import { Code, ServingError, invalidArgument } from '../../src/errors/status.js';
import * as MSG from '../../src/errors/messages.js';
import type { HostTensor } from '../../src/tensor/host_tensor.js';
import type { RunOptions } from '../../src/services/servable_version.js';
import { FakeVersions, halfPlusTwo, type FakeModel } from '../helpers/fake_versions.js';

const x = (...v: number[]): Record<string, HostTensor> => ({ x: { dtype: 'float32', shape: [v.length, 1], values: Float32Array.from(v) } });
const isError = (code: Code, message: string) => (e: unknown) => e instanceof ServingError && e.code === code && e.message === message;

function service(model: FakeModel = {}) {
  const versions = new FakeVersions({ hp2: { version: 7, ...model } });
  return { prediction: new PredictionService(versions), versions };
}

describe('PredictionService.predict', () => {
  it('no signature name: serving_default runs; the answer names version and signature', async () => {
    const { prediction, versions } = service();
    const r = await prediction.predict({ name: 'hp2' }, undefined, () => ({ inputs: x(1, 2) }));
    assert.deepEqual([r.version, r.signatureName, Array.from(r.outputs.y.values as Float32Array)], [7, 'serving_default', [2.5, 3]]);
    assert.equal(versions.held, 0);
  });

  it('fill is given the resolved signature; its output filter travels to the run', async () => {
    let seen: { signature?: string; outputKeys?: string[] } = {};
    const { prediction } = service({
      run: async (signature, inputs, outputKeys, options) => (
        (seen = { signature, outputKeys }),
        halfPlusTwo(signature, inputs, outputKeys, options)
      ),
    });
    await prediction.predict({ name: 'hp2' }, 'serving_default', (sig) => {
      assert.equal(sig.key, 'serving_default');
      return { inputs: x(1), outputFilter: ['y'] };
    });
    assert.deepEqual(seen, { signature: 'serving_default', outputKeys: ['y'] });
  });

  it("the deadline travels to the run, and the run's stats come back", async () => {
    let options: RunOptions = {};
    const { prediction } = service({ run: async (s, i, k, o) => ((options = o), (o.stats!.inferMs = 3), halfPlusTwo(s, i, k, o)) });
    const r = await prediction.predict({ name: 'hp2' }, undefined, () => ({ inputs: x(1) }), { deadline: 12345 });
    assert.equal(options.deadline, 12345);
    assert.deepEqual(r.stats, { inferMs: 3 });
  });

  // One line per scenario: what the request gets wrong → the error, and nothing runs.
  const REFUSED: Array<
    [
      what: string,
      signature: string | undefined,
      fill: () => { inputs: Record<string, HostTensor>; outputFilter?: string[] },
      code: Code,
      message: string,
    ]
  > = [
    [
      "unknown signature (gRPC Predict's default error)",
      'nope',
      () => ({ inputs: x(1) }),
      Code.FAILED_PRECONDITION,
      MSG.predictSignatureNotFound('nope'),
    ],
    [
      'an input the signature lacks',
      undefined,
      () => ({ inputs: { z: x(1).x } }),
      Code.INVALID_ARGUMENT,
      MSG.inputNotInRequest('x', 'x:0', ['z'], []),
    ],
    [
      'one input too many',
      undefined,
      () => ({ inputs: { ...x(1), z: x(1).x } }),
      Code.INVALID_ARGUMENT,
      MSG.inputSizeMismatch(['x', 'z'], ['x'], ['z'], []),
    ],
    [
      'an output filter naming no output',
      undefined,
      () => ({ inputs: x(1), outputFilter: ['w'] }),
      Code.INVALID_ARGUMENT,
      MSG.outputAliasNotFound('w', ['y']),
    ],
    [
      'an output named twice',
      undefined,
      () => ({ inputs: x(1), outputFilter: ['y', 'y'] }),
      Code.INVALID_ARGUMENT,
      MSG.duplicateOutputAlias('y'),
    ],
    [
      'an int32 tensor for a float input',
      undefined,
      () => ({ inputs: { x: { dtype: 'int32', shape: [1, 1], values: Int32Array.from([1]) } } }),
      Code.INVALID_ARGUMENT,
      MSG.argDtypeMismatch(0, 'float', 'int32'),
    ],
  ];
  for (const [what, signature, fill, code, message] of REFUSED) {
    it(`${what} → ${Code[code]}, nothing runs, the version is let go`, async () => {
      let ran = false;
      const { prediction, versions } = service({ run: async (...a) => ((ran = true), halfPlusTwo(...a)) });
      await assert.rejects(prediction.predict({ name: 'hp2' }, signature, fill), isError(code, message));
      assert.equal(ran, false);
      assert.equal(versions.held, 0);
    });
  }

  it('a transport words a missing signature its own way (signatureNotFound)', async () => {
    const { prediction } = service();
    const rest = (name: string) => invalidArgument(MSG.restSignatureNotFound(name));
    await assert.rejects(
      prediction.predict({ name: 'hp2' }, 'nope', () => ({ inputs: x(1) }), { signatureNotFound: rest }),
      isError(Code.INVALID_ARGUMENT, MSG.restSignatureNotFound('nope')),
    );
  });

  it('a signature the runtime refused → UNIMPLEMENTED naming model, version and reason; fill is not called', async () => {
    const { prediction } = service({ refusals: { serving_default: 'op Foo has no kernel' } });
    await assert.rejects(
      prediction.predict({ name: 'hp2' }, undefined, () => assert.fail('fill called')),
      isError(Code.UNIMPLEMENTED, 'signature "serving_default" of model hp2 version 7 cannot be served: op Foo has no kernel'),
    );
  });

  it("an unknown model → the version source's NOT_FOUND, unchanged", async () => {
    await assert.rejects(
      service().prediction.predict({ name: 'nope' }, undefined, () => ({ inputs: x(1) })),
      isError(Code.NOT_FOUND, MSG.couldNotFindAnyVersions('nope')),
    );
  });

  it('a failing run: its error unchanged, the version let go', async () => {
    const { prediction, versions } = service({
      run: async () => Promise.reject(new ServingError(Code.INTERNAL, 'executor thread failed: x')),
    });
    await assert.rejects(
      prediction.predict({ name: 'hp2' }, undefined, () => ({ inputs: x(1) })),
      isError(Code.INTERNAL, 'executor thread failed: x'),
    );
    assert.equal(versions.held, 0);
  });

  it('the version stays acquired while the run is in progress (an unload waits for it)', async () => {
    let finish!: () => void;
    const { prediction, versions } = service({ run: (s, i, k, o) => new Promise((r) => (finish = () => r(halfPlusTwo(s, i, k, o)))) });
    const call = prediction.predict({ name: 'hp2' }, undefined, () => ({ inputs: x(1) }));
    await new Promise(setImmediate);
    assert.equal(versions.held, 1);
    finish();
    await call;
    assert.equal(versions.held, 0);
  });
});

describe('PredictionService.signatures', () => {
  it("the resolved version's signatures, the version let go", () => {
    const { prediction, versions } = service();
    assert.deepEqual(Object.keys(prediction.signatures({ name: 'hp2' })).sort(), ['regress_x_to_y', 'serving_default']);
    assert.equal(versions.held, 0);
  });
});
