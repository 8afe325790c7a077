// An inference request body read in two steps, as :predict's is (predict_body.ts): the request
// object first (parse: its inputs declared, their data read or checked), then, once the inputs
// have been checked against the version's signature, their tensors (tensors()). The JSON is
// read by the tensor reader where it can (infer_body_reader.ts), else by the general parser
// (json_parse.ts), its memory charged from a count of the text before anything is built; each
// tensor's memory is charged before it is allocated. A pure function of the bytes, the limits
// and `charge`, so it runs alike on the event loop (yielding to other clients) and on a parser
// thread (body_parser_pool.ts), with the same request, tensors and errors.
import type { HostTensor } from '../../tensor/host_tensor.js';
import { parseJsonBody, parseJsonBodyYielding, type JsonLimits } from '../json_parse.js';
import { chargeJsonParse } from '../json_footprint.js';
import type { ParserLimits } from '../body_parser_protocol.js';
import { splitInferenceBody } from './binary_body.js';
import { readInferBody } from './infer_body_reader.js';
import { decodeInferInput, INFER_REQUEST_MEMBERS, parseInferRequest, type InferRequest } from './infer_request.js';
import type { ChargeMemory } from './tensor_data.js';

export interface InferBody {
  /** The request, its inputs declared (their data not all decoded yet). */
  request: InferRequest;
  /**
   * Each input's tensor, by name in the request's order, charged as it is built: called at
   * most once, after the inputs have been checked against the signature (the data is let go).
   */
  tensors(): Record<string, HostTensor> | Promise<Record<string, HostTensor>>;
  /** Lets go of the body when tensors() will not be called (the request failed first). */
  drop?(): void;
}

/**
 * The body (`headerLength`: Inference-Header-Content-Length, when sent) read into a request;
 * `yielding`: the general parser gives the event loop back as it goes.
 */
export async function parseInferBody(
  body: Uint8Array,
  headerLength: string | undefined,
  limits: ParserLimits,
  charge: ChargeMemory,
  yielding = true,
): Promise<InferBody> {
  const { json, binary } = splitInferenceBody(body, headerLength);
  const readerLimits = { maxDepth: limits.jsonMaxDepth, maxElements: limits.jsonMaxElements };
  let doc = readInferBody(json, readerLimits, charge);
  if (doc === undefined) {
    const text = Buffer.from(json.buffer, json.byteOffset, json.byteLength).toString('utf8');
    charge(text.length);
    // The parse's memory, counted from the text and charged before anything is built.
    const jsonLimits: JsonLimits = { ...readerLimits, rootMembers: INFER_REQUEST_MEMBERS, onGrowth: await chargeJsonParse(text, charge) };
    doc = yielding ? await parseJsonBodyYielding(text, jsonLimits) : parseJsonBody(text, jsonLimits);
  }
  const request = parseInferRequest(doc, binary, limits.jsonMaxElements);
  return {
    request,
    tensors: () => {
      const tensors: Record<string, HostTensor> = {};
      for (const [name, input] of Object.entries(request.inputs)) {
        Object.defineProperty(tensors, name, {
          value: decodeInferInput(input, charge),
          enumerable: true,
          writable: true,
          configurable: true,
        });
        // The JSON it came from may go now (its charge stays until the answer).
        input.data = undefined;
        input.read = undefined;
      }
      return tensors;
    },
  };
}

/** The request as a parser thread sends it back: its inputs declared (name, dtype, shape), their data kept there. */
export function inferRequestHead(request: InferRequest): InferRequest {
  const inputs: InferRequest['inputs'] = {};
  for (const [name, { dtype, shape }] of Object.entries(request.inputs))
    Object.defineProperty(inputs, name, { value: { name, dtype, shape }, enumerable: true, writable: true, configurable: true });
  return { ...request, inputs };
}
