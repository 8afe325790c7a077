// Writes a TF1-style SavedModel folder that TensorFlow itself can load, laid out as
// `tf.compat.v1.saved_model.Builder.add_meta_graph_and_variables` writes it:
//
//   <dir>/saved_model.pb          SavedModel { saved_model_schema_version: 1, meta_graphs: [
//                                   MetaGraphDef { meta_info_def { tags, tensorflow_version,
//                                     tensorflow_git_version, stripped_op_list },
//                                   graph_def { node …, versions { producer } },
//                                   saver_def, collection_def { variables,
//                                   trainable_variables }, signature_def { … } } ] }
//   <dir>/variables/variables.{index,data-00000-of-00001}   the TensorBundle the saver's
//                                   restore graph reads (omitted when there are no variables)
//   <dir>/assets/<file>           asset files, with MetaGraphDef.asset_file_def naming the
//                                   tensor TF feeds each one's path to (when given)
//
// The graph is the GraphBuilder's plus a non-sharded V2 Saver (writer/saver.ts). Map fields
// are written in sorted key order, as TF's deterministic serialization does.
//
// A Tf2GraphBuilder adds what TF2 exports hold instead: graph_def.library (the functions
// its calls, loops and conditionals run) and resource variables restored by library
// functions under object-graph checkpoint keys (writer/resource_saver.ts); no collections.
//
// Nodes carry every attr of the TF 2.15 op registry (WRITER_TF_VERSION), as tf.compat.v1
// writes them there. A TF older than an attr (MaxPool explicit_paddings, say) rejects the
// NodeDef in C++; TF's Python importer drops such attrs when they hold the default recorded
// in stripped_op_list.
import fs from 'node:fs/promises';
import path from 'node:path';
import { protoType } from '../../src/proto/index.js';
import { internal, invalidArgument } from '../../src/errors/status.js';
import { dtypeToTf, type DType } from '../../src/tensor/dtype.js';
import type { HostTensor } from '../../src/tensor/host_tensor.js';
import { writeTensorBundle } from './tensor_bundle/tensor_bundle_writer.js';
import { compareBytes } from '../../src/savedmodel/tensor_bundle/coding.js';
import { Tensor, validateGraph, type GraphBuilder } from './writer/graph_builder.js';
import { addSaver } from './writer/saver.js';
import { strippedOpList, type OpDefInit } from './writer/op_defs.js';
import { shapeProto } from './writer/tensor_value.js';
import { encodeVariableDef } from './writer/variable_def.js';
import { Tf2GraphBuilder } from './writer/tf2_graph_builder.js';
import { addResourceSaver, checkpointEntries } from './writer/resource_saver.js';
import type { CheckpointGraphOptions } from './writer/object_graph.js';
import { OBJECT_GRAPH_KEY } from '../../src/savedmodel/graph/checkpoint_object_graph.js';
import { ASSETS_DIRECTORY, SAVED_MODEL_FILENAME } from '../../src/savedmodel/saved_model_reader.js';

const VARIABLES_DIRECTORY = 'variables';
const VARIABLES_PREFIX = 'variables';

/**
 * The TF release whose op registry (op_defs.ts) and GraphDef producer version the written
 * graphs follow; producer 1645 is what TF 2.15.0 stamps (as in the keras2_churn fixture).
 */
export const WRITER_TF_VERSION = '2.15.0';
export const WRITER_GRAPH_PRODUCER = 1645;

const PREDICT_METHOD_NAME = 'tensorflow/serving/predict';

export interface WriterTensorInfo {
  /** `node:index` */
  name: string;
  /** TF DataType name (DT_FLOAT) or tfgate dtype ('float32'). */
  dtype: string;
  /** -1 for unknown dims; null for unknown rank. */
  shape: number[] | null;
}

export interface WriterSignature {
  methodName?: string;
  inputs: Record<string, Tensor | WriterTensorInfo>;
  outputs: Record<string, Tensor | WriterTensorInfo>;
}

export interface SavedModelWriterOptions {
  tags?: string[];
  tensorflowVersion?: string;
  /** Informational; TF writes its build's git describe here. */
  tensorflowGitVersion?: string;
  producer?: number;
  /** MetaInfoDef.meta_graph_version; TF's SavedModelBuilder leaves it empty, so it is omitted unless given. */
  metaGraphVersion?: string;
  /** Files written to `assets/`, each fed to its tensor at load (MetaGraphDef.asset_file_def). */
  assets?: WriterAsset[];
  /** Extra node-list collections (TF1 `table_initializer`, `saved_model_main_op` …): key → node names. */
  nodeCollections?: Record<string, string[]>;
  /**
   * TF2 `SaveOptions(experimental_skip_saver=True)`: no saver_def and no save/restore
   * functions; the checkpoint is written all the same (only the object graph restores it).
   */
  skipSaver?: boolean;
  /** With a Tf2GraphBuilder's object graph: how the checkpoint's copy is numbered; false writes none (a name-based checkpoint). */
  checkpointObjectGraph?: CheckpointGraphOptions | false;
  /** OpDefs of ops op_defs.ts does not declare (an op case's, read from TF's registration: writer/op_registration.ts). */
  opDefs?: readonly OpDefInit[];
}

