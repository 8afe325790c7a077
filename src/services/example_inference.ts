// TF Serving's Classify and Regress over serialized tf.Example inputs, shared by transports:
// which signature, which input and output keys (classifier.cc / regressor.cc's rules), and the
// results read back from the output tensors.
import { Code, ServingError, invalidArgument } from '../errors/status.js';
import type { HostTensor } from '../tensor/host_tensor.js';
import type { SignatureSpec } from '../savedmodel/signature_spec.js';
import * as MSG from '../errors/messages.js';
import type { PredictionService, PredictOptions } from './prediction_service.js';
import type { ModelSpec, RunStats } from './servable_version.js';
import { hasOwnKey } from '../util/own_property.js';
import type { Classification } from './prediction_log.js';

export const CLASSIFY_METHOD_NAME = 'tensorflow/serving/classify';
export const REGRESS_METHOD_NAME = 'tensorflow/serving/regress';
const INPUTS = 'inputs';

export type ExampleApi = 'classify' | 'regress';

/** classifier.cc / regressor.cc: Classify and Regress name a missing signature alike. */
const exampleSignatureNotFound = (name: string) => invalidArgument(MSG.exampleSignatureNotFound(name));

export type { Classification };

export interface ExampleResult {
  version: number;
  results: Classification[] | number[];
  /** Where the run's time went (runtime_latency). */
  stats: RunStats;
}

function checkSignature(api: ExampleApi, name: string, signature: SignatureSpec, checkMethodName: boolean): { outputs: string[] } {
  const method = api === 'classify' ? CLASSIFY_METHOD_NAME : REGRESS_METHOD_NAME;
  // TF2 exports label every signature "predict"; TF Serving checks the method name only on request.
  if (checkMethodName && signature.methodName !== method) {
    throw invalidArgument(
      `Expected ${api === 'classify' ? 'classification' : 'regression'} signature method_name to be ${method}. Was: ${signature.methodName}`,
    );
  }
  const inputs = Object.keys(signature.inputs);
  if (inputs.length !== 1) throw invalidArgument(`Expected one input Tensor.`);
  if (!hasOwnKey(signature.inputs, INPUTS))
    throw invalidArgument(`No ${api === 'classify' ? 'classification' : 'regression'} inputs found in SignatureDef: ${name}`);
  if (api === 'classify') {
    const outputs = ['classes', 'scores'].filter((k) => k in signature.outputs);
    if (!outputs.length)
      throw invalidArgument(
        `Expected classification signature outputs to contain at least one of classes or scores. Signature was: ${name}`,
      );
    return { outputs };
  }
  if (!('outputs' in signature.outputs)) throw invalidArgument(`No regression outputs found in SignatureDef: ${name}`);
  return { outputs: ['outputs'] };
}

/** Rows of a [batch] or [batch, k] tensor. */
function rowsOf(t: HostTensor, batch: number, what: string): { width: number } {
  if (t.shape[0] !== batch || t.shape.length > 2) {
    throw new ServingError(
      Code.INVALID_ARGUMENT,
      `Expected ${what} Tensor of shape [${batch}] or [${batch}, k]; got [${t.shape.join(',')}]`,
    );
  }
  return { width: t.shape.length === 2 ? t.shape[1] : 1 };
}

function label(v: unknown): string {
  return typeof v === 'string' ? v : new TextDecoder().decode(v as Uint8Array);
}

/**
 * Runs a classify or regress signature over serialized tf.Examples. `examples` is called once
 * the version and signature have passed their checks, so a request that is wrong on both
 * counts gets the model's error first, as TF Serving answers it.
 */
export async function runExamples(
  prediction: PredictionService,
  api: ExampleApi,
  spec: ModelSpec,
  signatureName: string | undefined,
  examples: () => Uint8Array[],
  options: PredictOptions & { checkMethodName?: boolean } = {},
): Promise<ExampleResult> {
  let outputKeys: string[] = [];
  let serialized: Uint8Array[] = [];
  // MultiInference logs its tasks in one record of its own.
  const logged = options.loggedByCaller ? undefined : prediction.requestLog?.sample(spec.name);
  const result = await prediction.predict(
    spec,
    signatureName,
    (signature) => {
      outputKeys = checkSignature(api, signatureName ?? 'serving_default', signature, options.checkMethodName ?? false).outputs;
      serialized = examples();
      return { inputs: { [INPUTS]: { dtype: 'string', shape: [serialized.length], values: serialized } }, outputFilter: outputKeys };
    },
    { signatureNotFound: exampleSignatureNotFound, ...options, loggedByCaller: true },
  );
  const answer = { version: result.version, results: resultsOf(api, result.outputs, serialized.length), stats: result.stats };
  logged?.log({
    kind: api,
    spec,
    signatureName,
    examples: serialized,
    run: { version: answer.version, signatureName: result.signatureName, results: answer.results },
  });
  return answer;
}

/** The classify / regress results read from the signature's outputs, as classifier.cc / regressor.cc read them. */
function resultsOf(api: ExampleApi, outputs: Record<string, HostTensor>, batch: number): Classification[] | number[] {
  if (api === 'regress') {
    const out = outputs.outputs;
    const { width } = rowsOf(out, batch, 'output');
    if (width !== 1)
      throw invalidArgument(`Expected output Tensor shape to be either [batch_size] or [batch_size, 1] but got [${out.shape.join(',')}]`);
    return Array.from(out.values as ArrayLike<number>, Number);
  }
  const scores = outputs.scores;
  const classes = outputs.classes;
  const width = scores ? rowsOf(scores, batch, 'scores').width : rowsOf(classes, batch, 'classes').width;
  if (scores && classes && rowsOf(classes, batch, 'classes').width !== width)
    throw invalidArgument('Tensors class and score should match in shape.');
  const results: Classification[] = [];
  for (let b = 0; b < batch; b++) {
    const row: Classification = [];
    for (let k = 0; k < width; k++) {
      const i = b * width + k;
      row.push([
        classes ? label((classes.values as ArrayLike<unknown>)[i]) : '',
        scores ? Number((scores.values as ArrayLike<number>)[i]) : 0,
      ]);
    }
    results.push(row);
  }
  return results;
}
