// A :predict body from its bytes, for the handler (or a worker thread) to call: the tensor
// reader (json_tensor_reader.ts) when it reads the body, else the general parser
// (json_parse.ts + json_tensor.ts), with the same tensors, errors and texts either way.
import { parseJsonBody, type JsonLimits } from './json_parse.js';
import { parsePredictRequest, type ChargeMemory, type ParsedPredictRequest } from './json_tensor.js';
import {
  bindTensorBody,
  boundTensorBytes,
  planTensorBody,
  readFloatBody,
  readTensorBody,
  signatureNameAhead,
  type TensorBodyPlan,
} from './json_tensor_reader.js';
import type { SignatureSpec } from '../savedmodel/signature_spec.js';

/** A :predict body read from its bytes (readPredictBody): its signature name, then its tensors for that signature. */
export interface PredictBody {
  /** "signature_name" as the body gives it; undefined when absent. */
  readonly signatureName: string | undefined;
  /**
   * The body's tensors for `signature`, as parsePredictRequest gives them (the same values,
   * errors and texts); `charge` is told of their memory before it is taken.
   */
  tensors(signature: SignatureSpec, charge?: ChargeMemory): ParsedPredictRequest;
}

/** What readPredictBody may look up before the tensors are read, to read them in one pass. */
export interface PredictBodyLookahead {
  /** The signature a name would select now (undefined: the default), or undefined when there is none. */
  signature(signatureName: string | undefined): SignatureSpec | undefined;
  /** Told of the tensors' memory before it is taken. */
  charge: ChargeMemory;
}

/**
 * A :predict body straight from its bytes by the tensor reader (json_tensor_reader.ts), no JSON
 * tree built; undefined when the reader leaves the body to the general parser (parseJsonBody
 * + parsePredictRequest): anything but dense lists of plain values, and anything wrong, so
 * that a body that is no JSON is refused before anything is looked up, as TF Serving does. A
 * pure function of its arguments: it may run on any thread. `limits.onGrowth` is not used:
 * the tensors' memory is charged through `charge`.
 *
 * When the signature name is certain without reading the tensors (given first, or nowhere)
 * and `lookahead` finds the signature, a body of float inputs is read at once, in one pass,
 * its storage grown as it goes. Otherwise a first pass checks the whole body and counts each
 * tensor, and tensors() allocates them, charged first, and fills them in a second pass.
 * Should that pass meet what the reader does not take (a float literal for an int32 input, an
 * integer out of range, bad base64: all errors), the body is parsed again by the general
 * parser, synchronously, which gives TF Serving's error.
 */
export function readPredictBody(bytes: Uint8Array, limits: JsonLimits, lookahead?: PredictBodyLookahead): PredictBody | undefined {
  const ahead = lookahead && signatureNameAhead(bytes, limits);
  const signature = ahead && lookahead!.signature(ahead.name);
  const read = signature && readFloatBody(bytes, limits, signature, lookahead!.charge);
  if (ahead && read) {
    return {
      signatureName: ahead.name,
      // The version may have changed since the look-up: then its signature is read anew.
      tensors: (s, charge = () => {}) => (s === signature ? read : readPlanned(bytes, planTensorBody(bytes, limits), limits, s, charge)),
    };
  }
  const plan = planTensorBody(bytes, limits);
  if (plan === undefined) return undefined;
  return { signatureName: plan.signatureName, tensors: (s, charge = () => {}) => readPlanned(bytes, plan, limits, s, charge) };
}

/** A planned body's tensors for `signature` (two passes), or the general parser's answer. */
function readPlanned(
  bytes: Uint8Array,
  plan: TensorBodyPlan | undefined,
  limits: JsonLimits,
  signature: SignatureSpec,
  charge: ChargeMemory,
): ParsedPredictRequest {
  const binding = plan && bindTensorBody(plan, signature);
  if (plan !== undefined && binding !== undefined) {
    charge(boundTensorBytes(plan, binding));
    const read = readTensorBody(bytes, limits, plan, binding, signature);
    if (read !== undefined) return read;
  }
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
  charge(text.length);
  return parsePredictRequest(parseJsonBody(text, { ...limits, onGrowth: charge }), signature, charge);
}
