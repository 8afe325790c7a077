// Reads `<version>/saved_model.pb` and picks the MetaGraphDef whose tag set equals the
// requested one (TF matches tag sets exactly: {train, serve} is not {serve}).
import fs from 'node:fs/promises';
import path from 'node:path';
import { protoType, TO_OBJECT } from '../proto/index.js';
import { Code, ServingError, dataLoss, isJsFault } from '../errors/status.js';
import * as MSG from '../errors/messages.js';
import type { GraphDef, OpDef } from './graph/types.js';
import type { TensorProtoObject, TensorShapeObject } from './tensor_proto.js';
import { readVersionFile, versionPathExists } from './version_files.js';

export interface TensorInfoObject {
  name?: string;
  cooSparse?: unknown;
  compositeTensor?: unknown;
  dtype?: string;
  tensorShape?: TensorShapeObject;
}

export interface SignatureDefObject {
  inputs?: Record<string, TensorInfoObject>;
  outputs?: Record<string, TensorInfoObject>;
  methodName?: string;
  defaults?: Record<string, TensorProtoObject>;
}

export interface MetaGraphObject {
  metaInfoDef?: { tags?: string[]; strippedOpList?: { op?: OpDef[] }; tensorflowVersion?: string };
  graphDef?: GraphDef;
  saverDef?: { filenameTensorName?: string; restoreOpName?: string; version?: string };
  collectionDef?: Record<
    string,
    {
      nodeList?: { value?: string[] };
      bytesList?: { value?: Uint8Array[] };
      anyList?: { value?: Array<{ type_url?: string; value?: Uint8Array }> };
    }
  >;
  signatureDef?: Record<string, SignatureDefObject>;
  assetFileDef?: Array<{ tensorInfo?: TensorInfoObject; filename?: string }>;
  /** TF2 exports: the objects the checkpoint's values belong to (graph/checkpoint_object_graph.ts). */
  objectGraphDef?: SavedObjectGraphObject;
}

/** An edge of an object graph (SavedObjectGraph or a checkpoint's TrackableObjectGraph). */
export interface ObjectReferenceObject {
  /** Absent for 0 (proto3 default). */
  nodeId?: number;
  localName?: string;
}

export interface SavedObjectObject {
  children?: ObjectReferenceObject[];
  userObject?: { identifier?: string };
  variable?: { dtype?: string; shape?: TensorShapeObject; name?: string };
  resource?: { device?: string };
  asset?: { assetFileDefIndex?: number };
  constant?: { operation?: string };
  function?: { concreteFunctions?: string[] };
  bareConcreteFunction?: { concreteFunctionName?: string };
  capturedTensor?: { name?: string; concreteFunction?: string };
  registeredName?: string;
}

/** tensorflow.SavedObjectGraph: nodes[0] is the root; concrete functions list the objects they capture. */
export interface SavedObjectGraphObject {
  nodes?: SavedObjectObject[];
  concreteFunctions?: Record<string, { boundInputs?: number[] }>;
}

export interface SavedModelObject {
  savedModelSchemaVersion?: number;
  metaGraphs?: MetaGraphObject[];
}

export const SAVED_MODEL_FILENAME = 'saved_model.pb';
/** What TF Serving's --prefer_tflite_model looks for in a version folder. */
const TFLITE_MODEL_FILENAME = 'model.tflite';
const isFile = (p: string) =>
  fs.stat(p).then(
    (s) => s.isFile(),
    () => false,
  );
/** Where a version's asset files live (asset_file_def names files in it). */
export const ASSETS_DIRECTORY = 'assets';

/** Protobuf's limit on one message (and so on saved_model.pb): 2 GiB - 1 bytes. */
const MAX_PROTO_BYTES = 2 ** 31 - 1;

/**
 * Decodes saved_model.pb; NOT_FOUND when the folder has none, the read's own error when it
 * cannot be read (a directory, a FIFO, a link out of the folder: see version_files.ts), and
 * DATA_LOSS naming the file when it is too large, truncated or not a SavedModel.
 */
export async function readSavedModelProto(dir: string): Promise<SavedModelObject> {
  const file = path.join(dir, SAVED_MODEL_FILENAME);
  if (!(await versionPathExists(file))) {
    // TF Serving with --prefer_tflite_model serves such a folder; tfgate has no TFLite engine.
    if (await isFile(path.join(dir, TFLITE_MODEL_FILENAME))) {
      throw new ServingError(
        Code.UNIMPLEMENTED,
        `${dir} holds a TensorFlow Lite model (${TFLITE_MODEL_FILENAME}) and no ${SAVED_MODEL_FILENAME}: tfgate does not run TensorFlow Lite models`,
      );
    }
    throw new ServingError(Code.NOT_FOUND, MSG.savedModelNotFound(dir));
  }
  const bytes = await readVersionFile(dir, file, {
    maxBytes: MAX_PROTO_BYTES,
    tooLarge: (size) =>
      dataLoss(`${MSG.cantParseBinaryProto(file)}: it is ${size} bytes, over protobuf's limit of ${MAX_PROTO_BYTES} bytes for one message`),
  });
  try {
    const type = protoType('tensorflow.SavedModel');
    const sm = type.toObject(type.decode(bytes), TO_OBJECT) as SavedModelObject;
    if (!sm.metaGraphs?.length) throw new Error('it holds no MetaGraphDef');
    return sm;
  } catch (e) {
    // Corrupt bytes can trip protobufjs itself (a TypeError reading a field of null, a RangeError
    // reading past the end of a truncated file): TF's words then, not JS's.
    if (isJsFault(e)) throw dataLoss(MSG.cantParseBinaryProto(file));
    throw dataLoss(`Could not parse ${file} as a SavedModel: ${(e as Error).message}`);
  }
}

function tagKey(tags: readonly string[]): string {
  return [...new Set(tags)].sort().join(',');
}

export function selectMetaGraph(sm: SavedModelObject, tags: readonly string[]): MetaGraphObject {
  const want = tagKey(tags);
  const found = sm.metaGraphs?.find((mg) => tagKey(mg.metaInfoDef?.tags ?? []) === want);
  if (!found) {
    const available = (sm.metaGraphs ?? []).map((mg) => `{ ${(mg.metaInfoDef?.tags ?? []).join(' ')} }`).join(', ');
    throw new ServingError(Code.NOT_FOUND, `${MSG.metaGraphNotFound(tags)} (available: ${available})`);
  }
  return found;
}

export async function readMetaGraph(dir: string, tags: readonly string[]): Promise<MetaGraphObject> {
  return selectMetaGraph(await readSavedModelProto(dir), tags);
}
