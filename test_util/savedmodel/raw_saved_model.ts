// Writes a SavedModel from raw NodeDefs, with none of the writer's checks: the graphs a
// careless exporter or a hostile hand makes (cycles, wrong dtypes, zero-size windows, huge
// shapes) that saved_model_writer.ts refuses to build. Attr values are protobufjs-ready
// AttrValue objects (writer/graph_builder.ts's `attr` helpers make them).
import fs from 'node:fs/promises';
import path from 'node:path';
import { protoType } from '../../src/proto/index.js';
import type { HostTensor } from '../../src/tensor/host_tensor.js';
import { writeTensorBundle } from './tensor_bundle/tensor_bundle_writer.js';
import { shapeProto } from './writer/tensor_value.js';
import type { AttrValueInit } from './writer/graph_builder.js';

export interface RawNode {
  name: string;
  op: string;
  input?: string[];
  attr?: Record<string, AttrValueInit>;
}

export interface RawTensorInfo {
  name: string;
  /** DataType name (DT_FLOAT) or a raw enum number (999: a type TF does not know). */
  dtype: string | number;
  /** -1 for unknown dims; null for unknown rank. */
  shape: number[] | null;
}

interface RawSignature {
  inputs: Record<string, RawTensorInfo>;
  outputs: Record<string, RawTensorInfo>;
  methodName?: string;
}

export interface RawSavedModel {
  nodes: RawNode[];
  signatures: Record<string, RawSignature>;
  /** GraphDef.library.function, protobufjs-ready. */
  functions?: Array<Record<string, unknown>>;
  /** Checkpoint contents (written as variables/variables.*). */
  variables?: Array<[string, HostTensor]>;
  tags?: string[];
}

const info = (t: RawTensorInfo) => ({ name: t.name, dtype: t.dtype, tensorShape: shapeProto(t.shape) });

/** The encoded saved_model.pb of `m`. */
function encodeRawSavedModel(m: RawSavedModel): Uint8Array {
  const signatureDef = Object.fromEntries(
    Object.entries(m.signatures).map(([k, s]) => [
      k,
      {
        inputs: Object.fromEntries(Object.entries(s.inputs).map(([a, t]) => [a, info(t)])),
        outputs: Object.fromEntries(Object.entries(s.outputs).map(([a, t]) => [a, info(t)])),
        methodName: s.methodName ?? 'tensorflow/serving/predict',
      },
    ]),
  );
  const type = protoType('tensorflow.SavedModel');
  const sm = {
    savedModelSchemaVersion: 1,
    metaGraphs: [
      {
        metaInfoDef: { tags: m.tags ?? ['serve'], tensorflowVersion: '2.15.0' },
        graphDef: {
          node: m.nodes.map((n) => ({ name: n.name, op: n.op, input: n.input ?? [], attr: n.attr ?? {} })),
          ...(m.functions?.length ? { library: { function: m.functions } } : {}),
          versions: { producer: 1645 },
        },
        signatureDef,
      },
    ],
  };
  return type.encode(type.fromObject(sm)).finish();
}

/** Writes `m` as a SavedModel version folder `dir`. */
export async function writeRawSavedModel(dir: string, m: RawSavedModel): Promise<void> {
  await fs.mkdir(dir, { recursive: true });
  if (m.variables?.length) await writeTensorBundle(path.join(dir, 'variables', 'variables'), m.variables);
  await fs.writeFile(path.join(dir, 'saved_model.pb'), encodeRawSavedModel(m));
}