export interface WriterAsset {
  /** The tensor TF feeds with the asset's path (TF2: a string placeholder `asset_path_initializer`). */
  tensor: Tensor | WriterTensorInfo;
  filename: string;
  contents: string | Uint8Array;
}

const utf8 = new TextEncoder();
/** Bytewise order of the UTF-8 encodings (C++ std::string / Python str order). */
const compareKeys = (a: string, b: string): number => compareBytes(utf8.encode(a), utf8.encode(b));

function sortedRecord<T>(r: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(r).sort(([a], [b]) => compareKeys(a, b)));
}

function tensorInfo(t: Tensor | WriterTensorInfo): Record<string, unknown> {
  const dtype = t instanceof Tensor ? dtypeToTf(t.dtype) : t.dtype.startsWith('DT_') ? t.dtype : dtypeToTf(t.dtype as DType);
  if (!dtype) throw invalidArgument(`signature tensor ${t.name} has unknown dtype ${String(t.dtype)}`);
  return { name: t.name, dtype, tensorShape: shapeProto(t.shape) };
}

export interface BuiltSavedModel {
  /** protobufjs-ready tensorflow.SavedModel object. */
  savedModel: Record<string, unknown>;
  /** Checkpoint contents in the order SaveV2 writes them (its tensor_names order). */
  variables: Array<[string, HostTensor]>;
}

const finalized = new WeakSet<GraphBuilder>();

/** Adds the saver to `graph` (once) and assembles the SavedModel proto object. */
export function buildSavedModel(
  graph: GraphBuilder,
  signatures: Record<string, WriterSignature>,
  options: SavedModelWriterOptions = {},
): BuiltSavedModel {
  if (finalized.has(graph)) throw invalidArgument('this GraphBuilder was already written as a SavedModel; build a new graph');
  finalized.add(graph);
  // TF2 graphs (a function library, resource variables) are Tf2GraphBuilders.
  const tf2 = graph instanceof Tf2GraphBuilder ? graph : undefined;
  if (graph.variables.length && tf2?.resourceVariables.length)
    throw invalidArgument('the writer does not mix VariableV2 and resource variables in one graph');
  tf2?.keyByObjects(options.checkpointObjectGraph === false);
  const tf2Saves = Boolean(tf2?.resourceVariables.length || tf2?.checkpointedTables.length) && !options.skipSaver;
  const saverDef = graph.variables.length ? addSaver(graph) : tf2Saves ? addResourceSaver(tf2!) : undefined;

  const objectGraph = tf2?.hasObjectGraph ? tf2.objects : undefined;
  const extraDefs = new Map((options.opDefs ?? []).map((d) => [d.name, d]));
  const problems = [
    ...validateGraph(graph.nodes, extraDefs),
    ...(tf2?.library.problems(graph.nodes) ?? []),
    ...(objectGraph?.problems(graph.nodes) ?? []),
  ];
  if (problems.length) throw internal(`SavedModel writer built an invalid graph:\n  ${problems.join('\n  ')}`);
  const nodeNames = new Set(graph.nodes.map((n) => n.name));
  const signatureDef: Record<string, unknown> = {};
  for (const [key, s] of Object.entries(signatures)) {
    const side = (m: Record<string, Tensor | WriterTensorInfo>) => {
      for (const t of Object.values(m)) {
        const node = t.name.replace(/:\d+$/, '');
        if (!nodeNames.has(node)) throw invalidArgument(`signature ${key} refers to ${t.name}, which is not in the graph`);
      }
      return sortedRecord(Object.fromEntries(Object.entries(m).map(([k, t]) => [k, tensorInfo(t)])));
    };
    // An op signature (__saved_model_init_op) has no method name.
    const methodName = s.methodName ?? PREDICT_METHOD_NAME;
    signatureDef[key] = { inputs: side(s.inputs), outputs: side(s.outputs), ...(methodName ? { methodName } : {}) };
  }

  const metaInfoDef: Record<string, unknown> = {
    strippedOpList: strippedOpList([...graph.nodes.map((n) => n.op), ...(tf2?.library.ops() ?? [])], extraDefs),
    tags: options.tags ?? ['serve'],
    tensorflowVersion: options.tensorflowVersion ?? WRITER_TF_VERSION,
    tensorflowGitVersion: options.tensorflowGitVersion ?? 'tfgate',
  };
  if (options.metaGraphVersion) metaInfoDef.metaGraphVersion = options.metaGraphVersion;

  const metaGraph: Record<string, unknown> = {
    metaInfoDef,
    graphDef: {
      node: graph.nodes.map((n) => ({ ...n, attr: sortedRecord(n.attr) })),
      ...(tf2?.library.size ? { library: libraryProto(tf2) } : {}),
      versions: { producer: options.producer ?? WRITER_GRAPH_PRODUCER },
    },
    signatureDef: sortedRecord(signatureDef),
  };
  if (saverDef) metaGraph.saverDef = saverDef;
  if (objectGraph) metaGraph.objectGraphDef = objectGraph.savedObjectGraph();
  const collections: Record<string, unknown> = {};
  if (saverDef && graph.variables.length) {
    const defs = (vs: typeof graph.variables) => ({ bytesList: { value: vs.map(encodeVariableDef) } });
    const trainable = graph.variables.filter((v) => v.trainable);
    collections.variables = defs(graph.variables);
    if (trainable.length) collections.trainable_variables = defs(trainable);
  }
  for (const [key, names] of Object.entries(options.nodeCollections ?? {})) {
    for (const n of names) if (!nodeNames.has(n)) throw invalidArgument(`collection ${key} names node ${n}, which is not in the graph`);
    collections[key] = { nodeList: { value: names } };
  }
  if (Object.keys(collections).length) metaGraph.collectionDef = sortedRecord(collections);
  if (options.assets?.length) {
    metaGraph.assetFileDef = options.assets.map((a) => {
      if (!nodeNames.has(a.tensor.name.replace(/:\d+$/, '')))
        throw invalidArgument(`asset ${a.filename} is fed to ${a.tensor.name}, which is not in the graph`);
      return { tensorInfo: tensorInfo(a.tensor), filename: a.filename };
    });
  }
  const checkpointGraph: Array<[string, HostTensor]> =
    objectGraph && options.checkpointObjectGraph !== false
      ? [[OBJECT_GRAPH_KEY, trackableObjectGraphTensor(objectGraph.trackableObjectGraph(options.checkpointObjectGraph))]]
      : [];
  const variables = [
    ...graph.variables.map((v): [string, HostTensor] => [v.name, v.value]),
    ...(tf2 ? checkpointEntries(tf2) : []),
    ...checkpointGraph,
  ].sort(([a], [b]) => compareKeys(a, b));
  return { savedModel: { savedModelSchemaVersion: 1, metaGraphs: [metaGraph] }, variables };
}

