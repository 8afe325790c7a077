// What every lookup table of a SavedModel holds once TF's loader has run: first the checkpoint
// restore (a MutableHashTable's contents come back from it: in a TF2 export through the
// table's object in the object graph, checkpoint_restore.ts; in a TF1 graph through the
// saver's restore op, saver_def.restore_op_name, and its LookupTableImportV2), then the init
// ops (the `__saved_model_init_op` signature, TF1's `saved_model_main_op` / `legacy_init_op`
// and `table_initializer` collections). Those graphs are flattened with their control edges
// (tables are filled by ops nothing reads) and every op that fills a table is evaluated here,
// at load, so the serving graph can carry the contents as constants (lookup_rewrite.ts). What an initializer's inputs compute from
// constants runs once on the loading runtime's engine (init_graph_values.ts).
//
// Errors TF's own initialisation would raise (a malformed vocabulary file, a key with two
// values, a missing asset) fail the load as in TF; an init op whose inputs tfgate cannot
// compute marks its table unresolved, which refuses only the signatures that look it up.
import { readVersionFile } from '../../version_files.js';
import path from 'node:path';
import { Code, ServingError, toStatusData } from '../../../errors/status.js';
import { ASSETS_DIRECTORY, type MetaGraphObject } from '../../saved_model_reader.js';
import { INIT_OP_SIGNATURE_KEY } from '../../signature_spec.js';
import { GraphFlattener, parseTensorName } from '../graph_flattener.js';
import { localName } from '../control_flow_functions.js';
import { sourceOf } from '../variable_restore_map.js';
import { attrString, type FunctionDef, type NodeDef, type OpDef, type VariableReader } from '../types.js';
import { protoType, TO_OBJECT } from '../../../proto/index.js';
import { InitGraphValues } from './init_graph_values.js';
import { Unresolvable, type ConstantGraphEvaluator } from '../constant_subgraph.js';
import { CheckpointRestore } from '../checkpoint_restore.js';
import { TableContents } from './table_contents.js';
import { tableInfo } from './table_info.js';
import { parseTextFileTable, type TextFileInit } from './text_file_table.js';
import { IMPORT_OPS, INITIALIZE_OPS, TABLE_OPS, TEXT_FILE_INIT_OPS, tableIdentity } from './table_ops.js';

/** TF1 collections of init ops (saved_model constants MAIN_OP_KEY, LEGACY_INIT_OP_KEY; GraphKeys.TABLE_INITIALIZERS). */
const INIT_COLLECTIONS = ['saved_model_main_op', 'legacy_init_op', 'table_initializer'];

/** Key of the resolution every table nothing else fills gets (an init op whose table is unknown). */
const ANY_TABLE = '*';

export type TableResolution = { contents: TableContents } | { unresolved: string };

/** The resolved tables of one SavedModel, by the table a table node opens. */
export class LookupTables {
  constructor(private readonly byIdentity: ReadonlyMap<string, TableResolution> = new Map()) {}

  /** What `tableNode` (HashTableV2 …) holds; undefined when nothing fills it. */
  of(tableNode: NodeDef): TableResolution | undefined {
    return this.byIdentity.get(tableIdentity(tableNode)) ?? this.byIdentity.get(ANY_TABLE);
  }
}

function usesTables(mg: MetaGraphObject): boolean {
  const has = (nodes: NodeDef[] | undefined) => (nodes ?? []).some((n) => TABLE_OPS.has(n.op));
  return has(mg.graphDef?.node) || (mg.graphDef?.library?.function ?? []).some((f) => has(f.nodeDef));
}

/** The init op's nodes: `__saved_model_init_op`'s output and TF1's init collections. */
export function initRoots(mg: MetaGraphObject): string[] {
  const roots: string[] = [];
  for (const info of Object.values(mg.signatureDef?.[INIT_OP_SIGNATURE_KEY]?.outputs ?? {})) if (info.name) roots.push(info.name);
  for (const key of INIT_COLLECTIONS) roots.push(...(mg.collectionDef?.[key]?.nodeList?.value ?? []));
  return [...new Set(roots.map((r) => parseTensorName(r.replace(/^\^/, ''))[0]))];
}

