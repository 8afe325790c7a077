// The production runtime: SavedModels run by libtensorflow through @tensorflow/tfjs-node or
// @tensorflow/tfjs-node-gpu (tf.node.loadSavedModel), in executor threads like the embedded
// runtime. Signatures, dtypes and defaults come from tfgate's own SavedModel reader, so the
// REST and metadata layers see exactly what they see with the embedded runtime.
import { Code, ServingError, errorText, invalidArgument } from '../../errors/status.js';
import { readMetaGraph, type SignatureDefObject } from '../../savedmodel/saved_model_reader.js';
import { signatureSpec } from '../../savedmodel/signature_spec.js';
import type { HostTensor } from '../../tensor/host_tensor.js';
import type { EngineChoice, LoadOptions, Runtime, Servable } from '../runtime.js';
import type { SignatureSpec } from '../../savedmodel/signature_spec.js';
import { fromTfTensor } from '../shared/tensor_convert.js';
import { tfjsDtype, tfjsValues } from '../shared/tfjs_values.js';
import { checkAliases, servableSignature } from '../signature_checks.js';
import { loadSignatures, type OpenedSignatures, type Refusal, type SignatureEngine } from '../signature_loading.js';
import type { NodeSavedModel, NodeTensor, NodeTensorMap, TfjsNodeModule } from './tfjs_node_module.js';
import type * as tf from '@tensorflow/tfjs-core';

/** Only the MetaGraphDef is read here: libtensorflow reads the variables itself (and checks them). */
interface NodeVersion extends OpenedSignatures {
  dir: string;
  tags: string[];
}

/** One signature as libtensorflow loaded it. */
interface NodeSignature {
  spec: SignatureSpec;
  model: NodeSavedModel;
}

export class TfjsNodeRuntime implements Runtime, SignatureEngine<NodeVersion, NodeSignature> {
  readonly servedBy = 'libtensorflow';

  constructor(
    private readonly tfnode: TfjsNodeModule,
    /** 'tfjs-node' or 'tfjs-node-gpu': reported as the servable's backend. */
    readonly name: string,
  ) {}

  load(dir: string, options: LoadOptions): Promise<Servable> {
    return loadSignatures(this, dir, options);
  }

  async open(dir: string, options: LoadOptions): Promise<NodeVersion> {
    return { metaGraph: await readMetaGraph(dir, options.tags), variables: null, dir, tags: options.tags };
  }

  async prepare(version: NodeVersion, key: string): Promise<NodeSignature> {
    const spec = signatureSpec(key, version.metaGraph.signatureDef![key]);
    try {
      // tfjs-node shares one libtensorflow session per (path, tags) between signatures.
      return { spec, model: await this.tfnode.node.loadSavedModel(version.dir, version.tags, key) };
    } catch (e) {
      throw new ServingError(Code.FAILED_PRECONDITION, firstLine(e));
    }
  }

  servable(version: NodeVersion, models: ReadonlyMap<string, NodeSignature>, refused: ReadonlyMap<string, Refusal>): Servable {
    return new TfjsNodeServable(this.tfnode, this.name, models, refused, version.metaGraph.signatureDef ?? {});
  }
}

function firstLine(e: unknown): string {
  return errorText(e).split('\n')[0];
}

class TfjsNodeServable implements Servable {
  readonly signatures: Record<string, SignatureSpec>;
  readonly refusals: Record<string, string>;
  readonly engines: Record<string, EngineChoice>;

  constructor(
    private readonly tfnode: TfjsNodeModule,
    readonly backend: string,
    private readonly models: ReadonlyMap<string, NodeSignature>,
    private readonly refused: ReadonlyMap<string, Refusal>,
    readonly signatureDefs: Record<string, SignatureDefObject>,
  ) {
    this.signatures = Object.fromEntries([
      ...[...models].map(([k, m]) => [k, m.spec] as const),
      ...[...refused].map(([k, r]) => [k, r.spec] as const),
    ]);
    this.refusals = Object.fromEntries([...refused].map(([k, r]) => [k, r.error.message]));
    this.engines = Object.fromEntries([...models.keys()].map((k) => [k, { engine: 'tensorflow' }]));
  }

  async run(key: string, inputs: Record<string, HostTensor>, outputKeys: string[] = []): Promise<Record<string, HostTensor>> {
    const { spec, model } = servableSignature(key, this.models, this.refused);
    const keys = checkAliases(Object.keys(spec.inputs), Object.keys(spec.outputs), inputs, outputKeys);
    const owned: NodeTensor[] = [];
    try {
      // TFSavedModel.predict wants every signature input, by key; SignatureDef defaults fill gaps.
      const feed: NodeTensorMap = {};
      for (const k of Object.keys(spec.inputs)) {
        const value = inputs[k] ?? spec.defaults[k];
        if (!value) throw invalidArgument(`Missing input tensor alias: ${k}`);
        // int64 inputs travel as int32: tfjs-node widens them for DT_INT64 placeholders.
        const t = this.tfnode.tensor(tfjsValues(value, `input '${k}'`), value.shape, tfjsDtype(value.dtype));
        owned.push(t);
        feed[k] = t;
      }
      let result: NodeTensor | NodeTensor[] | NodeTensorMap;
      try {
        result = model.predict(feed);
      } catch (e) {
        // libtensorflow reports bad shapes and values of the request as plain Errors.
        throw new ServingError(Code.INVALID_ARGUMENT, firstLine(e));
      }
      const byKey = outputsByKey(result, Object.keys(spec.outputs));
      owned.push(...Object.values(byKey));
      const out: Record<string, HostTensor> = {};
      for (const k of keys) out[k] = await fromTfTensor(byKey[k] as unknown as tf.Tensor, spec.outputs[k].dtype);
      return out;
    } finally {
      for (const t of owned) t.dispose();
    }
  }

  dispose(): void {
    for (const m of this.models.values()) m.model.dispose();
  }
}

/** predict() answers a map for named inputs, but a lone tensor or list in older releases. */
function outputsByKey(result: NodeTensor | NodeTensor[] | NodeTensorMap, keys: string[]): NodeTensorMap {
  if (Array.isArray(result)) return Object.fromEntries(keys.map((k, i) => [k, result[i]]));
  if (typeof (result as NodeTensor).dispose === 'function' && 'shape' in result) return { [keys[0]]: result as NodeTensor };
  return result as NodeTensorMap;
}
