// POST …:predict: the body's JSON, the tensors against the resolved signature, the run, the
// answer in the request's format (json_tensor.h). The envelope around it: request_envelope.ts.
import { invalidArgument } from '../errors/status.js';
import * as MSG from '../errors/messages.js';
import type { PredictionService, PredictResult } from '../services/prediction_service.js';
import type { InferenceRoute } from './request_envelope.js';
import type { JsonFormat, ParsedPredictRequest } from './json_tensor.js';
import type { SignatureSpec } from '../savedmodel/signature_spec.js';
import { writeAnswer } from './predict_answer.js';
import { predictResponseJson } from './json_tensor_writer.js';
import type { HostTensor } from '../tensor/host_tensor.js';
import { parsePredictBody, type PredictBody } from './predict_body.js';
import type { BodyParserPool } from './body_parser_pool.js';

const JSON_HEADERS = { 'Content-Type': 'application/json' };
/**
 * Bodies above this are read in two passes: one pass grows each tensor as it reads (charged as
 * it grows: up to about three times the tensor in all, where two passes charge it once), which
 * for a 20 MB body of one-value rows would hold 60 MB more of the budget than it needs.
 */
const ONE_PASS_MAX_BYTES = 4 * 2 ** 20;
/**
 * And bodies below this: their second pass costs no more than the version look-up one pass
 * needs (a 62-byte body: 7.4 µs parsed in two passes, 7.7 in one; 385 bytes: 11.8 against 9.9).
 */
const ONE_PASS_MIN_BYTES = 256;
const signatureNotFound = (name: string) => invalidArgument(MSG.restSignatureNotFound(name));

/**
 * Answers of at most this many values and rows, and not for a parser thread to write
 * (BodyParserPool.writes), are written at once on the event loop: far below what the yielding
 * writer gives the loop back after or writes as bytes (predictResponseJsonYielding), so the
 * text is the one it would write.
 */
const SMALL_ANSWER_VALUES = 1024;

function isSmall(outputs: Record<string, HostTensor>, bodyParser?: BodyParserPool): boolean {
  let values = 0;
  for (const name in outputs) {
    const t = outputs[name];
    values += t.values.length;
    // Rows, not values, decide how the yielding writer writes (a [100000, 0] output has none).
    if (values > SMALL_ANSWER_VALUES || (t.shape.length > 0 && t.shape[0] > SMALL_ANSWER_VALUES)) return false;
  }
  return !bodyParser?.writes(values);
}

/** `bodyParser`: where large bodies are parsed (none: all on the event loop, yielding). */
export function predictRoute(
  prediction: PredictionService,
  bodyParser?: BodyParserPool,
): InferenceRoute<PredictBody, PredictResult & { format: JsonFormat }> {
  return {
    api: 'predict',
    runtimeApi: 'Predict',
    // A large body on a parser thread, the same parse; a small one here, yielding. Either
    // reads the tensors in one pass when the body names its signature certainly and the
    // version serves it (predict() still looks the model up, with TF Serving's errors).
    parse: (body, { spec, limits, claim }) => {
      const onePass = body.byteLength >= ONE_PASS_MIN_BYTES && body.byteLength <= ONE_PASS_MAX_BYTES;
      const served = onePass ? prediction.servedSignatures(spec) : undefined;
      return bodyParser?.takes(body.byteLength)
        ? bodyParser.parsePredict(body, limits, claim, served)
        : parsePredictBody(body, limits, (n) => claim.add(n), true, served);
    },
    run: async (body, call) => {
      let format: JsonFormat = 'row';
      const built = (parsed: ParsedPredictRequest) => {
        format = parsed.format;
        call.inputsBuilt();
        return parsed;
      };
      // Tensors read at once are handed over at once: the service then runs without a turn's wait.
      const fill = (signature: SignatureSpec) => {
        const parsed = body.tensors(signature);
        return parsed instanceof Promise ? parsed.then(built) : built(parsed);
      };
      try {
        const result = await prediction.predict(call.spec, body.signatureName, fill, {
          deadline: call.deadline,
          signatureNotFound,
          claim: call.claim,
        });
        // predict()'s result is this call's own: given its format rather than copied with it.
        return Object.assign(result, { format });
      } finally {
        // Refused before its tensors were asked for (an unknown model or signature): the parse goes.
        body.drop?.();
      }
    },
    format: (result) => {
      // A small answer written at once, as the yielding writer would write it: no promise, no turn.
      if (isSmall(result.outputs, bodyParser)) return { body: predictResponseJson(result.outputs, result.format), headers: JSON_HEADERS };
      return writeAnswer(result.outputs, result.format, bodyParser, !result.logged).then((body) => ({
        body,
        headers: JSON_HEADERS,
        ownsBuffer: typeof body !== 'string',
      }));
    },
  };
}
