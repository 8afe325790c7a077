// The part of `tfgate show --all` that saved_model_cli has not: for each tag set, which engine
// tfgate's default runtime (without libtensorflow) runs each signature on — ONNX Runtime, or
// the WASM runtime and the ops that keep the signature off ONNX — and which it refuses.
import { toStatusData } from '../errors/status.js';
import { createRuntime } from '../runtimes/index.js';
import type { SavedModelObject } from '../savedmodel/saved_model_reader.js';

export async function showEngines(dir: string, sm: SavedModelObject): Promise<string> {
  const runtime = await createRuntime('onnx+embedded');
  const lines: string[] = [];
  for (const mg of sm.metaGraphs ?? []) {
    const tags = mg.metaInfoDef?.tags ?? [];
    lines.push('', `tfgate engines for tag-set '${[...tags].sort().join(', ')}' (--runtime=auto without libtensorflow):`);
    try {
      const servable = await runtime.load(dir, { tags });
      for (const key of Object.keys(servable.signatures).sort()) {
        const choice = servable.engines[key];
        if (choice) lines.push(`  signature_def['${key}']: ${choice.engine}${choice.reason ? ` (${choice.reason})` : ''}`);
        else lines.push(`  signature_def['${key}']: not served (${servable.refusals[key]})`);
      }
      servable.dispose();
    } catch (e) {
      lines.push(`  not served: ${toStatusData(e).message}`);
    }
  }
  return lines.join('\n') + '\n';
}