/**
 * The AssetFileDefs of a meta graph: its asset_file_def field and, as TF1's SavedModelBuilder
 * wrote them, the `saved_model_assets` collection (loader_impl.py reads both).
 */
function assetFileDefs(mg: MetaGraphObject): NonNullable<MetaGraphObject['assetFileDef']> {
  const type = protoType('tensorflow.AssetFileDef');
  const fromCollection = (mg.collectionDef?.[ASSETS_COLLECTION]?.anyList?.value ?? [])
    .filter((any) => any.value && (any.type_url ?? '').endsWith('/tensorflow.AssetFileDef'))
    .map((any) => type.toObject(type.decode(any.value!), TO_OBJECT) as NonNullable<MetaGraphObject['assetFileDef']>[number]);
  return [...(mg.assetFileDef ?? []), ...fromCollection];
}

/** Top-level tensor ('node:index') → the path on disk TF feeds it with (its asset). */
export function assetPaths(mg: MetaGraphObject, modelDir: string): Map<string, string> {
  const paths = new Map<string, string>();
  for (const a of assetFileDefs(mg)) {
    if (!a.tensorInfo?.name || !a.filename) continue;
    const [node, index] = parseTensorName(a.tensorInfo.name);
    paths.set(`${node}:${index}`, path.join(modelDir, ASSETS_DIRECTORY, a.filename));
  }
  return paths;
}

/** TF1's collection of AssetFileDefs (saved_model/constants.py ASSETS_KEY). */
const ASSETS_COLLECTION = 'saved_model_assets';

function textFileInit(node: NodeDef, filename: string): TextFileInit {
  const int = (name: string, dflt: number) => Number(node.attr?.[name]?.i ?? dflt);
  const delimiter = node.attr?.delimiter?.s ? attrString(node.attr.delimiter) : '\t';
  return {
    filename,
    keyIndex: int('key_index', 0),
    valueIndex: int('value_index', 0),
    vocabSize: int('vocab_size', -1),
    delimiter,
    offset: int('offset', 0),
  };
}

/** A table's text file: only a regular file inside the version folder (version_files.ts). */
async function readAsset(modelDir: string, file: string): Promise<Uint8Array> {
  return readVersionFile(modelDir, file);
}

class Resolver {
  readonly tables = new Map<string, TableResolution>();
  private readonly applied = new Set<string>();

  constructor(
    private readonly mg: MetaGraphObject,
    private readonly library: Map<string, FunctionDef>,
    private readonly opDefs: Map<string, OpDef>,
    private readonly assets: Map<string, string>,
    private readonly variables: VariableReader | null,
    private readonly restore: CheckpointRestore,
    private readonly evaluate: ConstantGraphEvaluator | undefined,
    private readonly modelDir: string,
  ) {}

  /** TF2: each table its object restores from the checkpoint (Keras' adapted StringLookup …). */
  restoreFromObjects(): void {
    for (const node of this.mg.graphDef?.node ?? []) {
      if (!TABLE_OPS.has(node.op)) continue;
      const saved = this.restore.checkpointedTable(node);
      if (!saved) continue;
      try {
        const contents = new TableContents(tableInfo(node));
        contents.insert(saved.keys, saved.values, saved.by);
        this.tables.set(tableIdentity(node), { contents });
      } catch (e) {
        if (!(e instanceof Unresolvable)) throw e;
        this.tables.set(tableIdentity(node), { unresolved: `${saved.by}: ${e.message}` });
      }
    }
  }

