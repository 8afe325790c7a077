// A version folder holding the TF.js converter's output (model.json + weight shards).
// Its signature comes from model.json (`signature`, or `userDefinedMetadata.signature` in
// older converters); without one, placeholders are the inputs and unconsumed nodes the outputs.
import { readVersionFile, versionInventory } from '../../savedmodel/version_files.js';
import path from 'node:path';
import type * as tf from '@tensorflow/tfjs-core';
import tfjsConverter from '../tfjs_packages/tfjs_converter.cjs';
import { dataLoss, invalidArgument } from '../../errors/status.js';
import { signatureSpec } from '../../savedmodel/signature_spec.js';
import type { SignatureDefObject } from '../../savedmodel/saved_model_reader.js';
import type { AttrValue, NodeDef } from '../../savedmodel/graph/types.js';
import { checkBackendCanRun, checkSignatureDtypes } from './backend_op_check.js';
import { complexOutputType } from './ops/spectral/index.js';
import { TfjsServable } from './tfjs_servable.js';
import { TFJS_MODEL_JSON } from '../shared/tfjs_artifacts.js';

const DEFAULT_SIGNATURE_KEY = 'serving_default';

interface ModelJson {
  modelTopology?: { node?: NodeDef[] };
  weightsManifest?: Array<{ paths: string[]; weights: tf.io.WeightsManifestEntry[] }>;
  signature?: SignatureDefObject;
  userDefinedMetadata?: { signature?: SignatureDefObject };
}

function inferSignature(nodes: NodeDef[]): SignatureDefObject {
  const consumed = new Set(nodes.flatMap((n) => (n.input ?? []).map((i) => i.replace(/^\^/, '').split(':')[0])));
  const info = (n: NodeDef) => ({
    name: `${n.name}:0`,
    dtype: complexOutputType(n) ?? (n.attr?.dtype?.type as string | undefined) ?? (n.attr?.T?.type as string | undefined) ?? 'DT_FLOAT',
  });
  return {
    methodName: 'tensorflow/serving/predict',
    inputs: Object.fromEntries(nodes.filter((n) => n.op === 'Placeholder').map((n) => [n.name, info(n)])),
    outputs: Object.fromEntries(
      nodes.filter((n) => !consumed.has(n.name) && !['Const', 'NoOp', 'Placeholder'].includes(n.op)).map((n) => [n.name, info(n)]),
    ),
  };
}

/** A model.json node with its string attributes decoded from base64, as NodeDef holds them. */
function nodeDefFromJson(node: NodeDef): NodeDef {
  const bytes = (v: unknown) => (typeof v === 'string' ? new Uint8Array(Buffer.from(v, 'base64')) : (v as Uint8Array));
  const attr = Object.fromEntries(
    Object.entries(node.attr ?? {}).map(([k, a]) => {
      const out: AttrValue = { ...a };
      if (a.s !== undefined) out.s = bytes(a.s);
      if (a.list?.s) out.list = { ...a.list, s: a.list.s.map(bytes) };
      return [k, out];
    }),
  );
  return { ...node, attr };
}

export async function loadTfjsGraphModelDir(dir: string, backend: string): Promise<TfjsServable> {
  const file = path.join(dir, TFJS_MODEL_JSON);
  await versionInventory(dir);
  const bytes = await readVersionFile(dir, file);
  let json: ModelJson;
  try {
    json = JSON.parse(bytes.toString('utf8')) as ModelJson;
  } catch (e) {
    throw dataLoss(`Could not parse ${file}: ${(e as Error).message}`);
  }
  const nodes = json.modelTopology?.node;
  if (!nodes) throw invalidArgument(`${file} is not a TF.js graph model (no modelTopology.node)`);
  checkBackendCanRun(nodes.map(nodeDefFromJson), backend, DEFAULT_SIGNATURE_KEY);
  const def = json.signature ?? json.userDefinedMetadata?.signature ?? inferSignature(nodes);
  const spec = signatureSpec(DEFAULT_SIGNATURE_KEY, { methodName: 'tensorflow/serving/predict', ...def });
  checkSignatureDtypes(spec);
  const weightSpecs: tf.io.WeightsManifestEntry[] = [];
  const buffers: Buffer[] = [];
  for (const group of json.weightsManifest ?? []) {
    weightSpecs.push(...group.weights);
    for (const p of group.paths) {
      const shard = path.join(dir, p);
      buffers.push(
        await readVersionFile(dir, shard).catch((e: unknown) =>
          Promise.reject(dataLoss(`weight file ${shard} listed in ${file} cannot be read: ${(e as Error).message}`)),
        ),
      );
    }
  }
  const data = Buffer.concat(buffers);
  let model;
  try {
    model = tfjsConverter.loadGraphModelSync({
      modelTopology: json.modelTopology,
      weightSpecs,
      weightData: data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength),
    });
  } catch (e) {
    throw dataLoss(`${file}: ${(e as Error).message}`);
  }
  const strip = (name: string) => name.replace(/:0$/, '');
  const computed = nodes.filter((n) => n.op !== 'Const' && n.op !== 'Placeholder');
  return new TfjsServable(
    backend,
    new Map([
      [
        DEFAULT_SIGNATURE_KEY,
        {
          spec,
          model,
          compiled: null, // the converter's own graphs stay on its GraphModel
          inputs: Object.fromEntries(Object.entries(spec.inputs).map(([k, v]) => [k, strip(v.name)])),
          outputs: Object.fromEntries(Object.entries(spec.outputs).map(([k, v]) => [k, v.name.includes(':') ? v.name : `${v.name}:0`])),
          nodeNames: computed.map((n) => n.name),
          nodeOps: computed.map((n) => n.op),
        },
      ],
    ]),
    new Map(),
    { [DEFAULT_SIGNATURE_KEY]: { methodName: 'tensorflow/serving/predict', ...def } },
  );
}
