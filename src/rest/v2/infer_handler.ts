// POST /v2/models/{name}[/versions/{v}]/infer: the body read and parsed under the same envelope
// as :predict (request_envelope.ts: admission, --max_request_body_bytes, --json_max_depth /
// --json_max_elements, the in-flight memory budget, the deadline, metrics), a large one on a
// body-parser thread as :predict's is, then run through PredictionService — the batch queues
// and executor threads :predict uses — and answered in the protocol's shape.
import { invalidArgument } from '../../errors/status.js';
import { ownValue } from '../../util/own_property.js';
import { dtypeFromTf } from '../../tensor/dtype.js';
import type { HostTensor } from '../../tensor/host_tensor.js';
import type { SignatureSpec } from '../../savedmodel/signature_spec.js';
import type { PredictionService, PredictResult } from '../../services/prediction_service.js';
import type { InferenceRoute } from '../request_envelope.js';
import type { BodyParserPool } from '../body_parser_pool.js';
import { datatypeOfDtype } from './datatypes.js';
import { HEADER_LENGTH } from './binary_body.js';
import type { InferInput } from './infer_request.js';
import { parseInferBody, type InferBody } from './infer_body.js';
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

/** `bodyParser`: where large bodies are parsed (none: all on the event loop, yielding). */
export function inferRoute(prediction: PredictionService, bodyParser?: BodyParserPool): InferenceRoute<InferBody, PredictResult> {
  return {
    api: 'predict',
    runtimeApi: 'Predict',
    // A large body on a parser thread, the same parse; a small one here, yielding.
    parse: (body, { limits, claim, header }) =>
      bodyParser?.takes(body.byteLength)
        ? bodyParser.parseInfer(body, header(HEADER_LENGTH), limits, claim)
        : parseInferBody(body, header(HEADER_LENGTH), limits, (bytes) => claim.add(bytes)),
    run: async (body, call) => {
      const { request } = body;
      const built = (tensors: Record<string, HostTensor>) => {
        for (const t of Object.values(tensors)) markRequestOwned(t);
        call.inputsBuilt();
        return { inputs: tensors, outputFilter: request.outputs?.map((o) => o.name) };
      };
      // The inputs checked against the signature, then decoded, each one's memory charged before it is taken.
      const fill = (signature: SignatureSpec) => {
        checkInputs(call.spec.name, signature, request.inputs);
        const tensors = body.tensors();
        return tensors instanceof Promise ? tensors.then(built) : built(tensors);
      };
      const signatureNotFound = (name: string) => invalidArgument(`Model '${call.spec.name}' has no signature '${name}'`);
      try {
        return await prediction.predict(call.spec, request.signatureName, fill, {
          deadline: call.deadline,
          signatureNotFound,
          claim: call.claim,
        });
      } finally {
        // Refused before its tensors were asked for (an unknown signature, a wrong input): the parse goes.
        body.drop?.();
      }
    },
    format: async ({ version, outputs }, { request }, { spec }) => {
      const response = await inferResponseBody({ name: spec.name, version }, request.id, outputs, request.outputs, request.binaryOutputs);
      const headers: Record<string, string> =
        response.jsonBytes === undefined
          ? { 'Content-Type': 'application/json' }
          : { 'Content-Type': 'application/octet-stream', 'Inference-Header-Content-Length': String(response.jsonBytes) };
      return { body: response.body, headers };
    },
  };
}
