// The ONNX Runtime runtime: each servable signature is prepared as the embedded runtime
// prepares it (function calls inlined, variables frozen, pruned to its outputs), converted
// to an ONNX model in memory and run on an onnxruntime-node session. A signature that cannot
// be converted exactly (an op without a converter, a shape known only at run time where
// ONNX needs it fixed) or whose session fails to build is EngineCannotRun: refused by name
// with that reason (--runtime=onnx), or run by the engine behind this one in a
// CompositeRuntime (--runtime=auto), which reports the reason.
import fs from 'node:fs/promises';
import path from 'node:path';
import { errorText } from '../../errors/status.js';
import type { MetaGraphObject } from '../../savedmodel/saved_model_reader.js';
import type { LoadMemoryBound } from '../../savedmodel/load_bounds.js';
import { prepareSignatureGraph, type PreparedGraph, type VariableReader } from '../../savedmodel/graph/prepare_signature_graph.js';
import { openSavedModelVersion } from '../../savedmodel/saved_model_version.js';
import { resolveTables, type LookupTables } from '../../savedmodel/graph/lookup_tables/resolve_lookup_tables.js';
import { dtypeFromTf } from '../../tensor/dtype.js';
import type { HostTensor } from '../../tensor/host_tensor.js';
import { EngineCannotRun, loadSignatures, type OpenedSignatures, type Refusal, type SignatureEngine } from '../signature_loading.js';
import type { LoadOptions, Runtime, Servable } from '../runtime.js';
import type { RunCost } from '../run_cost.js';
import { TFJS_MODEL_JSON } from '../shared/tfjs_artifacts.js';
import { OnnxServable, type OnnxSignature } from './onnx_servable.js';
import { OnnxSession, type OnnxDevice } from './onnx_session.js';
import { convertToOnnx, OnnxConversionRefused, type FeedSpec } from './tf_to_onnx.js';
import { ShapeSpecializedSessions } from './shape_specialized_sessions.js';
import { splitHostStep, type HostSplit } from './host_step.js';
import { LoadRunCheck, sizeGraph } from '../../savedmodel/graph/tensor_sizes.js';
import type { EngineSettings } from '../../config/session_config.js';

const exists = (p: string) =>
  fs.stat(p).then(
    () => true,
    () => false,
  );

/** ONNX Runtime rejected a converted graph (a kernel missing for a dtype, say). */
class SessionBuildFailed extends Error {}

export interface OnnxRuntimeOptions {
  device: OnnxDevice;
  /** Thread counts and the CUDA device for every session. */
  engine?: EngineSettings;
  log?: (msg: string) => void;
  /**
   * Called before this engine first runs a graph on TF.js in this thread (a table initializer's
   * computation, a tf.Example step holding more than parsing): behind the embedded runtime,
   * that runtime's import, so that its ops are the ones registered.
   */
  beforeTfjs?: () => Promise<unknown>;
}

/**
 * What the ONNX graph's inputs are declared as: each signature placeholder it reads (the
 * graph's dtype, the signature's shape), then the parsing step's outputs.
 */
function declaredFeeds(prepared: PreparedGraph, split: HostSplit): Map<string, FeedSpec> {
  const feeds = new Map<string, FeedSpec>();
  const read = new Set(split.nodes.filter((n) => n.op === 'Placeholder').map((n) => n.name));
  for (const input of Object.values(prepared.inputs)) {
    if (input.placeholder === null || !read.has(input.placeholder)) continue;
    const node = prepared.nodes.find((n) => n.name === input.placeholder);
    const dtype = dtypeFromTf(node?.attr?.dtype?.type ?? input.spec.dtype);
    if (dtype) feeds.set(input.placeholder, { dtype, shape: input.spec.shape });
  }
  for (const [name, spec] of split.feeds) feeds.set(name, { dtype: spec.dtype, shape: spec.shape });
  return feeds;
}

