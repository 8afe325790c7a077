// A loaded model version executed by tfjs-converter's GraphModel: one GraphModel per
// servable signature (each signature's graph is cut and frozen for its own feeds).
import tf from '../tfjs_packages/tfjs_core.cjs';
import type { GraphModel } from '@tensorflow/tfjs-converter';
import { ServingError, invalidArgument, isJsFault } from '../../errors/status.js';
import type { HostTensor } from '../../tensor/host_tensor.js';
import type { EngineChoice, Servable } from '../runtime.js';
import type { SignatureSpec } from '../../savedmodel/signature_spec.js';
import type { SignatureDefObject } from '../../savedmodel/saved_model_reader.js';
import { fromTfTensor, toTfTensor } from '../shared/tensor_convert.js';
import { checkAliases, servableSignature } from '../signature_checks.js';
import type { CompiledGraph } from './compiled_graph.js';
import { tfjsRunError } from './tfjs_run_errors.js';
import type { LoadRunCheck } from '../../savedmodel/graph/tensor_sizes.js';

export interface SignatureGraph {
  spec: SignatureSpec;
  model: GraphModel<tf.io.IOHandlerSync>;
  /** The same graph as flat TF.js calls, when every op is one CompiledGraph handles; it reads the model's weights. */
  compiled: CompiledGraph | null;
  /** Input key → placeholder node name; null for inputs the outputs do not depend on (accepted, unused). */
  inputs: Record<string, string | null>;
  /** Output key → tensor name in the model ('node:idx'). */
  outputs: Record<string, string>;
  /** Computed nodes (not constants or placeholders), in dependency order: what trace() fetches. */
  nodeNames: string[];
  /** The op of each of nodeNames. */
  nodeOps: string[];
  /** What no second engine can check in it (EngineChoice.singleEngine), when anything. */
  singleEngine?: string;
}

export class TfjsServable implements Servable {
  readonly signatures: Record<string, SignatureSpec>;
  readonly refusals: Record<string, string>;
  readonly engines: Record<string, EngineChoice>;
  private readonly asyncOnly = new Set<string>();

  constructor(
    readonly backend: string,
    private readonly graphs: ReadonlyMap<string, SignatureGraph>,
    /** Signatures that exist in the model but could not be prepared, with the reason. */
    private readonly refused: ReadonlyMap<string, { spec: SignatureSpec; error: ServingError }>,
    readonly signatureDefs: Record<string, SignatureDefObject>,
    /** Releases what the version holds beside its graphs (its decision forests). */
    private readonly releaseResources: () => void = () => {},
    /** The sizes of the runs a load makes, checked against its bound (absent: not checked). */
    private readonly loadRuns?: LoadRunCheck,
  ) {
    this.signatures = Object.fromEntries([
      ...[...graphs].map(([k, g]) => [k, g.spec] as const),
      ...[...refused].map(([k, r]) => [k, r.spec] as const),
    ]);
    this.refusals = Object.fromEntries([...refused].map(([k, r]) => [k, r.error.message]));
    this.engines = Object.fromEntries(
      [...graphs].map(([k, g]) => [k, g.singleEngine ? { engine: backend, singleEngine: g.singleEngine } : { engine: backend }]),
    );
  }

  checkLoadRun(key: string, inputs: Record<string, HostTensor>): void {
    this.loadRuns?.check(key, inputs);
  }

  async run(key: string, inputs: Record<string, HostTensor>, outputKeys: string[] = []): Promise<Record<string, HostTensor>> {
    const graph = servableSignature(key, this.graphs, this.refused);
    const keys = checkAliases(Object.keys(graph.inputs), Object.keys(graph.outputs), inputs, outputKeys);
    // A DT_VARIANT output (TF Text's offsets map) is a value of the graph's own: TF Serving's REST
    // API cannot write it; tfgate returns it on no API.
    const variant = keys.find((k) => graph.spec.outputs[k].dtype === 'DT_VARIANT');
    if (variant)
      throw invalidArgument(
        `Failed to write JSON value for tensor type: variant (output '${variant}': tfgate returns no DT_VARIANT tensor)`,
      );

    const owned = new Set<tf.Tensor>();
    try {
      const feed: Record<string, tf.Tensor> = {};
      for (const [k, placeholder] of Object.entries(graph.inputs)) {
        const value = inputs[k] ?? graph.spec.defaults[k];
        if (!value) throw invalidArgument(`Missing input tensor alias: ${k}`);
        if (placeholder === null) continue;
        const t = toTfTensor(value, `input '${k}'`);
        owned.add(t);
        feed[placeholder] = t;
      }
      const names = [...new Set(keys.map((k) => graph.outputs[k]))];
      const results = await this.execute(key, graph, feed, names);
      results.forEach((t) => owned.add(t));
      const byName = new Map(names.map((n, i) => [n, results[i]]));
      const out: Record<string, HostTensor> = {};
      for (const k of keys) out[k] = await fromTfTensor(byName.get(graph.outputs[k])!, graph.spec.outputs[k].dtype);
      return out;
    } finally {
      for (const t of owned) t.dispose();
    }
  }

