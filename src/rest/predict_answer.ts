// The :predict answer's JSON: a large one written on a body-parser thread as bytes (the event
// loop then only sends them), a small one here, a row-format one giving the loop back as it goes.
import type { HostTensor } from '../tensor/host_tensor.js';
import type { JsonFormat } from './json_tensor.js';
import { predictResponseJsonYielding } from './json_tensor_writer.js';
import type { BodyParserPool } from './body_parser_pool.js';

/** `bodyParser`: where large answers are written (none: all here). */
export function writeAnswer(
  outputs: Record<string, HostTensor>,
  format: JsonFormat,
  bodyParser?: BodyParserPool,
): Promise<string | Uint8Array> {
  let values = 0;
  for (const t of Object.values(outputs)) values += t.values.length;
  return bodyParser?.writes(values) ? bodyParser.formatPredict(outputs, format) : predictResponseJsonYielding(outputs, format);
}
