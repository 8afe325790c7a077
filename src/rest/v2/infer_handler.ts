// POST /v2/models/{name}[/versions/{v}]/infer: the body read and parsed under the same limits
// as :predict (--max_request_body_bytes, --json_max_depth / --json_max_elements, the in-flight
// memory budget), then run through PredictionService — the batch queues and executor threads
// :predict uses — and answered in the protocol's shape.
import type { Context } from 'hono';
import { Code, ServingError, invalidArgument, toStatusData } from '../../errors/status.js';
import { ownValue } from '../../util/own_property.js';
import { UNLIMITED_BUDGET } from '../../services/memory_budget.js';
import { dtypeFromTf } from '../../tensor/dtype.js';
import type { HostTensor } from '../../tensor/host_tensor.js';
import type { SignatureSpec } from '../../savedmodel/signature_spec.js';
import type { ModelSpec } from '../../services/servable_version.js';
import { readRequestBodyBytes } from '../request_body.js';
import { parseJsonBodyYielding, type JsonValue } from '../json_parse.js';
import { chargeJsonParse } from '../json_footprint.js';
import { datatypeOfDtype } from './datatypes.js';
import { HEADER_LENGTH, splitInferenceBody } from './binary_body.js';
import { decodeInferInput, INFER_REQUEST_MEMBERS, parseInferRequest, type InferInput } from './infer_request.js';
import { inferResponseBody } from './infer_response.js';
import { markRequestOwned } from '../../tensor/request_owned.js';
import type { V2Deps } from './v2_deps.js';
import { withTimeout } from '../request_timeout.js';

/**
 * Each input named and typed as the signature wants, in the protocol's words, from what the
 * request declares (before its data is decoded); a missing input is left to
 * PredictionService's checks (TF Serving's message, which lists them).
 */
function checkInputs(model: string, signature: SignatureSpec, inputs: Record<string, InferInput>): void {
  for (const [name, tensor] of Object.entries(inputs)) {
    const spec = ownValue(signature.inputs, name);
    if (!spec) throw invalidArgument(`Unexpected inference input '${name}' for model '${model}'; its inputs are: ${Object.keys(signature.inputs).sort().join(', ')}`);
    const wanted = dtypeFromTf(spec.feedDtype ?? spec.dtype);
    if (wanted && wanted !== tensor.dtype) {
      throw invalidArgument(`Input '${name}' has datatype ${datatypeOfDtype(tensor.dtype)}; model '${model}' expects ${datatypeOfDtype(wanted)}`);
    }
  }
}

export async function handleInfer(c: Context, spec: ModelSpec, deps: V2Deps): Promise<Response> {
  const started = performance.now();
  const record = deps.metrics.requestRecorder(spec.name, 'predict', 'REST', started);
  // The request's share of --max_inflight_request_bytes, given back once it is answered.
  const claim = (deps.budget ?? UNLIMITED_BUDGET).claim();
  try {
    const body = await readRequestBodyBytes(c, deps.limits.maxBodyBytes, claim);
    const { json, binary } = splitInferenceBody(body, c.req.header(HEADER_LENGTH));
    claim.add(json.length);
    // The parse's memory, counted from the text and charged before anything is built.
    let parsed: JsonValue | undefined = await parseJsonBodyYielding(json, {
      maxDepth: deps.limits.jsonMaxDepth,
      maxElements: deps.limits.jsonMaxElements,
      rootMembers: INFER_REQUEST_MEMBERS,
      onGrowth: await chargeJsonParse(json, (bytes) => claim.add(bytes)),
    });
    const request = parseInferRequest(parsed, binary, deps.limits.jsonMaxElements);
    parsed = undefined;
    const result = await withTimeout(
      deps.prediction.predict(
        spec,
        request.signatureName,
        (signature) => {
          checkInputs(spec.name, signature, request.inputs);
          // Decoded only now, each tensor's memory charged before it is taken.
          const inputs: Record<string, HostTensor> = {};
          for (const [name, input] of Object.entries(request.inputs)) {
            Object.defineProperty(inputs, name, { value: markRequestOwned(decodeInferInput(input, (bytes) => claim.add(bytes))), enumerable: true, writable: true, configurable: true });
            // The JSON it came from may go now (its charge stays until the answer).
            input.data = undefined;
          }
          return { inputs, outputFilter: request.outputs?.map((o) => o.name) };
        },
        {
          deadline: deps.timeoutMs > 0 ? started + deps.timeoutMs : undefined,
          signatureNotFound: (name) => invalidArgument(`Model '${spec.name}' has no signature '${name}'`),
          claim,
        },
      ),
      deps.timeoutMs,
    );
    const response = await inferResponseBody({ name: spec.name, version: result.version }, request.id, result.outputs, request.outputs, request.binaryOutputs);
    deps.metrics.recordRuntimeLatency(spec.name, 'Predict', result.stats.inferMs);
    record('OK');
    const headers: Record<string, string> =
      response.jsonBytes === undefined
        ? { 'Content-Type': 'application/json' }
        : { 'Content-Type': 'application/octet-stream', 'Inference-Header-Content-Length': String(response.jsonBytes) };
    return c.body(response.body, 200, headers);
  } catch (e) {
    record(Code[toStatusData(e).code]);
    throw e;
  } finally {
    claim.release();
  }
}
