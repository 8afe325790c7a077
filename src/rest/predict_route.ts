// POST …:predict: the body's JSON, the tensors against the resolved signature, the run, the
// answer in the request's format (json_tensor.h). The envelope around it: request_envelope.ts.
import { invalidArgument } from '../errors/status.js';
import * as MSG from '../errors/messages.js';
import type { PredictionService, PredictResult } from '../services/prediction_service.js';
import type { InferenceRoute } from './request_envelope.js';
import type { JsonFormat } from './json_tensor.js';
import { predictResponseJsonYielding } from './json_tensor_writer.js';
import { parsePredictBody, type PredictBody } from './predict_body.js';
import type { BodyParserPool } from './body_parser_pool.js';

const JSON_HEADERS = { 'Content-Type': 'application/json' };

/** `bodyParser`: where large bodies are parsed (none: all on the event loop, yielding). */
export function predictRoute(
  prediction: PredictionService,
  bodyParser?: BodyParserPool,
): InferenceRoute<PredictBody, PredictResult & { format: JsonFormat }> {
  return {
    api: 'predict',
    runtimeApi: 'Predict',
    // A large body on a parser thread, the same parse; a small one here, yielding.
    parse: (body, { limits, claim }) =>
      bodyParser?.takes(body.byteLength)
        ? bodyParser.parsePredict(body, limits, claim)
        : parsePredictBody(body, limits, (n) => claim.add(n)),
    run: async (body, call) => {
      let format: JsonFormat = 'row';
      const fill = async (signature: Parameters<PredictBody['tensors']>[0]) => {
        const parsed = await body.tensors(signature);
        format = parsed.format;
        call.inputsBuilt();
        return parsed;
      };
      const signatureNotFound = (name: string) => invalidArgument(MSG.restSignatureNotFound(name));
      try {
        const result = await prediction.predict(call.spec, body.signatureName, fill, {
          deadline: call.deadline,
          signatureNotFound,
          claim: call.claim,
        });
        return { ...result, format };
      } finally {
        // Refused before its tensors were asked for (an unknown model or signature): the parse goes.
        body.drop?.();
      }
    },
    format: async (result) => ({ body: await predictResponseJsonYielding(result.outputs, result.format), headers: JSON_HEADERS }),
  };
}
