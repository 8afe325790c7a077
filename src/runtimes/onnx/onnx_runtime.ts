// The ONNX Runtime runtime: each servable signature is prepared as the embedded runtime
// prepares it (function calls inlined, variables frozen, pruned to its outputs), converted
// to an ONNX model in memory and run on an onnxruntime-node session. A signature that cannot
// be converted exactly (an op without a converter, a shape known only at run time where
// ONNX needs it fixed) or whose session fails to build:
//   - with a fallback runtime (--runtime=auto): runs there, and the reason is reported;
//   - without one (--runtime=onnx): is refused by name with that reason.
import fs from 'node:fs/promises';
import path from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { Code, ServingError, errorText, toStatusData } from '../../errors/status.js';
import type { MetaGraphObject } from '../../savedmodel/saved_model_reader.js';
import type { LoadMemoryBound } from '../../savedmodel/load_bounds.js';
import { INIT_OP_SIGNATURE_KEY, signatureSpec } from '../../savedmodel/signature_spec.js';
import { prepareSignatureGraph, type PreparedGraph, type VariableReader } from '../../savedmodel/graph/prepare_signature_graph.js';
import { openSavedModelVersion, verifyVariables } from '../../savedmodel/saved_model_version.js';
import { resolveTables, type LookupTables } from '../../savedmodel/graph/lookup_tables/resolve_lookup_tables.js';
import { dtypeFromTf } from '../../tensor/dtype.js';
import type { HostTensor } from '../../tensor/host_tensor.js';
import { CompositeServable, noSignatureServed, type Refusal } from '../composite_servable.js';
import type { LoadOptions, Runtime, Servable } from '../runtime.js';
import type { RunCost } from '../run_cost.js';
import type { SignatureSpec } from '../../savedmodel/signature_spec.js';
import { TFJS_MODEL_JSON } from '../shared/tfjs_artifacts.js';
import { OnnxServable, type OnnxSignature } from './onnx_servable.js';
import { OnnxSession, type OnnxDevice } from './onnx_session.js';
import { convertToOnnx, OnnxConversionRefused, type FeedSpec } from './tf_to_onnx.js';
import { ShapeSpecializedSessions } from './shape_specialized_sessions.js';
import { splitHostStep, type HostSplit } from './host_step.js';
import { initBackend } from '../shared/tfjs_backend.js';
import { evaluateOnTfjs } from '../shared/tfjs_constant_evaluator.js';
import { LoadRunCheck, sizeGraph } from '../../savedmodel/graph/tensor_sizes.js';
import type { EngineSettings } from '../../config/session_config.js';

const exists = (p: string) => fs.stat(p).then(() => true, () => false);

/** ONNX Runtime rejected a converted graph (a kernel missing for a dtype, say). */
class SessionBuildFailed extends Error {}

