// The inference response object ("Inference Response JSON Object", inference_rest.md):
//
//   {"model_name": "hp2", "model_version": "123", "id": "42",
//    "outputs": [{"name": "y", "datatype": "FP32", "shape": [3, 1], "data": [2.5, 3, 4.5]}]}
//
// `data` is always flat and row-major. An output asked for as binary data has
// `"parameters": {"binary_data_size": n}` instead of `data`; its bytes follow the JSON in the
// body, in the order of the outputs, and the Inference-Header-Content-Length header gives the
// JSON's length (the binary tensor data extension).
import { internal } from '../../errors/status.js';
import { ownValue } from '../../util/own_property.js';
import type { HostTensor } from '../../tensor/host_tensor.js';
import { datatypeOfDtype } from './datatypes.js';
import type { RequestedOutput } from './infer_request.js';
import { jsonDataText, tensorToBytes } from './tensor_data.js';

export interface InferResponseBody {
  /** The JSON object alone, or followed by binary tensor data. */
  body: Uint8Array<ArrayBuffer>;
  /** Set when binary data follows the JSON: its length in bytes (Inference-Header-Content-Length). */
  jsonBytes?: number;
}

/**
 * The outputs in the order the request listed them, or by name when it listed none, each
 * marked binary or not.
 */
function orderedOutputs(
  outputs: Record<string, HostTensor>,
  requested: RequestedOutput[] | undefined,
  binaryDefault: boolean,
): RequestedOutput[] {
  if (requested && requested.length > 0) return requested;
  return Object.keys(outputs)
    .sort()
    .map((name) => ({ name, binary: binaryDefault }));
}

export async function inferResponseBody(
  model: { name: string; version: number },
  id: string | undefined,
  outputs: Record<string, HostTensor>,
  requested: RequestedOutput[] | undefined,
  binaryDefault: boolean,
): Promise<InferResponseBody> {
  const binaries: Uint8Array[] = [];
  const entries: string[] = [];
  for (const { name, binary } of orderedOutputs(outputs, requested, binaryDefault)) {
    const t = ownValue(outputs, name);
    if (!t) throw internal(`The model returned no output '${name}'`);
    const head = `{"name":${JSON.stringify(name)},"datatype":"${datatypeOfDtype(t.dtype)}","shape":[${t.shape.join(',')}]`;
    if (!binary) {
      entries.push(`${head},"data":${await jsonDataText(t)}}`);
      continue;
    }
    const bytes = tensorToBytes(t);
    binaries.push(bytes);
    entries.push(`${head},"parameters":{"binary_data_size":${bytes.byteLength}}}`);
  }
  const json =
    `{"model_name":${JSON.stringify(model.name)},"model_version":"${model.version}"` +
    (id !== undefined ? `,"id":${JSON.stringify(id)}` : '') +
    `,"outputs":[${entries.join(',')}]}`;
  const head = Buffer.from(json, 'utf8');
  if (binaries.length === 0) return { body: head };
  return { body: Buffer.concat([head, ...binaries]), jsonBytes: head.byteLength };
}
