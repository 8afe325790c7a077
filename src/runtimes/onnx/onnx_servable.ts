// A loaded model version whose signatures run on ONNX Runtime sessions, one per signature.
import { invalidArgument } from '../../errors/status.js';
import type { SignatureDefObject } from '../../savedmodel/saved_model_reader.js';
import type { HostTensor } from '../../tensor/host_tensor.js';
import type { EngineChoice, Servable } from '../runtime.js';
import type { SignatureSpec } from '../../savedmodel/signature_spec.js';
import { checkAliases, servableSignature } from '../signature_checks.js';
import type { ShapeSpecializedSessions } from './shape_specialized_sessions.js';
import type { HostStep } from './host_step.js';
import type { RunCost } from '../run_cost.js';
import type { LoadRunCheck, SizeGraph } from '../../savedmodel/graph/tensor_sizes.js';
import type { Refusal } from '../signature_loading.js';

const ONNX_ENGINE = 'onnxruntime';

export interface OnnxSignature {
  spec: SignatureSpec;
  sessions: ShapeSpecializedSessions;
  /** Input key → placeholder fed with it; null for inputs the outputs do not need (accepted, unused). */
  inputs: Record<string, string | null>;
  /** Output key → TF tensor of the prepared graph. */
  outputs: Record<string, string>;
  /** What a run holds, estimated from the declared shapes. */
  runCost: RunCost;
  /** tf.Example parsing in front of the ONNX graph, when the signature parses examples. */
  step: HostStep | null;
  /** Every computed node's first output for these feeds (placeholder → value), in dependency order. */
  trace(feeds: ReadonlyMap<string, HostTensor>): Promise<Array<[string, HostTensor]>>;
  /** The prepared graph as tensor sizes need it (load runs' check). */
  sizes: SizeGraph;
}

function indexer(names: readonly string[]): (name: string) => number {
  const index = new Map(names.map((n, i) => [n, i]));
  return (name) => index.get(name)!;
}

interface RunPlan {
  inputKeys: string[];
  outputKeys: string[];
  /** Input key → placeholder (OnnxSignature.inputs). */
  feeds: Array<[string, string | null]>;
  /** The graph's tensors every output key names, each once: what a run without an output filter fetches. */
  allTensors: string[];
}

export class OnnxServable implements Servable {
  readonly backend = ONNX_ENGINE;
  readonly signatures: Record<string, SignatureSpec>;
  readonly refusals: Record<string, string>;
  readonly engines: Record<string, EngineChoice>;
  readonly runCosts: Record<string, RunCost>;
  /** What every run of a signature reads the same way, listed once. */
  private readonly plans = new Map<OnnxSignature, RunPlan>();

  constructor(
    private readonly graphs: ReadonlyMap<string, OnnxSignature>,
    /** Signatures that exist in the model but are not served here, with the reason. */
    private readonly refused: ReadonlyMap<string, Refusal>,
    readonly signatureDefs: Record<string, SignatureDefObject>,
    /** The sizes of the runs a load makes, checked against its bound (absent: not checked). */
    private readonly loadRuns?: LoadRunCheck,
  ) {
    this.signatures = Object.fromEntries([
      ...[...graphs].map(([k, g]) => [k, g.spec] as const),
      ...[...refused].map(([k, r]) => [k, r.spec] as const),
    ]);
    this.refusals = Object.fromEntries([...refused].map(([k, r]) => [k, r.error.message]));
    this.engines = Object.fromEntries([...graphs.keys()].map((k) => [k, { engine: ONNX_ENGINE }]));
    this.runCosts = Object.fromEntries([...graphs].map(([k, g]) => [k, g.runCost]));
    for (const g of graphs.values()) {
      const outputKeys = Object.keys(g.outputs);
      this.plans.set(g, {
        inputKeys: Object.keys(g.inputs),
        outputKeys,
        feeds: Object.entries(g.inputs),
        allTensors: [...new Set(outputKeys.map((k) => g.outputs[k]))],
      });
    }
  }

  checkLoadRun(key: string, inputs: Record<string, HostTensor>): void {
    this.loadRuns?.check(key, inputs);
  }

  async run(key: string, inputs: Record<string, HostTensor>, outputKeys: string[] = []): Promise<Record<string, HostTensor>> {
    return this.runNow(key, inputs, outputKeys);
  }

  /** As run, but answered at once when nothing in the way waits (a promise otherwise); a refusal is thrown. */
  runNow(
    key: string,
    inputs: Record<string, HostTensor>,
    outputKeys: string[] = [],
  ): Record<string, HostTensor> | Promise<Record<string, HostTensor>> {
    const graph = servableSignature(key, this.graphs, this.refused);
    const plan = this.plans.get(graph)!;
    const keys = checkAliases(plan.inputKeys, plan.outputKeys, inputs, outputKeys);
    const feeds = new Map<string, HostTensor>();
    for (const [k, placeholder] of plan.feeds) {
      const value = inputs[k] ?? graph.spec.defaults[k];
      if (!value) throw invalidArgument(`Missing input tensor alias: ${k}`);
      if (placeholder !== null) feeds.set(placeholder, value);
    }
    const tensors = outputKeys.length ? [...new Set(keys.map((k) => graph.outputs[k]))] : plan.allTensors;
    if (graph.step) return this.afterStep(graph, feeds, tensors, keys);
    const found = graph.sessions.sessionFor(feeds);
    if (found instanceof Promise) return found.then((session) => this.outputs(graph, keys, tensors, session.runNow(feeds, tensors)));
    return this.outputs(graph, keys, tensors, found.runNow(feeds, tensors));
  }

  /** A run whose signature parses tf.Examples first (host_step.ts). */
  private async afterStep(
    graph: OnnxSignature,
    feeds: Map<string, HostTensor>,
    tensors: readonly string[],
    keys: string[],
  ): Promise<Record<string, HostTensor>> {
    for (const [name, value] of await graph.step!.run(feeds)) feeds.set(name, value);
    const found = graph.sessions.sessionFor(feeds);
    const session = found instanceof Promise ? await found : found;
    return this.outputs(graph, keys, tensors, await session.runNow(feeds, tensors));
  }

  private outputs(
    graph: OnnxSignature,
    keys: string[],
    tensors: readonly string[],
    results: HostTensor[] | Promise<HostTensor[]>,
  ): Record<string, HostTensor> | Promise<Record<string, HostTensor>> {
    if (results instanceof Promise) return results.then((r) => this.outputs(graph, keys, tensors, r));
    const outputs: Record<string, HostTensor> = {};
    // A few outputs (nearly always): found by a scan, no map built per run.
    const at = tensors.length <= 16 ? (t: string) => tensors.indexOf(t) : indexer(tensors);
    for (const k of keys) outputs[k] = results[at(graph.outputs[k])];
    return outputs;
  }

  async trace(key: string, inputs: Record<string, HostTensor>): Promise<Array<[string, HostTensor]>> {
    const graph = servableSignature(key, this.graphs, this.refused);
    const feeds = new Map<string, HostTensor>();
    for (const [k, placeholder] of Object.entries(graph.inputs)) {
      const value = inputs[k] ?? graph.spec.defaults[k];
      if (value && placeholder !== null) feeds.set(placeholder, value);
    }
    return graph.trace(feeds);
  }

  dispose(): void {
    for (const g of this.graphs.values()) {
      g.sessions.dispose();
      g.step?.dispose();
    }
  }
}
