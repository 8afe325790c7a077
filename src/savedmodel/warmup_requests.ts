// TF Serving's model warmup records: assets.extra/tf_serving_warmup_requests in a version
// folder, a TFRecord file of PredictionLog protos (predict, classify, regress or
// multi_inference), at most 1000 records, replayed before the version serves.
// Each record becomes one or more signature runs (multi_inference: one per task).
import fs from 'node:fs/promises';
import path from 'node:path';
import { Code, ServingError, invalidArgument } from '../errors/status.js';
import { protoType, TO_OBJECT } from '../proto/index.js';
import type { HostTensor } from '../tensor/host_tensor.js';
import { hostTensorFromProto, type TensorProtoObject } from './tensor_proto.js';
import { readTfRecords } from './tfrecord.js';

export const WARMUP_FILE = path.join('assets.extra', 'tf_serving_warmup_requests');
/** TF Serving's kMaxNumRecords. */
const MAX_WARMUP_RECORDS = 1000;
const DEFAULT_SIGNATURE = 'serving_default';

export interface WarmupRun {
  signature: string;
  inputs: Record<string, HostTensor>;
  outputKeys: string[];
}

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** Input (example_list / example_list_with_context) → one serialized tf.Example per example. */
function serializedExamples(input: Obj | undefined): HostTensor {
  const Example = protoType('tensorflow.Example');
  const list = input?.exampleList ?? input?.exampleListWithContext;
  if (!list) throw invalidArgument('Input is empty');
  const context = input?.exampleListWithContext?.context?.features?.feature ?? {};
  const values = ((list.examples ?? []) as Obj[]).map((e) => Example.encode(Example.fromObject({ features: { feature: { ...context, ...(e.features?.feature ?? {}) } } })).finish());
  return { dtype: 'string', shape: [values.length], values };
}

function runsOf(log: Obj): WarmupRun[] {
  const examples = (request: Obj): WarmupRun => ({ signature: request.modelSpec?.signatureName || DEFAULT_SIGNATURE, inputs: { inputs: serializedExamples(request.input) }, outputKeys: [] });
  if (log.predictLog) {
    const r = log.predictLog.request ?? {};
    const inputs = Object.fromEntries(Object.entries((r.inputs ?? {}) as Record<string, TensorProtoObject>).map(([k, t]) => [k, hostTensorFromProto(t, `input '${k}'`)]));
    return [{ signature: r.modelSpec?.signatureName || DEFAULT_SIGNATURE, inputs, outputKeys: r.outputFilter ?? [] }];
  }
  if (log.classifyLog) return [examples(log.classifyLog.request ?? {})];
  if (log.regressLog) return [examples(log.regressLog.request ?? {})];
  if (log.multiInferenceLog) {
    const r = log.multiInferenceLog.request ?? {};
    return ((r.tasks ?? []) as Obj[]).map((t) => examples({ modelSpec: t.modelSpec, input: r.input }));
  }
  throw invalidArgument(`Unsupported log_type for warmup: ${log.logType ?? 'none'}`);
}

/** The warmup runs of a version folder, or undefined when it has no warmup file. */
export async function readWarmupRuns(versionDir: string): Promise<WarmupRun[][] | undefined> {
  const file = path.join(versionDir, WARMUP_FILE);
  let bytes: Buffer;
  try {
    bytes = await fs.readFile(file);
  } catch {
    return undefined;
  }
  const records = readTfRecords(bytes, file, MAX_WARMUP_RECORDS + 1);
  if (records.length > MAX_WARMUP_RECORDS) throw invalidArgument(`Number of warmup records exceeds the maximum (${MAX_WARMUP_RECORDS}) at ${file}`);
  const PredictionLog = protoType('tensorflow.serving.PredictionLog');
  return records.map((rec, i) => {
    try {
      return runsOf(PredictionLog.toObject(PredictionLog.decode(rec), TO_OBJECT));
    } catch (e) {
      const code = e instanceof ServingError ? e.code : Code.INVALID_ARGUMENT;
      throw new ServingError(code, `${file}: warmup record ${i}: ${(e as Error).message}`);
    }
  });
}
