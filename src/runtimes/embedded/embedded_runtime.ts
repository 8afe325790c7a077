// The embedded runtime: SavedModel (or TF.js graph model) on disk → TF.js on WASM/CPU,
// with no native code. Every servable signature is prepared at load time, so a version is
// either fully usable or refused; a signature that cannot run (e.g. one that parses
// tf.Example protos) is refused by name while the others serve. A version none of whose
// signatures can run fails to load.
import fs from 'node:fs/promises';
import path from 'node:path';
import { loadGraphModelSync } from '@tensorflow/tfjs-converter';
import { Code, ServingError, toStatusData } from '../../errors/status.js';
import type { MetaGraphObject } from '../../savedmodel/saved_model_reader.js';
import { INIT_OP_SIGNATURE_KEY, signatureSpec } from '../../savedmodel/signature_spec.js';
import { prepareSignatureGraph, type VariableReader } from '../../savedmodel/graph/prepare_signature_graph.js';
import { resolveTables, type LookupTables } from '../../savedmodel/graph/lookup_tables/resolve_lookup_tables.js';
import { openSavedModelVersion, verifyVariables } from '../../savedmodel/saved_model_version.js';
import type { LoadMemoryBound } from '../../savedmodel/load_bounds.js';
import { LoadRunCheck, sizeGraph, type SizeGraph } from '../../savedmodel/graph/tensor_sizes.js';
import type { LoadOptions, Runtime, Servable } from '../runtime.js';
import type { SignatureSpec } from '../../savedmodel/signature_spec.js';
import { initBackend, type BackendPreference } from '../shared/tfjs_backend.js';
import { TFJS_MODEL_JSON, toModelArtifacts } from '../shared/tfjs_artifacts.js';
import { isTfjsSupportedOp } from './tfjs_ops.js';
import { TfjsServable, type SignatureGraph } from './tfjs_servable.js';
import { noSignatureServed } from '../composite_servable.js';
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

const exists = (p: string) => fs.stat(p).then(() => true, () => false);

export class EmbeddedRuntime implements Runtime {
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
    const backend = await initBackend(this.preference, this.log);
    if (await exists(path.join(dir, TFJS_MODEL_JSON))) return loadTfjsGraphModelDir(dir, backend);

    const { metaGraph: mg, variables, memoryBound } = await openSavedModelVersion(dir, options.tags, options.memoryFloorMb);
    const tables = await resolveTables(mg, variables, dir, evaluateOnTfjs);
    // TF-DF models are loaded as TF's init op loads them: one that cannot be read fails the version.
    const forests = await loadForests(resolveForestModels(mg, variables, dir)).catch((e: unknown) => {
      const status = toStatusData(e);
      throw new ServingError(status.code, `${dir}: ${status.message}`);
    });
    let servable: Servable;
    try {
      servable = this.loadSignatures(dir, mg, variables, tables, forests, backend, options, memoryBound);
    } catch (e) {
      forests.release();
      throw e;
    }
    // Every checkpoint tensor's checksum, as TF's RestoreV2 (a partial load is another engine's reference or fallback).
    if (!options.signatures) {
      try {
        verifyVariables(dir, variables);
      } catch (e) {
        servable.dispose();
        throw e;
      }
    }
    return servable;
  }

  private loadSignatures(
    dir: string,
    mg: MetaGraphObject,
    variables: VariableReader | null,
    tables: LookupTables,
    forests: LoadedForests,
    backend: string,
    options: LoadOptions,
    memoryBound: LoadMemoryBound,
  ): Servable {
    const graphs = new Map<string, SignatureGraph>();
    const sizes = new Map<string, SizeGraph>();
    const refused = new Map<string, { spec: SignatureSpec; error: ServingError }>();
    for (const [key, def] of Object.entries(mg.signatureDef ?? {})) {
      if (key === INIT_OP_SIGNATURE_KEY) continue;
      if (options.signatures && !options.signatures.includes(key)) continue;
      try {
        const mapped = prepareSignatureGraph(mg, key, variables, { isSupportedOp: isTfjsSupportedOp, tables, forests: forests.bindings, memoryBound });
        checkSignatureDtypes(mapped.signature);
        checkBackendCanRun(mapped.nodes, backend, key);
        checkFunctionsCanRun(mapped, backend, key);
        const prepared = rewriteFunctionsForTfjs(rewriteForTfjs(mapped));
        sizes.set(key, sizeGraph(mapped.nodes, Object.fromEntries(Object.entries(mapped.inputs).map(([k, v]) => [k, v.placeholder]))));
        const model = loadGraphModelSync(toModelArtifacts(prepared));
        const outputs = [...new Set(Object.values(prepared.outputs))];
        const computed = prepared.nodes.filter((n) => n.op !== 'Const' && n.op !== 'Placeholder');
        graphs.set(key, {
          spec: prepared.signature,
          model,
          compiled: this.compileGraphs ? CompiledGraph.compile(prepared.nodes, model.weights, outputs) : null,
          inputs: Object.fromEntries(Object.entries(prepared.inputs).map(([k, v]) => [k, v.placeholder])),
          outputs: prepared.outputs,
          nodeNames: computed.map((n) => n.name),
          nodeOps: computed.map((n) => n.op),
          singleEngine: prepared.nodes.some((n) => n.op === TFGATE_FOREST_INFERENCE_OP) ? SINGLE_FOREST_ENGINE : undefined,
        });
      } catch (e) {
        const status = toStatusData(e);
        // A missing variable or corrupt checkpoint spoils the whole version, not one signature.
        if (status.code === Code.NOT_FOUND || status.code === Code.DATA_LOSS) throw new ServingError(status.code, `${dir}: ${status.message}`);
        let spec: SignatureSpec;
        try {
          spec = signatureSpec(key, def);
        } catch {
          spec = { key, methodName: def.methodName ?? '', inputs: {}, outputs: {}, defaults: {} };
        }
        refused.set(key, { spec, error: new ServingError(status.code, status.message) });
      }
    }
    if (graphs.size === 0) throw noSignatureServed(dir, refused);
    for (const [key, r] of refused) this.log(`${dir}: signature '${key}' is not served: ${r.error.message}`);
    return new TfjsServable(backend, graphs, refused, mg.signatureDef ?? {}, forests.release, new LoadRunCheck(sizes, memoryBound));
  }
}
