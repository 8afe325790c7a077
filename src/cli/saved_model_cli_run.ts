// `tfgate run`: loads a SavedModel in-process (ONNX Runtime with the WASM runtime behind it,
// or the runtime named by --runtime), feeds
// --input_exprs ('x=[1,2];y=3', JSON values, converted as REST's columnar `inputs` are) and
// prints {"<output key>": <value>} as one JSON object.
import { createRuntime } from '../runtimes/index.js';
import { parsePredictRequest } from '../rest/json_tensor.js';
import { tensorJson } from '../rest/json_tensor_writer.js';
import { parseJsonBody } from '../rest/json_parse.js';
import { UsageError } from './cli_args.js';

export interface RunOptions {
  dir: string;
  signature: string;
  tags: string[];
  inputExprs: string;
  runtime: 'onnx+embedded' | 'onnx' | 'embedded' | 'wasm' | 'cpu';
}

function parseInputExprs(exprs: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const part of exprs
    .split(';')
    .map((p) => p.trim())
    .filter(Boolean)) {
    const eq = part.indexOf('=');
    if (eq <= 0) throw new UsageError(`--input_exprs entry '${part}' is not <input key>=<value>`);
    const key = part.slice(0, eq).trim();
    try {
      out[key] = parseJsonBody(part.slice(eq + 1), { maxDepth: 64, maxElements: 1 << 24 });
    } catch (e) {
      throw new UsageError(`--input_exprs value for '${key}' is not a JSON value: ${(e as Error).message}`);
    }
  }
  return out;
}

export async function runSavedModel(o: RunOptions): Promise<string> {
  const servable = await (await createRuntime(o.runtime)).load(o.dir, { tags: o.tags });
  try {
    const spec = servable.signatures[o.signature];
    if (!spec)
      throw new UsageError(`signature '${o.signature}' not found; the SavedModel has: ${Object.keys(servable.signatures).join(', ')}`);
    const given = parseInputExprs(o.inputExprs);
    const { inputs } = parsePredictRequest(
      { inputs: given },
      { ...spec, inputs: Object.fromEntries(Object.entries(spec.inputs).filter(([k]) => k in given)) },
    );
    const outputs = await servable.run(o.signature, inputs);
    return `{${Object.keys(outputs)
      .sort()
      .map((k) => `${JSON.stringify(k)}: ${tensorJson(k, outputs[k])}`)
      .join(', ')}}\n`;
  } finally {
    servable.dispose();
  }
}