  /** Runs the table-filling ops `roots` reach, in the graph's order. */
  async run(roots: string[], phase: string): Promise<void> {
    const flattener = new GraphFlattener(this.mg.graphDef?.node ?? [], this.library, this.opDefs, { keepControlInputs: true });
    const present = roots.filter((r) => flattener.hasTopNode(r));
    if (!present.length) return;
    try {
      for (const r of present) flattener.require(r);
    } catch (e) {
      this.unresolvedEverywhere(`the ${phase} cannot be read: ${(e as Error).message}`);
      return;
    }
    const out = flattener.out;
    const values = new InitGraphValues(out, this.assets, this.variables, {
      evaluate: this.evaluate,
      restore: this.restore,
      opDefs: this.opDefs,
    });
    for (const node of out.values()) {
      const fills = IMPORT_OPS.has(node.op) || INITIALIZE_OPS.has(node.op) || TEXT_FILE_INIT_OPS.has(node.op);
      if (!fills || this.applied.has(node.name)) continue;
      this.applied.add(node.name);
      const table = sourceOf(out, node.input?.[0] ?? '')?.node;
      const shown = `${node.op} '${localName(node.name)}' (${phase})`;
      if (!table || !TABLE_OPS.has(table.op)) {
        this.unresolvedEverywhere(`${shown} fills a table tfgate cannot identify`);
        continue;
      }
      const id = tableIdentity(table);
      const known = this.tables.get(id);
      if (known && 'unresolved' in known) continue;
      try {
        const contents = known?.contents ?? new TableContents(tableInfo(table));
        await this.fill(contents, node, values, shown);
        this.tables.set(id, { contents });
      } catch (e) {
        if (!(e instanceof Unresolvable)) throw e;
        this.tables.set(id, { unresolved: `${shown} fills it from ${e.message}` });
      }
    }
  }

  private async fill(contents: TableContents, node: NodeDef, values: InitGraphValues, shown: string): Promise<void> {
    if (!TEXT_FILE_INIT_OPS.has(node.op)) {
      contents.insert(await values.computed(node.input?.[1] ?? ''), await values.computed(node.input?.[2] ?? ''), shown);
      return;
    }
    // TF ignores a second initialisation from a file (lookup_util.cc: "already initialized").
    if (contents.filledBy.length && !contents.info.mutable) return;
    const name = await values.computed(node.input?.[1] ?? '');
    if (name.dtype !== 'string' || name.values.length !== 1) throw new Unresolvable(`a filename that is not one string`);
    const filename = new TextDecoder().decode((name.values as Uint8Array[])[0]);
    const parsed = parseTextFileTable(
      await readAsset(this.modelDir, filename),
      textFileInit(node, filename),
      contents.info.keyDtype,
      contents.info.valueDtype,
    );
    contents.insert(parsed.keys, parsed.values, shown);
  }

  private unresolvedEverywhere(reason: string): void {
    // Tables not yet filled might be the one meant: their lookups are refused with the reason.
    this.tables.set(ANY_TABLE, { unresolved: reason });
  }
}

/** Resolves every lookup table of `mg` (a model without tables costs one scan of its nodes). */
async function resolveLookupTables(
  mg: MetaGraphObject,
  variables: VariableReader | null,
  modelDir: string,
  evaluate?: ConstantGraphEvaluator,
): Promise<LookupTables> {
  if (!usesTables(mg)) return new LookupTables();
  const library = new Map((mg.graphDef?.library?.function ?? []).map((f): [string, FunctionDef] => [f.signature.name, f]));
  const opDefs = new Map((mg.metaInfoDef?.strippedOpList?.op ?? []).map((o): [string, OpDef] => [o.name, o]));
  const restore = CheckpointRestore.of(mg, variables);
  const resolver = new Resolver(mg, library, opDefs, assetPaths(mg, modelDir), variables, restore, evaluate, modelDir);
  const restoreOp = mg.saverDef?.restoreOpName;
  if (restore.objectBased) resolver.restoreFromObjects();
  else if (restoreOp) await resolver.run([parseTensorName(restoreOp)[0]], 'restore op');
  await resolver.run(initRoots(mg), 'init op');
  return new LookupTables(resolver.tables);
}

/**
 * resolveLookupTables for a runtime's load: a failure fails the whole version, naming its
 * folder (as TF's failed init op does). `evaluate` is the runtime's engine for what table
 * initializers compute; without one, only constants, assets and checkpoint values are known.
 */
export async function resolveTables(
  mg: MetaGraphObject,
  variables: VariableReader | null,
  modelDir: string,
  evaluate?: ConstantGraphEvaluator,
): Promise<LookupTables> {
  try {
    return await resolveLookupTables(mg, variables, modelDir, evaluate);
  } catch (e) {
    const status = toStatusData(e);
    throw new ServingError(status.code, `${modelDir}: initialising lookup tables failed: ${status.message}`);
  }
}
