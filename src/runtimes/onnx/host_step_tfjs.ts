// A parsing step that holds ops besides the parsing nodes (host_step.ts), run on
// tfjs-converter's graph executor in this thread's TF.js backend (int64 narrowed to int32).
// Imported only by such a step: a thread whose steps run on HostTensors never loads TF.js.
import tf from '../tfjs_packages/tfjs_core.cjs';
import tfjsConverter from '../tfjs_packages/tfjs_converter.cjs';
import type { GraphModel } from '@tensorflow/tfjs-converter';
import type { NodeDef } from '../../savedmodel/graph/types.js';
import { dtypeToTf } from '../../tensor/dtype.js';
import type { HostTensor } from '../../tensor/host_tensor.js';
import { toModelArtifacts } from '../shared/tfjs_artifacts.js';
import { fromTfTensor, toTfTensor } from '../shared/tensor_convert.js';
import { registerTfjsOps } from '../shared/tfjs_op_table.js';
import { EXAMPLE_OPS } from '../shared/parse_example/index.js';
import { initBackend } from '../shared/tfjs_backend.js';
import type { FeedSpec } from './tf_to_onnx.js';

export class TfjsHostStep {
  private model?: GraphModel<tf.io.IOHandlerSync>;

  constructor(
    private readonly nodes: NodeDef[],
    private readonly outputs: Map<string, FeedSpec & { tensor: string }>,
    private readonly placeholders: ReadonlySet<string>,
  ) {}

  async run(feeds: ReadonlyMap<string, HostTensor>): Promise<Map<string, HostTensor>> {
    registerTfjsOps(EXAMPLE_OPS);
    this.model ??= tfjsConverter.loadGraphModelSync(
      toModelArtifacts({
        signature: { key: '', methodName: '', inputs: {}, outputs: {}, defaults: {} },
        nodes: this.nodes,
        inputs: {},
        outputs: {},
      }),
    );
    const feed: Record<string, tf.Tensor> = {};
    const owned: tf.Tensor[] = [];
    try {
      for (const [name, value] of feeds) {
        if (!this.placeholders.has(name)) continue;
        const t = toTfTensor(value, `input ${name}`);
        owned.push(t);
        feed[name] = t;
      }
      const names = [...this.outputs.values()].map((o) => o.tensor);
      const results = this.model.execute(feed, names);
      const list = Array.isArray(results) ? results : [results];
      owned.push(...list);
      const out = new Map<string, HostTensor>();
      let i = 0;
      for (const [placeholder, spec] of this.outputs) out.set(placeholder, await fromTfTensor(list[i++], dtypeToTf(spec.dtype)));
      return out;
    } finally {
      tf.dispose(owned);
    }
  }

  dispose(): void {
    this.model?.dispose();
  }
}

/** The step on this thread's TF.js backend, chosen now if it is not yet. */
export async function startTfjsHostStep(
  nodes: NodeDef[],
  outputs: Map<string, FeedSpec & { tensor: string }>,
  placeholders: ReadonlySet<string>,
): Promise<TfjsHostStep> {
  await initBackend('auto');
  return new TfjsHostStep(nodes, outputs, placeholders);
}
