// POST /v2/models/{name}[/versions/{v}]/infer: the body read and parsed under the same envelope
// as :predict (request_envelope.ts: admission, --max_request_body_bytes, --json_max_depth /
// --json_max_elements, the in-flight memory budget, the deadline, metrics), then run through
// PredictionService — the batch queues and executor threads :predict uses — and answered in
// the protocol's shape.
import { invalidArgument } from '../../errors/status.js';
import { ownValue } from '../../util/own_property.js';
import { dtypeFromTf } from '../../tensor/dtype.js';
import type { HostTensor } from '../../tensor/host_tensor.js';
import type { SignatureSpec } from '../../savedmodel/signature_spec.js';
import type { PredictionService, PredictResult } from '../../services/prediction_service.js';
import type { InferenceRoute } from '../request_envelope.js';
import { parseJsonBodyYielding } from '../json_parse.js';
import { chargeJsonParse } from '../json_footprint.js';
import { datatypeOfDtype } from './datatypes.js';
import { HEADER_LENGTH, splitInferenceBody } from './binary_body.js';
import { decodeInferInput, INFER_REQUEST_MEMBERS, parseInferRequest, type InferInput, type InferRequest } from './infer_request.js';
import { inferResponseBody } from './infer_response.js';
import { markRequestOwned } from '../../tensor/request_owned.js';

/**
 * Each input named and typed as the signature wants, in the protocol's words, from what the
 * request declares (before its data is decoded); a missing input is left to
 * PredictionService's checks (TF Serving's message, which lists them).
 */
function checkInputs(model: string, signature: SignatureSpec, inputs: Record<string, InferInput>): void {
  for (const [name, tensor] of Object.entries(inputs)) {
    const spec = ownValue(signature.inputs, name);
    if (!spec)
      throw invalidArgument(
        `Unexpected inference input '${name}' for model '${model}'; its inputs are: ${Object.keys(signature.inputs).sort().join(', ')}`,
      );
    const wanted = dtypeFromTf(spec.feedDtype ?? spec.dtype);
    if (wanted && wanted !== tensor.dtype) {
      throw invalidArgument(
        `Input '${name}' has datatype ${datatypeOfDtype(tensor.dtype)}; model '${model}' expects ${datatypeOfDtype(wanted)}`,
      );
    }
  }
}

export function inferRoute(prediction: PredictionService): InferenceRoute<InferRequest, PredictResult> {
  return {
    api: 'predict',
    runtimeApi: 'Predict',
    parse: async (body, { limits, claim, header }) => {
      const { json, binary } = splitInferenceBody(body, header(HEADER_LENGTH));
      claim.add(json.length);
      // The parse's memory, counted from the text and charged before anything is built.
      const onGrowth = await chargeJsonParse(json, (bytes) => claim.add(bytes));
      const parsed = await parseJsonBodyYielding(json, {
        maxDepth: limits.jsonMaxDepth,
        maxElements: limits.jsonMaxElements,
        rootMembers: INFER_REQUEST_MEMBERS,
        onGrowth,
      });
      return parseInferRequest(parsed, binary, limits.jsonMaxElements);
    },
    run: async (request, call) => {
      const fill = (signature: SignatureSpec) => {
        const inputs = decodeInputs(call.spec.name, signature, request, (bytes) => call.claim.add(bytes));
        call.inputsBuilt();
        return { inputs, outputFilter: request.outputs?.map((o) => o.name) };
      };
      const signatureNotFound = (name: string) => invalidArgument(`Model '${call.spec.name}' has no signature '${name}'`);
      return prediction.predict(call.spec, request.signatureName, fill, { deadline: call.deadline, signatureNotFound, claim: call.claim });
    },
    format: async ({ version, outputs }, request, { spec }) => {
      const response = await inferResponseBody({ name: spec.name, version }, request.id, outputs, request.outputs, request.binaryOutputs);
      const headers: Record<string, string> =
        response.jsonBytes === undefined
          ? { 'Content-Type': 'application/json' }
          : { 'Content-Type': 'application/octet-stream', 'Inference-Header-Content-Length': String(response.jsonBytes) };
      return { body: response.body, headers };
    },
  };
}

/** The inputs checked against the signature, then decoded, each one's memory charged before it is taken. */
function decodeInputs(
  model: string,
  signature: SignatureSpec,
  request: InferRequest,
  charge: (bytes: number) => void,
): Record<string, HostTensor> {
  checkInputs(model, signature, request.inputs);
  const inputs: Record<string, HostTensor> = {};
  for (const [name, input] of Object.entries(request.inputs)) {
    Object.defineProperty(inputs, name, {
      value: markRequestOwned(decodeInferInput(input, charge)),
      enumerable: true,
      writable: true,
      configurable: true,
    });
    // The JSON it came from may go now (its charge stays until the answer).
    input.data = undefined;
  }
  return inputs;
}
