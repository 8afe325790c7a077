// Which Yggdrasil model every TF-DF model resource holds once TF's loader has run the init op
// (`__saved_model_init_op`, or TF1's init collections): that graph is flattened with its
// control edges and the `path` input of each SimpleMLLoadModelFromPath(WithHandle) computed
// here, at load. TF-DF's Keras export keeps the path of assets/done in a variable and strips
// "done" with StaticRegexReplace, so the path is the version's assets directory. Reading and
// compiling the model files is the runtime's job (runtimes/embedded/ops/decision_forests/).
//
// A load whose path tfgate cannot compute marks its model unresolved: only the signatures that
// run that model are refused, with the reason.
import { GraphFlattener, parseTensorName } from '../graph_flattener.js';
import { localName } from '../control_flow_functions.js';
import { sourceOf } from '../variable_restore_map.js';
import type { MetaGraphObject } from '../../saved_model_reader.js';
import { attrString, type FunctionDef, type NodeDef, type OpDef, type VariableReader } from '../types.js';
import { assetPaths, initRoots } from '../lookup_tables/resolve_lookup_tables.js';
import { InitGraphValues } from '../lookup_tables/init_graph_values.js';
import { Unresolvable } from '../constant_subgraph.js';
import {
  CREATE_MODEL_RESOURCE,
  LOAD_OPS,
  LOAD_WITH_HANDLE,
  INFERENCE_OPS,
  modelIdentifierIdentity,
  modelResourceIdentity,
} from './forest_ops.js';

/** What a load op reads: TF's YggdrasilModelResource::LoadModelFromDisk arguments. */
export interface ForestModelFiles {
  /** The directory of the Yggdrasil model files (the op's `path`). */
  dir: string;
  /** The model files' name prefix (attr file_prefix; '' = none, as TF passes it). */
  filePrefix: string;
  /** The op that loads it, for messages: `SimpleMLLoadModelFromPathWithHandle 'simple_ml/…'`. */
  loadedBy: string;
}

export type ForestResolution = { files: ForestModelFiles } | { unresolved: string };

/** Key of the resolution every model nothing else loads gets (a load op whose resource is unknown). */
const ANY_MODEL = '*';

/** The resolved models of one SavedModel, by the resource identity of forest_ops.ts. */
export class ForestModels {
  constructor(private readonly byIdentity: ReadonlyMap<string, ForestResolution> = new Map()) {}

  /** How the model `identity` stands for was resolved; undefined when nothing loads it. */
  of(identity: string): ForestResolution | undefined {
    return this.byIdentity.get(identity) ?? this.byIdentity.get(ANY_MODEL);
  }

  /** Every model whose files are known, by identity. */
  resolved(): Array<[string, ForestModelFiles]> {
    return [...this.byIdentity].flatMap(([id, r]) =>
      'files' in r && id !== ANY_MODEL ? [[id, r.files] as [string, ForestModelFiles]] : [],
    );
  }
}

function usesForests(mg: MetaGraphObject): boolean {
  const has = (nodes: NodeDef[] | undefined) => (nodes ?? []).some((n) => INFERENCE_OPS.has(n.op) || LOAD_OPS.has(n.op));
  return has(mg.graphDef?.node) || (mg.graphDef?.library?.function ?? []).some((f) => has(f.nodeDef));
}

const RE2_METACHARACTERS = /[\\.+*?()|[\]{}^$]/;

/**
 * RE2::(Global)Replace for a pattern that is a plain ASCII literal and a rewrite without
 * escapes — exactly what a literal means in RE2; anything else is not computed here.
 */
function replaceLiteral(node: NodeDef, input: string): string {
  const pattern = attrString(node.attr?.pattern);
  const rewrite = attrString(node.attr?.rewrite);
  if (!pattern || RE2_METACHARACTERS.test(pattern) || /[^\x20-\x7e]/.test(pattern) || rewrite.includes('\\')) {
    throw new Unresolvable(
      `StaticRegexReplace '${localName(node.name)}' with pattern '${pattern}', which tfgate computes at load only for a plain literal`,
    );
  }
  return node.attr?.replace_global?.b === false ? input.replace(pattern, () => rewrite) : input.split(pattern).join(rewrite);
}

