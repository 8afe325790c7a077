// The embedded runtime: SavedModel (or TF.js graph model) on disk → TF.js on WASM/CPU,
// with no native code. Every servable signature is prepared at load time, through the
// signature-loading pipeline (signature_loading.ts): a signature that cannot run (an op no
// TF.js kernel has) is refused by name while the others serve.
import fs from 'node:fs/promises';
import path from 'node:path';
import tfjsConverter from '../tfjs_packages/tfjs_converter.cjs';
import { ServingError, toStatusData } from '../../errors/status.js';
import { prepareSignatureGraph } from '../../savedmodel/graph/prepare_signature_graph.js';
import { resolveTables, type LookupTables } from '../../savedmodel/graph/lookup_tables/resolve_lookup_tables.js';
import { openSavedModelVersion } from '../../savedmodel/saved_model_version.js';
import type { LoadMemoryBound } from '../../savedmodel/load_bounds.js';
import { LoadRunCheck, sizeGraph, type SizeGraph } from '../../savedmodel/graph/tensor_sizes.js';
import type { LoadOptions, Runtime, Servable } from '../runtime.js';
import { initBackend, type BackendPreference } from '../shared/tfjs_backend.js';
import { TFJS_MODEL_JSON, toModelArtifacts } from '../shared/tfjs_artifacts.js';
import { isTfjsSupportedOp } from './tfjs_ops.js';
import { TfjsServable, type SignatureGraph } from './tfjs_servable.js';
import { loadSignatures, type OpenedSignatures, type Refusal, type SignatureEngine } from '../signature_loading.js';
import { CompiledGraph } from './compiled_graph.js';
import { loadTfjsGraphModelDir } from './tfjs_graph_model_dir.js';
import { registerEmbeddedOps } from './ops/index.js';
import { checkBackendCanRun, checkSignatureDtypes } from './backend_op_check.js';
import { rewriteForTfjs } from './tfjs_graph_rewrites.js';
import { patchGraphExecutor } from '../tfjs_patches/index.js';
import { closeListsOpenedDuring } from './ops/control/tensor_list.js';
import { checkFunctionsCanRun, rewriteFunctionsForTfjs } from './tfjs_functions.js';
import { resolveForestModels } from '../../savedmodel/graph/decision_forests/resolve_forest_models.js';
import { TFGATE_FOREST_INFERENCE_OP } from '../../savedmodel/graph/decision_forests/forest_ops.js';
import { loadForests, type LoadedForests } from './ops/decision_forests/load_forests.js';
import { evaluateOnTfjs } from '../shared/tfjs_constant_evaluator.js';

/** tfjs-converter as this runtime needs it, process-wide and once: tfgate's ops, and its executor fixed. */
function prepareConverter(): void {
  // ParseExample*, TensorLists with TF's semantics, the string and sparse ops … (ops/index.ts).
  registerEmbeddedOps();
  // Loop bodies that write TensorLists need tfjs-converter to spare kept tensors (see the module).
  patchGraphExecutor(closeListsOpenedDuring);
}

/** Why a second engine cannot check a signature's decision forest (EngineChoice.singleEngine). */
const SINGLE_FOREST_ENGINE = "its decision forest runs on Yggdrasil's WASM engine, the only one tfgate has for TF-DF models";

const exists = (p: string) =>
  fs.stat(p).then(
    () => true,
    () => false,
  );

/** A SavedModel version as every signature's TF.js graph is prepared from it. */
interface EmbeddedVersion extends OpenedSignatures {
  backend: string;
  tables: LookupTables;
  forests: LoadedForests;
  memoryBound: LoadMemoryBound;
}

/** One prepared signature, and its graph as the load runs' size check reads it. */
interface PreparedSignature {
  graph: SignatureGraph;
  sizes: SizeGraph;
}

export class EmbeddedRuntime implements Runtime, SignatureEngine<EmbeddedVersion, PreparedSignature> {
  readonly name = 'embedded';

  constructor(
    private readonly preference: BackendPreference = 'auto',
    private readonly log: (msg: string) => void = () => {},
    /** Run graphs of common ops through CompiledGraph (false: always tfjs-converter's GraphModel, for comparison). */
    private readonly compileGraphs = true,
  ) {
    prepareConverter();
  }

  async load(dir: string, options: LoadOptions): Promise<Servable> {
    if (await exists(path.join(dir, TFJS_MODEL_JSON))) return loadTfjsGraphModelDir(dir, await initBackend(this.preference, this.log));
    return loadSignatures(this, dir, options, this.log);
  }

  async open(dir: string, options: LoadOptions): Promise<EmbeddedVersion> {
    const backend = await initBackend(this.preference, this.log);
    const { metaGraph, variables, memoryBound } = await openSavedModelVersion(dir, options.tags, options.memoryFloorMb);
    const tables = await resolveTables(metaGraph, variables, dir, evaluateOnTfjs);
    // TF-DF models are loaded as TF's init op loads them: one that cannot be read fails the version.
    const forests = await loadForests(resolveForestModels(metaGraph, variables, dir)).catch((e: unknown) => {
      const status = toStatusData(e);
      throw new ServingError(status.code, `${dir}: ${status.message}`);
    });
    return { metaGraph, variables, backend, tables, forests, memoryBound, release: forests.release };
  }

  prepare(version: EmbeddedVersion, key: string): PreparedSignature {
    const { metaGraph, variables, backend, tables, forests, memoryBound } = version;
    const mapped = prepareSignatureGraph(metaGraph, key, variables, {
      isSupportedOp: isTfjsSupportedOp,
      tables,
      forests: forests.bindings,
      memoryBound,
    });
    checkSignatureDtypes(mapped.signature);
    checkBackendCanRun(mapped.nodes, backend, key);
    checkFunctionsCanRun(mapped, backend, key);
    const prepared = rewriteFunctionsForTfjs(rewriteForTfjs(mapped));
    const sizes = sizeGraph(mapped.nodes, Object.fromEntries(Object.entries(mapped.inputs).map(([k, v]) => [k, v.placeholder])));
    const model = tfjsConverter.loadGraphModelSync(toModelArtifacts(prepared));
    const outputs = [...new Set(Object.values(prepared.outputs))];
    const computed = prepared.nodes.filter((n) => n.op !== 'Const' && n.op !== 'Placeholder');
    const graph: SignatureGraph = {
      spec: prepared.signature,
      model,
      compiled: this.compileGraphs ? CompiledGraph.compile(prepared.nodes, model.weights, outputs) : null,
      inputs: Object.fromEntries(Object.entries(prepared.inputs).map(([k, v]) => [k, v.placeholder])),
      outputs: prepared.outputs,
      nodeNames: computed.map((n) => n.name),
      nodeOps: computed.map((n) => n.op),
      singleEngine: prepared.nodes.some((n) => n.op === TFGATE_FOREST_INFERENCE_OP) ? SINGLE_FOREST_ENGINE : undefined,
    };
    return { graph, sizes };
  }

  servable(version: EmbeddedVersion, prepared: ReadonlyMap<string, PreparedSignature>, refused: ReadonlyMap<string, Refusal>): Servable {
    const graphs = new Map([...prepared].map(([k, p]) => [k, p.graph]));
    const sizes = new Map([...prepared].map(([k, p]) => [k, p.sizes]));
    const defs = version.metaGraph.signatureDef ?? {};
    return new TfjsServable(version.backend, graphs, refused, defs, version.forests.release, new LoadRunCheck(sizes, version.memoryBound));
  }
}