/** The checkpoint's `_CHECKPOINTABLE_OBJECT_GRAPH` entry: the serialized TrackableObjectGraph as a string scalar. */
function trackableObjectGraphTensor(graph: Record<string, unknown>): HostTensor {
  const type = protoType('tensorflow.TrackableObjectGraph');
  return { dtype: 'string', shape: [], values: [type.encode(type.fromObject(graph)).finish()] };
}

/** GraphDef.library with every node's attrs in sorted key order, as the graph's nodes. */
function libraryProto(g: Tf2GraphBuilder): Record<string, unknown> {
  const { function: functions } = g.library.toProto();
  return {
    function: functions.map((f) => ({
      ...f,
      nodeDef: f.nodeDef.map((n) => ({ ...n, attr: sortedRecord(n.attr) })),
      ret: sortedRecord(f.ret),
    })),
  };
}

function encodeSavedModelProto(savedModel: Record<string, unknown>): Uint8Array {
  const type = protoType('tensorflow.SavedModel');
  const message = type.fromObject(savedModel);
  const err = type.verify(message);
  if (err) throw internal(`SavedModel writer built an invalid proto: ${err}`);
  return type.encode(message).finish();
}

async function writeFileAtomically(file: string, bytes: Uint8Array): Promise<void> {
  const temp = `${file}.tmp${process.pid}${Math.floor(Math.random() * 1e9)}`;
  try {
    await fs.writeFile(temp, bytes);
    await fs.rename(temp, file);
  } catch (e) {
    await fs.rm(temp, { force: true });
    throw e;
  }
}

/**
 * Writes `graph` (plus its saver) with `signatures` as a SavedModel in `dir`
 * (e.g. `<base>/<version>`): variables bundle first, then saved_model.pb.
 */
export async function writeSavedModel(
  dir: string,
  graph: GraphBuilder,
  signatures: Record<string, WriterSignature>,
  options: SavedModelWriterOptions = {},
): Promise<void> {
  const { savedModel, variables } = buildSavedModel(graph, signatures, options);
  const pb = encodeSavedModelProto(savedModel);
  await fs.mkdir(dir, { recursive: true });
  if (variables.length) await writeTensorBundle(path.join(dir, VARIABLES_DIRECTORY, VARIABLES_PREFIX), variables);
  if (options.assets?.length) {
    await fs.mkdir(path.join(dir, ASSETS_DIRECTORY), { recursive: true });
    for (const a of options.assets) await fs.writeFile(path.join(dir, ASSETS_DIRECTORY, a.filename), a.contents);
  }
  await writeFileAtomically(path.join(dir, SAVED_MODEL_FILENAME), pb);
}