/** Prepares one signature and builds its sessions (declared shapes now, others on demand). */
async function loadSignature(
  mg: MetaGraphObject,
  key: string,
  variables: VariableReader | null,
  tables: LookupTables,
  device: OnnxDevice,
  memoryBound: LoadMemoryBound,
  engine?: EngineSettings,
  beforeTfjs?: () => Promise<unknown>,
): Promise<OnnxSignature> {
  const prepared = prepareSignatureGraph(mg, key, variables, { isSupportedOp: () => true, tables, memoryBound });
  const split = splitHostStep(prepared.nodes);
  // The parsing step runs in this thread (on TF.js when it holds more than parsing).
  if (split.step?.runsOnTfjs) await beforeTfjs?.();
  await split.step?.prepare();
  const fetch = [...new Set(Object.values(prepared.outputs))];
  // The first build is for the declared shapes: its estimate is the signature's.
  let runCost: RunCost | undefined;
  const build = async (feeds: ReadonlyMap<string, FeedSpec>) => {
    const model = convertToOnnx(split.nodes, feeds, fetch, key);
    runCost ??= model.runCost;
    return OnnxSession.create(model, { device, engine }).catch((e: unknown) => {
      throw new SessionBuildFailed(`ONNX Runtime could not build a session: ${errorText(e)}`);
    });
  };
  const declared = declaredFeeds(prepared, split);
  const computed = split.nodes.filter((n) => n.op !== 'Const' && n.op !== 'Placeholder').map((n) => `${n.name}:0`);
  const trace = async (feeds: ReadonlyMap<string, HostTensor>): Promise<Array<[string, HostTensor]>> => {
    const all = new Map(feeds);
    if (split.step) for (const [name, value] of await split.step.run(feeds)) all.set(name, value);
    const specs = new Map([...declared].map(([name, spec]) => [name, { dtype: spec.dtype, shape: all.get(name)?.shape ?? spec.shape }]));
    const model = convertToOnnx(split.nodes, specs, computed, key, { skipMissingFetches: true });
    const session = await OnnxSession.create(model, { device, engine });
    try {
      const names = computed.filter((t) => model.outputs.has(t));
      const values = await session.run(all, names);
      return names.map((n, i) => [n, values[i]]);
    } finally {
      session.dispose();
    }
  };
  const sessions = new ShapeSpecializedSessions(declared, await build(declared), build);
  return {
    spec: prepared.signature,
    sessions,
    runCost: runCost!,
    inputs: Object.fromEntries(Object.entries(prepared.inputs).map(([k, v]) => [k, v.placeholder])),
    outputs: prepared.outputs,
    step: split.step,
    trace,
    sizes: sizeGraph(prepared.nodes, Object.fromEntries(Object.entries(prepared.inputs).map(([k, v]) => [k, v.placeholder]))),
  };
}

/** A SavedModel version as every signature's ONNX graph is prepared from it. */
interface OnnxVersion extends OpenedSignatures {
  tables: LookupTables;
  memoryBound: LoadMemoryBound;
}

export class OnnxRuntime implements Runtime, SignatureEngine<OnnxVersion, OnnxSignature> {
  readonly name = 'onnx';

  constructor(private readonly options: OnnxRuntimeOptions) {}

  load(dir: string, options: LoadOptions): Promise<Servable> {
    return loadSignatures(this, dir, options, this.options.log);
  }

  async open(dir: string, options: LoadOptions): Promise<OnnxVersion> {
    if (await exists(path.join(dir, TFJS_MODEL_JSON))) {
      throw new EngineCannotRun(
        `${dir}: ONNX Runtime cannot run a TF.js graph model folder (model.json); --runtime=auto or wasm serves it`,
      );
    }
    const { metaGraph, variables, memoryBound } = await openSavedModelVersion(dir, options.tags, options.memoryFloorMb);
    // What table initializers compute runs on TF.js in this thread, imported only for such a table.
    const tables = await resolveTables(metaGraph, variables, dir, async (graph) => {
      await this.options.beforeTfjs?.();
      const [{ initBackend }, { evaluateOnTfjs }] = await Promise.all([
        import('../shared/tfjs_backend.js'),
        import('../shared/tfjs_constant_evaluator.js'),
      ]);
      await initBackend('auto');
      return evaluateOnTfjs(graph);
    });
    return { metaGraph, variables, tables, memoryBound };
  }

  async prepare(version: OnnxVersion, key: string): Promise<OnnxSignature> {
    try {
      return await loadSignature(
        version.metaGraph,
        key,
        version.variables,
        version.tables,
        this.options.device,
        version.memoryBound,
        this.options.engine,
        this.options.beforeTfjs,
      );
    } catch (e) {
      // What ONNX Runtime cannot run another engine may (and it is no internal error).
      if (e instanceof OnnxConversionRefused) throw new EngineCannotRun(`ops ONNX Runtime cannot run exactly: ${e.message}`);
      if (e instanceof SessionBuildFailed) throw new EngineCannotRun(e.message);
      throw e;
    }
  }

  servable(version: OnnxVersion, graphs: ReadonlyMap<string, OnnxSignature>, refused: ReadonlyMap<string, Refusal>): Servable {
    const sizes = new Map([...graphs].map(([k, g]) => [k, g.sizes]));
    return new OnnxServable(graphs, refused, version.metaGraph.signatureDef ?? {}, new LoadRunCheck(sizes, version.memoryBound));
  }
}
