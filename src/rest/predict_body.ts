// A :predict body read in two steps, as TF Serving's FillPredictRequestFromJson reads it: the
// JSON first (its signature_name says which signature to fill), then the tensors against that
// signature, once PredictionService has resolved the version. The JSON's memory is charged
// from a count of the text before anything is built (json_footprint.ts); each tensor's before
// it is allocated. A large body is parsed on a parser thread (body_parser_pool.ts) by the
// same parsePredictBody, so its answer and errors are the same.
import type { SignatureSpec } from '../savedmodel/signature_spec.js';
import { parseJsonBody, parseJsonBodyYielding, type JsonLimits, type JsonValue } from './json_parse.js';
import { chargeJsonParse } from './json_footprint.js';
import { parsePredictRequest, type ChargeMemory, type ParsedPredictRequest } from './json_tensor.js';
import type { ParserLimits } from './body_parser_protocol.js';
import { readPredictBody } from './predict_body_reader.js';
import { ownValue } from '../util/own_property.js';
import { DEFAULT_SIGNATURE_KEY } from '../services/prediction_service.js';

// The body members :predict reads (json_tensor.cc): nesting elsewhere is only checked as
// JSON, as TF Serving's iterative parser does.
const PREDICT_MEMBERS: ReadonlySet<string> = new Set(['signature_name', 'instances', 'inputs']);

export interface PredictBody {
  /** The body's signature_name when it is a string (a wrong type is refused by tensors()). */
  signatureName?: string;
  /** The tensors for the resolved signature (at once when they are read here); called at most once (the JSON is let go). */
  tensors(signature: SignatureSpec): ParsedPredictRequest | Promise<ParsedPredictRequest>;
  /** Lets go of the parse when tensors() will not be called (the request failed first). */
  drop?(): void;
}

function signatureNameOf(doc: JsonValue | undefined): string | undefined {
  const name =
    doc && typeof doc === 'object' && !Array.isArray(doc) && Object.hasOwn(doc, 'signature_name')
      ? (doc as { signature_name: unknown }).signature_name
      : undefined;
  return typeof name === 'string' ? name : undefined;
}

/**
 * The body's JSON parsed, its tensors built on request (`served`: the signatures the request's
 * version serves now, see PredictionService.servedSignatures): a pure function of the bytes, the
 * limits and `charge` (told of memory before it is taken), so it runs alike on the event loop
 * (`yielding` to other clients) and on a parser thread (in one go).
 */
export function parsePredictBody(
  bytes: Uint8Array,
  limits: ParserLimits,
  charge: ChargeMemory,
  yielding = true,
  served?: Readonly<Record<string, SignatureSpec>>,
): PredictBody | Promise<PredictBody> {
  // Dense lists of plain values are read straight into their tensors, no JSON tree built: in
  // one pass when the body names its signature certainly and `served` has it. Returned as it
  // is, not as a promise: the event loop's caller then needs no turn to take it.
  const lookahead = served && { signature: (name: string | undefined) => ownValue(served, name || DEFAULT_SIGNATURE_KEY), charge };
  const read = readPredictBody(
    bytes,
    { maxDepth: limits.jsonMaxDepth, maxElements: limits.jsonMaxElements, rootMembers: PREDICT_MEMBERS },
    lookahead,
  );
  if (read) return { signatureName: read.signatureName, tensors: (signature) => read.tensors(signature, charge) };
  return parseJsonTree(bytes, limits, charge, yielding);
}

/** parsePredictBody for what the tensor reader leaves: the JSON tree first, its tensors built from it. */
async function parseJsonTree(bytes: Uint8Array, limits: ParserLimits, charge: ChargeMemory, yielding: boolean): Promise<PredictBody> {
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
  charge(text.length);
  const jsonLimits: JsonLimits = {
    maxDepth: limits.jsonMaxDepth,
    maxElements: limits.jsonMaxElements,
    rootMembers: PREDICT_MEMBERS,
    onGrowth: await chargeJsonParse(text, charge),
  };
  // Dropped once its tensors are built: the parsed JSON of a large body is many times its
  // tensors (5 Mi one-value rows: 350 MB for 20 MB of floats), and the GC may take it back
  // before the run and the answer need their memory (its charge stays until the end).
  let doc: JsonValue | undefined = yielding ? await parseJsonBodyYielding(text, jsonLimits) : parseJsonBody(text, jsonLimits);
  return {
    signatureName: signatureNameOf(doc),
    tensors: (signature) => {
      const parsed = parsePredictRequest(doc, signature, charge);
      doc = undefined;
      return parsed;
    },
  };
}