  private async execute(key: string, graph: SignatureGraph, feed: Record<string, tf.Tensor>, names: string[]): Promise<tf.Tensor[]> {
    try {
      if (graph.compiled) return graph.compiled.execute(feed, names);
      if (!this.asyncOnly.has(key)) {
        try {
          return asArray(graph.model.execute(feed, names));
        } catch (e) {
          // Graphs with dynamic control flow must run through executeAsync.
          if (!/executeAsync/.test((e as Error).message)) throw e;
          this.asyncOnly.add(key);
        }
      }
      return asArray(await graph.model.executeAsync(feed, names));
    } catch (e) {
      // JS's own errors (a TypeError in a kernel) are not the request's: INTERNAL, never their text.
      if (isJsFault(e)) throw e;
      throw tfjsRunError(e);
    }
  }

  async trace(key: string, inputs: Record<string, HostTensor>): Promise<Array<[string, HostTensor]>> {
    const graph = servableSignature(key, this.graphs, this.refused);
    const feed: Record<string, tf.Tensor> = {};
    const names = graph.nodeNames.map((n) => `${n}:0`);
    try {
      for (const [k, placeholder] of Object.entries(graph.inputs)) {
        const value = inputs[k] ?? graph.spec.defaults[k];
        if (value && placeholder !== null) feed[placeholder] = toTfTensor(value, `input '${k}'`);
      }
      const results = asArray(
        await graph.model.executeAsync(feed, names).catch(async (e: unknown) => {
          throw await this.failingNode(graph, feed, tfjsRunError(e));
        }),
      );
      const out: Array<[string, HostTensor]> = [];
      for (const [i, t] of results.entries()) {
        if (t instanceof tf.Tensor && t.dtype !== 'string')
          out.push([names[i], await fromTfTensor(t, `DT_${t.dtype === 'float32' ? 'FLOAT' : t.dtype.toUpperCase()}`)]);
      }
      tf.dispose(results);
      return out;
    } finally {
      tf.dispose(Object.values(feed));
    }
  }

  /**
   * The run failed with `error`: the same error, naming the first node (in dependency order)
   * that fails — found by running ever shorter prefixes of the graph, a dozen runs at most for
   * a graph of thousands of nodes (only a failing trace pays for it).
   */
  private async failingNode(graph: SignatureGraph, feed: Record<string, tf.Tensor>, error: ServingError): Promise<ServingError> {
    const fails = async (count: number) => {
      try {
        tf.dispose(
          asArray(
            await graph.model.executeAsync(
              feed,
              graph.nodeNames.slice(0, count).map((n) => `${n}:0`),
            ),
          ),
        );
        return false;
      } catch {
        return true;
      }
    };
    // The first prefix that fails ends with the failing node.
    let [lo, hi] = [1, graph.nodeNames.length];
    if (hi === 0 || !(await fails(hi))) return error;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (await fails(mid)) hi = mid;
      else lo = mid + 1;
    }
    return new ServingError(error.code, `${graph.nodeOps[lo - 1]} (node ${graph.nodeNames[lo - 1]}): ${error.message}`);
  }

  /** Which executor runs a signature: tfgate's CompiledGraph or tfjs-converter's GraphModel. */
  executorOf(key: string): 'compiled' | 'graph-model' | undefined {
    const graph = this.graphs.get(key);
    return graph && (graph.compiled ? 'compiled' : 'graph-model');
  }

  dispose(): void {
    for (const g of this.graphs.values()) g.model.dispose();
    this.releaseResources();
  }
}

function asArray(t: tf.Tensor | tf.Tensor[]): tf.Tensor[] {
  return Array.isArray(t) ? t : [t];
}