/** The `path` input's value: one string, possibly passed through StaticRegexReplace. */
function pathValue(ref: string, out: ReadonlyMap<string, NodeDef>, values: InitGraphValues, depth = 0): string {
  const src = sourceOf(out as Map<string, NodeDef>, ref);
  if (src?.node.op === 'StaticRegexReplace' && depth < 100)
    return replaceLiteral(src.node, pathValue(src.node.input?.[0] ?? '', out, values, depth + 1));
  const value = values.value(ref);
  if (value.dtype !== 'string' || value.values.length !== 1)
    throw new Unresolvable(`a path that is not one string (TF: 'The "path" attribute is expected to contains exactly one entry.')`);
  return new TextDecoder().decode((value.values as Uint8Array[])[0]);
}

/** Resolves the Yggdrasil model of every TF-DF model resource of `mg` (none: one scan of its nodes). */
export function resolveForestModels(mg: MetaGraphObject, variables: VariableReader | null, modelDir: string): ForestModels {
  if (!usesForests(mg)) return new ForestModels();
  const library = new Map((mg.graphDef?.library?.function ?? []).map((f): [string, FunctionDef] => [f.signature.name, f]));
  const opDefs = new Map((mg.metaInfoDef?.strippedOpList?.op ?? []).map((o): [string, OpDef] => [o.name, o]));
  const flattener = new GraphFlattener(mg.graphDef?.node ?? [], library, opDefs, { keepControlInputs: true });
  const models = new Map<string, ForestResolution>();
  const roots = initRoots(mg).filter((r) => flattener.hasTopNode(r));
  try {
    for (const r of roots) flattener.require(r);
  } catch (e) {
    models.set(ANY_MODEL, { unresolved: `the init op cannot be read: ${(e as Error).message}` });
    return new ForestModels(models);
  }
  const out = flattener.out;
  const values = new InitGraphValues(out, assetPaths(mg, modelDir), variables);
  for (const node of out.values()) {
    if (!LOAD_OPS.has(node.op)) continue;
    const loadedBy = `${node.op} '${localName(node.name)}' (init op)`;
    let identity = ANY_MODEL;
    if (node.op === LOAD_WITH_HANDLE) {
      const resource = sourceOf(out, node.input?.[0] ?? '')?.node;
      if (resource?.op === CREATE_MODEL_RESOURCE) identity = modelResourceIdentity(resource);
      else {
        models.set(ANY_MODEL, { unresolved: `${loadedBy} loads a model resource tfgate cannot identify` });
        continue;
      }
    } else identity = modelIdentifierIdentity(node);
    const pathInput = node.op === LOAD_WITH_HANDLE ? node.input?.[1] : node.input?.[0];
    let resolution: ForestResolution;
    try {
      const dir = pathValue(parseTensorName(pathInput ?? '').join(':'), out, values);
      resolution = { files: { dir, filePrefix: node.op === LOAD_WITH_HANDLE ? attrString(node.attr?.file_prefix) : '', loadedBy } };
    } catch (e) {
      if (!(e instanceof Unresolvable)) throw e;
      resolution = { unresolved: `${loadedBy} loads from ${e.message}` };
    }
    const earlier = models.get(identity);
    if (
      earlier &&
      'files' in earlier &&
      'files' in resolution &&
      (earlier.files.dir !== resolution.files.dir || earlier.files.filePrefix !== resolution.files.filePrefix)
    ) {
      resolution = {
        unresolved: `${earlier.files.loadedBy} and ${loadedBy} load it from two places (${earlier.files.dir}, ${resolution.files.dir})`,
      };
    }
    models.set(identity, resolution);
  }
  return new ForestModels(models);
}
