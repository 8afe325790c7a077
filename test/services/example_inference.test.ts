// Classify and Regress over fake versions: classifier.cc / regressor.cc's signature rules, the
// results read back from the output tensors, and the model's error before the request's.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { runExamples, CLASSIFY_METHOD_NAME, REGRESS_METHOD_NAME, type ExampleApi } from '../../src/services/example_inference.js';
import { PredictionService } from '../../src/services/prediction_service.js';
import { Code, ServingError } from '../../src/errors/status.js';
import * as MSG from '../../src/errors/messages.js';
import type { SignatureSpec, TensorSpec } from '../../src/savedmodel/signature_spec.js';
import type { HostTensor } from '../../src/tensor/host_tensor.js';
import { FakeVersions, type FakeRun } from '../helpers/fake_versions.js';

const spec = (dtype: string): TensorSpec => ({ name: `${dtype}:0`, dtype, shape: null });
const signature = (key: string, methodName: string, inputs: string[], outputs: string[]): SignatureSpec => ({
  key,
  methodName,
  inputs: Object.fromEntries(inputs.map((k) => [k, spec('DT_STRING')])),
  outputs: Object.fromEntries(outputs.map((k) => [k, spec('DT_FLOAT')])),
  defaults: {},
});
const SIGNATURES = {
  serving_default: signature('serving_default', CLASSIFY_METHOD_NAME, ['inputs'], ['classes', 'scores']),
  regress: signature('regress', REGRESS_METHOD_NAME, ['inputs'], ['outputs']),
  scores_only: signature('scores_only', CLASSIFY_METHOD_NAME, ['inputs'], ['scores']),
  predict_labelled: signature('predict_labelled', 'tensorflow/serving/predict', ['inputs'], ['outputs']),
  two_inputs: signature('two_inputs', REGRESS_METHOD_NAME, ['inputs', 'more'], ['outputs']),
  wrong_input: signature('wrong_input', REGRESS_METHOD_NAME, ['x'], ['outputs']),
  no_outputs: signature('no_outputs', REGRESS_METHOD_NAME, ['inputs'], ['y']),
  no_class_outputs: signature('no_class_outputs', CLASSIFY_METHOD_NAME, ['inputs'], ['y']),
};
const f32 = (shape: number[], ...v: number[]): HostTensor => ({ dtype: 'float32', shape, values: Float32Array.from(v) });
const str = (shape: number[], ...v: string[]): HostTensor => ({
  dtype: 'string',
  shape,
  values: v.map((s) => new TextEncoder().encode(s)),
});

/** Two examples in; the outputs the fake model answers with. */
function run(
  api: ExampleApi,
  signatureName: string | undefined,
  outputs: Record<string, HostTensor>,
  options: { checkMethodName?: boolean } = {},
) {
  const fake: FakeRun = async (_s, _i, keys) => Object.fromEntries(keys.map((k) => [k, outputs[k]]).filter(([, t]) => t));
  const prediction = new PredictionService(new FakeVersions({ m: { signatures: SIGNATURES, run: fake } }));
  return runExamples(prediction, api, { name: 'm' }, signatureName, () => [new Uint8Array(1), new Uint8Array(1)], options);
}
const isInvalid = (message: string) => (e: unknown) =>
  e instanceof ServingError && e.code === Code.INVALID_ARGUMENT && e.message === message;

describe('runExamples: results', () => {
  it('regress: one value per example, from a [batch] or [batch, 1] tensor', async () => {
    assert.deepEqual((await run('regress', 'regress', { outputs: f32([2], 1.5, 2.5) })).results, [1.5, 2.5]);
    assert.deepEqual((await run('regress', 'regress', { outputs: f32([2, 1], 1.5, 2.5) })).results, [1.5, 2.5]);
  });

  it('classify: [label, score] pairs per example', async () => {
    const r = await run('classify', undefined, { classes: str([2, 2], 'a', 'b', 'c', 'd'), scores: f32([2, 2], 0.1, 0.9, 0.8, 0.2) });
    assert.deepEqual(r.results, [
      [
        ['a', Number(Math.fround(0.1))],
        ['b', Number(Math.fround(0.9))],
      ],
      [
        ['c', Number(Math.fround(0.8))],
        ['d', Number(Math.fround(0.2))],
      ],
    ]);
  });

  it('classify without a classes output: labels are ""', async () => {
    assert.deepEqual((await run('classify', 'scores_only', { scores: f32([2, 1], 0.5, 0.25) })).results, [[['', 0.5]], [['', 0.25]]]);
  });

  it('a predict-labelled signature serves unless --enable_signature_method_name_check', async () => {
    assert.deepEqual((await run('regress', 'predict_labelled', { outputs: f32([2], 1, 2) })).results, [1, 2]);
    await assert.rejects(
      run('regress', 'predict_labelled', { outputs: f32([2], 1, 2) }, { checkMethodName: true }),
      isInvalid(`Expected regression signature method_name to be ${REGRESS_METHOD_NAME}. Was: tensorflow/serving/predict`),
    );
  });
});

describe('runExamples: refusals (one line each)', () => {
  const CASES: Array<[what: string, api: ExampleApi, signature: string, outputs: Record<string, HostTensor>, message: string]> = [
    ['unknown signature', 'regress', 'nope', {}, MSG.exampleSignatureNotFound('nope')],
    ['two inputs', 'regress', 'two_inputs', {}, 'Expected one input Tensor.'],
    ['its one input not named "inputs"', 'regress', 'wrong_input', {}, 'No regression inputs found in SignatureDef: wrong_input'],
    ['regress without an "outputs" output', 'regress', 'no_outputs', {}, 'No regression outputs found in SignatureDef: no_outputs'],
    [
      'classify with neither classes nor scores',
      'classify',
      'no_class_outputs',
      {},
      'Expected classification signature outputs to contain at least one of classes or scores. Signature was: no_class_outputs',
    ],
    [
      'regress output two wide',
      'regress',
      'regress',
      { outputs: f32([2, 2], 1, 2, 3, 4) },
      'Expected output Tensor shape to be either [batch_size] or [batch_size, 1] but got [2,2]',
    ],
    [
      'regress output for another batch size',
      'regress',
      'regress',
      { outputs: f32([3], 1, 2, 3) },
      'Expected output Tensor of shape [2] or [2, k]; got [3]',
    ],
    [
      'classes and scores of different widths',
      'classify',
      'serving_default',
      { classes: str([2, 1], 'a', 'b'), scores: f32([2, 2], 1, 2, 3, 4) },
      'Tensors class and score should match in shape.',
    ],
  ];
  for (const [what, api, signature, outputs, message] of CASES) {
    it(`${what} → INVALID_ARGUMENT`, async () => {
      await assert.rejects(run(api, signature, outputs), isInvalid(message));
    });
  }

  it("the examples are not read when the signature is wrong (the model's error comes first)", async () => {
    const prediction = new PredictionService(new FakeVersions({ m: { signatures: SIGNATURES } }));
    await assert.rejects(
      runExamples(prediction, 'regress', { name: 'm' }, 'two_inputs', () => assert.fail('examples read')),
      isInvalid('Expected one input Tensor.'),
    );
  });
});
