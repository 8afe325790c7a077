// Writes a TF1-style SavedModel folder TensorFlow can load: saved_model.pb (one MetaGraphDef
// tagged `serve`, the GraphDef, a sharded V2 SaverDef and the SignatureDefs) and the
// variables bundle that the saver's restore graph reads.
import fs from 'node:fs/promises';
import path from 'node:path';
import { protoType } from '../proto/index.js';
import { writeTensorBundle } from './tensor_bundle/index.js';
import { addSaver, type GraphBuilder } from './writer/graph_builder.js';
import { strippedOpList } from './writer/op_defs.js';
import { SAVED_MODEL_FILENAME } from './saved_model_reader.js';

export interface WriterTensorInfo {
  name: string;
  dtype: string;
  shape: number[] | null;
}

export interface WriterSignature {
  methodName?: string;
  inputs: Record<string, WriterTensorInfo>;
  outputs: Record<string, WriterTensorInfo>;
}

const tensorInfo = (t: WriterTensorInfo) => ({
  name: t.name,
  dtype: t.dtype,
  tensorShape: t.shape === null ? { unknownRank: true } : { dim: t.shape.map((size) => ({ size })) },
});

/** TF's graph producer version of the era this layout follows (TF 1.15 writes 134). */
const GRAPH_PRODUCER = 134;

export async function writeSavedModel(dir: string, graph: GraphBuilder, signatures: Record<string, WriterSignature>, tags = ['serve']): Promise<void> {
  const saverDef = addSaver(graph);
  const savedModel = {
    savedModelSchemaVersion: 1,
    metaGraphs: [
      {
        metaInfoDef: {
          metaGraphVersion: 'v1.15.0',
          strippedOpList: strippedOpList(graph.nodes.map((n) => n.op)),
          tags,
          tensorflowVersion: '1.15.0',
          tensorflowGitVersion: 'tfgate',
        },
        graphDef: { node: graph.nodes, versions: { producer: GRAPH_PRODUCER } },
        saverDef,
        signatureDef: Object.fromEntries(
          Object.entries(signatures).map(([key, s]) => [
            key,
            {
              inputs: Object.fromEntries(Object.entries(s.inputs).map(([k, t]) => [k, tensorInfo(t)])),
              outputs: Object.fromEntries(Object.entries(s.outputs).map(([k, t]) => [k, tensorInfo(t)])),
              methodName: s.methodName ?? 'tensorflow/serving/predict',
            },
          ]),
        ),
      },
    ],
  };
  const type = protoType('tensorflow.SavedModel');
  const err = type.verify(type.fromObject(savedModel));
  if (err) throw new Error(`SavedModel writer built an invalid proto: ${err}`);
  await fs.mkdir(path.join(dir, 'variables'), { recursive: true });
  await fs.writeFile(path.join(dir, SAVED_MODEL_FILENAME), type.encode(type.fromObject(savedModel)).finish());
  await writeTensorBundle(
    path.join(dir, 'variables', 'variables'),
    graph.variables.map((v) => [v.name, v.value]),
  );
}
