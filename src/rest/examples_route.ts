// POST …:classify / …:regress: JSON examples → tf.Example protos → the signature → results
// (TF Serving's json_tensor.cc FillClassificationRequestFromJson / MakeJsonFromClassificationResult).
// The envelope around it: request_envelope.ts.
import { runExamples, type ExampleApi, type ExampleResult } from '../services/example_inference.js';
import type { PredictionService } from '../services/prediction_service.js';
import type { InferenceRoute } from './request_envelope.js';
import { examplesResponseJson, parseExampleRequest, type ExampleRequest } from './json_examples.js';
import { parseJsonBodyYielding } from './json_parse.js';
import { chargeJsonParse } from './json_footprint.js';
import { bodyText } from './request_body.js';

const JSON_HEADERS = { 'Content-Type': 'application/json' };
// The body members the examples APIs read: nesting elsewhere is only checked as JSON.
const EXAMPLES_MEMBERS: ReadonlySet<string> = new Set(['signature_name', 'context', 'examples']);

export function examplesRoute(
  api: ExampleApi,
  prediction: PredictionService,
  checkMethodName: boolean | undefined,
): InferenceRoute<ExampleRequest, ExampleResult> {
  return {
    api,
    runtimeApi: api === 'classify' ? 'Classify' : 'Regress',
    parse: async (body, { limits, claim }) => {
      const text = bodyText(body, claim);
      const onGrowth = await chargeJsonParse(text, (n) => claim.add(n));
      const json = await parseJsonBodyYielding(text, {
        maxDepth: limits.jsonMaxDepth,
        maxElements: limits.jsonMaxElements,
        rootMembers: EXAMPLES_MEMBERS,
        onGrowth,
      });
      return parseExampleRequest(json, (n) => claim.add(n));
    },
    run: (request, call) => {
      call.inputsBuilt();
      return runExamples(prediction, api, call.spec, request.signatureName, () => request.serialized, {
        deadline: call.deadline,
        checkMethodName,
        claim: call.claim,
      });
    },
    format: (result) => ({ body: examplesResponseJson(api, result.results), headers: JSON_HEADERS }),
  };
}