export interface OnnxRuntimeOptions {
  device: OnnxDevice;
  /** Thread counts and the CUDA device for every session. */
  engine?: EngineSettings;
  /** Runs the signatures ONNX Runtime cannot; none: they are refused. */
  fallback: Runtime | null;
  log?: (msg: string) => void;
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
async function loadSignature(mg: MetaGraphObject, key: string, variables: VariableReader | null, tables: LookupTables, device: OnnxDevice, memoryBound: LoadMemoryBound, engine?: EngineSettings): Promise<OnnxSignature> {
  const prepared = prepareSignatureGraph(mg, key, variables, { isSupportedOp: () => true, tables, memoryBound });
  const split = splitHostStep(prepared.nodes);
  // The parsing step runs on TF.js in this thread.
  if (split.step) await initBackend('auto');
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

export class OnnxRuntime implements Runtime {
  readonly name = 'onnx';

  constructor(private readonly options: OnnxRuntimeOptions) {}

  async load(dir: string, options: LoadOptions): Promise<Servable> {
    const fallback = this.options.fallback;
    if (await exists(path.join(dir, TFJS_MODEL_JSON))) {
      if (!fallback) throw new ServingError(Code.UNIMPLEMENTED, `${dir}: ONNX Runtime cannot run a TF.js graph model folder (model.json); --runtime=auto or wasm serves it`);
      return fallback.load(dir, options);
    }
    const { metaGraph: mg, variables, memoryBound } = await openSavedModelVersion(dir, options.tags, options.memoryFloorMb);
    // What table initializers compute runs on TF.js in this thread, as the parsing step does.
    const tables = await resolveTables(mg, variables, dir, async (graph) => {
      await initBackend('auto');
      return evaluateOnTfjs(graph);
    });
    const graphs = new Map<string, OnnxSignature>();
    const notOnOnnx = new Map<string, Refusal>();
    const refusedEverywhere = new Map<string, Refusal>();
    for (const [key, def] of Object.entries(mg.signatureDef ?? {})) {
      if (key === INIT_OP_SIGNATURE_KEY) continue;
      if (options.signatures && !options.signatures.includes(key)) continue;
      try {
        graphs.set(key, await loadSignature(mg, key, variables, tables, this.options.device, memoryBound, this.options.engine));
        // A turn of the thread's event loop per signature: runs of the other versions sharing
        // this executor thread get in between (a version may have thousands of signatures).
        await nextTurn();
      } catch (e) {
        const spec = specOf(key, def);
        // What ONNX Runtime cannot run goes to the fallback engine (and is no internal error).
        if (e instanceof OnnxConversionRefused) notOnOnnx.set(key, { spec, error: new ServingError(Code.UNIMPLEMENTED, `ops ONNX Runtime cannot run exactly: ${e.message}`) });
        else if (e instanceof SessionBuildFailed) notOnOnnx.set(key, { spec, error: new ServingError(Code.UNIMPLEMENTED, e.message) });
        else {
          const status = toStatusData(e);
          // A missing variable or corrupt checkpoint spoils the whole version, as on every engine.
          if (status.code === Code.NOT_FOUND || status.code === Code.DATA_LOSS) throw new ServingError(status.code, `${dir}: ${status.message}`);
          // Anything else (a graph that updates variables, a missing placeholder) no engine serves.
          refusedEverywhere.set(key, { spec, error: new ServingError(status.code, status.message) });
        }
      }
    }

    if (!options.signatures) verifyVariables(dir, variables);
    const onnx = new OnnxServable(graphs, mg.signatureDef ?? {}, new LoadRunCheck(new Map([...graphs].map(([k, g]) => [k, g.sizes])), memoryBound));
    const refused = new Map<string, Refusal>(refusedEverywhere);
    const parts: Servable[] = graphs.size ? [onnx] : [];
    const notes: Record<string, string> = {};
    if (notOnOnnx.size && fallback) {
      const keys = [...notOnOnnx.keys()];
      let other: Servable | undefined;
      try {
        other = await fallback.load(dir, { ...options, signatures: keys });
      } catch (e) {
        for (const key of keys) refused.set(key, { spec: notOnOnnx.get(key)!.spec, error: new ServingError(toStatusData(e).code, `${notOnOnnx.get(key)!.error.message}; ${fallback.name}: ${toStatusData(e).message}`) });
      }
      if (other) {
        parts.push(other);
        for (const key of keys) {
          if (other.engines[key]) notes[key] = notOnOnnx.get(key)!.error.message;
          else refused.set(key, { spec: notOnOnnx.get(key)!.spec, error: new ServingError(Code.UNIMPLEMENTED, `${notOnOnnx.get(key)!.error.message}; ${other.refusals[key] ?? 'not loaded'}`) });
        }
      }
    } else {
      for (const [key, r] of notOnOnnx) refused.set(key, r);
    }
    if (parts.length === 0) {
      throw noSignatureServed(dir, refused);
    }
    for (const [key, r] of refused) this.options.log?.(`${dir}: signature '${key}' is not served: ${r.error.message}`);
    return new CompositeServable(parts, refused, mg.signatureDef ?? {}, notes);
  }
}

function specOf(key: string, def: Parameters<typeof signatureSpec>[1]): SignatureSpec {
  try {
    return signatureSpec(key, def);
  } catch {
    return { key, methodName: def.methodName ?? '', inputs: {}, outputs: {}, defaults: {} };
  }
}
